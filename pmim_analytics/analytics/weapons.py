"""Weapons in play: observed hit rate and damage against the exact 2d6 expectation.

Each attack event records the two dice, the weapon's ACC and the target's DEF, so its
chance to hit is exact: ``P(2d6 >= DEF - ACC)`` (:mod:`.dice`). A hit deals
``max(0, STR - ARM) * RPT`` by the rules version's stats, so each attack's expected damage is
exact too. Observed totals are compared with these expectations: the difference, a z
statistic (observed minus expected over the standard deviation implied by the rules) and
a two-sided p-value, exact (a sum of binomials, one per to-hit threshold) up to
:data:`~.stats.EXACT_P_MAX_N` attacks and normal above.

Damage here is an attack's damage as rolled, overkill included: what the dice decided, not
what the target had left to lose.

:func:`attack_strata` reduces attack events to counts per (weapon, target, threshold, outcome);
the loader computes the same counts in SQL.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.cluster import cluster_sums, clustered_wilson_exprs, ratio_se_expr
from pmim_analytics.analytics.stats import Z95, exact_strata_p_value, normal_two_sided_p, wilson_exprs
from pmim_analytics.model.combat import attack_damage
from pmim_analytics.model.combat import two_d6_at_least as p_at_least

STRATA_KEYS = ("rules_id", "source", "weapon", "target_code", "target_type", "target_kind", "threshold", "hit",
               "damage")
#: P(2d6 >= t) for the thresholds that can occur (outside 2..12 it is 1 or 0).
HIT_P = pl.DataFrame({"threshold": list(range(-20, 31)),
                      "p": [float(p_at_least(t)) for t in range(-20, 31)]},
                     schema={"threshold": pl.Int64, "p": pl.Float64})


def attacks_with_targets(events: pl.DataFrame, units: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Attack events with the game's rules id and source and the target's type and kind."""
    targets = units.select("game_id", target="unit_id", target_code="code", target_type="type",
                           target_kind="kind")
    return (
        events.filter(pl.col("type") == "attack")
        .join(games.select("game_id", "rules_id", "source"), on="game_id")
        .join(targets, on=["game_id", "target"], how="left")
        .with_columns(threshold=(pl.col("needed").cast(pl.Int64) - pl.col("acc").cast(pl.Int64)))
    )


def attack_strata(events: pl.DataFrame, units: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Count attacks per rules id, source, weapon, target, to-hit threshold, hit and damage.

    Columns: :data:`STRATA_KEYS` then ``n`` (attacks) and ``overkill`` (their overkill sum).
    """
    narrow = [k for k in STRATA_KEYS if k not in ("target_type", "target_kind")]  # these follow from the code
    return (
        attacks_with_targets(events, units, games)
        .with_columns(damage=pl.col("damage").cast(pl.Int64))
        .group_by(narrow)
        .agg(target_type=pl.col("target_type").min(), target_kind=pl.col("target_kind").min(),
             n=pl.len().cast(pl.Int64), overkill=pl.col("overkill").cast(pl.Int64).sum())
        .select(*STRATA_KEYS, "n", "overkill")
        .sort(list(STRATA_KEYS), nulls_last=True)
    )


def damage_frame(rules_units: pl.DataFrame, rules_weapons: pl.DataFrame) -> pl.DataFrame:
    """``rules_id weapon target_code d``: the damage of one hit of every weapon on every unit type
    of each rules version, by the engine's own rule (:func:`~pmim_analytics.model.combat.attack_damage`)."""
    pairs = (rules_weapons.select("rules_id", weapon="code", _str="strength", _rpt="rpt")
             .join(rules_units.select("rules_id", target_code="code", _arm="arm"), on="rules_id"))
    d = [None if None in (s, r, a) else attack_damage(s, r, a)
         for s, r, a in zip(pairs["_str"], pairs["_rpt"], pairs["_arm"], strict=True)]
    return pairs.select("rules_id", "weapon", "target_code").with_columns(d=pl.Series(d, dtype=pl.Int64))


def add_expectations(df: pl.DataFrame, rules_units: pl.DataFrame, rules_weapons: pl.DataFrame) -> pl.DataFrame:
    """Add each stratum's exact chance to hit ``p`` and damage on a hit ``d`` to ``df``.

    ``df`` needs ``rules_id weapon target_code threshold n``. Adds ``p``, ``d`` (null when
    the weapon or target is not in the rules tables), ``exp_hits``, ``var_hits``,
    ``exp_damage`` and ``var_damage`` (sums over the stratum's ``n`` attacks).
    """
    n = pl.col("n").cast(pl.Float64)
    p, d = pl.col("p"), pl.col("d").cast(pl.Float64)
    return (
        df.join(damage_frame(rules_units, rules_weapons), on=["rules_id", "weapon", "target_code"], how="left")
        .join(HIT_P, on="threshold", how="left")
        .with_columns(exp_hits=n * p, var_hits=n * p * (1 - p), exp_damage=n * p * d,
                      var_damage=n * p * (1 - p) * d * d)
    )


def weapon_table(strata: pl.DataFrame, rules_units: pl.DataFrame, rules_weapons: pl.DataFrame,
                 by: str = "target_kind") -> pl.DataFrame:
    """Observed against expected per rules id, source, weapon and target class.

    ``by`` is ``target_kind`` (infantry | vehicle | warmech) or ``target_type``. Columns:
    keys, ``attacks``, ``hits``, ``hit_rate`` (+ Wilson ``_lo``/``_hi``), ``expected_hit_rate``,
    ``hit_rate_diff``, ``hit_z``, ``hit_p`` (exact up to 5000 attacks), ``hit_p_exact`` (bool),
    ``mean_damage``, ``expected_mean_damage``, ``damage_diff``, ``damage_z``, ``damage_p``,
    ``unrated`` (attacks whose weapon or target the rules tables lack) and ``damage_mismatch``
    (hits whose damage differs from the rules' damage: should be 0 for engine games).
    """
    if by not in ("target_kind", "target_type"):
        raise ValueError(f"by must be target_kind or target_type, not {by!r}")
    keys = ["rules_id", "source", "weapon", by]
    x = add_expectations(strata, rules_units, rules_weapons)
    rated = pl.col("d").is_not_null() & pl.col("p").is_not_null()
    hit = pl.col("hit").fill_null(False)
    grouped = (
        x.group_by(keys)
        .agg(
            attacks=pl.col("n").filter(rated).sum(),
            hits=pl.col("n").filter(rated & hit).sum(),
            damage=(pl.col("n") * pl.col("damage").fill_null(0)).filter(rated).sum(),
            exp_hits=pl.col("exp_hits").filter(rated).sum(),
            var_hits=pl.col("var_hits").filter(rated).sum(),
            exp_damage=pl.col("exp_damage").filter(rated).sum(),
            var_damage=pl.col("var_damage").filter(rated).sum(),
            unrated=pl.col("n").filter(~rated).sum(),
            damage_mismatch=pl.col("n").filter(rated & hit & (pl.col("damage") != pl.col("d"))).sum(),
            _strata=pl.struct(pl.col("n"), pl.col("p")).filter(rated),
        )
        .sort(keys, nulls_last=True)
    )
    lo, hi = wilson_exprs(pl.col("hits"), pl.col("attacks"))
    a = pl.col("attacks").cast(pl.Float64)
    out = grouped.with_columns(
        hit_rate=pl.when(a > 0).then(pl.col("hits") / a),
        hit_rate_lo=lo,
        hit_rate_hi=hi,
        expected_hit_rate=pl.when(a > 0).then(pl.col("exp_hits") / a),
        hit_z=pl.when(pl.col("var_hits") > 0).then((pl.col("hits") - pl.col("exp_hits")) / pl.col("var_hits").sqrt()),
        mean_damage=pl.when(a > 0).then(pl.col("damage") / a),
        expected_mean_damage=pl.when(a > 0).then(pl.col("exp_damage") / a),
        damage_z=pl.when(pl.col("var_damage") > 0).then(
            (pl.col("damage") - pl.col("exp_damage")) / pl.col("var_damage").sqrt()),
    ).with_columns(
        hit_rate_diff=pl.col("hit_rate") - pl.col("expected_hit_rate"),
        damage_diff=pl.col("mean_damage") - pl.col("expected_mean_damage"),
    )
    hit_p, exact, dmg_p = [], [], []
    for row in out.select("_strata", "hits", "hit_z", "damage_z").iter_rows():
        cell_strata, hits, hz, dz = row
        pairs = [(s["n"], s["p"]) for s in cell_strata]
        ep = exact_strata_p_value(pairs, int(hits)) if pairs else None
        hit_p.append(ep if ep is not None else normal_two_sided_p(hz))
        exact.append(ep is not None)
        dmg_p.append(normal_two_sided_p(dz))
    out = out.with_columns(hit_p=pl.Series(hit_p, dtype=pl.Float64), hit_p_exact=pl.Series(exact),
                           damage_p=pl.Series(dmg_p, dtype=pl.Float64))
    return out.select(
        *keys, "attacks", "hits", "hit_rate", "hit_rate_lo", "hit_rate_hi", "expected_hit_rate", "hit_rate_diff",
        "hit_z", "hit_p", "hit_p_exact", "mean_damage", "expected_mean_damage", "damage_diff", "damage_z",
        "damage_p", "unrated", "damage_mismatch",
    )


def dice_test_note(table: pl.DataFrame, by: str = "target_kind") -> str | None:
    """One sentence on the hit tests' multiplicity (``None`` when no row was tested).

    Every row's ``hit_p`` is a test of its own; with ``m`` rows and fair dice the smallest p
    falls below ``0.05 / m`` in 5% of tables. The note names the smallest p and its Holm
    adjustment over the ``m`` rows (``m * p``, capped at 1: for the smallest p Holm and
    Bonferroni agree), so one small p in a long table is read at its true rate.
    """
    tested = table.filter(pl.col("hit_p").is_not_null())
    m = tested.height
    if not m:
        return None
    row = tested.sort("hit_p").row(0, named=True)
    p = float(row["hit_p"])
    return (f"Against the dice: {m} rows tested, p per row. With fair dice the smallest of {m} falls below "
            f"0.05/{m} = {0.05 / m:.2g} in at most 1 table in 20. Smallest: {row['rules_id']} {row['source']} "
            f"{row['weapon']} against {row[by]}, p = {p:.2g}, Holm-adjusted over the {m} rows {min(1.0, m * p):.2g}.")


def weapon_clusters(side_strata: pl.DataFrame, rules_units: pl.DataFrame, rules_weapons: pl.DataFrame,
                    by: str = "target_kind") -> pl.DataFrame:
    """Per weapon and target class: game-clustered sums of hits and damage per attack.

    ``side_strata`` holds one game's attacks per row (:func:`.luck.side_attack_strata`);
    attacks whose weapon or target the rules tables lack are left out, as in
    :func:`weapon_table`. Metrics ``hit`` (hits / attacks) and ``dmg`` (damage / attack).
    """
    targets = rules_units.select("rules_id", target_code="code", target_type="name", target_kind="kind")
    rated = side_strata.join(targets, on=["rules_id", "target_code"]).join(
        rules_weapons.select("rules_id", weapon="code"), on=["rules_id", "weapon"], how="semi")
    keys = ["rules_id", "source", "weapon", by]
    per_game = rated.group_by("game_id", *keys).agg(
        n=pl.col("n").sum(), hits=pl.col("hits").sum(), damage=pl.col("damage").sum())
    return cluster_sums(per_game, keys, {"hit": (pl.col("hits"), pl.col("n")),
                                         "dmg": (pl.col("damage"), pl.col("n"))})


def with_clustered_intervals(table: pl.DataFrame, clusters: pl.DataFrame, by: str = "target_kind") -> pl.DataFrame:
    """:func:`weapon_table` with game-clustered hit-rate limits and a ``mean_damage_ci`` half-width.

    The tests against the dice keep assuming independent attacks: given the to-hit numbers,
    every roll is a fresh roll of the dice, which is exactly what they test.
    """
    keys = ["rules_id", "source", "weapon", by]
    lo, hi = clustered_wilson_exprs("hit")
    c = clusters.select(*keys, hit_rate_lo=lo, hit_rate_hi=hi, mean_damage_ci=Z95 * ratio_se_expr("dmg")[1])
    cols = table.columns
    out = table.drop("hit_rate_lo", "hit_rate_hi").join(c, on=keys, how="left", nulls_equal=True)
    at = cols.index("mean_damage") + 1
    return out.select(*cols[:at], "mean_damage_ci", *cols[at:])
