"""``pmim ingest`` and ``pmim db info|check|migrate`` as a user runs them."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pmim_analytics.cli import app
from pmim_analytics.store.info import db_info
from pmim_analytics.store.migrate import latest_version
from tests.store.conftest import write_games
from tests.support.games import short_game, wipeout_game

runner = CliRunner()


def test_ingest_prints_a_summary_and_exits_0(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path / "in", [short_game(), wipeout_game()])
    result = runner.invoke(app, ["ingest", "--trust-own", str(tmp_path / "in"), "--db", str(db), "-q"])
    assert result.exit_code == 0, result.output
    assert "loaded 2 games (47 events), skipped 0 duplicates, rejected 0" in result.stdout
    again = runner.invoke(app, ["ingest", "--trust-own", str(tmp_path / "in"), "--db", str(db), "-q"])
    assert again.exit_code == 0 and "loaded 0 games" in again.stdout and "skipped 2 duplicates" in again.stdout


def test_ingest_with_rejections_names_them_on_stderr_and_exits_1(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path, [short_game()])
    (tmp_path / "broken.jsonl").write_text('{"format": "pmim-replay"\n', encoding="utf-8")
    result = runner.invoke(app, ["ingest", "--trust-own", str(tmp_path), "--db", str(db), "-q"])
    assert result.exit_code == 1
    assert "rejected 1" in result.stdout
    assert "broken.jsonl, line 1" in result.stderr and "invalid JSON" in result.stderr
    assert '{"format": "pmim-replay"' in result.stderr  # the raw text


def test_ingest_of_a_path_that_does_not_exist_exits_2(db: Path) -> None:
    result = runner.invoke(app, ["ingest", "--trust-own", "no/such/folder", "--db", str(db)])
    assert result.exit_code == 2
    assert "no such file or folder" in result.stderr and "Traceback" not in result.output


def test_db_path_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "env.duckdb"
    monkeypatch.setenv("PMIM_DB", str(target))
    write_games(tmp_path / "in", [short_game()])
    assert runner.invoke(app, ["ingest", "--trust-own", str(tmp_path / "in"), "-q"]).exit_code == 0
    assert target.exists()


def test_db_info_shows_version_size_and_counts(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path / "in", [short_game(), wipeout_game()])
    runner.invoke(app, ["ingest", "--trust-own", str(tmp_path / "in"), "--db", str(db), "-q"])
    result = runner.invoke(app, ["db", "info", "--db", str(db)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"schema version {latest_version()}" in out
    assert "games          2 (47 events)" in out and "MB" in out
    assert "engine" in out and "v2" in out and "v3" in out


def test_db_info_without_a_database_says_how_to_make_one(db: Path) -> None:
    result = runner.invoke(app, ["db", "info", "--db", str(db)])
    assert result.exit_code == 2
    assert "no database here yet" in result.stderr and "pmim ingest" in result.stderr


def test_db_check_passes_then_finds_tampering(tmp_path: Path, db: Path) -> None:
    write_games(tmp_path / "in", [short_game(), wipeout_game()])
    runner.invoke(app, ["ingest", "--trust-own", str(tmp_path / "in"), "--db", str(db), "-q"])
    ok = runner.invoke(app, ["db", "check", "--db", str(db)])
    assert ok.exit_code == 0 and "ok: 2 games and 47 events check out" in ok.stdout
    con = duckdb.connect(str(db))
    con.execute("UPDATE unit_game_stats SET kills = kills + 1 WHERE unit_id = 'B:TW1'")
    con.execute("DELETE FROM units WHERE unit_id = 'R:OD1'")
    con.execute("DELETE FROM games WHERE game_id = ?", [short_game().header.game_id])
    con.close()
    bad = runner.invoke(app, ["db", "check", "--db", str(db)])
    assert bad.exit_code == 1
    for finding in ("events of a game that does not exist", "events naming a unit not in the game's roster",
                    "aggregates that differ from the events", "sides whose unit count differs"):
        assert finding in bad.stdout, bad.stdout


def test_db_migrate_creates_an_empty_database(db: Path) -> None:
    result = runner.invoke(app, ["db", "migrate", "--db", str(db)])
    assert result.exit_code == 0, result.output
    info = db_info(db)  # the data: the file exists at the latest schema and holds no games
    assert info.schema_version == latest_version() and info.games == 0
    # the message names the version, however a terminal would lay the line out
    assert " ".join(result.stdout.split()).endswith(f"schema version {latest_version()}")
