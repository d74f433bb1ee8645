"""Observed against expected for weapons, on hand-made attacks."""

from __future__ import annotations

from math import comb

import polars as pl
import pytest

from pmim_analytics.analytics.rules_frames import complete_rules_frames
from pmim_analytics.analytics.weapons import attack_strata, dice_test_note, weapon_table
from tests.support.gamebuilder import GameBuilder, frames_of

BLUE = [("TW1", "TW", ("GG", "ML")), ("IN1", "IN", ("LL",))]
RED = [("TY1", "TY", ("HAC",)), ("IN1", "IN", ("LAC",)), ("PA1", "PA", ("HPB", "HAC"))]


def table(games: list[GameBuilder], by: str = "target_kind") -> dict[tuple[str, str], dict]:
    f = frames_of(games)
    ru, rw = complete_rules_frames(["v3"], f.rules_units, f.rules_weapons)
    t = weapon_table(attack_strata(f.events, f.units, f.games), ru, rw, by=by)
    return {(r["weapon"], r[by]): r for r in t.iter_rows(named=True)}


def test_a_gauss_gun_that_hits_every_time() -> None:
    g = GameBuilder("w1").side("blue", "A", BLUE).side("red", "B", RED)
    for i in range(10):
        g.attack(i + 1, "B:TW1", "GG", "R:TY1", (6, 6))
    t = table([g.end("blue", "vp", 10)])
    row = t[("GG", "vehicle")]
    p = 26 / 36  # 2d6 + 1 >= 7 needs 6 or more: 26 of 36 rolls
    assert (row["attacks"], row["hits"], row["hit_rate"]) == (10, 10, 1.0)
    assert row["expected_hit_rate"] == pytest.approx(p)
    assert row["hit_rate_diff"] == pytest.approx(1 - p)
    # Two-sided exact p: every outcome no more likely than 10 hits in 10.
    pmf = [comb(10, k) * p**k * (1 - p) ** (10 - k) for k in range(11)]
    assert row["hit_p_exact"] and row["hit_p"] == pytest.approx(sum(x for x in pmf if x <= pmf[10] * (1 + 1e-9)))
    assert row["mean_damage"] == 3.0 and row["expected_mean_damage"] == pytest.approx(3 * p)
    assert row["damage_mismatch"] == 0 and row["unrated"] == 0


def test_targets_are_classed_by_kind_and_by_type() -> None:
    g = GameBuilder("w2").side("blue", "A", BLUE).side("red", "B", RED)
    g.attack(1, "B:IN1", "LL", "R:IN1", (3, 3))   # 6 + 2 >= 8: hit, (1 - 0) x 3 = 3
    g.attack(1, "B:IN1", "LL", "R:PA1", (6, 6))   # hit, but STR 1 against ARM 2: no damage
    g.attack(2, "B:IN1", "LL", "R:TY1", (1, 2))   # 3 + 2 < 7: miss
    g.end("red", "vp", 2)
    kinds = table([g])
    assert kinds[("LL", "infantry")]["mean_damage"] == 3.0
    assert kinds[("LL", "warmech")]["mean_damage"] == 0.0 and kinds[("LL", "warmech")]["expected_mean_damage"] == 0
    assert kinds[("LL", "vehicle")]["hits"] == 0
    types = table([g], by="target_type")
    assert set(types) == {("LL", "Infantry"), ("LL", "Paladin"), ("LL", "Tyrant")}


def test_a_hit_whose_damage_breaks_the_rules_is_counted() -> None:
    g = GameBuilder("w3").side("blue", "A", BLUE).side("red", "B", RED)
    g.attack(1, "B:TW1", "GG", "R:TY1", (6, 6), damage=7)
    row = table([g.end("blue", "vp", 1)])[("GG", "vehicle")]
    assert row["damage_mismatch"] == 1


def test_an_unknown_weapon_is_unrated_not_an_error() -> None:
    g = GameBuilder("w4").side("blue", "A", BLUE).side("red", "B", RED)
    g.attack(1, "B:TW1", "GG", "R:TY1", (6, 6))
    f = frames_of([g.end("blue", "vp", 1)])
    events = f.events.with_columns(weapon=pl.when(pl.col("type") == "attack").then(pl.lit("XX"))
                                   .otherwise(pl.col("weapon")))
    ru, rw = complete_rules_frames(["v3"], f.rules_units, f.rules_weapons)
    row = weapon_table(attack_strata(events, f.units, f.games), ru, rw).row(0, named=True)
    assert row["unrated"] == 1 and row["attacks"] == 0 and row["hit_rate"] is None


def test_the_dice_note_states_the_family_and_the_smallest_p_adjusted_over_it() -> None:
    # Three rows tested (the fourth has no test): Holm over 3 multiplies the smallest p by 3.
    t = pl.DataFrame({"rules_id": ["v3"] * 4, "source": ["engine"] * 4, "weapon": ["GG", "HPC", "LL", "SC"],
                      "target_kind": ["vehicle", "infantry", "warmech", "vehicle"],
                      "hit_p": [0.5, 0.004, None, 0.2]})
    note = dice_test_note(t)
    assert note is not None
    assert "3 rows tested" in note and "0.05/3 = 0.017" in note
    assert "v3 engine HPC against infantry, p = 0.004, Holm-adjusted over the 3 rows 0.012." in note
    assert dice_test_note(t.with_columns(hit_p=pl.lit(None, dtype=pl.Float64))) is None
