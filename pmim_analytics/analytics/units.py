"""Per unit type: damage, hit rate, kills, survival, VP contribution, Kaplan-Meier curves.

Two stages, so the same numbers come from a few hand-made rows or from millions in the
database: :func:`unit_sums` reduces ``unit_game_stats`` rows to additive sums per group
(the loader computes the very same sums in SQL), and :func:`unit_table` turns sums into
rates, means and 95% intervals. Likewise :func:`survival_counts` then :func:`km_curves`.

A *unit-game* is one unit in one game. Rates are over unit-games: ``survival_rate`` is the
share of unit-games in which the unit was not destroyed; ``damage_per_pt`` is the mean of
``damage_dealt / pts`` over unit-games (landed damage, overkill excluded); ``vp_share`` is
the VP a unit helped score in a game (each VP split equally among the scoring side's units
in the objective's zone) and ``vp_per_pt`` its mean per point.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.cluster import cluster_sums, clustered_wilson_exprs, design_effect_expr, ratio_se_expr
from pmim_analytics.analytics.stats import Z95, mean_exprs, wilson_exprs

UNIT_KEYS = ("rules_id", "source", "code", "type", "kind")
#: What rows are grouped by; ``type`` and ``kind`` follow from the code within a rules id and
#: are carried along (grouping on fewer columns is markedly cheaper on millions of rows).
GROUP_KEYS = ("rules_id", "source", "code")


def unit_keys(by_loadout: bool) -> list[str]:
    """Output keys: the unit type, plus its weapons (mount order) when ``by_loadout``."""
    return [*UNIT_KEYS, "weapons"] if by_loadout else list(UNIT_KEYS)


def group_keys(by_loadout: bool) -> list[str]:
    """Grouping keys: rules id, source and code, plus weapons when ``by_loadout``."""
    return [*GROUP_KEYS, "weapons"] if by_loadout else list(GROUP_KEYS)


def unit_sums(ugs: pl.DataFrame, by_loadout: bool = False, count_games: bool = True) -> pl.DataFrame:
    """Reduce ``unit_game_stats`` rows to additive sums per unit type (and loadout).

    Columns: the keys, ``games`` (distinct games fielding it; null unless ``count_games``,
    which costs as much as the rest on a large database), ``n`` (unit-games),
    ``pts_sum``, sums of ``attacks hits damage_dealt damage_sq overkill damage_taken kills``,
    ``destroyed``, ``round_n``/``round_sum`` (destroyed with a known round), ``vp_n``/``vp_sum``/
    ``vp_sq`` (rows with a known VP share), ``dpp_n``/``dpp_sum``/``dpp_sq`` (damage per point),
    ``vpp_n``/``vpp_sum``/``vpp_sq`` (VP share per point), ``combat_n`` (unit-games whose combat
    was recorded) and ``fate_n`` (unit-games where it is known whether the unit was destroyed).
    Sums skip what was not recorded (NULL): it is unknown, not zero.
    """
    pts = pl.col("pts").cast(pl.Float64)
    dpp = pl.when(pl.col("pts") > 0).then(pl.col("damage_dealt") / pts)
    vpp = pl.when(pl.col("pts") > 0).then(pl.col("vp_share") / pts)
    dmg = pl.col("damage_dealt").cast(pl.Int64)
    known_round = pl.col("destroyed") & pl.col("round_destroyed").is_not_null()
    return (
        ugs.group_by(group_keys(by_loadout))
        .agg(
            type=pl.col("type").min(),
            kind=pl.col("kind").min(),
            games=pl.col("game_id").n_unique().cast(pl.Int64) if count_games else pl.lit(None, pl.Int64),
            n=pl.len().cast(pl.Int64),
            pts_sum=pl.col("pts").cast(pl.Int64).sum(),
            attacks=pl.col("attacks").cast(pl.Int64).sum(),
            hits=pl.col("hits").cast(pl.Int64).sum(),
            damage_dealt=dmg.sum(),
            damage_sq=(dmg * dmg).sum(),
            overkill=pl.col("overkill").cast(pl.Int64).sum(),
            damage_taken=pl.col("damage_taken").cast(pl.Int64).sum(),
            kills=pl.col("kills").cast(pl.Int64).sum(),
            destroyed=pl.col("destroyed").cast(pl.Int64).sum(),
            round_n=known_round.cast(pl.Int64).sum(),
            round_sum=pl.when(known_round).then(pl.col("round_destroyed")).otherwise(0).cast(pl.Int64).sum(),
            vp_n=pl.col("vp_share").is_not_null().cast(pl.Int64).sum(),
            vp_sum=pl.col("vp_share").fill_null(0.0).sum(),
            vp_sq=(pl.col("vp_share") ** 2).fill_null(0.0).sum(),
            dpp_n=dpp.is_not_null().cast(pl.Int64).sum(),
            dpp_sum=dpp.fill_null(0.0).sum(),
            dpp_sq=(dpp**2).fill_null(0.0).sum(),
            vpp_n=vpp.is_not_null().cast(pl.Int64).sum(),
            vpp_sum=vpp.fill_null(0.0).sum(),
            vpp_sq=(vpp**2).fill_null(0.0).sum(),
            combat_n=pl.col("attacks").is_not_null().cast(pl.Int64).sum(),
            fate_n=pl.col("destroyed").is_not_null().cast(pl.Int64).sum(),
        )
        .select(*unit_keys(by_loadout), pl.all().exclude(unit_keys(by_loadout)))
        .sort(unit_keys(by_loadout))
    )


#: Columns of :func:`unit_game_sums` (after the game id and the keys).
GAME_SUM_COLS = ("n", "pts_sum", "attacks", "hits", "damage_dealt", "kills", "destroyed", "vp_n", "vp_sum",
                 "dpp_n", "dpp_sum", "vpp_n", "vpp_sum", "combat_n", "fate_n")


def unit_game_sums(ugs: pl.DataFrame, by_loadout: bool = False) -> pl.DataFrame:
    """Reduce ``unit_game_stats`` rows to sums per game and unit type (and loadout).

    The input of every game-clustered interval (:mod:`.cluster`) and of paired impact.
    Columns: ``game_id``, the keys, then :data:`GAME_SUM_COLS`.
    """
    pts = pl.col("pts").cast(pl.Float64)
    dpp = pl.when(pl.col("pts") > 0).then(pl.col("damage_dealt") / pts)
    vpp = pl.when(pl.col("pts") > 0).then(pl.col("vp_share") / pts)
    return (
        ugs.group_by(["game_id", *group_keys(by_loadout)])
        .agg(
            type=pl.col("type").min(), kind=pl.col("kind").min(),
            n=pl.len().cast(pl.Int64),
            pts_sum=pl.col("pts").cast(pl.Int64).sum(),
            attacks=pl.col("attacks").cast(pl.Int64).sum(),
            hits=pl.col("hits").cast(pl.Int64).sum(),
            damage_dealt=pl.col("damage_dealt").cast(pl.Int64).sum(),
            kills=pl.col("kills").cast(pl.Int64).sum(),
            destroyed=pl.col("destroyed").cast(pl.Int64).sum(),
            vp_n=pl.col("vp_share").is_not_null().cast(pl.Int64).sum(),
            vp_sum=pl.col("vp_share").fill_null(0.0).sum(),
            dpp_n=dpp.is_not_null().cast(pl.Int64).sum(),
            dpp_sum=dpp.fill_null(0.0).sum(),
            vpp_n=vpp.is_not_null().cast(pl.Int64).sum(),
            vpp_sum=vpp.fill_null(0.0).sum(),
            combat_n=pl.col("attacks").is_not_null().cast(pl.Int64).sum(),
            fate_n=pl.col("destroyed").is_not_null().cast(pl.Int64).sum(),
        )
        .select("game_id", *unit_keys(by_loadout), *GAME_SUM_COLS)
        .sort(["game_id", *unit_keys(by_loadout)])
    )


#: The ratio metrics of a unit type, each a (numerator, denominator) over a game's sums.
UNIT_METRICS: dict[str, tuple[pl.Expr, pl.Expr]] = {
    "dmg": (pl.col("damage_dealt"), pl.col("combat_n")),
    "dpp": (pl.col("dpp_sum"), pl.col("dpp_n")),
    "vp": (pl.col("vp_sum"), pl.col("vp_n")),
    "vpp": (pl.col("vpp_sum"), pl.col("vpp_n")),
    "surv": (pl.col("fate_n") - pl.col("destroyed"), pl.col("fate_n")),
    "hit": (pl.col("hits"), pl.col("attacks")),
    "kills": (pl.col("kills"), pl.col("combat_n")),
}


def unit_clusters(game_sums: pl.DataFrame, weight: pl.Expr | None = None) -> pl.DataFrame:
    """Per unit type (and loadout): the cluster sums of :data:`UNIT_METRICS` over games."""
    keys = [c for c in (*UNIT_KEYS, "weapons") if c in game_sums.columns]
    return cluster_sums(game_sums, keys, UNIT_METRICS, weight)


def unit_table(sums: pl.DataFrame, clusters: pl.DataFrame | None = None) -> pl.DataFrame:
    """Rates and means with 95% intervals from :func:`unit_sums` output.

    With ``clusters`` (:func:`unit_clusters` of the same games) every interval is
    game-clustered (:mod:`.cluster`): ``_ci`` half-widths are 1.96 clustered SEs, shares get
    Wilson limits on the effective number of units, and ``survival_deff`` says how much
    wider than the independent-units interval the survival one is (its design effect).

    Columns: the keys, ``games``, ``units`` (unit-games), ``pts`` (mean cost), ``damage_dealt``
    ``damage_taken`` ``overkill`` ``kills`` (means per unit-game), ``damage_per_pt`` (+ ``_ci``
    half-width), ``hit_rate`` (+ Wilson ``_lo``/``_hi``), ``survival_rate`` (+ Wilson),
    ``mean_round_destroyed``, ``vp_share`` (mean per game, + ``_ci``), ``vp_per_pt`` (+ ``_ci``),
    ``combat_not_recorded`` and ``fate_not_recorded`` (unit-games left out of the combat
    figures and of survival because the log did not record them). A figure with nothing
    recorded behind it is null ("not recorded"), never 0 or 100%.
    """
    keys = [c for c in (*UNIT_KEYS, "weapons") if c in sums.columns]
    if "combat_n" not in sums.columns:  # sums from before unknown figures were told apart
        sums = sums.with_columns(combat_n=pl.col("n"), fate_n=pl.col("n"))
    combat = pl.when(pl.col("combat_n") > 0).then(pl.col("combat_n").cast(pl.Float64))
    fate = pl.col("fate_n")
    hit_lo, hit_hi = wilson_exprs(pl.col("hits"), pl.col("attacks"))
    surv_lo, surv_hi = wilson_exprs(fate - pl.col("destroyed"), fate)
    dmg_mean, dmg_ci = mean_exprs(pl.col("combat_n"), pl.col("damage_dealt"), pl.col("damage_sq"))
    dpp, dpp_ci = mean_exprs(pl.col("dpp_n"), pl.col("dpp_sum"), pl.col("dpp_sq"))
    vp, vp_ci = mean_exprs(pl.col("vp_n"), pl.col("vp_sum"), pl.col("vp_sq"))
    vpp, vpp_ci = mean_exprs(pl.col("vpp_n"), pl.col("vpp_sum"), pl.col("vpp_sq"))
    base = sums.select(
        *keys,
        "games",
        units=pl.col("n"),
        pts=pl.col("pts_sum") / pl.col("n").cast(pl.Float64),
        damage_dealt=dmg_mean,
        damage_dealt_ci=dmg_ci,
        damage_taken=pl.col("damage_taken") / combat,
        overkill=pl.col("overkill") / combat,
        kills=pl.col("kills") / combat,
        damage_per_pt=dpp,
        damage_per_pt_ci=dpp_ci,
        hit_rate=pl.when(pl.col("attacks") > 0).then(pl.col("hits") / pl.col("attacks").cast(pl.Float64)),
        hit_rate_lo=hit_lo,
        hit_rate_hi=hit_hi,
        survival_rate=pl.when(fate > 0).then(1 - pl.col("destroyed") / fate.cast(pl.Float64)),
        survival_lo=surv_lo,
        survival_hi=surv_hi,
        mean_round_destroyed=pl.when(pl.col("round_n") > 0).then(pl.col("round_sum") / pl.col("round_n")),
        vp_share=vp,
        vp_share_ci=vp_ci,
        vp_per_pt=vpp,
        vp_per_pt_ci=vpp_ci,
        combat_not_recorded=pl.col("n") - pl.col("combat_n"),
        fate_not_recorded=pl.col("n") - fate,
    )
    if clusters is None:
        return base.sort(keys)
    c = sums.select(keys).join(clusters, on=keys, how="left", nulls_equal=True)
    cl = {name: ratio_se_expr(name)[1] for name in UNIT_METRICS}
    s_lo, s_hi = clustered_wilson_exprs("surv")
    h_lo, h_hi = clustered_wilson_exprs("hit")
    c = c.select(
        *keys,
        damage_dealt_ci=Z95 * cl["dmg"], damage_per_pt_ci=Z95 * cl["dpp"], vp_share_ci=Z95 * cl["vp"],
        vp_per_pt_ci=Z95 * cl["vpp"], hit_rate_lo=h_lo, hit_rate_hi=h_hi, survival_lo=s_lo, survival_hi=s_hi,
        survival_deff=design_effect_expr("surv"),
    )
    replaced = [col for col in c.columns if col not in keys]
    return base.drop([col for col in replaced if col in base.columns]).join(
        c, on=keys, how="left", nulls_equal=True).select(*base.columns, "survival_deff").sort(keys)


def survival_counts(ugs: pl.DataFrame, by_loadout: bool = False) -> pl.DataFrame:
    """Count unit-games per group, round and outcome, the input of :func:`km_curves`.

    A destroyed unit is an event at ``round_destroyed``; a unit alive at the end is censored
    at the game's ``rounds_played``. Rows where that round or the unit's fate is unknown
    (summary logs) are left out. Columns: the keys, ``round``, ``destroyed`` (bool), ``n``.
    """
    time = (
        pl.when(pl.col("destroyed")).then(pl.col("round_destroyed")).otherwise(pl.col("rounds_played"))
        .cast(pl.Int64)
    )
    return (
        ugs.with_columns(round=time)
        .filter(pl.col("round").is_not_null() & pl.col("destroyed").is_not_null())
        .group_by([*unit_keys(by_loadout), "round", "destroyed"])
        .agg(n=pl.len().cast(pl.Int64))
        .sort([*unit_keys(by_loadout), "round", "destroyed"])
    )


def km_curves(counts: pl.DataFrame, z: float = Z95, design_effects: pl.DataFrame | None = None) -> pl.DataFrame:
    """Kaplan-Meier survival by round per group from :func:`survival_counts` output.

    ``survival`` at round r is the estimated probability that a unit is still on the table
    after round r: the product over rounds t <= r of ``1 - destroyed_t / at_risk_t``, where
    ``at_risk_t`` counts units destroyed at or after t plus units censored at or after t (a
    unit alive when its game ended after round t was at risk in round t). A row for round 0
    (survival 1) starts each curve. ``lo``/``hi`` are Greenwood 95% limits, clipped to [0, 1].

    Greenwood counts units as independent; the units of a game are not. With
    ``design_effects`` (the keys and ``deff``, e.g. ``survival_deff`` of :func:`unit_table`)
    each group's Greenwood variance is multiplied by its design effect (never below 1), which
    widens the limits by as much as the game-clustered interval of the final survival share.
    """
    keys = [c for c in (*UNIT_KEYS, "weapons") if c in counts.columns]
    per_round = (
        counts.group_by([*keys, "round"])
        .agg(
            destroyed=pl.col("n").filter(pl.col("destroyed")).sum().cast(pl.Int64),
            censored=pl.col("n").filter(~pl.col("destroyed")).sum().cast(pl.Int64),
        )
        .sort([*keys, "round"])
    )
    total = (pl.col("destroyed") + pl.col("censored")).sum().over(keys)
    removed_before = (pl.col("destroyed") + pl.col("censored")).cum_sum().over(keys) - (
        pl.col("destroyed") + pl.col("censored"))
    curves = per_round.with_columns(at_risk=(total - removed_before).cast(pl.Int64))
    d, r = pl.col("destroyed").cast(pl.Float64), pl.col("at_risk").cast(pl.Float64)
    curves = curves.with_columns(
        survival=(1 - d / r).cum_prod().over(keys),
        _gw=pl.when(r > d).then(d / (r * (r - d))).otherwise(None).cum_sum().over(keys),
    )
    if design_effects is not None:
        curves = curves.join(design_effects.select(*keys, _deff="deff"), on=keys, how="left", nulls_equal=True)
        curves = curves.with_columns(
            _gw=pl.col("_gw") * pl.max_horizontal(pl.col("_deff").fill_null(1.0), pl.lit(1.0))).drop("_deff")
    half = z * pl.col("survival") * pl.col("_gw").sqrt()
    curves = curves.with_columns(
        lo=pl.max_horizontal(pl.lit(0.0), pl.col("survival") - half),
        hi=pl.min_horizontal(pl.lit(1.0), pl.col("survival") + half),
    ).drop("_gw")
    starts = curves.group_by(keys).agg(at_risk=pl.col("at_risk").max()).with_columns(
        round=pl.lit(0, pl.Int64), destroyed=pl.lit(0, pl.Int64), censored=pl.lit(0, pl.Int64),
        survival=pl.lit(1.0), lo=pl.lit(1.0), hi=pl.lit(1.0),
    )
    return pl.concat([starts.select(curves.columns), curves]).sort([*keys, "round"])


def median_survival(curves: pl.DataFrame) -> pl.DataFrame:
    """Per group, the first round at which KM survival drops to 0.5 or below (null if never)."""
    keys = [c for c in (*UNIT_KEYS, "weapons") if c in curves.columns]
    return curves.group_by(keys).agg(
        median_round=pl.col("round").filter(pl.col("survival") <= 0.5).min()
    ).sort(keys)


def km_every_round(curves: pl.DataFrame) -> pl.DataFrame:
    """:func:`km_curves` with a row for every round from 1 to each group's last one.

    A round in which no unit of the group was destroyed or censored keeps the survival and
    limits of the round before; its number at risk is that of the next round with a row
    (nobody left in between). ``destroyed`` and ``censored`` are 0 there.
    """
    keys = [c for c in (*UNIT_KEYS, "weapons") if c in curves.columns]
    c = curves.filter(pl.col("round") > 0)
    if c.height == 0:
        return c
    grid = (c.group_by(keys).agg(last=pl.col("round").max())
            .with_columns(round=pl.int_ranges(1, pl.col("last") + 1)).explode("round").drop("last")
            .with_columns(pl.col("round").cast(c.schema["round"])))
    full = grid.join(c, on=[*keys, "round"], how="left", nulls_equal=True).sort([*keys, "round"])
    return full.with_columns(
        pl.col("survival", "lo", "hi").forward_fill().over(keys).fill_null(1.0),
        pl.col("at_risk").backward_fill().over(keys),
        pl.col("destroyed", "censored").fill_null(0),
    ).select(c.columns)
