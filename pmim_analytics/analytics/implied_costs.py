"""Implied point costs with no type as the yardstick: a joint robust fit, a game bootstrap and a test per type.

The model (per rules id). For game g, with Δn_gk = blue's count - red's count of unit type k,

    margin_g = blue VP - red VP = b0 + Σ_k β_k·Δn_gk + ε_g

so β_k is what one unit of type k adds to the VP margin. Every β is estimated at once, with
Huber's loss (quadratic for residuals within ``HUBER_K`` robust standard deviations, linear
beyond: a few lopsided games cannot drag a type), by iteratively reweighted least squares.

The scale. The value of an *average fielded point*, λ, is the Huber centre (:func:`huber_center`)
over types of their value per point β_k / pts_k, each type weighted by the points it fielded;
a type's **implied cost** is β_k / λ. No type is fixed: every type near the centre moves it,
and one far-off type moves it only a bounded amount (so a single mis-priced type stands out
instead of shifting everyone else). One thing the games cannot see: when every side fields the
same number of a kind (two Warmechs each in Take and Hold), a value shared by the whole kind
cancels out of every game. That kind is shifted so that its own centre sits at the centre of
the other types; its members are still measured against each other, so each one (the median
included) can be flagged, but the kind as a whole cannot.

Intervals. The whole chain (Huber fit, anchoring, scale, implied costs) is refitted on
``RESAMPLES`` bootstrap samples, so every interval carries the uncertainty of the scale as
well as of the type. Games are resampled in clusters: all the games between the same two
armies (either side blue) go together, since they share whatever the model leaves out about
that matchup (a random pair plays twice, sides swapped; two fixed lists play many times).
Two bootstraps, each for what it measures right:

* the values (``value_se``) and the scale λ: the army pairs drawn with replacement. This
  counts the luck of which armies were drawn as well as the dice;
* the implied costs (their interval, the verdict's p and :func:`cost_changes`): a wild
  bootstrap of army pairs. The games' armies stay as played; each pair's residuals, scaled
  up for leverage (:func:`_pair_residuals`), keep or flip their sign at random, and the chain
  is refitted on the fitted margins plus them. An implied cost β_k / λ is a contrast in which
  the value shared by all types cancels. Drawing pairs with replacement leaves about a third
  of the pairs out of each sample, and with 25 coefficients on a few hundred pairs the
  thinner designs overstate the spread of such contrasts: on 240 engine games a run, the
  intervals of a change under identical rules excluded 0 for 2.8% of types instead of 5%
  (docs/analytics.md, "Null rates on engine games"); with the wild bootstrap, about 5%. What
  the wild bootstrap leaves out, the draw of the armies, moves the shared value of a point
  and cancels from the contrast. On 3,000 games a run the two agree.

The interval is the estimate ± 1.96 bootstrap standard errors.

Verdicts. Costs are whole points, so a listed cost within half a point (:data:`MARGIN`) of the
implied cost is already the nearest price there is. For each type that can be priced the test
is of "|implied - listed| <= 1/2" against "more than that": p = Φ((1/2 - |implied - listed|) / SE)
with the bootstrap SE (the normal tail at the nearer edge of the margin, a level-5% test at the
edge). The p-values of every priced row of the
table are adjusted together with Benjamini-Hochberg (:func:`.flags.bh_adjust`); a type is
``mis-priced`` when its q is at most :data:`.flags.FDR`, ``in line`` otherwise. The family
size is in every row (``family``) and in the summary.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from pmim_analytics.analytics.costs import (
    MIN_GAMES,
    MIN_GAMES_PER_TYPE,
    MIN_LAMBDA_Z,
    MIN_POINTS_SD,
    CostFit,
    _confounded,
    _fixed_classes,
)
from pmim_analytics.analytics.defaults import RESAMPLES as RESAMPLES  # bootstrap samples of games
from pmim_analytics.analytics.flags import FDR, bh_adjust
from pmim_analytics.analytics.stats import Z95, normal_two_sided_p

#: Huber's tuning constant: 95% efficiency when the residuals are normal.
HUBER_K = 1.345
#: The bootstrap's seed: the same games give the same intervals.
SEED = 20261203
#: Points within which an implied cost counts as the listed one (prices are whole points).
MARGIN = 0.5

#: The verdict words of the cost table, each with what it means (the dashboard's and CLI's legend).
COST_VERDICTS = {
    "mis-priced": f"the implied cost is more than {MARGIN:g} point from the listed cost: z-test on the bootstrap "
                  f"SE, Benjamini-Hochberg adjusted over every priced type of the table, q <= {FDR:g} (direction: "
                  "under- or overcosted)",
    "in line": f"not shown to be more than {MARGIN:g} point from the listed cost after the adjustment",
    "not enough games": f"fewer than {MIN_GAMES} games, or fewer than {MIN_GAMES_PER_TYPE} in which the sides "
                        "field different numbers of the type",
    "not priced": "the games rank the type but cannot put a price on a point (the sides' points hardly differ)",
    "confounded": "the type is always fielded together with others, so its effect cannot be told apart",
}

TABLE_SCHEMA = {
    "rules_id": pl.Utf8, "code": pl.Utf8, "type": pl.Utf8, "kind": pl.Utf8, "pts": pl.Float64, "games": pl.Int64,
    "fielded": pl.Int64, "value_vp": pl.Float64, "value_se": pl.Float64, "rel_value_per_pt": pl.Float64,
    "suggested_pts": pl.Float64, "suggested_lo": pl.Float64, "suggested_hi": pl.Float64, "excess_pts": pl.Float64,
    "p": pl.Float64, "q": pl.Float64, "family": pl.Int64, "verdict": pl.Utf8, "direction": pl.Utf8,
}
SUMMARY_SCHEMA = {
    "rules_id": pl.Utf8, "games": pl.Int64, "points_sd": pl.Float64, "scale": pl.Float64, "scale_lo": pl.Float64,
    "scale_hi": pl.Float64, "resamples": pl.Int64, "family": pl.Int64, "flagged": pl.Int64, "priced": pl.Boolean,
    "message": pl.Utf8,
}


def _wls(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least squares, minimum-norm where the design is rank-deficient."""
    xtw = x.T * w
    out: np.ndarray = np.linalg.pinv(xtw @ x, rcond=1e-10, hermitian=True) @ (xtw @ y)
    return out


def _mad(r: np.ndarray) -> float:
    return float(1.4826 * np.median(np.abs(r - np.median(r))))


#: A weighted least-squares solver: (design, response, weights) -> coefficients.
Solver = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def huber_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, scale: float, start: np.ndarray | None = None,
              *, wls: Solver = _wls, tol: float = 1e-9) -> np.ndarray:
    """Minimise Σ w_i·ρ((y_i - x_i·θ) / scale) with Huber's ρ by iteratively reweighted least squares
    (each step solved by ``wls``, stopping once no coefficient moves by ``tol``)."""
    theta = wls(x, y, w) if start is None else start
    for _ in range(100):
        a = np.abs(y - x @ theta) / scale
        new = wls(x, y, w * np.where(a <= HUBER_K, 1.0, HUBER_K / np.maximum(a, 1e-12)))
        done = float(np.max(np.abs(new - theta))) < tol
        theta = new
        if done:
            break
    return theta


def huber_fits(x: np.ndarray, y: np.ndarray, w: np.ndarray, scale: float, start: np.ndarray) -> np.ndarray:
    """:func:`huber_fit` for many weight vectors at once (rows of ``w``, all started from ``start``):
    the same iterations, each row stopping when its own step is below the tolerance, with the
    weighted normal equations of all rows built and solved as one stack (the bootstrap's loop).
    ``y`` is one response for every row, or one row of responses per row of ``w``."""
    k = x.shape[1]
    xx = (x[:, :, None] * x[:, None, :]).reshape(x.shape[0], k * k)  # per game, x xᵀ flattened
    ys = np.broadcast_to(y, w.shape)
    theta = np.tile(start, (w.shape[0], 1))
    active = np.arange(w.shape[0])
    for _ in range(100):
        if not active.size:
            break
        th = theta[active]
        a = np.abs(ys[active] - th @ x.T) / scale
        wt = w[active] * np.where(a <= HUBER_K, 1.0, HUBER_K / np.maximum(a, 1e-12))
        new = (np.linalg.pinv((wt @ xx).reshape(-1, k, k), rcond=1e-10, hermitian=True)
               @ ((wt * ys[active]) @ x)[:, :, None])[:, :, 0]
        done = np.max(np.abs(new - th), axis=1) < 1e-9
        theta[active] = new
        active = active[~done]
    return theta


def robust_scale(x: np.ndarray, y: np.ndarray, w: np.ndarray, *, wls: Solver = _wls, tol: float = 1e-9
                 ) -> tuple[float, np.ndarray]:
    """The residual scale (MAD of a Huber fit started from least squares) and that fit (solver and
    tolerance as :func:`huber_fit`)."""
    s = _mad(y - x @ wls(x, y, w)) or 1.0
    theta = huber_fit(x, y, w, s, wls=wls, tol=tol)
    s = _mad(y - x @ theta) or s
    return s, huber_fit(x, y, w, s, theta, wls=wls, tol=tol)


def huber_center(r: np.ndarray, a: np.ndarray) -> float:
    """Weighted Huber M-estimate of the centre of ``r`` (weights ``a``), its spread the weighted MAD
    (:func:`huber_centers` of one row).

    Unlike the median, it is not the value of one member: every member within ``HUBER_K``
    spreads of the centre pulls it, and one far away pulls by a bounded amount.
    """
    return float(huber_centers(r[None, :], a)[0])


def implied_scale(beta: np.ndarray, pts: np.ndarray, used: np.ndarray, usable: np.ndarray,
                  classes: list[np.ndarray]) -> tuple[float, np.ndarray]:
    """(λ, anchored β): the value of an average fielded point and the types' values.

    λ is the Huber centre over ``usable`` types of their value per point, each weighted by
    the points it fielded (``used`` units times ``pts``). Each fixed-count class is first
    shifted so that its own centre equals that of the types outside every class. NaN when no
    usable type is outside the classes. (:func:`implied_scales` of one row.)
    """
    lam, b = implied_scales(beta[None, :], pts, used, usable, classes)
    return float(lam[0]), b[0]


def _wmedians(r: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The weighted median of every row of ``r`` (one weight per column): the first value, in
    order, at which the cumulative weight reaches half."""
    order = np.argsort(r, axis=1, kind="stable")
    cum = np.cumsum(a[order], axis=1)
    first = np.argmax(cum >= cum[:, -1:] / 2, axis=1)
    out: np.ndarray = np.take_along_axis(r, order, axis=1)[np.arange(len(r)), first]
    return out


def huber_centers(r: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The weighted Huber centre (:func:`huber_center`) of every row of ``r`` at once (one weight
    per column), each row iterating until its own step is below the tolerance."""
    c = _wmedians(r, a)
    s = 1.4826 * _wmedians(np.abs(r - c[:, None]), a)
    out = np.where(s > 0, c, r @ a / a.sum())
    active = np.flatnonzero(s > 0)
    for _ in range(100):
        if not active.size:
            break
        ra, ca = r[active], out[active]
        z = np.abs(ra - ca[:, None]) / s[active, None]
        wt = a * np.where(z <= HUBER_K, 1.0, HUBER_K / np.maximum(z, 1e-12))
        new = (wt * ra).sum(axis=1) / wt.sum(axis=1)
        done = np.abs(new - ca) < 1e-12 * np.maximum(1.0, np.abs(ca))
        out[active] = new
        active = active[~done]
    return out


def _class_shifts(beta: np.ndarray, pts: np.ndarray, a: np.ndarray, target: np.ndarray) -> np.ndarray:
    """For every row of ``beta``, the shift μ that puts the Huber centre of (β + μ) / pts at that
    row's ``target`` (it rises with μ): Newton steps on the centre's slope in μ, about the
    weighted mean of 1 / pts."""
    slope = float(a @ (1 / pts) / a.sum())
    mu = np.zeros(len(beta))
    active = np.arange(len(beta))
    for _ in range(100):
        if not active.size:
            break
        gap = huber_centers((beta[active] + mu[active, None]) / pts, a) - target[active]
        done = np.abs(gap) < 1e-10 * np.maximum(1.0, np.abs(target[active]))
        mu[active[~done]] -= gap[~done] / slope
        active = active[~done]
    return mu


def implied_scales(beta: np.ndarray, pts: np.ndarray, used: np.ndarray, usable: np.ndarray,
                   classes: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(λ, anchored β) for every row of ``beta`` at once (the point fit and the bootstrap's refits):
    :func:`implied_scale` says what they are."""
    b = beta.copy()
    inside = np.zeros(b.shape[1], dtype=bool)
    for members in classes:
        inside |= members
    a = used * pts
    out = usable & ~inside & (a > 0)
    if not out.any():
        return np.full(len(b), math.nan), b
    lam_out = huber_centers(b[:, out] / pts[out], a[out])
    for members in classes:
        m = members & usable & (a > 0)
        if m.any():
            b[:, members] += _class_shifts(b[:, m], pts[m], a[m], lam_out)[:, None]
    ok = usable & (a > 0)
    return huber_centers(b[:, ok] / pts[ok], a[ok]), b


@dataclass(frozen=True)
class _Design:
    codes: list[str]
    x: np.ndarray  # games x (1 + K): intercept, Δn
    y: np.ndarray  # VP margin
    dpts: np.ndarray
    cluster: np.ndarray  # per game, the index of its pair of armies (whichever side each played)


def _design(lineups: pl.DataFrame, rosters: pl.DataFrame) -> _Design:
    codes = sorted(rosters["code"].unique().to_list())
    wide = rosters.pivot(on="code", index="army_hash", values="count", aggregate_function="sum").fill_null(0)
    for c in codes:
        if c not in wide.columns:
            wide = wide.with_columns(pl.lit(0).alias(c))
    wide = wide.join(rosters.group_by("army_hash").agg(pts=pl.col("pts_sum").sum()), on="army_hash")
    g = (lineups.filter(pl.col("blue_vp").is_not_null() & pl.col("red_vp").is_not_null())
         .join(wide, left_on="blue_hash", right_on="army_hash", how="inner")
         .join(wide, left_on="red_hash", right_on="army_hash", how="inner", suffix="_red")
         .sort("game_id"))
    dn = np.column_stack([g[c].to_numpy() - g[f"{c}_red"].to_numpy() for c in codes]).astype(float) \
        if codes else np.zeros((g.height, 0))
    x = np.column_stack([np.ones(g.height), dn])
    y = (g["blue_vp"] - g["red_vp"]).to_numpy().astype(float)
    pair = pl.concat_str(pl.min_horizontal("blue_hash", "red_hash"), pl.max_horizontal("blue_hash", "red_hash"),
                         separator="|")
    cluster = np.unique(g.select(pair).to_series().to_numpy(), return_inverse=True)[1]
    return _Design(codes, x, y, (g["pts"] - g["pts_red"]).to_numpy().astype(float), cluster)


def _pair_residuals(x: np.ndarray, r: np.ndarray, cluster: np.ndarray) -> np.ndarray:
    """The residuals ``r`` of each cluster g (an army pair's games) scaled up for leverage as in CR2,
    (I - H_gg)^(-1/2)·r_g with H the least-squares hat matrix: a fit pulls towards every game, so
    its residuals spread less than the games' errors, and with 25 coefficients on a few hundred
    games the difference counts."""
    inv = np.linalg.pinv(x.T @ x, rcond=1e-10, hermitian=True)
    out = r.copy()
    order = np.argsort(cluster, kind="stable")
    for idx in np.split(order, np.flatnonzero(np.diff(cluster[order])) + 1):
        xg = x[idx]
        ev, vec = np.linalg.eigh(np.eye(len(idx)) - xg @ inv @ xg.T)
        out[idx] = vec @ ((vec.T @ r[idx]) * np.where(ev > 1e-8, 1 / np.sqrt(np.maximum(ev, 1e-8)), 0.0))
    return out


def fit_implied_costs(lineups: pl.DataFrame, rosters: pl.DataFrame, resamples: int = RESAMPLES,
                      seed: int = SEED) -> CostFit:
    """Implied costs per rules id from one row per game (``game_lineups``: ``rules_id blue_hash red_hash
    blue_vp red_vp``) and :func:`.costs.army_rosters`, with BH-tested verdicts across the whole table.

    ``table`` (one row per rules id and type): ``pts`` (listed), ``games`` (games in which the sides
    field different numbers of it), ``fielded`` (units fielded), ``value_vp`` ± ``value_se`` (VP
    margin per unit), ``rel_value_per_pt`` (value per point over the scale, minus 1: a ranking
    even when nothing can be priced), ``suggested_pts`` with its 95% ``suggested_lo``/``_hi``,
    ``excess_pts``, ``p``, ``q`` (BH), ``family`` (the number of tests adjusted together),
    ``verdict`` (see :data:`COST_VERDICTS`) and ``direction`` (undercosted | overcosted, for a
    mis-priced type). ``summary``: one row per rules id, with the scale (VP per average point)
    and its interval and a plain-words ``message``.
    """
    rows: list[dict[str, Any]] = []
    summaries: list[dict[str, Any]] = []
    for rid in sorted(lineups["rules_id"].unique().to_list()):
        got, summary = _fit_one(rid, lineups.filter(pl.col("rules_id") == rid),
                                rosters.filter(pl.col("rules_id") == rid), resamples, seed)
        rows += got
        summaries.append(summary)
    tested = [i for i, r in enumerate(rows) if r.get("p") is not None]
    qs = bh_adjust([rows[i]["p"] for i in tested])
    for i, q in zip(tested, qs, strict=True):
        r = rows[i]
        r["q"], r["family"] = q, len(tested)
        if q is not None and q <= FDR:
            r["verdict"] = "mis-priced"
            r["direction"] = "undercosted" if r["suggested_pts"] > r["pts"] else "overcosted"
        else:
            r["verdict"] = "in line"
    for s in summaries:
        rid_rows = [r for r in rows if r["rules_id"] == s["rules_id"]]
        s["family"] = len(tested)
        s["flagged"] = sum(r["verdict"] == "mis-priced" for r in rid_rows)
        if s["priced"]:
            s["message"] += (f"; verdicts: {len(tested)} types tested together (Benjamini-Hochberg, false discovery "
                             f"rate {FDR:.0%}), {s['flagged']} mis-priced here")
    table = pl.DataFrame(rows, schema=TABLE_SCHEMA) if rows else pl.DataFrame(schema=TABLE_SCHEMA)
    return CostFit(table.sort("rules_id", "code"), pl.DataFrame(summaries, schema=SUMMARY_SCHEMA))


def _fit_one(rid: str, lineups: pl.DataFrame, rosters: pl.DataFrame, resamples: int, seed: int
             ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    d = _design(lineups, rosters)
    games = len(d.y)
    summary: dict[str, Any] = {"rules_id": rid, "games": games, "resamples": resamples, "priced": False}
    if not d.codes or games == 0:
        return [], {**summary, "message": "no games with known armies and final VP"}
    info = {r["code"]: r for r in rosters.group_by("code", "type", "kind").agg(
        pts=pl.col("pts_sum").sum() / pl.col("count").sum()).iter_rows(named=True)}
    pts = np.array([float(info[c]["pts"]) for c in d.codes])
    dn = d.x[:, 1:]
    differ = (dn != 0).sum(axis=0)
    counts = rosters.group_by("army_hash", "code").agg(pl.col("count").sum())
    # units fielded over the games: count per army times the games it played, both sides
    played = pl.concat([lineups.select(h=pl.col("blue_hash")), lineups.select(h=pl.col("red_hash"))]) \
        .group_by("h").agg(n=pl.len())
    fielded_df = counts.join(played, left_on="army_hash", right_on="h").group_by("code").agg(
        u=(pl.col("count") * pl.col("n")).sum())
    used = np.array([float(dict(zip(fielded_df["code"], fielded_df["u"], strict=True)).get(c, 0)) for c in d.codes])

    def base(j: int, c: str) -> dict[str, Any]:
        return {"rules_id": rid, "code": c, "type": info[c]["type"], "kind": info[c]["kind"], "pts": float(pts[j]),
                "games": int(differ[j]), "fielded": int(used[j])}

    if games < MIN_GAMES:
        rows = [{**base(j, c), "verdict": "not enough games"} for j, c in enumerate(d.codes)]
        return rows, {**summary, "message": f"too few games to price units: {games} (at least {MIN_GAMES} needed)"}
    w = np.ones(games)
    fixed = _fixed_classes(dn, d.codes, {c: info[c]["kind"] for c in d.codes})
    classes = list(fixed.values())
    confounded = _confounded(dn, w, classes)
    enough = differ >= MIN_GAMES_PER_TYPE
    usable = ~confounded
    scale_s, theta = robust_scale(d.x, d.y, w)
    lam, beta = implied_scale(theta[1:], pts, used, usable, classes)
    rng = np.random.default_rng(seed)
    clusters = int(d.cluster.max()) + 1
    weights = np.array([rng.multinomial(clusters, np.full(clusters, 1.0 / clusters)).astype(float)[d.cluster]
                        for _ in range(resamples)]).reshape(resamples, games)
    boot_lam, boot_b = implied_scales(huber_fits(d.x, d.y, weights, scale_s, theta)[:, 1:], pts, used, usable,
                                      classes)
    # the implied costs' own spread: a wild bootstrap of army pairs, the games' armies held fixed
    signs = rng.choice(np.array([-1.0, 1.0]), size=(resamples, clusters))[:, d.cluster]
    fitted = d.x @ theta
    wild = huber_fits(d.x, fitted + signs * _pair_residuals(d.x, d.y - fitted, d.cluster), np.ones((resamples, games)),
                      scale_s, theta)
    wild_lam, wild_b = implied_scales(wild[:, 1:], pts, used, usable, classes)
    boot_c = np.where((wild_lam > 0)[:, None], wild_b / np.where(wild_lam > 0, wild_lam, 1.0)[:, None], np.nan)
    lam_se = float(np.nanstd(boot_lam, ddof=1)) if np.isfinite(boot_lam).sum() > 1 else math.nan
    points_sd = float(np.std(d.dpts))
    lam_ok = bool(lam > 0 and lam >= MIN_LAMBDA_Z * lam_se)
    priced = bool(points_sd >= MIN_POINTS_SD and lam_ok and (usable & enough).any())
    rel = beta / pts / lam - 1 if lam > 0 else beta / pts
    rows = []
    for j, c in enumerate(d.codes):
        row = {**base(j, c), "value_vp": None if confounded[j] else float(beta[j]),
               "value_se": None if confounded[j] or resamples < 2 else float(np.nanstd(boot_b[:, j], ddof=1)),
               "rel_value_per_pt": float(rel[j]) if usable[j] and enough[j] else None}
        if not enough[j]:
            rows.append({**row, "verdict": "not enough games"})
            continue
        if confounded[j]:
            rows.append({**row, "verdict": "confounded"})
            continue
        if not priced:
            rows.append({**row, "verdict": "not priced"})
            continue
        est = float(beta[j] / lam)
        se = float(np.nanstd(boot_c[:, j], ddof=1)) if np.isfinite(boot_c[:, j]).sum() > 1 else math.nan
        z = (abs(est - pts[j]) - MARGIN) / se if se > 0 else math.copysign(math.inf, abs(est - pts[j]) - MARGIN)
        rows.append({**row, "suggested_pts": est, "suggested_lo": est - Z95 * se, "suggested_hi": est + Z95 * se,
                     "excess_pts": est - float(pts[j]), "p": 0.5 * math.erfc(z / math.sqrt(2)) if z == z else 1.0})
    summary.update(points_sd=points_sd, scale=lam, scale_lo=lam - Z95 * lam_se, scale_hi=lam + Z95 * lam_se,
                   priced=priced, message=_message(games, points_sd, lam, lam_se, lam_ok, resamples, list(fixed),
                                                   [c for c, bad in zip(d.codes, confounded & enough, strict=True)
                                                    if bad]))
    return rows, summary


def _message(games: int, points_sd: float, lam: float, lam_se: float, lam_ok: bool, resamples: int,
             fixed: list[str], confounded: list[str]) -> str:
    if points_sd < MIN_POINTS_SD:
        msg = (f"the sides' point totals hardly differ (sd {points_sd:.2f} points), so the value of a point cannot "
               "be measured: units are ranked by value per point but not priced; play games with unequal point "
               "totals to price them")
    elif not lam_ok:
        msg = (f"the value of a point is not clearly positive ({lam:.3f} ± {lam_se:.3f} VP of margin): units are "
               "ranked but not priced")
    else:
        msg = (f"priced from {games} games (Huber fit of the VP margin, {resamples} bootstrap samples of games, a wild "
               "bootstrap of army pairs for the implied costs); "
               f"an average fielded point is worth {lam:.3f} [{lam - Z95 * lam_se:.3f}, {lam + Z95 * lam_se:.3f}] "
               "VP of margin")
    for kind in fixed:
        msg += (f"; every side fields the same number of {kind} units, so they are priced against each other, the "
                "kind as a whole at the average point's value (the games cannot price the kind as a whole)")
    if confounded:
        msg += (f"; {', '.join(confounded)} cannot be told apart from other types in these games (always fielded "
                "together or in fixed lists): vary the army lists to price them")
    return msg


def cost_changes(fit_a: CostFit, fit_b: CostFit, rules_a: str, rules_b: str) -> pl.DataFrame:
    """Does a type's implied cost differ between two fits (two rules ids, or two runs)?

    Per type priced in both: the difference of implied costs, z on the two bootstrap SEs (the
    fits use independent games), two-sided p, and BH-adjusted q over the types compared
    (``family``); ``flag`` is true when q <= FDR. Identical games give a difference of 0 and p = 1.
    """
    def side(fit: CostFit, rid: str) -> pl.DataFrame:
        return fit.table.filter((pl.col("rules_id") == rid) & pl.col("suggested_pts").is_not_null()).select(
            "code", est=pl.col("suggested_pts"), se=(pl.col("suggested_hi") - pl.col("suggested_pts")) / Z95)

    both = side(fit_a, rules_a).join(side(fit_b, rules_b), on="code", suffix="_b").sort("code")
    diff = (both["est_b"] - both["est"]).to_numpy()
    se = np.sqrt(both["se"].to_numpy() ** 2 + both["se_b"].to_numpy() ** 2)
    p = [1.0 if dd == 0 else normal_two_sided_p(float(dd / s)) if s > 0 else 0.0
         for dd, s in zip(diff, se, strict=True)]
    q = bh_adjust(p)
    return both.select("code").with_columns(
        diff=pl.Series(diff, dtype=pl.Float64), p=pl.Series(p, dtype=pl.Float64),
        q=pl.Series(q, dtype=pl.Float64), family=pl.lit(len(p), dtype=pl.Int64),
        flag=pl.Series([qq is not None and qq <= FDR for qq in q], dtype=pl.Boolean))


__all__ = ["COST_VERDICTS", "HUBER_K", "MARGIN", "RESAMPLES", "SEED", "cost_changes", "fit_implied_costs", "huber_fit",
           "huber_center", "huber_centers", "huber_fits", "implied_scale", "implied_scales", "robust_scale"]
