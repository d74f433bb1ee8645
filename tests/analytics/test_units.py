"""Unit statistics and survival curves on hand-made games with known answers."""

from __future__ import annotations

import polars as pl
import pytest

from pmim_analytics.analytics.units import km_curves, median_survival, survival_counts, unit_sums, unit_table
from tests.support.gamebuilder import GameBuilder, frames_of

BLUE = [("TW1", "TW", ("GG", "ML")), ("IN1", "IN", ("LL",))]
RED = [("TY1", "TY", ("HAC",)), ("IN1", "IN", ("LAC",))]


def timber_wolf_game() -> GameBuilder:
    """The Timber Wolf scores every VP and kills the Tyrant in round 2; nothing else happens."""
    g = GameBuilder("g1").side("blue", "Wolf", BLUE).side("red", "Tank", RED)
    g.attack(1, "B:TW1", "GG", "R:TY1", (6, 6))              # hit: (5 - 2) x 1 = 3 damage
    g.attack(1, "R:TY1", "HAC", "B:IN1", (1, 1))             # 2 + 1 < 8: miss
    g.vp(1, 0, "blue", blue=("B:TW1",)).end_round(1)
    g.attack(2, "B:TW1", "GG", "R:TY1", (5, 5), overkill=1)  # 3 more on 2 HP left
    g.destroy(2, "R:TY1", by="B:TW1")
    g.vp(2, 0, "blue", blue=("B:TW1",)).end_round(2)
    g.vp(3, 0, "blue", blue=("B:TW1",)).end_round(3)
    return g.end("blue", "vp", 3)


def rows(table: pl.DataFrame) -> dict[str, dict]:
    return {r["code"]: r for r in table.iter_rows(named=True)}


def test_one_unit_scores_all_vp_and_kills_the_tank() -> None:
    f = frames_of([timber_wolf_game()])
    t = rows(unit_table(unit_sums(f.unit_game_stats)))
    tw, ty = t["TW"], t["TY"]
    assert tw["vp_share"] == 3.0 and tw["vp_per_pt"] == pytest.approx(3 / 12)
    assert t["IN"]["vp_share"] == 0.0 and ty["vp_share"] == 0.0
    assert tw["damage_dealt"] == 5 and tw["overkill"] == 1 and tw["kills"] == 1
    assert tw["damage_per_pt"] == pytest.approx(5 / 12)
    assert tw["hit_rate"] == 1.0 and tw["survival_rate"] == 1.0
    assert ty["damage_taken"] == 5 and ty["survival_rate"] == 0.0 and ty["mean_round_destroyed"] == 2
    assert ty["hit_rate"] == 0.0 and ty["damage_dealt"] == 0
    assert t["IN"]["games"] == 1 and t["IN"]["units"] == 2  # one on each side


def test_loadouts_are_told_apart() -> None:
    f = frames_of([timber_wolf_game()])
    t = unit_table(unit_sums(f.unit_game_stats, by_loadout=True)).filter(pl.col("code") == "IN")
    assert sorted(t["weapons"].to_list()) == ["LAC", "LL"]


def survival_games() -> list[GameBuilder]:
    """Four Tyrants: destroyed in round 2, alive after 3 rounds, destroyed in round 4, alive after 5."""
    out = []
    for i, (destroyed_in, rounds) in enumerate([(2, 4), (None, 3), (4, 6), (None, 5)]):
        g = GameBuilder(f"s{i}").side("blue", "Wolf", BLUE).side("red", "Tank", RED)
        if destroyed_in:
            g.destroy(destroyed_in, "R:TY1", by="B:TW1")
        out.append(g.end("blue", "vp", rounds))
    return out


def test_kaplan_meier_against_a_hand_computation() -> None:
    f = frames_of(survival_games())
    curves = km_curves(survival_counts(f.unit_game_stats)).filter(pl.col("code") == "TY")
    got = {r["round"]: (r["at_risk"], r["destroyed"], r["censored"], r["survival"])
           for r in curves.iter_rows(named=True)}
    # round 2: 4 at risk, 1 destroyed -> 3/4; round 3: one censored; round 4: 2 at risk, 1 destroyed
    # -> 3/4 * 1/2 = 3/8; round 5: the last one censored.
    assert got == {0: (4, 0, 0, 1.0), 2: (4, 1, 0, 0.75), 3: (3, 0, 1, 0.75), 4: (2, 1, 0, 0.375),
                   5: (1, 0, 1, 0.375)}
    assert median_survival(curves).filter(pl.col("code") == "TY")["median_round"].item() == 4


def test_a_unit_that_survives_every_game_keeps_survival_one() -> None:
    f = frames_of(survival_games())
    tw = km_curves(survival_counts(f.unit_game_stats)).filter(pl.col("code") == "TW")
    assert tw["survival"].to_list() == [1.0] * tw.height
    assert tw["censored"].sum() == 4


def test_destroyed_in_a_summary_log_without_a_round_is_left_out_of_km_only() -> None:
    f = frames_of([timber_wolf_game()])
    ugs = f.unit_game_stats.with_columns(
        round_destroyed=pl.when(pl.col("code") == "TY").then(None).otherwise(pl.col("round_destroyed")))
    assert survival_counts(ugs).filter(pl.col("code") == "TY").height == 0
    t = rows(unit_table(unit_sums(ugs)))
    assert t["TY"]["survival_rate"] == 0.0 and t["TY"]["mean_round_destroyed"] is None


def test_every_round_fills_the_gaps_and_a_design_effect_widens_the_limits() -> None:
    from pmim_analytics.analytics.units import km_every_round

    counts = survival_counts(frames_of(survival_games()).unit_game_stats)
    plain = km_curves(counts).filter(pl.col("code") == "TY")
    full = km_every_round(plain)
    got = {r["round"]: (r["at_risk"], r["survival"]) for r in full.iter_rows(named=True)}
    # round 1: nobody left yet, 4 at risk; rounds 2-5 as computed by hand above
    assert got == {1: (4, 1.0), 2: (4, 0.75), 3: (3, 0.75), 4: (2, 0.375), 5: (1, 0.375)}
    deff = plain.select("rules_id", "source", "code", "type", "kind").unique().with_columns(deff=pl.lit(4.0))
    wide = km_curves(counts, design_effects=deff).filter((pl.col("code") == "TY") & (pl.col("round") == 2))
    narrow = plain.filter(pl.col("round") == 2)
    # Greenwood at round 2: var = 0.75^2 * 1/(4*3); four times the variance doubles the half-width
    half = 1.959963984540054 * 0.75 * (1 / 12) ** 0.5
    assert narrow["lo"].item() == pytest.approx(0.75 - half)
    assert wide["lo"].item() == pytest.approx(max(0.0, 0.75 - 2 * half))
