"""Calibration from a panel of players (``pmim calibrate --panel``, issue #29)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from pmim_analytics.botlab.panel import (
    POST_READINGS,
    Member,
    _game_sentences,
    army_file_for,
    default_panel,
    misplay_words,
    panel_caveat,
    roster_under,
    run_panel,
    with_skill,
    zero_of_n_upper,
)
from pmim_analytics.engine.bots.skill import SkillCounter
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.rules.readings import AS_WRITTEN
from pmim_analytics.store.ingest import ingest_paths
from tests.conftest import ARMIES, DATA


@pytest.fixture(scope="module")
def playtests_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("panel") / "pt.duckdb"
    logs = DATA / "playtests"
    assert ingest_paths([logs / "playtest-1.pmimlog", logs / "playtest-2.pmimlog"], db).ok
    return db


def test_members_and_their_bot_specs() -> None:
    panel = default_panel()
    assert len(panel) == 10 and len({(m.skills, m.readings) for m in panel}) == 10
    assert with_skill("search", 1.0) == "search" and with_skill("search", 0.75) == "search:skill=0.75"
    assert with_skill("search:budget=400", 0.5) == "search:budget=400,skill=0.5"
    assert Member("M", (1.0, 0.75), AS_WRITTEN).bot_specs("tactician") == ("tactician", "tactician:skill=0.75")


def test_the_weapons_reading_swaps_the_uncertain_weapons_of_the_logged_list() -> None:
    logged = validate_army(load_army(ARMIES / "v2-playtest-balanced.yaml"), "v2")
    army = army_file_for(logged, "v2")
    assert army is not None and army.name.startswith("Balanced")
    alt = roster_under(logged, army, "alt1", "take-and-hold")
    assert sorted(u.weapons for u in alt.units if u.code in ("TY", "GE")) == [("HAC",), ("HPB",), ("LPB",), ("MG",),
                                                                              ("SC",)]
    assert roster_under(logged, army, None, "take-and-hold") is logged
    heavy = validate_army(load_army(ARMIES / "v2-playtest1-heavy.yaml"), "v2")
    assert roster_under(heavy, army_file_for(heavy, "v2"), "alt1", "take-and-hold") is heavy  # nothing uncertain


def test_a_panel_scores_each_member_by_the_likelihood_of_the_logged_results(playtests_db: Path) -> None:
    members = (Member("A", (1.0, 1.0), AS_WRITTEN), Member("B", (1.0, 0.5), POST_READINGS))
    report = run_panel("greedy", members, games=4, seed=3, db=playtests_db, rate_games=2)
    f = report.forecasts
    assert f.height == 4 and set(f["label"]) == {"playtest-1", "playtest-2"}
    assert set(zip(f["label"], f["observed"], strict=True)) == {("playtest-1", "blue"), ("playtest-2", "red")}
    for r in report.per_member.iter_rows(named=True):
        mine = f.filter(pl.col("member") == r["member"])
        assert r["log10_likelihood"] == pytest.approx(sum(math.log10(p) for p in mine["p"]))
        assert all(0 < p < 1 for p in mine["p"])
    assert report.best is not None
    assert report.per_member.filter(pl.col("member") == report.best.name)["relative"][0] == pytest.approx(1.0)
    assert len(report.sentences) == 2
    assert report.sentences[0].startswith("playtest-1: Balanced") and "of 4 games if" in report.sentences[0]
    for sentence, label in zip(report.sentences, ("playtest-1", "playtest-2"), strict=True):
        top = f.filter(pl.col("label") == label).sort("p", descending=True, maintain_order=True)["member"][0]
        assert f"({top}, the likeliest member" in sentence
        assert ("plays at skill 0.5" in sentence) == (top == "B")
    assert "2 logged games" in report.caveat and "4 simulated games" in report.caveat


def test_a_result_every_member_rules_out_is_a_question_for_the_designer() -> None:
    members = (Member("A", (1.0, 1.0), AS_WRITTEN), Member("B", (1.0, 1.0), POST_READINGS))
    rows = [{"member": m, "game_id": "g", "label": "pt", "blue": "Bal", "red": "Hvy", "observed": "blue", "k": 0,
             "n": 100, "p": 1 / 102, "lo": 0.0, "hi": zero_of_n_upper(100), "share_blue": 0.0} for m in "AB"]
    said = _game_sentences(members, pl.DataFrame(rows), lambda *_: "skill 1")
    assert zero_of_n_upper(100) < 0.05 and "a question for the designer" in said[0]
    rows[1].update(k=3, hi=0.08, p=4 / 102)
    said = _game_sentences(members, pl.DataFrame(rows), lambda *_: "skill 1")
    assert "No member rules it out" in said[0] and said[0].startswith("pt: Bal wins 3%")


def test_words_for_skill_and_the_caveat() -> None:
    # misplays (departures costing at least MISPLAY VP), not departures, make the words
    assert misplay_words(SkillCounter(activations=40, departures=30, misplays=10), 0.75) == (
        "skill 0.75, misplaying about 1 activation in 4")
    assert misplay_words(SkillCounter(activations=40, departures=35, misplays=30), 0.5) == (
        "skill 0.5, misplaying about 8 activations in 10")
    assert "no misplay" in misplay_words(SkillCounter(activations=40, departures=12, misplays=0), 0.9)
    need = next(k for k in range(2, 1000) if zero_of_n_upper(k) < 0.05)
    assert f"at least {need} games" in panel_caveat(2, 40)


def test_panel_wants_one_bot() -> None:
    r = subprocess.run([sys.executable, "-m", "pmim_analytics", "calibrate", "--panel", "--bots", "greedy,search",
                        "--db", "nowhere.duckdb"], capture_output=True, text=True)
    assert r.returncode == 2 and "give one bot" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, says", [
    ([], "per logged game and panel member"),  # the panel is the default
    (["--bots", "tactician"], "per logged game and panel member"),  # one bot: its panel
    (["--bots", "greedy,tactician"], "per logged game and bot"),  # two bots: each bot's score
    (["--per-bot"], "per logged game and bot"),
])
def test_calibrate_runs_the_panel_by_default_and_refuses_a_huge_game_count(tmp_path: Path, args: list[str],
                                                                          says: str) -> None:
    db = tmp_path / "x.duckdb"
    db.touch()  # the ceiling is checked before the database is read
    r = subprocess.run([sys.executable, "-m", "pmim_analytics", "calibrate", *args, "--games", "10001",
                        "--db", str(db)], capture_output=True, text=True)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
