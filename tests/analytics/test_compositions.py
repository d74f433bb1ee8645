"""Compositions, matchups and side advantage on hand-made results (impact: test_analytics_impact.py)."""

from __future__ import annotations

import polars as pl
import pytest

from pmim_analytics.analytics.compositions import (
    composition_table,
    matchup_cells,
    matchup_matrix,
    matchup_table,
    side_advantage,
)
from pmim_analytics.analytics.stats import wilson_interval
from tests.support.gamebuilder import GameBuilder, frames_of

ARMY = [("TW1", "TW", ("GG", "ML")), ("IN1", "IN", ("LL",))]


def game(gid: str, blue: str, red: str, winner: str | None, vp: tuple[int, int], rounds: int,
         rules_id: str = "v3", first: str = "blue") -> GameBuilder:
    g = GameBuilder(gid, rules_id=rules_id, first_side=first).side("blue", blue, ARMY).side("red", red, ARMY)
    return g.final_vp(*vp).end(winner, "vp" if winner else "round_limit", rounds)


def five_games(rules_id: str = "v3") -> list[GameBuilder]:
    return [
        game("g1", "A", "B", "blue", (11, 5), 8, rules_id),   # A wins by 6
        game("g2", "B", "A", "red", (3, 11), 6, rules_id),    # A wins by 8
        game("g3", "A", "B", None, (4, 4), 20, rules_id),     # draw
        game("g4", "A", "A", "blue", (11, 9), 9, rules_id),   # mirror
        game("g5", "C", "A", "blue", (11, 10), 7, rules_id),  # A loses by 1
    ]


def cells(games: list[GameBuilder]) -> pl.DataFrame:
    f = frames_of(games)
    return matchup_cells(f.sides, f.games)


def test_composition_record_excludes_mirrors() -> None:
    t = composition_table(cells(five_games()))
    a = t.filter(pl.col("composition") == "A").row(0, named=True)
    assert (a["games"], a["wins"], a["draws"], a["losses"], a["mirrors"]) == (4, 2, 1, 1, 1)
    assert a["win_rate"] == 0.5 and a["score"] == 0.625
    assert (a["win_lo"], a["win_hi"]) == pytest.approx(wilson_interval(2, 4))
    assert a["vp_margin"] == pytest.approx((6 + 8 + 0 - 1) / 4)
    assert a["mean_rounds"] == pytest.approx((8 + 6 + 20 + 7) / 4)
    c = t.filter(pl.col("composition") == "C").row(0, named=True)
    assert (c["games"], c["wins"]) == (1, 1)


def test_matchups_from_both_views_and_the_matrix() -> None:
    m = matchup_table(cells(five_games()))
    ab = m.filter((pl.col("composition") == "A") & (pl.col("opp_composition") == "B")).row(0, named=True)
    ba = m.filter((pl.col("composition") == "B") & (pl.col("opp_composition") == "A")).row(0, named=True)
    assert (ab["games"], ab["wins"], ab["draws"]) == (3, 2, 1)
    assert (ba["games"], ba["wins"], ba["losses"]) == (3, 0, 2)
    matrix = matchup_matrix(m, "v3")
    assert matrix.columns == ["composition", "A", "B", "C"]
    row_a = matrix.filter(pl.col("composition") == "A").row(0, named=True)
    assert row_a["A"] is None and row_a["B"] == pytest.approx(2 / 3) and row_a["C"] == 0.0


def test_side_and_first_player_confounded_give_one_test() -> None:
    s = side_advantage(cells(five_games())).row(0, named=True)
    assert (s["games"], s["blue_wins"], s["red_wins"], s["draws"]) == (5, 3, 1, 1)
    # blue went first in every game: side and first move are one effect, so one test
    assert (s["blue_first_games"], s["red_first_games"], s["confounded"], s["confounded_by"]) == (5, 0, True, "blue")
    assert s["blue_share"] == 0.75 and s["first_share"] is None and s["first_p"] is None
    assert s["blue_p"] == pytest.approx(10 / 16)  # 3 of 4 against one half: P(0, 1, 3 or 4 of 4)


def test_side_and_first_player_apart_give_two_tests() -> None:
    # red moves first in g2 and g4: blue wins 3 of 4 decisive games, the first mover 3 of 4
    gs = [
        game("g1", "A", "B", "blue", (11, 5), 8, first="blue"),   # first (blue) wins
        game("g2", "B", "A", "red", (3, 11), 6, first="red"),     # first (red) wins
        game("g3", "A", "B", None, (4, 4), 20, first="blue"),     # draw
        game("g4", "A", "A", "blue", (11, 9), 9, first="red"),    # first (red) loses
        game("g5", "C", "A", "blue", (11, 10), 7, first="blue"),  # first (blue) wins
    ]
    s = side_advantage(cells(gs)).row(0, named=True)
    assert (s["blue_first_games"], s["red_first_games"], s["confounded"], s["confounded_by"]) == (3, 2, False, None)
    assert (s["blue_wins"], s["red_wins"]) == (3, 1) and s["blue_share"] == 0.75
    assert (s["first_wins"], s["first_losses"]) == (3, 1) and s["first_share"] == 0.75
    assert s["first_p"] == pytest.approx(10 / 16)
    lo, hi = wilson_interval(3, 4)
    assert (s["first_lo"], s["first_hi"]) == (pytest.approx(lo), pytest.approx(hi))


def test_red_always_first_is_confounded_too() -> None:
    gs = [game(f"g{i}", "A", "B", "blue" if i % 3 else "red", (11, 2) if i % 3 else (2, 11), 5, first="red")
          for i in range(6)]
    s = side_advantage(cells(gs)).row(0, named=True)
    assert (s["confounded"], s["confounded_by"], s["first_p"]) == (True, "red", None)


def test_matchup_cells_carry_n_interval_and_saturation() -> None:
    m = matchup_table(cells(five_games()))
    ac = m.filter((pl.col("composition") == "A") & (pl.col("opp_composition") == "C")).row(0, named=True)
    assert ac["games"] == 1 and ac["win_rate"] == 0.0 and ac["saturated"]
    assert (ac["win_lo"], ac["win_hi"]) == pytest.approx(wilson_interval(0, 1))
    ab = m.filter((pl.col("composition") == "A") & (pl.col("opp_composition") == "B")).row(0, named=True)
    assert not ab["saturated"]


def test_a_diff_of_saturated_cells_is_flagged() -> None:
    from pmim_analytics.analytics.compositions import matchup_diff

    # A beats B in all 4 games under both rules ids: "+0", but saturated
    v3 = [game(f"a{i}", "A", "B", "blue", (11, 0), 5) for i in range(4)]
    var = [game(f"b{i}", "A", "B", "blue", (11, 0), 5, "v3-llaser-rpt4") for i in range(4)]
    d = matchup_diff(matchup_table(cells(v3 + var)), "v3", "v3-llaser-rpt4")
    ab = d.filter(pl.col("composition") == "A").row(0, named=True)
    assert (ab["games_a"], ab["games_b"], ab["diff"], ab["saturated"], ab["significant"]) == (4, 4, 0.0, True, False)
    assert ab["diff_lo"] < 0 < ab["diff_hi"]
