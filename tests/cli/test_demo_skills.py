"""The demo plays its bot at several skills (issue #29), so the robustness report has skill columns."""

from __future__ import annotations

from pathlib import Path

from pmim_analytics.analytics.skill_axis import skill_tables
from pmim_analytics.demo import DEFAULT_PLANS, DEMO_SKILLS, SKILL_GAMES, DemoPlan, build_demo, iter_batches
from pmim_analytics.store.readers import DuckDBData


def test_the_default_demo_plays_a_modest_count_of_skill_games_under_v3_only() -> None:
    skill = [(name, b) for name, b in iter_batches(DEFAULT_PLANS) if "skill=" in b.bot_a]
    assert skill and {b.rules_id for _, b in skill} == {"v3"}
    assert {b.games for _, b in skill} == {SKILL_GAMES}
    assert len({b.bot_a for _, b in skill}) == len(DEMO_SKILLS)
    assert sum(b.games for _, b in skill) <= 400  # about two minutes of one core for the search bot


def test_a_demo_with_skill_levels_fills_the_skill_columns(tmp_path: Path) -> None:
    plan = DemoPlan(("v3",), ("v3-balanced", "v3-tank-heavy", "v3-fast-gev"), 4, bot="greedy",
                    levels=("random",), levels_rules=("v3",), skill_levels=("greedy:skill=0.5",), skill_games=4)
    names = [name for name, _ in iter_batches((plan,))]
    assert "demo-greedy-skill0.5-v3-v3-balanced-vs-v3-tank-heavy" in names and len(names) == 9
    db = tmp_path / "d.duckdb"
    build_demo(db, tmp_path / "replays", plans=(plan,), random_plans=(), workers=1)
    comps, _matches = skill_tables(DuckDBData(db, ["v3"], "engine").matchup_cells(), min_games=2)
    assert set(comps["bot"]) == {"greedy"} and comps["skill 0.5"].is_not_null().all()
    assert comps["skill 1"].is_not_null().all()
