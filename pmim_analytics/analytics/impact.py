"""Rules-version impact: the same compositions and bots under two rules ids.

A composition's results depend on whom it meets, so by default (``paired=True``) only the
matchups played under both rules ids count: the same composition against the same
opponent composition with the same bots on both sides. Compositions are matched by name
(``composition``): ``army_hash`` includes the rules id, so it never matches across versions.

Per unit type the change in damage and VP share per point compares all unit-games of that
type under each rules id. Differences are B minus A, with Newcombe (win rate) or Welch
(means) 95% intervals.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.analytics.stats import mean_diff_exprs, newcombe_exprs, wilson_exprs


def composition_impact(cells: pl.DataFrame, rules_a: str, rules_b: str, paired: bool = True) -> pl.DataFrame:
    """Per source and composition: win rate and VP margin under ``rules_a`` and ``rules_b``.

    ``cells`` is :func:`~.compositions.matchup_cells` output. Mirrors are left out. Columns:
    ``source composition games_a games_b win_a win_a_lo win_a_hi win_b win_b_lo win_b_hi
    win_diff win_diff_lo win_diff_hi vp_margin_a vp_margin_b vp_margin_diff vp_margin_diff_ci``.
    """
    matchup = ["source", "composition", "opp_composition", "bot", "opp_bot"]
    c = cells.filter(pl.col("composition") != pl.col("opp_composition"))
    a = c.filter(pl.col("rules_id") == rules_a)
    b = c.filter(pl.col("rules_id") == rules_b)
    if paired:
        common = a.select(matchup).unique().join(b.select(matchup).unique(), on=matchup)
        a, b = a.join(common, on=matchup, how="semi"), b.join(common, on=matchup, how="semi")

    def agg(df: pl.DataFrame, sfx: str) -> pl.DataFrame:
        return df.group_by("source", "composition").agg(
            pl.col("n").sum().alias(f"games_{sfx}"),
            pl.col("n").filter(pl.col("result") == "win").sum().alias(f"wins_{sfx}"),
            pl.col("margin_n").sum().alias(f"mn_{sfx}"),
            pl.col("margin_sum").sum().alias(f"ms_{sfx}"),
            pl.col("margin_sq").sum().alias(f"mq_{sfx}"),
        )

    t = agg(a, "a").join(agg(b, "b"), on=["source", "composition"], how="inner")
    a_lo, a_hi = wilson_exprs(pl.col("wins_a"), pl.col("games_a"))
    b_lo, b_hi = wilson_exprs(pl.col("wins_b"), pl.col("games_b"))
    t = t.with_columns(
        win_a=pl.col("wins_a") / pl.col("games_a").cast(pl.Float64), win_a_lo=a_lo, win_a_hi=a_hi,
        win_b=pl.col("wins_b") / pl.col("games_b").cast(pl.Float64), win_b_lo=b_lo, win_b_hi=b_hi,
    )
    d_lo, d_hi = newcombe_exprs(pl.col("win_b"), pl.col("win_b_lo"), pl.col("win_b_hi"),
                                pl.col("win_a"), pl.col("win_a_lo"), pl.col("win_a_hi"))
    m_diff, m_ci = mean_diff_exprs(pl.col("mn_a"), pl.col("ms_a"), pl.col("mq_a"),
                                   pl.col("mn_b"), pl.col("ms_b"), pl.col("mq_b"))
    t = t.with_columns(
        win_diff=pl.col("win_b") - pl.col("win_a"), win_diff_lo=d_lo, win_diff_hi=d_hi,
        vp_margin_a=pl.col("ms_a") / pl.col("mn_a"), vp_margin_b=pl.col("ms_b") / pl.col("mn_b"),
        vp_margin_diff=m_diff, vp_margin_diff_ci=m_ci,
    )
    return t.select(
        pl.lit(rules_a).alias("rules_a"), pl.lit(rules_b).alias("rules_b"), "source", "composition",
        "games_a", "games_b", "win_a", "win_a_lo", "win_a_hi", "win_b", "win_b_lo", "win_b_hi",
        "win_diff", "win_diff_lo", "win_diff_hi", "vp_margin_a", "vp_margin_b", "vp_margin_diff",
        "vp_margin_diff_ci",
    ).sort("source", "composition")


def unit_impact(sums: pl.DataFrame, rules_a: str, rules_b: str) -> pl.DataFrame:
    """Per source and unit type: points, damage and VP share per point under both rules ids.

    ``sums`` is :func:`~.units.unit_sums` output (by type) covering both rules ids.
    """
    keys = ["source", "code", "type"]
    cols = ["n", "pts_sum", "dpp_n", "dpp_sum", "dpp_sq", "vpp_n", "vpp_sum", "vpp_sq"]

    def side(rid: str, sfx: str) -> pl.DataFrame:
        return sums.filter(pl.col("rules_id") == rid).group_by(keys).agg(
            *[pl.col(c).sum().alias(f"{c}_{sfx}") for c in cols])

    t = side(rules_a, "a").join(side(rules_b, "b"), on=keys, how="inner")
    d_diff, d_ci = mean_diff_exprs(pl.col("dpp_n_a"), pl.col("dpp_sum_a"), pl.col("dpp_sq_a"),
                                   pl.col("dpp_n_b"), pl.col("dpp_sum_b"), pl.col("dpp_sq_b"))
    v_diff, v_ci = mean_diff_exprs(pl.col("vpp_n_a"), pl.col("vpp_sum_a"), pl.col("vpp_sq_a"),
                                   pl.col("vpp_n_b"), pl.col("vpp_sum_b"), pl.col("vpp_sq_b"))
    return t.select(
        pl.lit(rules_a).alias("rules_a"), pl.lit(rules_b).alias("rules_b"), *keys,
        units_a=pl.col("n_a"), units_b=pl.col("n_b"),
        pts_a=pl.col("pts_sum_a") / pl.col("n_a"), pts_b=pl.col("pts_sum_b") / pl.col("n_b"),
        damage_per_pt_a=pl.col("dpp_sum_a") / pl.col("dpp_n_a"),
        damage_per_pt_b=pl.col("dpp_sum_b") / pl.col("dpp_n_b"),
        damage_per_pt_diff=d_diff, damage_per_pt_diff_ci=d_ci,
        vp_per_pt_a=pl.col("vpp_sum_a") / pl.col("vpp_n_a"),
        vp_per_pt_b=pl.col("vpp_sum_b") / pl.col("vpp_n_b"),
        vp_per_pt_diff=v_diff, vp_per_pt_diff_ci=v_ci,
    ).sort(keys)
