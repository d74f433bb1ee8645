"""Bradley-Terry ratings, forecast scores and objective adherence on hand-checkable data."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pmim_analytics.analytics.adherence import adherence_by, hex_distance, side_adherence
from pmim_analytics.analytics.ratings import (
    bradley_terry,
    forecast_scores,
    head_to_head,
    smoothed_share,
    win_probability,
)
from pmim_analytics.model.hexes import Hex


def results(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"bot_a": pl.String, "bot_b": pl.String, "score_a": pl.Float64}, orient="row")


def test_two_bots_three_wins_in_four_rate_147_points_apart() -> None:
    # x beats y 3 times in 4; with the one virtual draw x has 3.5 of 5 points, y 1.5:
    # p_x / p_y = 3.5 / 1.5, so x is 400 * log10(7/3) = 147.2 Elo points above y.
    df = results([("x", "y", 1.0)] * 3 + [("x", "y", 0.0)])
    table = bradley_terry(df, ["y", "x"], bootstrap=0)
    rating = dict(table.select("bot", "rating").iter_rows())
    assert rating["y"] == 0.0
    assert rating["x"] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=0.01)
    assert table["bot"].to_list() == ["x", "y"] and table["games"].to_list() == [4, 4]
    assert table["score"].to_list() == [0.75, 0.25]


def test_head_to_head_counts_both_sides() -> None:
    df = results([("x", "y", 1.0), ("y", "x", 0.5), ("x", "z", 0.0)])
    got = {(r["bot"], r["opponent"]): (r["games"], r["score"]) for r in head_to_head(df).iter_rows(named=True)}
    assert got == {("x", "y"): (2, 0.75), ("y", "x"): (2, 0.25), ("x", "z"): (1, 0.0), ("z", "x"): (1, 1.0)}


def test_draws_count_half_and_the_order_of_a_chain_is_kept() -> None:
    # a beats b 4-0, b beats c 4-0, a and c draw twice: a > b > c with b strictly between.
    df = results([("a", "b", 1.0)] * 4 + [("b", "c", 1.0)] * 4 + [("c", "a", 0.5)] * 2)
    table = bradley_terry(df, ["c", "b", "a"], bootstrap=50, seed=3)
    assert table["bot"].to_list() == ["a", "b", "c"]
    for r in table.iter_rows(named=True):
        assert r["lo"] <= r["rating"] <= r["hi"]
    # the same seed gives the same intervals
    again = bradley_terry(df, ["c", "b", "a"], bootstrap=50, seed=3)
    assert again.equals(table)


def test_equal_records_rate_equal_and_win_probability_is_one_half() -> None:
    df = results([("a", "b", 1.0), ("a", "b", 0.0)])
    rating = dict(bradley_terry(df, ["a", "b"], bootstrap=0).select("bot", "rating").iter_rows())
    assert rating["b"] == pytest.approx(0.0, abs=1e-6)
    assert win_probability(100.0, 100.0) == 0.5
    assert win_probability(400.0, 0.0) == pytest.approx(10 / 11)


def test_bad_bot_lists_are_refused() -> None:
    with pytest.raises(ValueError, match="not in the list"):
        bradley_terry(results([("a", "z", 1.0)]), ["a", "b"])
    with pytest.raises(ValueError, match="at least two"):
        bradley_terry(results([]), ["a"])


def test_brier_score_and_log_loss_by_hand() -> None:
    f = pl.DataFrame({"bot": ["g", "g", "t"], "p": [0.8, 0.3, 0.5], "outcome": [1.0, 0.0, 1.0]})
    s = {r["bot"]: r for r in forecast_scores(f).iter_rows(named=True)}
    # (0.8 - 1)^2 = 0.04 and (0.3 - 0)^2 = 0.09: mean 0.065
    assert s["g"]["brier"] == pytest.approx(0.065)
    assert s["g"]["log_loss"] == pytest.approx(-(math.log(0.8) + math.log(0.7)) / 2)
    assert (s["g"]["brier_min"], s["g"]["brier_max"]) == pytest.approx((0.04, 0.09))
    assert s["t"]["brier"] == pytest.approx(0.25) and s["t"]["log_loss"] == pytest.approx(math.log(2))


def test_smoothed_share_is_laplace_rule() -> None:
    df = pl.DataFrame({"w": [3, 0, 10], "d": [1, 0, 0], "n": [6, 10, 10]})
    got = df.select(smoothed_share(pl.col("w"), pl.col("d"), pl.col("n")).alias("p"))["p"].to_list()
    assert got == pytest.approx([4.5 / 8, 1 / 12, 11 / 12])


@given(st.integers(0, 19), st.integers(0, 13), st.integers(0, 19), st.integers(0, 13))
def test_hex_distance_expression_matches_the_engine(c1: int, r1: int, c2: int, r2: int) -> None:
    df = pl.DataFrame({"c1": [c1], "r1": [r1], "c2": [c2], "r2": [r2]})
    got = df.select(hex_distance(pl.col("c1"), pl.col("r1"), pl.col("c2"), pl.col("r2")))[0, 0]
    assert got == Hex(c1, r1).distance((c2, r2))


def _ev(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"game_id": pl.Int64, "seq": pl.Int64, "round": pl.Int64, "type": pl.String,
                                      "unit": pl.String, "to_col": pl.Int64, "to_row": pl.Int64}, orient="row")


def test_adherence_on_a_hand_made_game() -> None:
    # One objective at 2,7 (radius 1). Blue's B:A (MOV 2) deploys at 2,10: 3 hexes away, within
    # MOV + radius, so the objective is within reach in round 1; it moves to 2,8 (distance 1) and
    # contests it. In round 2 it is destroyed: within reach at the start, not contested at the end.
    # Red's R:B (MOV 1) stands at 2,0, 7 hexes away: never within reach, never contests.
    events = _ev([(1, 1, 0, "deploy", "B:A", 2, 10), (1, 2, 0, "deploy", "R:B", 2, 0),
                  (1, 3, 1, "move", "B:A", 2, 8), (1, 4, 2, "unit_destroyed", "B:A", None, None)])
    units = pl.DataFrame({"game_id": [1, 1], "unit_id": ["B:A", "R:B"], "side": ["blue", "red"], "mov": [2, 1]})
    games = pl.DataFrame({"game_id": [1], "rounds": [2], "blue_vp": [1], "red_vp": [3]})
    got = side_adherence(events, units, games, [(2, 7)], 1).sort("side")
    assert got.select("side", "reachable", "contested", "vp", "rounds").rows() == [
        ("blue", 2, 1, 1, 2), ("red", 0, 0, 3, 2)]
    by = adherence_by(got.with_columns(bot=pl.col("side")), "bot").sort("bot")
    assert by.rows() == [("blue", 0.5, 0.5), ("red", None, 1.5)]
