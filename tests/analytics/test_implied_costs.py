"""The unpinned implied-cost fit: no type is the yardstick, verdicts are BH-adjusted tests."""

from __future__ import annotations

import numpy as np
import polars as pl

from pmim_analytics.analytics.costs import MIN_GAMES
from pmim_analytics.analytics.dataset import FrameData
from pmim_analytics.analytics.frames import Frames
from pmim_analytics.analytics.implied_costs import (
    HUBER_K,
    cost_changes,
    fit_implied_costs,
    huber_center,
    huber_fit,
    implied_scale,
)
from pmim_analytics.analytics.tables import cost_report
from pmim_analytics.botlab.synthetic_costs import synthetic_cost_frames


def fit(f: Frames, resamples: int = 60):
    data = FrameData(f)
    return fit_implied_costs(data.game_lineups(), data.army_rosters(), resamples=resamples)


def test_huber_location_solves_its_estimating_equation() -> None:
    # five games, one a blowout: least squares says 20, Huber stays near the four
    y = np.array([0.0, 1.0, -1.0, 0.0, 100.0])
    x = np.ones((5, 1))
    theta = huber_fit(x, y, np.ones(5), scale=1.0)
    r = y - theta[0]
    psi = np.clip(r, -HUBER_K, HUBER_K)
    assert abs(psi.sum()) < 1e-6  # Σ ψ(residual) = 0 at the Huber estimate
    assert 0 < theta[0] < 1  # pulled by the blowout only by a bounded amount (k / n each)


def test_the_scale_is_a_robust_centre_that_no_type_pins() -> None:
    # four types worth 0.5 VP a point and one worth 2: the centre stays near 0.5, though not at it
    r, a = np.array([0.48, 0.50, 0.52, 0.50, 2.0]), np.ones(5)
    c = huber_center(r, a)
    assert 0.5 < c < 0.55 and c not in set(r)
    assert abs(huber_center(np.array([1.0, 3.0]), np.array([1.0, 1.0])) - 2.0) < 1e-12
    # a fixed-count class (types 2-4) is shifted as a whole to the centre of the others (type 1)
    lam, b = implied_scale(np.array([1.0, 5.0, 9.0, 7.0]), np.array([2.0, 10.0, 10.0, 10.0]), np.ones(4),
                           np.ones(4, dtype=bool), [np.array([False, True, True, True])])
    assert abs(huber_center(b[1:] / 10, np.full(3, 10.0)) - 0.5) < 1e-9
    assert abs(lam - 0.5) < 1e-9 and abs(b[2] - b[1] - 4) < 1e-12


def test_a_planted_cheap_type_is_flagged_and_no_type_is_the_yardstick() -> None:
    result = fit(synthetic_cost_frames(3000, seed=7))
    t = {r["code"]: r for r in result.table.iter_rows(named=True)}
    tw = t["TW"]
    assert tw["verdict"] == "mis-priced" and tw["direction"] == "undercosted"
    assert tw["suggested_lo"] > 12 and 13.5 < tw["suggested_pts"] < 18  # truth: 12 * 1.3 = 15.6
    priced = [r for r in t.values() if r["suggested_pts"] is not None]
    assert len(priced) >= 10
    # every priced type has an interval of its own: none is fixed at its list price
    assert all(r["suggested_hi"] - r["suggested_lo"] > 0.05 for r in priced)
    assert all(r["family"] == len(priced) for r in priced)
    s = result.summary.row(0, named=True)
    assert s["priced"] and s["family"] == len(priced) and "Benjamini-Hochberg" in s["message"]
    assert s["scale_lo"] < s["scale"] < s["scale_hi"]
    # the others: at most one false flag among the rest (their worth is their cost)
    assert sum(r["verdict"] == "mis-priced" for r in priced if r["code"] != "TW") <= 1


def test_right_prices_raise_no_flag_and_a_wrong_list_price_is_found() -> None:
    fair = fit(synthetic_cost_frames(3000, seed=13, boost=1.0))
    assert fair.table.filter(pl.col("verdict") == "mis-priced").height == 0
    assert set(fair.table["verdict"]) <= {"in line", "not enough games"}
    cheap = fit(synthetic_cost_frames(3000, seed=13, boost=1.0, rules_id="v3-tyrant-3", listed={"TY": 3}))
    ty = cheap.table.filter(pl.col("code") == "TY").row(0, named=True)
    assert ty["pts"] == 3 and ty["verdict"] == "mis-priced" and ty["direction"] == "undercosted"


def test_too_few_games_and_equal_points_say_so() -> None:
    few = fit(synthetic_cost_frames(MIN_GAMES // 4, seed=5))
    assert set(few.table["verdict"]) == {"not enough games"} and "too few games" in few.summary["message"].item()
    equal = fit(synthetic_cost_frames(1000, seed=3, equal_points=True), resamples=20)
    assert not equal.summary["priced"].item() and "hardly differ" in equal.summary["message"].item()
    assert equal.table["suggested_pts"].null_count() == equal.table.height


def test_identical_fits_differ_by_nothing() -> None:
    a = fit(synthetic_cost_frames(1000, seed=21, boost=1.0), resamples=30)
    changes = cost_changes(a, a, "v3", "v3")
    assert changes.height > 0 and (changes["diff"] == 0).all() and not changes["flag"].any()
    assert (changes["p"] == 1).all() and (changes["family"] == changes.height).all()


def test_the_report_uses_the_unpinned_fit_and_is_reproducible() -> None:
    data = FrameData(synthetic_cost_frames(600, seed=2))
    one, two = cost_report(data), cost_report(data)
    assert "family" in one.table.columns and one.table.equals(two.table)
