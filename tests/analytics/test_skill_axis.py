"""Verdicts along the skill axis (issue #29): skill columns, their flags and sentences."""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl

from pmim_analytics.analytics.robustness import Level, robustness_tables, split_skill
from pmim_analytics.analytics.skill_axis import classify_skills, skill_lines, skill_signals, skill_tables
from pmim_analytics.report.summary import skill_statement
from tests.conftest import ARMIES
from tests.support.cli import pmim_in_process


def _cells(rows: list[tuple[str, str, str, int, int]]) -> pl.DataFrame:
    """matchup_cells rows from (bot, composition, opponent, wins, games): both sides of every game."""
    out = []
    for bot, a, b, wins, games in rows:
        for comp, opp, w in ((a, b, wins), (b, a, games - wins)):
            out += [{"rules_id": "v3", "source": "engine", "bot": bot, "opp_bot": bot, "composition": comp,
                     "opp_composition": opp, "result": "win", "n": w},
                    {"rules_id": "v3", "source": "engine", "bot": bot, "opp_bot": bot, "composition": comp,
                     "opp_composition": opp, "result": "loss", "n": games - w}]
    return pl.DataFrame(out)


def test_split_skill_reads_the_bot_label() -> None:
    assert split_skill("search") == ("search", 1.0)
    assert split_skill("search:skill=0.75") == ("search", 0.75)
    assert split_skill("search:budget=400,skill=0.5") == ("search:budget=400", 0.5)
    assert split_skill("tactician:persona=aggressive") == ("tactician:persona=aggressive", 1.0)


def test_a_verdict_only_experts_reach_is_said_in_plain_words() -> None:
    cells = _cells([("search", "Heavy", "Balanced", 100, 100), ("search:skill=0.9", "Heavy", "Balanced", 80, 100),
                    ("search:skill=0.75", "Heavy", "Balanced", 55, 100),
                    ("search:skill=0.5", "Heavy", "Balanced", 48, 100),
                    ("tactician:skill=0.5", "Heavy", "Balanced", 10, 100), ("tactician", "Heavy", "Balanced", 90, 100)])
    comps, matches = skill_tables(cells, min_games=10)
    assert set(comps["bot"]) == {"search"}  # the strongest bot with skill levels, never pooled with tactician
    heavy = comps.filter(pl.col("composition") == "Heavy").row(0, named=True)
    assert heavy["skill 1"] == "100% [96-100] (100)" and heavy["skill 0.75"] == "55% [45-64] (100)"
    assert heavy["flag"] == "expert only"
    assert matches.height == 1 and matches["matchup"][0] == "Heavy vs Balanced"
    assert skill_lines(matches) == ["Heavy beats Balanced (v3, search): 100% at skill 1, 80% at skill 0.9, 55% at "
                                    "skill 0.75, 48% at skill 0.5: a verdict about expert play"]
    assert skill_signals(matches)[0].endswith("expert play.")
    assert "at skills 0.5 to 1" in skill_statement(matches) and "none" in skill_statement(None)
    # the bot-level tables leave the skill levels out
    _c, bot_levels = robustness_tables(cells, min_games=10)
    assert "skill" not in " ".join(bot_levels["levels"])


def test_a_skill_is_its_own_bot_level_and_weaker_than_best_play() -> None:
    from pmim_analytics.analytics.levels import level_strength
    from pmim_analytics.engine.bots.spec import canonical_bot_key

    assert canonical_bot_key("search:skill=0.75") == "search:skill=0.75" != canonical_bot_key("search")
    assert canonical_bot_key("search:skill=1") == "search"
    assert canonical_bot_key("search:skill=0.5,budget=400") == "search:budget=400,skill=0.5"
    keys = ["search", "search:skill=0.9", "search:skill=0.5", "tactician"]
    assert sorted(keys, key=level_strength) == ["tactician", "search:skill=0.5", "search:skill=0.9", "search"]


def test_classify_skills_reads_the_test_and_the_reference_skill() -> None:
    def lv(w: int) -> Level:
        return Level("x", w, 100)

    assert classify_skills({1.0: lv(80), 0.75: lv(75), 0.5: lv(70)}, q=0.3) == "holds"
    assert classify_skills({1.0: lv(50), 0.5: lv(80)}, q=0.001) == "casual only"
    assert classify_skills({1.0: lv(80), 0.5: lv(20)}, q=0.001) == "flips"
    assert classify_skills({1.0: lv(95), 0.5: lv(50)}, q=0.001) == "expert only"
    assert classify_skills({1.0: lv(95), 0.5: lv(70)}, q=0.001) == "grows"
    assert classify_skills({1.0: lv(80)}, q=None) == "one skill"


def test_the_flags_are_adjusted_over_the_rows_of_a_table() -> None:
    # two matchups, each counted once in the family however many sides it is seen from
    cells = _cells([("greedy", "A", "B", 60, 100), ("greedy:skill=0.5", "A", "B", 40, 100),
                    ("greedy", "A", "C", 90, 100), ("greedy:skill=0.5", "A", "C", 50, 100)])
    _comps, matches = skill_tables(cells, min_games=10)
    assert matches.height == 2 and set(matches["family"]) == {2}
    assert all(q >= p for p, q in zip(matches["p"], matches["q"], strict=True))
    assert dict(zip(matches["matchup"], matches["flag"], strict=True))["A vs C"] == "expert only"


def test_robustness_command_shows_skill_columns(tmp_path: Path) -> None:
    def pmim(*args: str) -> subprocess.CompletedProcess[str]:
        return pmim_in_process(*args)  # tests/support/cli.py: the output is the point, not the process

    bal, tanks = str(ARMIES / "v3-balanced.yaml"), str(ARMIES / "v3-tank-heavy.yaml")
    for k, bot in enumerate(("greedy", "greedy:skill=0.5")):
        r = pmim("simulate", "--blue", bal, "--red", tanks, "--games", "6", "--workers", "1", "--seed", "4",
                 "--blue-bot", bot, "--red-bot", bot, "--out", str(tmp_path / f"b{k}"))
        assert r.returncode == 0, r.stderr
    db = str(tmp_path / "s.duckdb")
    assert pmim("ingest", str(tmp_path / "b0"), str(tmp_path / "b1"), "--db", db).returncode == 0
    r = pmim("report", "robustness", "--db", db, "--min-games", "2", "--all")
    assert r.returncode == 0, r.stderr
    assert "Compositions by skill" in r.stdout and "skill 0.5" in r.stdout and "skill 1" in r.stdout
    assert "greedy:skill" not in r.stdout.split("Compositions by skill")[0]  # not a bot level
