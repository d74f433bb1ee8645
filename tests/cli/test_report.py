"""``pmim report``, ``pmim dice`` and ``pmim export`` as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pmim_analytics.analytics.frames import Frames
from pmim_analytics.cli import app
from tests.store.test_readers import mixed_games
from tests.support.dbhelper import create_db
from tests.support.gamebuilder import frames_of

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_db(tmp_path_factory.mktemp("cli") / "pmim.duckdb", frames_of(mixed_games()))


def run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    return r.exit_code, r.output


@pytest.mark.parametrize("command,expect", [
    (["units", "--rules", "v3"], "Timber Wolf"),
    (["units", "--loadout", "--source", "engine"], "GG ML"),
    (["survival", "--rules", "v3"], "Tyrant"),
    (["weapons", "--by", "type"], "GG"),
    (["weapons"], "rows tested, p per row"),
    (["compositions", "--min-games", "1"], "Wolf"),
    (["compositions"], "compositions with fewer than 10 games left out"),
    (["matchups", "--rules", "v3", "--min-games", "1"], "row's score against column"),
    (["matchups", "--long", "--min-games", "1"], "against"),
    (["impact", "--rules", "v3,v3-llaser-rpt4"], "Rules changes v3 → v3-llaser-rpt4"),
    (["costs"], "too few games to price units"),
    (["luck", "--games"], "Luck per game and side"),
    (["quality"], "How games end"),
])
def test_every_report_runs(db: Path, command: list[str], expect: str) -> None:
    code, output = run("report", *command, "--db", str(db))
    assert code == 0, output
    assert expect in output


def test_impact_needs_two_rules_ids(db: Path) -> None:
    code, output = run("report", "impact", "--rules", "v3", "--db", str(db))
    assert code == 2 and "exactly two rules ids" in output


def test_dice_needs_no_database() -> None:
    code, output = run("dice", "--rules", "v3", "--target", "Paladin", "--exact")
    assert code == 0 and "against Paladin" in output and "548/39" in output  # H. Particle Beam, exactly
    code, output = run("dice", "--rules", "v3", "--weapon", "Gauss Gun")
    assert code == 0 and "Timber Wolf" in output


def test_export_writes_the_report(db: Path, tmp_path: Path) -> None:
    # the PNG figures (a browser drawing them) are checked in tests/report/test_export_notes.py
    code, output = run("export", "--rules", "v3,v3-llaser-rpt4", "--out", str(tmp_path / "notes"), "--no-png",
                       "--db", str(db))
    assert code == 0, output
    assert (tmp_path / "notes" / "report.md").exists() and "wrote" in output


def test_a_missing_database_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "pmim_analytics", "report", "units", "--db",
                        str(tmp_path / "none.duckdb")], capture_output=True, text=True)
    assert r.returncode == 2
    assert "no database at" in r.stderr and "pmim ingest" in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""


def test_an_empty_database_is_a_message_not_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = create_db(tmp_path / "empty.duckdb", Frames.of())
    monkeypatch.setenv("PMIM_DB", str(path))  # the default path follows PMIM_DB
    code, output = run("report", "compositions")
    assert code == 0 and "has no games yet" in output
    code, output = run("export", "--out", str(tmp_path / "notes"))
    assert code == 0 and not (tmp_path / "notes").exists()


def test_a_bad_source_is_a_usage_error(db: Path) -> None:
    code, output = run("report", "units", "--source", "robots", "--db", str(db))
    assert code == 2 and "engine or manual" in output


def test_matchups_say_when_every_cell_is_under_the_minimum(db: Path) -> None:
    r = runner.invoke(app, ["report", "matchups", "--db", str(db), "--min-games", "50"], env={"COLUMNS": "200"})
    assert r.exit_code == 1
    assert "fewer than 50 games" in r.output and "--min-games" in r.output


def test_matchup_cells_show_n_and_interval_and_diffs_flag_saturation(db: Path) -> None:
    code, output = run("report", "matchups", "--db", str(db), "--min-games", "1", "--rules", "v3")
    assert code == 0 and "67% [30–90] n=6" in output and "33% [10–70] n=6" in output  # scores, draws half: add to 100%
    code, output = run("report", "matchups", "--db", str(db), "--min-games", "1", "--diff", "v3,v3-llaser-rpt4")
    assert code == 0 and "saturated" in output and "6 / 1" in output
