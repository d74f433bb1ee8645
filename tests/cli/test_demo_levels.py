"""The demo plays weaker bot levels beside its bot, so robustness has levels to compare."""

from __future__ import annotations

from pmim_analytics.demo import DEFAULT_PLANS, SCRIPTED_LEVELS, DemoPlan, demo_bot, iter_batches


def test_levels_play_the_same_pairings_under_their_rules_only() -> None:
    plan = DemoPlan(("v3", "v3-heavy-def6"), ("v3-balanced", "v3-tank-heavy", "v3-fast-gev"), 6, bot="tactician",
                    levels=("random", "greedy"), levels_rules=("v3",), level_games=10)
    batches = iter_batches((plan,))
    by_bot: dict[tuple[str, str], list] = {}
    for name, b in batches:
        assert b.bot_a == b.bot_b
        by_bot.setdefault((b.rules_id, b.bot_a), []).append((name, b))
    # 3 pairings: tactician under both rules ids, the levels under v3 only
    assert {k: len(v) for k, v in by_bot.items()} == {
        ("v3", "tactician"): 3, ("v3", "random"): 3, ("v3", "greedy"): 3, ("v3-heavy-def6", "tactician"): 3}
    assert all(b.games == 10 for _, b in by_bot[("v3", "random")]) and all(
        b.games == 6 for _, b in by_bot[("v3", "tactician")])
    assert by_bot[("v3", "random")][0][0] == "demo-random-v3-v3-balanced-vs-v3-tank-heavy"
    assert by_bot[("v3", "tactician")][0][0] == "demo-v3-v3-balanced-vs-v3-tank-heavy"
    # the same seed for every level: the levels meet the same dice where their games agree
    assert by_bot[("v3", "random")][0][1].seed == by_bot[("v3", "tactician")][0][1].seed


def test_default_demo_uses_the_strongest_bot_and_every_weaker_scripted_level() -> None:
    for plan in DEFAULT_PLANS:
        assert plan.bot == demo_bot()
        if plan.translate:  # the playtest lists carried to v3: the demo's bot only
            assert plan.levels == ()
            continue
        assert set(plan.levels) == set(SCRIPTED_LEVELS) - {demo_bot()}
