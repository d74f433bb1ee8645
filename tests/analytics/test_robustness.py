"""Verdicts across bot strength: classification and the plain flags, on hand-made counts."""

from __future__ import annotations

import polars as pl
import pytest

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
    assert classify([Level("r", 95, 100), Level("g", 97, 100)])[0] == "holds"
    # 50% then 61% of 100 each: the strongest level favours a side, but the difference is not significant
    assert classify([even, mild_edge])[0] == "holds"
    assert classify([Level("g", 500, 1000), Level("s", 600, 1000)])[0] == "emerges"
    assert classify([Level("g", 600, 1000), Level("s", 700, 1000)])[0] == "grows"
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
    q = tank["q"]
    assert tank["family"] == 2 and 0 < tank["p"] <= q < 1e-6  # two rows tested; BH: q = p * 2 / 1
    assert flag_lines(m) == ["Tank-heavy beats Balanced (v3): 99% with greedy, 61% with search:budget=800 "
                             f"— bot-dependent (shrinks, q = {q:.2g})"]


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
    assert len(lines) == 1 and lines[0].startswith("Tank-heavy beats Balanced (v3): 99% with greedy, 61% with "
                                                   "search:budget=800 — bot-dependent (shrinks, q = ")
    assert lines[0].endswith("): check it with stronger bots before repricing.")
    assert robustness_signals(None) == []


def _draw_cells(a: str, b: str) -> pl.DataFrame:
    """A meets B: with greedy A wins 60, draws 30, loses 10 of 100; with search it wins 30, draws
    40, loses 30. Each game from both sides."""
    rows = []
    for bot, w, d, lo in (("greedy", 60, 30, 10), ("search:budget=800", 30, 40, 30)):
        rows.append(("v3", bot, a, b, 100, w, d))
        rows.append(("v3", bot, b, a, 100, lo, d))
    return pl.DataFrame(rows, schema={"rules_id": pl.String, "bot": pl.String, "composition": pl.String,
                                      "opp_composition": pl.String, "games": pl.Int64, "wins": pl.Int64,
                                      "draws": pl.Int64}, orient="row")


def test_a_draw_counts_half_for_each_side_so_a_matchup_reads_the_same_both_ways() -> None:
    # named so that the alphabetical first is A in one frame and B in the other
    one = matchup_robustness(_draw_cells("Alpha", "Zulu"), min_games=10).row(0, named=True)
    two = matchup_robustness(_draw_cells("Zulu", "Alpha"), min_games=10).row(0, named=True)
    # scores: greedy 75% (60 + 15), search 50% (30 + 20); the favourite is named first both ways
    assert one["levels"] == "greedy 75% [66-82] (100) | search:budget=800 50% [40-60] (100)"
    assert two["levels"] == "greedy 75% [66-82] (100) | search:budget=800 50% [40-60] (100)"
    assert one["flag"] == two["flag"] == "vanishes" and one["p"] == pytest.approx(two["p"])
    assert one["matchup"] == "Alpha vs Zulu" and two["matchup"] == "Zulu vs Alpha"


def test_benjamini_hochberg() -> None:
    from pmim_analytics.analytics.flags import bh_adjust, legend_lines

    assert bh_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.04, 0.04])
    assert bh_adjust([None, 0.5]) == [None, 0.5]
    assert all(": " in line for line in legend_lines()) and legend_lines(["flips"])[0].startswith("flips: ")


def test_matchup_scores_add_up_to_one_from_both_sides() -> None:
    from pmim_analytics.analytics.compositions import matchup_table
    from pmim_analytics.analytics.dataset import FrameData
    from tests.support.gamebuilder import GameBuilder, frames_of

    games = []
    for i, winner in enumerate(("blue", "blue", None)):  # A: 2 wins and a draw against B
        g = GameBuilder(f"d{i}").side("blue", "A", [("TW1", "TW", ("GG", "ML"))])
        g.side("red", "B", [("TY1", "TY", ("HAC",))])
        games.append(g.final_vp(8, 8 if winner is None else 2).end(winner, "vp" if winner else "rounds", 8))
    t = {r["composition"]: r for r in matchup_table(FrameData(frames_of(games)).matchup_cells()).iter_rows(named=True)}
    assert t["A"]["score"] == pytest.approx(2.5 / 3) and t["B"]["score"] == pytest.approx(0.5 / 3)
    assert t["A"]["score"] + t["B"]["score"] == pytest.approx(1.0)
    assert t["A"]["score_lo"] == pytest.approx(1 - t["B"]["score_hi"])
    assert t["A"]["win_rate"] + t["B"]["win_rate"] < 1  # wins alone do not read the same from both sides
