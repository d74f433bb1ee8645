"""Intervals and tests against values worked out by hand."""

from __future__ import annotations

import math

import polars as pl
import pytest

from pmim_analytics.analytics.stats import (
    exact_strata_p_value,
    mean_exprs,
    newcombe_interval,
    normal_two_sided_p,
    wilson_exprs,
    wilson_interval,
)


def test_wilson_interval_of_8_in_10() -> None:
    # By hand with z = 1.96: centre = (0.8 + 1.9208/10) / 1.38416 = 0.71673,
    # half = 1.96 / 1.38416 * sqrt(0.016 + 3.8416/400) = 0.22658.
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_edges() -> None:
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)  # 3.8415 / 13.8415
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_wilson_expressions_equal_the_scalar_function() -> None:
    df = pl.DataFrame({"k": [0, 3, 8, 50], "n": [10, 7, 10, 100]})
    lo, hi = wilson_exprs(pl.col("k"), pl.col("n"))
    out = df.select(lo=lo, hi=hi)
    for (k, n), a, b in zip(df.iter_rows(), out["lo"], out["hi"], strict=True):
        assert (a, b) == pytest.approx(wilson_interval(k, n))


def test_newcombe_interval_contains_the_difference() -> None:
    p1, p2 = 0.6, 0.4
    lo1, hi1 = wilson_interval(60, 100)
    lo2, hi2 = wilson_interval(40, 100)
    lo, hi = newcombe_interval(p1, lo1, hi1, p2, lo2, hi2)
    assert lo < 0.2 < hi and lo > 0  # 60/100 against 40/100 is a significant difference
    assert lo == pytest.approx(0.2 - math.sqrt((0.6 - lo1) ** 2 + (hi2 - 0.4) ** 2))


def test_mean_and_interval_from_sums() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    df = pl.DataFrame({"n": [4], "s": [sum(values)], "ss": [sum(v * v for v in values)]})
    mean, half = mean_exprs(pl.col("n"), pl.col("s"), pl.col("ss"))
    row = df.select(m=mean, h=half).row(0)
    sd = math.sqrt(sum((v - 2.5) ** 2 for v in values) / 3)
    assert row == pytest.approx((2.5, 1.959963984540054 * sd / 2))


def test_exact_p_value_of_nine_heads_in_ten() -> None:
    # P(X >= 9) = 11/1024 on each side.
    assert exact_strata_p_value([(10, 0.5)], 9) == pytest.approx(22 / 1024)
    assert exact_strata_p_value([(4, 0.5), (6, 0.5)], 9) == pytest.approx(22 / 1024)
    assert exact_strata_p_value([(5, 1.0)], 5) == pytest.approx(1.0)
    assert exact_strata_p_value([(5, 1.0)], 4) == 0.0


def test_normal_p_value() -> None:
    assert normal_two_sided_p(1.959963984540054) == pytest.approx(0.05)
    assert normal_two_sided_p(None) is None


def test_newcombe_paired_interval() -> None:
    from pmim_analytics.analytics.stats import newcombe_interval, newcombe_paired_interval, wilson_interval

    # identical copies on the same seeds: outcomes vary (12 of 40) but every twin agrees -> exactly 0 [0, 0]
    assert newcombe_paired_interval(12, 0, 0, 28) == (0.0, 0.0, 0.0)
    # 100% under both: the pairing cannot show the change is nil at the ceiling -> a real width
    d, lo, hi = newcombe_paired_interval(40, 0, 0, 0)
    w_lo, _ = wilson_interval(40, 40)
    assert d == 0.0 and lo == pytest.approx(-(1 - w_lo)) and hi == pytest.approx(1 - w_lo) and hi > 0.08
    # phi = 0 (pairs agree no more than chance) gives the unpaired Newcombe interval
    d, lo, hi = newcombe_paired_interval(10, 10, 10, 10)
    pa = wilson_interval(20, 40)
    assert (lo, hi) == pytest.approx(newcombe_interval(0.5, *pa, 0.5, *pa))
    # agreeing pairs narrow it: same margins (50% -> 60%), more concordance, narrower interval
    _, lo1, hi1 = newcombe_paired_interval(16, 4, 8, 12)
    _, lo2, hi2 = newcombe_paired_interval(20, 0, 4, 16)
    assert hi2 - lo2 < hi1 - lo1 and lo2 > 0 > lo1
