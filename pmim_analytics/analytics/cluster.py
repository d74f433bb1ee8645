"""Game-clustered uncertainty: intervals that treat a game, not a unit or an attack, as the draw.

The units of one game are not independent draws: they shoot at the same enemies, score on
the same objectives and live as long as the same game lasts. A mean over unit-games (or a
hit rate over attacks) is a *ratio* of two sums over games, ``m = sum_g Y_g / sum_g D_g``
(``Y_g`` the game's total, e.g. damage per point summed over its units of that type, and
``D_g`` how many it counted, e.g. those units). Its cluster-robust (sandwich) variance is

    var(m) = G / (G - 1) * sum_g (Y_g - m D_g)^2 / (sum_g D_g)^2

over the ``G`` games with ``D_g > 0``: the usual linearisation of a ratio estimator, with
the small-sample factor ``G / (G - 1)``. When every game holds one unit it is the ordinary
standard error with ``n - 1`` replaced by ``n``. The sums expand into four additive terms
(``sum Y^2``, ``sum Y D``, ``sum D^2``, ``G``), so they add over games and rules ids like
any other sum.

Shares (survival, hit rate) keep a Wilson interval, computed on the *effective* number of
units ``n_eff = m (1 - m) / var(m)``: the interval then widens by the design effect and
stays within [0, 1]. A game weight ``w_g`` (paired impact reweights strata) multiplies
``Y_g`` and ``D_g``; the same formula then gives the weighted estimate and its variance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

from pmim_analytics.analytics.stats import Z95, wilson_exprs, wilson_interval


def ratio_estimate(ys: Sequence[float], ds: Sequence[float]) -> tuple[float, float]:
    """(mean, cluster-robust standard error) of ``sum(ys) / sum(ds)``, one (Y, D) per game.

    Games with ``D = 0`` are left out. Returns ``(nan, nan)`` without data and an SE of
    ``nan`` with a single game. Example: ``ratio_estimate([3, 1], [2, 2])`` is ``(1.0, 0.5)``.
    """
    pairs = [(y, d) for y, d in zip(ys, ds, strict=True) if d > 0]
    if not pairs:
        return (math.nan, math.nan)
    sd = sum(d for _, d in pairs)
    m = sum(y for y, _ in pairs) / sd
    g = len(pairs)
    if g < 2:
        return (m, math.nan)
    resid = sum((y - m * d) ** 2 for y, d in pairs)
    return (m, math.sqrt(g / (g - 1) * resid) / sd)


def clustered_wilson(ys: Sequence[float], ds: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """Wilson interval of a share ``sum(ys) / sum(ds)`` on the effective sample size (see module)."""
    m, se = ratio_estimate(ys, ds)
    if math.isnan(m) or math.isnan(se):
        return (math.nan, math.nan)
    if se == 0:
        return wilson_interval(m * sum(ds), sum(ds), z)
    n_eff = m * (1 - m) / se**2
    return wilson_interval(m * n_eff, n_eff, z)


def cluster_sums(per_game: pl.DataFrame, keys: Sequence[str], metrics: Mapping[str, tuple[pl.Expr, pl.Expr]],
                 weight: pl.Expr | None = None) -> pl.DataFrame:
    """Reduce rows of one game each (per key) to the additive terms of :func:`ratio_se_expr`.

    ``metrics`` maps a name to ``(Y, D)`` expressions over ``per_game``; ``weight`` (default 1)
    multiplies both. Columns: keys, then for each metric ``{m}_g`` (games with D > 0),
    ``{m}_y``, ``{m}_d``, ``{m}_yy``, ``{m}_yd``, ``{m}_dd``.
    """
    w = weight if weight is not None else pl.lit(1.0)
    aggs: list[pl.Expr] = []
    for name, (y, d) in metrics.items():
        yw, dw = (y.cast(pl.Float64) * w), (d.cast(pl.Float64) * w)
        has = d > 0
        aggs += [
            has.cast(pl.Int64).sum().alias(f"{name}_g"),
            yw.filter(has).sum().alias(f"{name}_y"),
            dw.filter(has).sum().alias(f"{name}_d"),
            (yw * yw).filter(has).sum().alias(f"{name}_yy"),
            (yw * dw).filter(has).sum().alias(f"{name}_yd"),
            (dw * dw).filter(has).sum().alias(f"{name}_dd"),
        ]
    return per_game.group_by(list(keys)).agg(aggs)


def ratio_se_expr(name: str, suffix: str = "") -> tuple[pl.Expr, pl.Expr]:
    """(mean, cluster-robust SE) expressions from the ``{name}_*{suffix}`` columns of :func:`cluster_sums`."""
    def col(term: str) -> pl.Expr:
        return pl.col(f"{name}_{term}{suffix}")

    g = col("g").cast(pl.Float64)
    y, d = col("y"), col("d")
    m = pl.when(d > 0).then(y / d)
    resid = col("yy") - 2 * m * col("yd") + m * m * col("dd")
    se = pl.when(g > 1).then((g / (g - 1) * pl.max_horizontal(resid, pl.lit(0.0))).sqrt() / d)
    return m, se


def clustered_wilson_exprs(name: str, z: float = Z95) -> tuple[pl.Expr, pl.Expr]:
    """(lower, upper) Wilson limits of the share ``{name}`` on its effective sample size."""
    m, se = ratio_se_expr(name)
    d = pl.col(f"{name}_d")
    n_eff = pl.when(se > 0).then(m * (1 - m) / (se * se)).otherwise(d)
    return wilson_exprs(m * n_eff, n_eff, z)


def design_effect_expr(name: str) -> pl.Expr:
    """Clustered variance over the variance as if every unit (attack) were independent."""
    m, se = ratio_se_expr(name)
    d = pl.col(f"{name}_d")
    naive_var = m * (1 - m) / d
    return pl.when(naive_var > 0).then(se * se / naive_var)
