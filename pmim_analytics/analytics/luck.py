"""Luck: was a result the armies and the play, or the dice?

For every attack the chance to hit and the damage of a hit are exact (:mod:`.weapons`), so
each side's damage in a game has an exact expectation and variance given the attacks it
made. The **luck index** of a side is ``z = (damage - expected) / sd``: 0 is average dice,
+2 is dice as good as one game in 40. Damage is counted as rolled (overkill included);
``landed`` (overkill excluded) is shown beside it. A game's ``luck_diff`` is blue's z minus
red's, and the summary says how often the luckier side won.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.stats import wilson_exprs
from pmim_analytics.analytics.weapons import add_expectations, attacks_with_targets

SIDE_STRATA_KEYS = ("game_id", "rules_id", "source", "side", "weapon", "target_code", "threshold")


def side_attack_strata(events: pl.DataFrame, units: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Count each side's attacks per game, weapon, target type and to-hit threshold.

    The attacking side is read from the unit id (``B:``/``R:``, see
    :mod:`pmim_analytics.model.events`). Columns: :data:`SIDE_STRATA_KEYS`, ``n``, ``hits``, ``damage``, ``overkill``.
    """
    side = pl.when(pl.col("unit").str.starts_with("B:")).then(pl.lit("blue")).when(
        pl.col("unit").str.starts_with("R:")).then(pl.lit("red"))
    narrow = [k for k in SIDE_STRATA_KEYS if k not in ("rules_id", "source")]  # these follow from the game
    return (
        attacks_with_targets(events, units, games)
        .with_columns(side=side)
        .group_by(narrow)
        .agg(
            rules_id=pl.col("rules_id").min(),
            source=pl.col("source").min(),
            n=pl.len().cast(pl.Int64),
            hits=pl.col("hit").fill_null(False).cast(pl.Int64).sum(),
            damage=pl.col("damage").cast(pl.Int64).fill_null(0).sum(),
            overkill=pl.col("overkill").cast(pl.Int64).fill_null(0).sum(),
        )
        .select(*SIDE_STRATA_KEYS, "n", "hits", "damage", "overkill")
        .sort(list(SIDE_STRATA_KEYS), nulls_last=True)
    )


STRATUM_KEYS = ("rules_id", "weapon", "target_code", "threshold")
SUM_COLUMNS = ("attacks", "hits", "expected_hits", "damage", "expected_damage", "var_damage", "landed", "unrated")


def stratum_expectations(strata: pl.DataFrame, rules_units: pl.DataFrame, rules_weapons: pl.DataFrame) -> pl.DataFrame:
    """The chance to hit ``p`` and damage of a hit ``d`` of every distinct stratum in ``strata``.

    Columns: :data:`STRATUM_KEYS`, ``p``, ``d`` (null when the rules tables lack the weapon
    or target). A few thousand rows however many games: the per-game work is a join on it.
    """
    keys = strata.select(STRATUM_KEYS).unique().with_columns(n=pl.lit(1, pl.Int64))
    return add_expectations(keys, rules_units, rules_weapons).select(*STRATUM_KEYS, "p", "d")


def side_sums(strata: pl.DataFrame, expectations: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Per game and side: attacks, hits and damage beside their expectations, and the winner.

    ``expectations`` comes from :func:`stratum_expectations`; ``games`` needs ``game_id`` and
    ``winner``. Attacks whose stratum has no ``p`` or ``d`` count as ``unrated`` only.
    Columns: ``game_id rules_id source side`` + :data:`SUM_COLUMNS` + ``winner``.
    """
    n, p, d = pl.col("n").cast(pl.Float64), pl.col("p"), pl.col("d").cast(pl.Float64)
    rated = pl.col("d").is_not_null() & pl.col("p").is_not_null()
    return (
        strata.join(expectations, on=list(STRATUM_KEYS), how="left", nulls_equal=True)
        .group_by("game_id", "rules_id", "source", "side")
        .agg(
            attacks=pl.col("n").filter(rated).sum(),
            hits=pl.col("hits").filter(rated).sum(),
            expected_hits=(n * p).filter(rated).sum(),
            damage=pl.col("damage").filter(rated).sum(),
            expected_damage=(n * p * d).filter(rated).sum(),
            var_damage=(n * p * (1 - p) * d * d).filter(rated).sum(),
            landed=(pl.col("damage") - pl.col("overkill")).filter(rated).sum(),
            unrated=pl.col("n").filter(~rated).sum(),
        )
        .join(games.select("game_id", "winner"), on="game_id", how="left")
    )


def luck_from_sums(sums: pl.DataFrame) -> pl.DataFrame:
    """The luck table from :func:`side_sums` (or the database's equivalent): see :func:`luck_table`."""
    return (
        sums.with_columns(
            luck_z=pl.when(pl.col("var_damage") > 0).then(
                (pl.col("damage") - pl.col("expected_damage")) / pl.col("var_damage").sqrt()),
            luck_ratio=pl.when(pl.col("expected_damage") > 0).then(pl.col("damage") / pl.col("expected_damage")),
            won=pl.when(pl.col("winner").is_null()).then(None).otherwise(pl.col("winner") == pl.col("side")),
        )
        .select("game_id", "rules_id", "source", "side", "attacks", "hits", "expected_hits", "damage",
                "expected_damage", "landed", "unrated", "luck_z", "luck_ratio", "won")
        .sort("game_id", "side")
    )


def luck_table(strata: pl.DataFrame, games: pl.DataFrame, rules_units: pl.DataFrame,
               rules_weapons: pl.DataFrame) -> pl.DataFrame:
    """One row per game and side: attacks, hits and damage against expectation, luck z.

    ``games`` needs ``game_id`` and ``winner``. Columns: ``game_id rules_id source side attacks
    hits expected_hits damage expected_damage landed unrated luck_z luck_ratio won``.
    Attacks whose weapon or target the rules tables lack are counted as ``unrated`` and
    left out of the rest.
    """
    return luck_from_sums(side_sums(strata, stratum_expectations(strata, rules_units, rules_weapons), games))


def with_optional_dice(luck: pl.DataFrame, optional: pl.DataFrame) -> pl.DataFrame:
    """Add the optional rules' dice (:func:`.optional_rules.optional_dice_luck`) to the luck table.

    ``dice_z`` combines the damage luck ``luck_z`` with ``heat_z`` and ``initiative_z`` where
    a side rolled them (Stouffer: the sum of the independent z scores over the square root of
    their number); without optional-rule dice it is ``luck_z``. The summary ranks sides by it.
    """
    if optional.height == 0:
        return luck.with_columns(heat_z=pl.lit(None, pl.Float64), initiative_z=pl.lit(None, pl.Float64),
                                 dice_z=pl.col("luck_z"))
    t = luck.join(optional.select("game_id", "side", "heat_z", "initiative_z"), on=["game_id", "side"], how="left")
    parts = [pl.col(c) for c in ("luck_z", "heat_z", "initiative_z")]
    total = pl.sum_horizontal(*parts)
    count = pl.sum_horizontal(*(p.is_not_null().cast(pl.Int64) for p in parts))
    return t.with_columns(dice_z=pl.when(count > 0).then(total / count.cast(pl.Float64).sqrt()))


def luck_summary(luck: pl.DataFrame) -> pl.DataFrame:
    """Per rules id and source: how often the side with the better dice won.

    Sides are compared by ``dice_z`` when the table has it (damage luck with the optional
    rules' dice, :func:`with_optional_dice`), else by ``luck_z``. Counts decisive games where
    both sides have a luck index. Columns: ``rules_id source
    games luckier_won share share_lo share_hi mean_abs_diff``.
    """
    z = "dice_z" if "dice_z" in luck.columns else "luck_z"  # with the optional rules' dice when known
    wide = (
        luck.filter(pl.col(z).is_not_null())
        .select("game_id", "rules_id", "source", "side", pl.col(z).alias("luck_z"), "won")
        .pivot(on="side", index=["game_id", "rules_id", "source"], values=["luck_z", "won"])
    )
    need = {"luck_z_blue", "luck_z_red", "won_blue"}
    if not need <= set(wide.columns):
        return pl.DataFrame(schema={"rules_id": pl.Utf8, "source": pl.Utf8, "games": pl.Int64,
                                    "luckier_won": pl.Int64, "share": pl.Float64, "share_lo": pl.Float64,
                                    "share_hi": pl.Float64, "mean_abs_diff": pl.Float64})
    games = wide.filter(pl.col("luck_z_blue").is_not_null() & pl.col("luck_z_red").is_not_null()
                        & pl.col("won_blue").is_not_null()).with_columns(
        diff=pl.col("luck_z_blue") - pl.col("luck_z_red"))
    games = games.with_columns(luckier_won=((pl.col("diff") > 0) == pl.col("won_blue")) & (pl.col("diff") != 0))
    t = games.group_by("rules_id", "source").agg(
        games=pl.len().cast(pl.Int64),
        luckier_won=pl.col("luckier_won").sum().cast(pl.Int64),
        mean_abs_diff=pl.col("diff").abs().mean(),
    )
    lo, hi = wilson_exprs(pl.col("luckier_won"), pl.col("games"))
    return t.select("rules_id", "source", "games", "luckier_won",
                    share=pl.col("luckier_won") / pl.col("games").cast(pl.Float64), share_lo=lo, share_hi=hi,
                    mean_abs_diff=pl.col("mean_abs_diff")).sort("rules_id", "source")
