"""Small statistics used across the analytics: intervals, tests, sums to means.

Everything here is either a scalar function (for tests and single numbers) or a Polars
expression builder (for whole tables); both compute the same formulas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: Largest number of attacks for which an exact (convolution) p-value is computed.
EXACT_P_MAX_N = 5000


def wilson_interval(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``k/n`` (``(nan, nan)`` when ``n == 0``).

    Example: ``wilson_interval(8, 10)`` is about ``(0.490, 0.943)``.
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson_exprs(k: pl.Expr, n: pl.Expr, z: float = Z95) -> tuple[pl.Expr, pl.Expr]:
    """Polars expressions (lower, upper) of the Wilson interval of ``k/n`` (null when n = 0)."""
    nf = n.cast(pl.Float64)
    p = k.cast(pl.Float64) / nf
    denom = 1 + z * z / nf
    centre = (p + z * z / (2 * nf)) / denom
    half = z / denom * (p * (1 - p) / nf + z * z / (4 * nf * nf)).sqrt()
    ok = n > 0
    lo = pl.when(ok).then(pl.max_horizontal(pl.lit(0.0), centre - half))
    hi = pl.when(ok).then(pl.min_horizontal(pl.lit(1.0), centre + half))
    return lo, hi


def newcombe_interval(
    p1: float, lo1: float, hi1: float, p2: float, lo2: float, hi2: float
) -> tuple[float, float]:
    """Newcombe's hybrid score interval for ``p1 - p2`` from the two Wilson intervals."""
    d = p1 - p2
    return (d - math.sqrt((p1 - lo1) ** 2 + (hi2 - p2) ** 2), d + math.sqrt((hi1 - p1) ** 2 + (p2 - lo2) ** 2))


def newcombe_exprs(
    p1: pl.Expr, lo1: pl.Expr, hi1: pl.Expr, p2: pl.Expr, lo2: pl.Expr, hi2: pl.Expr
) -> tuple[pl.Expr, pl.Expr]:
    """Polars expressions (lower, upper) of Newcombe's interval for ``p1 - p2``."""
    d = p1 - p2
    lo = d - ((p1 - lo1) ** 2 + (hi2 - p2) ** 2).sqrt()
    hi = d + ((hi1 - p1) ** 2 + (p2 - lo2) ** 2).sqrt()
    return lo, hi


def mean_exprs(n: pl.Expr, s: pl.Expr, ss: pl.Expr, z: float = Z95) -> tuple[pl.Expr, pl.Expr]:
    """(mean, half-width of its normal 95% interval) from count, sum and sum of squares.

    The half-width is null with fewer than two values.
    """
    nf = n.cast(pl.Float64)
    mean = pl.when(n > 0).then(s / nf)
    var = (ss - s * s / nf) / (nf - 1)
    half = pl.when(n > 1).then(z * (pl.max_horizontal(var, pl.lit(0.0)) / nf).sqrt())
    return mean, half


def normal_two_sided_p(z: float | None) -> float | None:
    """Two-sided p-value of a standard normal statistic (``None`` stays ``None``)."""
    if z is None or math.isnan(z):
        return None
    return math.erfc(abs(z) / math.sqrt(2))


def binomial_pmf(n: int, p: float) -> np.ndarray:
    """The Binomial(n, p) probabilities of 0..n successes."""
    if p <= 0:
        out = np.zeros(n + 1)
        out[0] = 1.0
        return out
    if p >= 1:
        out = np.zeros(n + 1)
        out[n] = 1.0
        return out
    k = np.arange(n + 1)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])
    logpmf = log_fact[n] - log_fact[k] - log_fact[n - k] + k * math.log(p) + (n - k) * math.log1p(-p)
    pmf: np.ndarray = np.exp(logpmf)
    return pmf


def exact_strata_p_value(strata: Sequence[tuple[int, float]], observed: int) -> float | None:
    """Exact two-sided p-value of ``observed`` successes, the sum of independent binomials.

    ``strata`` are ``(n, p)`` pairs (attacks of equal hit chance). The p-value sums the
    probabilities of every outcome no more likely than the observed one (as R's
    ``binom.test``). Returns ``None`` above :data:`EXACT_P_MAX_N` trials.
    """
    total = sum(n for n, _ in strata)
    if total > EXACT_P_MAX_N:
        return None
    dist = np.ones(1)
    for n, p in strata:
        if n:
            dist = np.convolve(dist, binomial_pmf(int(n), float(p)))
    if not 0 <= observed < len(dist):
        return 0.0
    cut = dist[observed] * (1 + 1e-7)
    return float(min(1.0, dist[dist <= cut].sum()))


def mean_diff_exprs(
    n1: pl.Expr, s1: pl.Expr, ss1: pl.Expr, n2: pl.Expr, s2: pl.Expr, ss2: pl.Expr, z: float = Z95
) -> tuple[pl.Expr, pl.Expr]:
    """(mean2 - mean1, half-width of its normal 95% interval) from two sets of sums (Welch)."""
    a, b = n1.cast(pl.Float64), n2.cast(pl.Float64)
    var1 = pl.max_horizontal((ss1 - s1 * s1 / a) / (a - 1), pl.lit(0.0))
    var2 = pl.max_horizontal((ss2 - s2 * s2 / b) / (b - 1), pl.lit(0.0))
    ok = (n1 > 0) & (n2 > 0)
    diff = pl.when(ok).then(s2 / b - s1 / a)
    half = pl.when((n1 > 1) & (n2 > 1)).then(z * (var1 / a + var2 / b).sqrt())
    return diff, half


def two_proportion_p(x1: float, n1: float, x2: float, n2: float) -> float | None:
    """Two-sided p-value of the pooled two-proportion z-test of ``x1/n1`` against ``x2/n2``.

    ``x`` may hold halves (a score with draws at 1/2): the test then uses the Bernoulli
    variance, which is at least the score's, so it is conservative. Both shares at 0 or both
    at 1 give 1.0 (no difference); ``None`` when either count is 0.
    """
    if n1 <= 0 or n2 <= 0:
        return None
    pooled = (x1 + x2) / (n1 + n2)
    var = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if var <= 0:
        return 1.0
    return normal_two_sided_p((x1 / n1 - x2 / n2) / math.sqrt(var))


def newcombe_paired_interval(both: int, only_a: int, only_b: int, neither: int,
                             z: float = Z95) -> tuple[float, float, float]:
    """(p_b - p_a, lower, upper): the change of a proportion between two rules ids from paired
    games (each game under A has a twin under B: same lists, bots, sides and seed), by
    Newcombe's method 10 (1998): Wilson limits of each margin, combined with the pairs' phi
    correlation, so the interval narrows as far as the pairing makes the outcomes agree.

    ``both``: pairs where the outcome happened under both; ``only_a``/``only_b``: under one;
    ``neither``: under neither. Method 10 at 0% or 100% under both keeps a width from the
    Wilson limits (100% of 40 under both reads 0 [-9, +9]: nothing shows the change is nil, it
    may just not show at the ceiling). When no pair differs and the margins lie inside (0, 1),
    the twins agreed in every pair on outcomes that did vary: under common random numbers the
    change did nothing to these games, and the interval is exactly 0 [0, 0] (identical copies).
    Raises ``ValueError`` without pairs.
    """
    n = both + only_a + only_b + neither
    if n <= 0:
        raise ValueError("no pairs")
    pa, pb = (both + only_a) / n, (both + only_b) / n
    d = pb - pa
    if only_a == only_b == 0 and 0 < pa < 1:
        return (0.0, 0.0, 0.0)
    la, ua = wilson_interval(both + only_a, n, z)
    lb, ub = wilson_interval(both + only_b, n, z)
    # phi of the 2x2 table of pairs (0 when a margin is constant: nothing to correlate)
    den = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = (both * neither - only_a * only_b) / math.sqrt(den) if den > 0 else 0.0
    lo = d - math.sqrt(max((pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2, 0.0))
    hi = d + math.sqrt(max((ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2, 0.0))
    return (d, max(-1.0, lo), min(1.0, hi))
