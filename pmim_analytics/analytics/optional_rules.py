"""What the optional rules did in the games: overheating, weapons lost to heat, initiative.

Reads the events only the optional rules produce (``overheat_roll``, ``weapon_lost``,
``initiative_roll``, ``rush``; see docs/replay-format.md) as wide rows with the game's
``rules_id`` and ``source``. Every observed rate sits beside its exact expectation
(:mod:`pmim_analytics.rules.mechanics`) and a 95% Wilson interval, so a designer can tell a
rule's real effect from dice noise.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.stats import wilson_exprs
from pmim_analytics.rules.mechanics import overheat_chance

#: The wide columns an optional-rule event frame needs (``needed`` = excess, ``die1`` = overheat
#: result or blue's initiative die, ``die2`` red's, ``hit`` = overheated, ``side`` = who went first).
EVENT_COLUMNS = ("game_id", "rules_id", "source", "type", "unit", "weapon", "needed", "die1", "die2", "hit",
                 "side", "damage")
OPTIONAL_TYPES = ("initiative_roll", "overheat_roll", "weapon_lost", "rush")


def optional_rule_events(events: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """The optional rules' events of ``events`` (wide rows) with each game's rules id and source."""
    ev = events.filter(pl.col("type").is_in(OPTIONAL_TYPES))
    cols = [c for c in EVENT_COLUMNS if c not in ("rules_id", "source")]
    return ev.select(cols).join(games.select("game_id", "rules_id", "source"), on="game_id", how="inner").select(
        EVENT_COLUMNS)


def _exact_chance(excess: int) -> float:
    return float(overheat_chance(int(excess)))


def heat_table(ev: pl.DataFrame) -> pl.DataFrame:
    """Per rules id and excess level: overheat rolls, overheats, the observed rate with its 95%
    interval and the exact chance. Columns: ``rules_id excess rolls overheats rate rate_lo
    rate_hi exact``."""
    rolls = ev.filter(pl.col("type") == "overheat_roll")
    if rolls.height == 0:
        return pl.DataFrame(schema={"rules_id": pl.Utf8, "excess": pl.Int64, "rolls": pl.Int64, "overheats": pl.Int64,
                                    "rate": pl.Float64, "rate_lo": pl.Float64, "rate_hi": pl.Float64,
                                    "exact": pl.Float64})
    t = rolls.group_by("rules_id", pl.col("needed").cast(pl.Int64).alias("excess")).agg(
        rolls=pl.len().cast(pl.Int64), overheats=pl.col("hit").cast(pl.Int64).sum())
    lo, hi = wilson_exprs(pl.col("overheats"), pl.col("rolls"))
    return t.select("rules_id", "excess", "rolls", "overheats",
                    rate=pl.col("overheats") / pl.col("rolls").cast(pl.Float64), rate_lo=lo, rate_hi=hi,
                    exact=pl.col("excess").map_elements(_exact_chance, return_dtype=pl.Float64)
                    ).sort("rules_id", "excess")


def heat_by_weapon(ev: pl.DataFrame) -> pl.DataFrame:
    """Per rules id and weapon: overheat rolls, weapons lost to heat and the damage Warmechs did
    to themselves. Columns: ``rules_id weapon rolls lost self_damage``."""
    rolls = ev.filter(pl.col("type") == "overheat_roll").group_by("rules_id", "weapon").agg(
        rolls=pl.len().cast(pl.Int64))
    lost = ev.filter(pl.col("type") == "weapon_lost").group_by("rules_id", "weapon").agg(
        lost=pl.len().cast(pl.Int64), self_damage=pl.col("damage").cast(pl.Int64).sum())
    return (rolls.join(lost, on=["rules_id", "weapon"], how="full", coalesce=True)
            .with_columns(pl.col("rolls", "lost", "self_damage").fill_null(0))
            .select("rules_id", "weapon", "rolls", "lost", "self_damage").sort("rules_id", "lost", "weapon",
                                                                               descending=[False, True, False]))


def initiative_table(ev: pl.DataFrame) -> pl.DataFrame:
    """Per rules id: initiative rolls, ties, rounds blue went first with its 95% interval (exactly
    1/2 by symmetry: each side wins 15 of the 36 pairs of d6, the 6 ties are rolled again).
    Columns: ``rules_id rolls ties rounds blue_first share share_lo share_hi``."""
    rolls = ev.filter(pl.col("type") == "initiative_roll")
    if rolls.height == 0:
        return pl.DataFrame(schema={"rules_id": pl.Utf8, "rolls": pl.Int64, "ties": pl.Int64, "rounds": pl.Int64,
                                    "blue_first": pl.Int64, "share": pl.Float64, "share_lo": pl.Float64,
                                    "share_hi": pl.Float64})
    t = rolls.group_by("rules_id").agg(
        rolls=pl.len().cast(pl.Int64), ties=pl.col("side").is_null().sum().cast(pl.Int64),
        rounds=pl.col("side").is_not_null().sum().cast(pl.Int64),
        blue_first=(pl.col("side") == "blue").sum().cast(pl.Int64))
    lo, hi = wilson_exprs(pl.col("blue_first"), pl.col("rounds"))
    return t.select("rules_id", "rolls", "ties", "rounds", "blue_first",
                    share=pl.col("blue_first") / pl.col("rounds").cast(pl.Float64), share_lo=lo, share_hi=hi
                    ).sort("rules_id")


def rush_table(ev: pl.DataFrame) -> pl.DataFrame:
    """Per rules id: rushes made and the games they were made in. Columns: ``rules_id rushes games``."""
    r = ev.filter(pl.col("type") == "rush")
    return r.group_by("rules_id").agg(rushes=pl.len().cast(pl.Int64),
                                      games=pl.col("game_id").n_unique().cast(pl.Int64)).sort("rules_id")


def overheat_expectation(ev: pl.DataFrame) -> pl.DataFrame:
    """Overheat luck per game and side: overheats against the exact expectation of the rolls made
    (negative = luckier than average). Columns: ``game_id rules_id side rolls overheats expected``."""
    rolls = ev.filter(pl.col("type") == "overheat_roll").with_columns(
        side=pl.when(pl.col("unit").str.starts_with("B:")).then(pl.lit("blue")).otherwise(pl.lit("red")),
        p=pl.col("needed").map_elements(_exact_chance, return_dtype=pl.Float64))
    return rolls.group_by("game_id", "rules_id", "side").agg(
        rolls=pl.len().cast(pl.Int64), overheats=pl.col("hit").cast(pl.Int64).sum(), expected=pl.col("p").sum()
    ).sort("game_id", "side")


def optional_dice_luck(ev: pl.DataFrame) -> pl.DataFrame:
    """Each side's luck with the optional rules' dice, per game, as z scores (positive = lucky).

    ``heat_z``: overheats against the exact expectation of the overheat rolls the side made,
    sign turned (fewer overheats than expected is good luck); variance sum p(1 - p).
    ``initiative_z``: rounds the side won the initiative against half the decided rolls
    (exactly 1/2 each); variance n/4. Null where the side made no such roll. Columns:
    ``game_id side heat_rolls overheats expected_overheats heat_z initiative_rounds
    initiative_won initiative_z``.
    """
    rolls = ev.filter(pl.col("type") == "overheat_roll").with_columns(
        side=pl.when(pl.col("unit").str.starts_with("B:")).then(pl.lit("blue")).otherwise(pl.lit("red")),
        p=pl.col("needed").map_elements(_exact_chance, return_dtype=pl.Float64))
    heat = rolls.group_by("game_id", "side").agg(
        heat_rolls=pl.len().cast(pl.Int64), overheats=pl.col("hit").cast(pl.Int64).sum(),
        expected_overheats=pl.col("p").sum(), var=(pl.col("p") * (1 - pl.col("p"))).sum(),
    ).with_columns(heat_z=pl.when(pl.col("var") > 0).then(
        (pl.col("expected_overheats") - pl.col("overheats")) / pl.col("var").sqrt())).drop("var")
    decided = ev.filter((pl.col("type") == "initiative_roll") & pl.col("side").is_not_null())
    per_game = decided.group_by("game_id").agg(initiative_rounds=pl.len().cast(pl.Int64),
                                               blue=(pl.col("side") == "blue").sum().cast(pl.Int64))
    init = pl.concat([
        per_game.select("game_id", pl.lit("blue").alias("side"), "initiative_rounds",
                        pl.col("blue").alias("initiative_won")),
        per_game.select("game_id", pl.lit("red").alias("side"), "initiative_rounds",
                        (pl.col("initiative_rounds") - pl.col("blue")).alias("initiative_won")),
    ]).with_columns(initiative_z=(pl.col("initiative_won") - pl.col("initiative_rounds") / 2)
                    / (pl.col("initiative_rounds") / 4).sqrt())
    return heat.join(init, on=["game_id", "side"], how="full", coalesce=True).select(
        "game_id", "side", "heat_rolls", "overheats", "expected_overheats", "heat_z", "initiative_rounds",
        "initiative_won", "initiative_z")


__all__ = ["optional_dice_luck", "EVENT_COLUMNS", "OPTIONAL_TYPES", "heat_by_weapon", "heat_table", "initiative_table",
           "optional_rule_events", "overheat_expectation", "rush_table"]
