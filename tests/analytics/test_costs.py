"""The implied-cost fit finds a planted imbalance and says when it cannot."""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.costs import MIN_GAMES, army_rosters, fit_costs, game_cells
from pmim_analytics.analytics.frames import Frames
from pmim_analytics.botlab.synthetic_costs import synthetic_cost_frames


def fit(f: Frames):
    return fit_costs(game_cells(f.games, f.sides), army_rosters(f.sides, f.units, f.games))


def test_a_timber_wolf_worth_30_percent_more_is_found_and_priced_up() -> None:
    result = fit(synthetic_cost_frames(3000, seed=7))
    t = {r["code"]: r for r in result.table.iter_rows(named=True)}
    assert result.summary["priced"].item()
    tw = t["TW"]
    assert tw["verdict"] == "undercosted"
    assert tw["suggested_lo"] > 12 and 14.5 < tw["suggested_pts"] < 17  # truth: 12 * 1.3 = 15.6
    assert tw["vp_suggested_lo"] > 12
    # it is the type with the most value for its cost, by far, and the others stay put
    ranked = sorted(t.values(), key=lambda r: r["rel_value_per_pt"], reverse=True)
    assert ranked[0]["code"] == "TW"
    others = [r for r in t.values() if r["code"] != "TW"]
    assert sum(r["verdict"] != "in line" for r in others) <= 1
    assert all(abs(r["excess_pts"]) / r["pts"] < 0.1 for r in others)
    assert "warmech units, so they are priced against each other" in result.summary["message"].item()


def test_equal_point_armies_rank_but_do_not_price() -> None:
    result = fit(synthetic_cost_frames(3000, seed=3, equal_points=True))
    s = result.summary.row(0, named=True)
    assert not s["priced"] and "hardly differ" in s["message"]
    assert result.table["suggested_pts"].null_count() == result.table.height
    top = result.table.sort("rel_value_per_pt", descending=True)["code"][0]
    assert top == "TW"


def test_too_few_games_says_so() -> None:
    result = fit(synthetic_cost_frames(MIN_GAMES // 4, seed=5))
    assert "too few games" in result.summary["message"].item()
    assert set(result.table["verdict"]) == {"too few games"}
    assert result.table.filter(pl.col("suggested_pts").is_not_null()).height == 0


def test_a_few_fixed_army_lists_cannot_price_every_type() -> None:
    result = fit(synthetic_cost_frames(2000, seed=11, n_lists=3))
    verdicts = dict(zip(result.table["code"], result.table["verdict"], strict=True))
    assert "confounded" in verdicts.values()
    assert "vary the army lists" in result.summary["message"].item()
    confounded = result.table.filter(pl.col("verdict") == "confounded")
    assert confounded["suggested_pts"].null_count() == confounded.height


def test_a_tyrant_listed_at_3_points_is_found_underpriced() -> None:
    # the Tyrant is worth its v3 cost (6) but listed at 3: armies field more of them for less
    result = fit(synthetic_cost_frames(3000, seed=13, boost=1.0, rules_id="v3-tyrant-3", listed={"TY": 3}))
    ty = result.table.filter(pl.col("code") == "TY").row(0, named=True)
    assert ty["pts"] == 3 and ty["verdict"] == "undercosted"
    assert ty["suggested_lo"] > 3 and ty["excess_pts"] > 0
    # the same games with the right price: the Tyrant's interval covers its cost
    fair = fit(synthetic_cost_frames(3000, seed=13, boost=1.0))
    ty = fair.table.filter(pl.col("code") == "TY").row(0, named=True)
    assert ty["suggested_lo"] <= 6 <= ty["suggested_hi"]
