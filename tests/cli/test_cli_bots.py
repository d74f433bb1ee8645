"""``pmim bots ladder``, ``pmim report robustness`` and ``pmim calibrate`` as a user runs them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from pmim_analytics.botlab.calibrate import calibrate, roster_from_units
from pmim_analytics.botlab.ladder import games_frame, ladder_plan, play_ladder
from pmim_analytics.cli import app
from pmim_analytics.engine.bots import bot_names
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.store.ingest import ingest_paths
from pmim_analytics.store.ladder import read_manual_games
from tests.conftest import ARMIES, DATA
from tests.support.cli import pmim_in_process

runner = CliRunner()


def pmim(*args: str) -> subprocess.CompletedProcess[str]:
    """The command run in this process (:mod:`tests.support.cli`): what it prints, stores and exits
    with is the point here; Ctrl-C below runs a real process."""
    return pmim_in_process(*args)


@pytest.mark.parametrize("args, says", [
    (["bots", "ladder", "--bots", "random,nosuch"], "unknown bot 'nosuch'"),
    (["bots", "ladder", "--bots", "random"], "at least two bots"),
    (["bots", "ladder", "--bots", "random,greedy,random"], "more than once"),
    (["bots", "ladder", "--games-per-pairing", "0", "--bots", "random,greedy"], "at least 1"),
    (["bots", "ladder", "--rules", "v1", "--bots", "random,greedy"], "no army in data/armies is legal under v1"),
    (["bots", "ladder", "--rules", "v9", "--bots", "random,greedy"], "v9"),
    (["bots", "ladder", "--bots", "random,greedy", "--army", "data/armies/nope.yaml"], "nope.yaml"),
    (["bots", "ladder", "--rules", "v1", "--bots", "random,greedy", "--army", str(ARMIES / "v3-balanced.yaml")],
     "not legal under v1"),
    (["calibrate", "--bots", "tacticain"], "unknown bot 'tacticain'"),
    (["calibrate", "--bots", "random,greedy"], "no database"),
    (["report", "robustness"], "no database"),
])
def test_bad_input_is_one_sentence_and_exit_2(args: list[str], says: str, tmp_path: Path) -> None:
    r = pmim(*args, "--db", str(tmp_path / "x.duckdb"))
    assert r.returncode == 2, r.stderr
    assert says in r.stderr and "Traceback" not in r.stderr
    assert len([x for x in r.stderr.splitlines() if x.strip()]) == 1
    assert not (tmp_path / "x.duckdb").exists()


@pytest.mark.skipif("search" not in bot_names(), reason="the search bot is not on this branch yet")
@pytest.mark.parametrize("spec", ["search:budget=-5", "search:budget=lots", "search:budgett=400",
                                  "search:skill=1.5", "tactician:skill=much"])
def test_a_bad_search_spec_is_one_sentence_and_exit_2(spec: str, tmp_path: Path) -> None:
    r = pmim("bots", "ladder", "--bots", f"random,{spec}", "--db", str(tmp_path / "x.duckdb"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len([x for x in r.stderr.splitlines() if x.strip()]) == 1
    assert not (tmp_path / "x.duckdb").exists()


def test_help_has_examples() -> None:
    for cmd in (["bots", "ladder"], ["report", "robustness"], ["calibrate"]):
        r = runner.invoke(app, [*cmd, "--help"], env={"COLUMNS": "200"})
        assert r.exit_code == 0 and "pmim " + " ".join(cmd) in r.output


def test_ladder_rates_stores_and_replaces_a_run(tmp_path: Path) -> None:
    db = tmp_path / "l.duckdb"
    args = ["bots", "ladder", "--rules", "v2-heavy-def6", "--bots", "random,greedy", "--games-per-pairing", "1",
            "--workers", "1", "--bootstrap", "20", "--db", str(db)]
    r = pmim(*args)
    assert r.returncode == 0, r.stderr
    assert "32 games" in r.stderr  # 4 armies: 16 (army, army) configurations, each bot blue once, red once
    with duckdb.connect(str(db), read_only=True) as con:
        runs = con.sql("SELECT run_id, games, bots FROM ladder_runs").fetchall()
        ratings = con.sql("SELECT bot, rating, games, adherence FROM ladder_ratings ORDER BY rating DESC").fetchall()
        n = con.sql("SELECT count(*) FROM ladder_games").fetchall()[0][0]
    assert len(runs) == 1 and runs[0][1] == 32 and runs[0][2] == "random,greedy"
    assert [x[0] for x in ratings] == ["greedy", "random"] and ratings[1][1] == 0.0
    assert all(x[2] == 32 for x in ratings) and n == 32
    assert 0 <= ratings[0][3] <= 1
    assert runs[0][0] in r.stdout
    r = pmim(*args)  # the same plan again replaces the run
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT count(*) FROM ladder_games").fetchall()[0][0] == 32


def test_ladder_games_do_not_depend_on_the_number_of_workers() -> None:
    plan = ladder_plan("v2-heavy-def6", "random,greedy", 1, seed=5)
    cols = ["batch", "game_index", "blue_bot", "red_bot", "blue_army", "red_army", "winner", "rounds", "blue_vp",
            "red_vp"]
    one = games_frame(play_ladder(plan, workers=1)).select(cols)
    two = games_frame(play_ladder(plan, workers=2)).select(cols)
    assert one.equals(two) and one.height == plan.games == 32
    # every army meets every army with each bot, each bot as blue and as red
    configs = one.group_by("blue_bot", "blue_army", "red_army").len()
    assert configs.height == 32 and configs["len"].to_list() == [1] * 32


def test_ctrl_c_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "l.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "pmim_analytics", "bots", "ladder", "--rules", "v3", "--bots",
                             "random,greedy,tactician", "--games-per-pairing", "20", "--workers", "2",
                             "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the plan is printed before the games start
    assert "games" in first, first
    time.sleep(2)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    if db.exists():
        with duckdb.connect(str(db), read_only=True) as con:
            assert con.sql("SELECT count(*) FROM ladder_runs").fetchall()[0][0] == 0


@pytest.fixture(scope="module")
def playtest_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("cal") / "cal.duckdb"
    logs = DATA / "playtests"
    result = ingest_paths([logs / "playtest-1.pmimlog", logs / "sample-detailed-v3.pmimlog"], db)
    assert result.ok
    return db


def test_rosters_rebuilt_from_the_database_are_the_logged_armies(playtest_db: Path) -> None:
    games, units = read_manual_games(playtest_db)
    g = games.filter(pl.col("file").str.ends_with("playtest-1.pmimlog")).row(0, named=True)
    blue = roster_from_units(units.filter(pl.col("game_id") == g["game_id"]), "blue", g["blue"], "v2", g["scenario"])
    army = validate_army(load_army(ARMIES / "v2-playtest-balanced.yaml"), "v2")
    assert blue.content_hash() == army.content_hash() and blue.points == army.points


def test_calibration_forecasts_scores_and_agreement(playtest_db: Path) -> None:
    report = calibrate(["random", "greedy"], games=4, seed=1, db=playtest_db)
    f = report.forecasts
    assert f.height == 4 and set(f["bot"]) == {"random", "greedy"}
    # playtest 1: the designer (blue) won; the sample detailed log: red won
    outcomes = dict(zip(report.per_game["game_id"], report.per_game["result"], strict=True))
    assert sorted(v.split()[0] for v in outcomes.values()) == ["blue", "red"]
    # playtest 1's 11-7 is reconstructed, and says so
    assert "blue won 11-7 (estimated)" in outcomes.values()
    for r in report.scores.iter_rows(named=True):
        mine = f.filter(pl.col("bot") == r["bot"])
        assert r["brier"] == pytest.approx(((mine["p"] - mine["outcome"]) ** 2).mean())
        # forecasts from 4 games are (wins + draws/2 + 1) / 6: never 0 or 1
        assert all(0 < p < 1 for p in mine["p"])
        assert r["moves"] > 0 and 0 <= r["moves_agreed"] <= r["moves"] and r["targets"] > 0
    assert "2 logged games" in report.caveat


def test_calibrate_command_on_an_empty_selection(playtest_db: Path) -> None:
    r = pmim("calibrate", "--only", "nothing-matches", "--bots", "random,greedy", "--games", "2", "--db",
             str(playtest_db))
    assert r.returncode == 0 and "no manual games" in r.stdout


def test_robustness_command_reads_same_bot_games(small_demo_db: Path) -> None:
    r = pmim("report", "robustness", "--db", str(small_demo_db), "--min-games", "2", "--all")
    assert r.returncode == 0, r.stderr
    assert "tactician" in r.stdout and "Matchups by bot level" in r.stdout
