"""Luck index and game quality on hand-made games."""

from __future__ import annotations

import math

import polars as pl
import pytest

from pmim_analytics.analytics.luck import luck_summary, luck_table, side_attack_strata
from pmim_analytics.analytics.quality import (
    game_counts,
    lead_changes,
    lead_summary,
    length_distribution,
    outcome_table,
    round_scores,
    vp_by_round,
)
from pmim_analytics.analytics.rules_frames import complete_rules_frames
from tests.support.gamebuilder import GameBuilder, frames_of

BLUE = [("TW1", "TW", ("GG", "ML"))]
RED = [("TY1", "TY", ("HAC",))]


def test_luck_of_a_side_that_hits_everything_against_one_that_misses() -> None:
    g = GameBuilder("l1").side("blue", "A", BLUE).side("red", "B", RED)
    for r in range(1, 5):
        g.attack(r, "B:TW1", "GG", "R:TY1", (6, 6), overkill=3 if r == 4 else 0)  # 3 damage a hit
    g.attack(1, "R:TY1", "HAC", "B:TW1", (1, 1))
    g.attack(2, "R:TY1", "HAC", "B:TW1", (1, 2))
    f = frames_of([g.end("blue", "vp", 4)])
    ru, rw = complete_rules_frames(["v3"], f.rules_units, f.rules_weapons)
    luck = {r["side"]: r for r in luck_table(side_attack_strata(f.events, f.units, f.games), f.games, ru, rw)
            .iter_rows(named=True)}
    p = 26 / 36  # both weapons need 6+ on 2d6 (ACC 1 against DEF 7)
    blue, red = luck["blue"], luck["red"]
    assert (blue["attacks"], blue["hits"], blue["damage"], blue["landed"]) == (4, 4, 12, 9)
    assert blue["expected_damage"] == pytest.approx(4 * p * 3)
    assert blue["luck_z"] == pytest.approx((12 - 4 * p * 3) / math.sqrt(4 * p * (1 - p) * 9))
    # HAC: (3 - 2) x 3 = 3 a hit
    assert red["expected_damage"] == pytest.approx(2 * p * 3)
    assert red["luck_z"] == pytest.approx(-2 * p * 3 / math.sqrt(2 * p * (1 - p) * 9))
    assert blue["won"] is True and red["won"] is False
    s = luck_summary(luck_table(side_attack_strata(f.events, f.units, f.games), f.games, ru, rw)).row(0, named=True)
    assert (s["games"], s["luckier_won"], s["share"]) == (1, 1, 1.0)


def scored(gid: str, totals: list[tuple[int, int]], winner: str | None, reason: str) -> GameBuilder:
    g = GameBuilder(gid).side("blue", "A", BLUE).side("red", "B", RED)
    for r, (b, red) in enumerate(totals, start=1):
        g.final_vp(b, red).end_round(r)
    return g.end(winner, reason, len(totals))


def quality_games() -> list[GameBuilder]:
    return [
        scored("q1", [(1, 0), (1, 1), (1, 2), (3, 2)], "blue", "vp"),  # blue, level, red, blue: 2 changes
        scored("q2", [(0, 0), (0, 1), (0, 2)], "red", "vp"),          # red never trails
        scored("q3", [(1, 0), (1, 1)], None, "round_limit"),          # a draw at the limit
    ]


def test_lead_changes_and_comebacks() -> None:
    f = frames_of(quality_games())
    leads = {r["game_id"]: r for r in lead_changes(round_scores(f.events, f.games), f.games).iter_rows(named=True)}
    assert (leads["q1"]["lead_changes"], leads["q1"]["winner_trailed"]) == (2, True)
    assert (leads["q2"]["lead_changes"], leads["q2"]["winner_trailed"]) == (0, False)
    assert (leads["q3"]["lead_changes"], leads["q3"]["winner_trailed"]) == (0, None)
    s = lead_summary(lead_changes(round_scores(f.events, f.games), f.games)).row(0, named=True)
    assert (s["games"], s["with_change"], s["decisive"], s["comebacks"]) == (3, 1, 2, 1)
    assert s["mean_lead_changes"] == pytest.approx(2 / 3)


def test_length_draws_and_round_limit() -> None:
    f = frames_of(quality_games())
    counts = game_counts(f.games)
    o = outcome_table(counts).row(0, named=True)
    assert (o["games"], o["draws"], o["round_limit"], o["median_rounds"]) == (3, 1, 1, 3)
    assert o["mean_rounds"] == pytest.approx(3.0) and o["draw_rate"] == pytest.approx(1 / 3)
    dist = length_distribution(counts)
    assert dict(zip(dist["rounds"], dist["games"], strict=True)) == {2: 1, 3: 1, 4: 1}


def test_vp_by_round_counts_the_games_still_running() -> None:
    f = frames_of(quality_games())
    v = vp_by_round(round_scores(f.events, f.games))
    r1 = v.filter(pl.col("round") == 1).row(0, named=True)
    r4 = v.filter(pl.col("round") == 4).row(0, named=True)
    assert r1["games"] == 3 and r1["blue_vp"] == pytest.approx(2 / 3) and r1["red_vp"] == 0
    assert (r4["games"], r4["blue_vp"], r4["red_vp"]) == (1, 3.0, 2.0)


def test_an_unknown_end_reason_is_counted_as_unknown() -> None:
    from pmim_analytics.analytics.quality import outcome_table

    counts = pl.DataFrame({"rules_id": ["v3"] * 3, "source": ["manual"] * 3, "rounds": [6, 8, 7],
                           "reason": ["round_limit", "vp", "manual"], "draw": [False, False, False], "n": [1, 1, 1]})
    r = outcome_table(counts).row(0, named=True)
    assert (r["games"], r["reason_known"], r["reason_unknown"]) == (3, 2, 1)
    # the rates are over the two games whose end reason is known, not the three
    assert r["round_limit_rate"] == 0.5 and r["vp_win_rate"] == 0.5 and r["wipeout_rate"] == 0.0
