"""Game-clustered intervals, checked against a computation by hand."""

from __future__ import annotations

import math

import pytest

from pmim_analytics.analytics.cluster import clustered_wilson, ratio_estimate
from pmim_analytics.analytics.dataset import FrameData
from pmim_analytics.analytics.stats import wilson_interval
from pmim_analytics.analytics.tables import unit_report
from tests.support.gamebuilder import GameBuilder, frames_of


def test_ratio_estimate_by_hand() -> None:
    # m = 4 / 4 = 1; residuals 3 - 2 = 1 and 1 - 2 = -1; var = 2/1 * 2 / 4^2 = 0.25
    assert ratio_estimate([3, 1], [2, 2]) == (1.0, 0.5)
    m, se = ratio_estimate([5.0], [2.0])
    assert m == 2.5 and math.isnan(se)
    assert all(math.isnan(x) for x in ratio_estimate([], []))


def test_one_unit_per_game_is_the_ordinary_standard_error_up_to_n_over_n_minus_1() -> None:
    ys = [1.0, 4.0, 2.0, 7.0]
    m, se = ratio_estimate(ys, [1] * 4)
    var = sum((y - m) ** 2 for y in ys) / 3
    assert se == pytest.approx(math.sqrt(var / 4) * math.sqrt(3 / 4) * math.sqrt(4 / 3))


def three_infantry_games() -> list[GameBuilder]:
    """Five Infantry in three games: both die in g1, both live in g2, the lone one lives in g3."""
    two = [("IN1", "IN", ("LL",)), ("IN2", "IN", ("LL",))]
    tank = [("TY1", "TY", ("HAC",))]
    g1 = GameBuilder("g1").side("blue", "A", two).side("red", "B", tank)
    g1.destroy(1, "B:IN1", by="R:TY1").destroy(1, "B:IN2", by="R:TY1").end("red", "wipeout", 1)
    g2 = GameBuilder("g2").side("blue", "A", two).side("red", "B", tank).end("blue", "vp", 3)
    g3 = GameBuilder("g3").side("blue", "C", two[:1]).side("red", "B", tank).end("blue", "vp", 3)
    return [g1, g2, g3]


def test_survival_interval_is_clustered_by_game() -> None:
    t = unit_report(FrameData(frames_of(three_infantry_games())))
    inf = t.filter(t["code"] == "IN").row(0, named=True)
    # survivors per game Y = 0, 2, 1 of D = 2, 2, 1; m = 3/5
    # residuals Y - m D: -1.2, 0.8, 0.4 -> squares 1.44 + 0.64 + 0.16 = 2.24
    # var = 3/2 * 2.24 / 5^2 = 0.1344; the independent-units variance is 0.6 * 0.4 / 5 = 0.048
    assert inf["survival_rate"] == pytest.approx(0.6)
    assert inf["survival_deff"] == pytest.approx(0.1344 / 0.048)
    n_eff = 0.24 / 0.1344
    lo, hi = wilson_interval(0.6 * n_eff, n_eff)
    assert (inf["survival_lo"], inf["survival_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert (lo, hi) == pytest.approx(clustered_wilson([0, 2, 1], [2, 2, 1]))
    # wider than the interval that counts five independent units
    naive = wilson_interval(3, 5)
    assert inf["survival_hi"] - inf["survival_lo"] > naive[1] - naive[0]
