"""Verdicts across bot strength: classification and the plain flags, on hand-made counts."""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.robustness import (
    Level,
    classify,
    composition_robustness,
    flag_lines,
    level_key,
    matchup_robustness,
    same_bot_cells,
)


def test_levels_order_from_random_to_the_largest_search_budget() -> None:
    bots = ["search:budget=800", "tactician", "random", "search:budget=100", "greedy", "mystery"]
    assert sorted(bots, key=level_key) == ["random", "greedy", "tactician", "search:budget=100",
                                           "search:budget=800", "mystery"]


def test_classify_each_case() -> None:
    # 99/100 -> [94.5-99.8] favoured; 61/100 -> [51-70] favoured; 50/100 even; 30/100 unfavoured
    strong_edge, mild_edge, even, other_way = Level("greedy", 99, 100), Level("s", 61, 100), Level("s", 50, 100), \
        Level("s", 30, 100)
    assert classify([strong_edge, mild_edge])[0] == "shrinks"
    assert classify([strong_edge, even])[0] == "vanishes"
    # 72% of 40 is a verdict; 13 of 20 (65%, [43-82]) says even but still holds 72%: needs more games
    assert classify([Level("greedy", 29, 40), Level("search", 13, 20)])[0] == "unconfirmed"
    assert classify([strong_edge, other_way]) == ("flips", strong_edge)
    assert classify([Level("r", 95, 100), Level("g", 97, 100)]) == ("holds", None)
    assert classify([even, mild_edge]) == ("emerges", None)
    assert classify([even]) == ("one level", None)
    # 70% then 60% is an edge 10 points smaller: not enough to call it shrinking
    assert classify([Level("g", 70, 100), Level("s", 60, 100)])[0] == "holds"


def cells() -> pl.DataFrame:
    rows = []
    # Tank-heavy beats Balanced 99 of 100 with greedy, 61 of 100 with search:budget=800
    for bot, tank_wins in (("greedy", 99), ("search:budget=800", 61), ("random", 55)):
        rows.append(("v3", bot, "Tank-heavy", "Balanced", 100, tank_wins, 0))
        rows.append(("v3", bot, "Balanced", "Tank-heavy", 100, 100 - tank_wins, 0))
    # a matchup that holds: Balanced beats Swarm 90% at every level
    for bot in ("greedy", "search:budget=800"):
        rows.append(("v3", bot, "Balanced", "Swarm", 50, 45, 0))
        rows.append(("v3", bot, "Swarm", "Balanced", 50, 5, 0))
    # too few games at one level: left out of the row
    rows.append(("v3", "tactician", "Tank-heavy", "Balanced", 4, 4, 0))
    rows.append(("v3", "tactician", "Balanced", "Tank-heavy", 4, 0, 0))
    return pl.DataFrame(rows, schema={"rules_id": pl.String, "bot": pl.String, "composition": pl.String,
                                      "opp_composition": pl.String, "games": pl.Int64, "wins": pl.Int64,
                                      "draws": pl.Int64}, orient="row")


def test_matchups_are_oriented_and_flagged_with_a_plain_sentence() -> None:
    m = matchup_robustness(cells(), min_games=10)
    by = {r["matchup"]: r for r in m.iter_rows(named=True)}
    assert set(by) == {"Tank-heavy vs Balanced", "Balanced vs Swarm"}
    tank = by["Tank-heavy vs Balanced"]
    assert tank["flag"] == "shrinks" and tank["reference_bot"] == "greedy"
    assert tank["levels"].startswith("random 55%") and "tactician" not in tank["levels"]
    assert by["Balanced vs Swarm"]["flag"] == "holds"
    assert flag_lines(m) == ["Tank-heavy beats Balanced (v3): 99% with greedy, 61% with search:budget=800 "
                             "— bot-dependent (shrinks)"]


def test_composition_rates_leave_out_mirror_matches() -> None:
    df = pl.concat([cells(), pl.DataFrame([("v3", "greedy", "Swarm", "Swarm", 40, 20, 0)],
                                          schema=cells().schema, orient="row")])
    c = {r["composition"]: r for r in composition_robustness(df, min_games=10).iter_rows(named=True)}
    # Swarm with greedy: 5 wins of 50 against Balanced; the 40 mirror games are not counted
    assert "greedy 10% [4-21] (50)" in c["Swarm"]["levels"]


def test_same_bot_cells_keep_engine_games_with_one_bot_on_both_sides() -> None:
    base = {"rules_id": "v3", "composition": "A", "opp_composition": "B"}
    rows = [
        {**base, "source": "engine", "bot": "greedy", "opp_bot": "greedy", "result": "win", "n": 3},
        {**base, "source": "engine", "bot": "greedy", "opp_bot": "greedy", "result": "draw", "n": 1},
        {**base, "source": "engine", "bot": "greedy", "opp_bot": "greedy", "result": "loss", "n": 2},
        {**base, "source": "engine", "bot": "greedy", "opp_bot": "random", "result": "win", "n": 50},
        {**base, "source": "manual", "bot": None, "opp_bot": None, "result": "win", "n": 1},
    ]
    got = same_bot_cells(pl.DataFrame(rows))
    assert got.rows(named=True) == [{**base, "bot": "greedy", "games": 6, "wins": 3, "draws": 1}]


def test_the_export_summary_quotes_the_bot_dependent_matchups() -> None:
    from pmim_analytics.analytics.robustness import robustness_signals

    lines = robustness_signals(matchup_robustness(cells(), min_games=10))
    assert lines == ["Tank-heavy beats Balanced (v3): 99% with greedy, 61% with search:budget=800 — bot-dependent "
                     "(shrinks): check it with stronger bots before repricing."]
    assert robustness_signals(None) == []
