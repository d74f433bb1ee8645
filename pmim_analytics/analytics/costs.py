"""Implied point costs: what each unit type is worth, judged by who wins.

The model (per rules id) is Bradley-Terry-like on army contents. For a game with Δn_k
= (blue's count - red's count) of unit type k and Δpts = blue's points - red's points,

    logit P(blue wins) = b0 + λ·Δpts + Σ_k δ_k·Δn_k          (a draw counts as half a win)

so one unit of type k is worth β_k = λ·pts_k + δ_k logits. δ carries an L2 penalty
(``ALPHA``): with little data each δ shrinks to 0, i.e. to "the cost is right". The same
model is fitted to the VP margin (linear, ridge) as a second opinion.

Prices. The value of a *typical* point is that of the median type by value per point
(weighted by how many are fielded), and a type's **suggested PTS** is β_k divided by it:
every type then gives the same value per point, and a single outlier moves alone. 95%
intervals come from the estimator's sampling covariance (sandwich) by the delta method.

What the games can and cannot tell, each said in the summary's message:

* If both sides always spend the same points (72 each), the value of a point cannot be
  measured: types are *ranked* (``rel_value_per_pt``) but not priced.
* If every side fields the same number of a kind (two Warmechs in Take and Hold), only
  differences within the kind are measured; the kind is anchored so that its median type
  is priced like the median type outside it.
* A type that is always fielded together with others (e.g. a sweep of a few fixed army
  lists) cannot be told apart from them: verdict ``confounded``.
* Below ``MIN_GAMES`` games per rules id, or ``MIN_GAMES_PER_TYPE`` games in which the sides
  field different numbers of a type: verdict ``too few games``. The value of a point must be
  ``MIN_LAMBDA_Z`` standard errors above 0 and the points difference vary by at least
  ``MIN_POINTS_SD`` points for anything to be priced.

Fitted by Newton's method (IRLS) on cells of identical army pairs, which gives the same
likelihood as game by game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from pmim_analytics.analytics.compositions import margin_aggs
from pmim_analytics.analytics.stats import Z95

#: Fewer games than this for a rules id: no suggestion at all.
MIN_GAMES = 200
#: Fewer games in which the sides field different numbers of a type: no suggestion for it.
MIN_GAMES_PER_TYPE = 30
#: The points difference between sides must vary at least this much (standard deviation)...
MIN_POINTS_SD = 2.0
#: ...and the value of a point must be at least this many standard errors above zero.
MIN_LAMBDA_Z = 2.0
#: Ridge penalty on δ (per unit type, in logits²); tiny ones on b0 and λ for numerical stability.
ALPHA = 1.0
_EPS = 1e-6


def game_cells(games: pl.DataFrame, sides: pl.DataFrame) -> pl.DataFrame:
    """Count games per rules id, source and (blue army_hash, red army_hash).

    Columns: ``rules_id source blue_hash red_hash n blue_wins red_wins draws margin_n margin_sum
    margin_sq`` (margin = blue VP - red VP) and ``est_margin_*``, the margins of games whose
    final VP are estimated (see :func:`~.compositions.fold_estimated`).
    """
    b = sides.filter(pl.col("side") == "blue").select("game_id", blue_hash="army_hash")
    r = sides.filter(pl.col("side") == "red").select("game_id", red_hash="army_hash")
    margin = (pl.col("blue_vp") - pl.col("red_vp")).cast(pl.Int64)
    est = pl.col("vp_estimated").fill_null(False)
    return (
        games.join(b, on="game_id").join(r, on="game_id")
        .with_columns(_m=pl.when(~est).then(margin), _e=pl.when(est).then(margin))
        .group_by("rules_id", "source", "blue_hash", "red_hash")
        .agg(
            n=pl.len().cast(pl.Int64),
            blue_wins=(pl.col("winner") == "blue").sum().cast(pl.Int64),
            red_wins=(pl.col("winner") == "red").sum().cast(pl.Int64),
            draws=pl.col("winner").is_null().sum().cast(pl.Int64),
            **margin_aggs("_m", "margin"),
            **margin_aggs("_e", "est_margin"),
        )
        .sort("rules_id", "source", "blue_hash", "red_hash")
    )


def army_rosters(sides: pl.DataFrame, units: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """What each army (rules id, army_hash) fields: count and points per unit code.

    Read from one game per army (the smallest game id, then side). Columns:
    ``rules_id army_hash code type kind count pts_sum``.
    """
    first = (
        sides.join(games.select("game_id", "rules_id"), on="game_id")
        .group_by("rules_id", "army_hash")
        .agg(pl.struct("game_id", "side").sort_by("game_id", "side").first().alias("_rep"))
        .unnest("_rep")
    )
    return (
        units.join(first, on=["game_id", "side"])
        .group_by("rules_id", "army_hash", "code", "type", "kind")
        .agg(count=pl.len().cast(pl.Int64), pts_sum=pl.col("pts").cast(pl.Int64).sum())
        .sort("rules_id", "army_hash", "code")
    )


@dataclass(frozen=True)
class CostFit:
    """The implied-cost tables: one row per rules id and unit type, and one per rules id."""

    table: pl.DataFrame
    summary: pl.DataFrame


def _design(cells: pl.DataFrame, rosters: pl.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray, pl.DataFrame]:
    """Δn per code, Δpts per cell, and the cells joined with both armies' counts."""
    codes = sorted(rosters["code"].unique().to_list())
    wide = rosters.pivot(on="code", index="army_hash", values="count", aggregate_function="sum").fill_null(0)
    for c in codes:
        if c not in wide.columns:
            wide = wide.with_columns(pl.lit(0).alias(c))
    pts = rosters.group_by("army_hash").agg(pts=pl.col("pts_sum").sum())
    wide = wide.join(pts, on="army_hash")
    blue = cells.join(wide, left_on="blue_hash", right_on="army_hash", how="inner")
    both = blue.join(wide, left_on="red_hash", right_on="army_hash", how="inner", suffix="_red")
    dn = np.column_stack([both[c].to_numpy() - both[f"{c}_red"].to_numpy() for c in codes]).astype(float) \
        if codes else np.zeros((both.height, 0))
    dpts = (both["pts"] - both["pts_red"]).to_numpy().astype(float)
    return codes, dn, dpts, both


def _newton_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, penalty: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Maximise the penalised binomial log-likelihood; return θ and its sandwich covariance.

    The sandwich ``H⁻¹ (XᵀWX) H⁻¹`` is the estimator's sampling covariance: directions the
    data cannot see (fixed by the penalty) get no variance, and carry the assumption instead.
    """
    theta = np.zeros(x.shape[1])
    pen = np.diag(penalty)
    for _ in range(100):
        mu = 1 / (1 + np.exp(-(x @ theta)))
        grad = x.T @ (w * (y - mu)) - pen @ theta
        info = x.T @ (x * (w * mu * (1 - mu))[:, None])
        step = np.linalg.solve(info + pen, grad)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    mu = 1 / (1 + np.exp(-(x @ theta)))
    info = x.T @ (x * (w * mu * (1 - mu))[:, None])
    hinv = np.linalg.inv(info + pen)
    return theta, hinv @ info @ hinv


def _ridge_linear(x: np.ndarray, n: np.ndarray, s: np.ndarray, ss: np.ndarray, penalty: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Ridge least squares on cell sums (count, sum, sum of squares); θ and its sandwich covariance."""
    ybar = np.divide(s, n, out=np.zeros_like(s), where=n > 0)
    xtwx = x.T @ (x * n[:, None])
    hinv = np.linalg.inv(xtwx + np.diag(penalty))
    theta = hinv @ (x.T @ (n * ybar))
    fit = x @ theta
    rss = float(np.sum(ss - 2 * fit * s + n * fit * fit))
    sigma2 = rss / max(1.0, float(n.sum()) - x.shape[1])
    return theta, sigma2 * (hinv @ xtwx @ hinv)


@dataclass(frozen=True)
class _Prices:
    lam: float  # logits (or VP) per typical point
    lam_se: float
    beta: np.ndarray  # value per unit of each type
    beta_se: np.ndarray
    suggested: np.ndarray
    suggested_se: np.ndarray


def _value_space(theta: np.ndarray, cov: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each type's value β = λ·pts + δ and its covariance, from θ = (b0, λ, δ...)."""
    jac = np.column_stack([pts, np.eye(len(pts))])
    return jac @ theta[1:], jac @ cov[1:, 1:] @ jac.T


def _weighted_median_index(values: np.ndarray, weights: np.ndarray) -> int:
    """Index of the weighted median of ``values``."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order] + 1e-12)
    return int(order[np.searchsorted(cum, cum[-1] / 2)])


def _anchor(beta: np.ndarray, pts: np.ndarray, used: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Shift a fixed-count class so that its median type has the others' median value per point.

    The games cannot see a shift common to the class (every side fields the same number),
    so the class is anchored on the assumption that its typical type is priced like the
    typical type outside it: a single outlier then shows alone instead of spreading its
    surplus over the rest of the class.
    """
    if members.all():
        return beta
    ratio = beta / pts
    target = ratio[~members][_weighted_median_index(ratio[~members], used[~members])]

    def gap(mu: float) -> float:
        r = (beta[members] + mu) / pts[members]
        return float(r[_weighted_median_index(r, used[members])] - target)

    span = 10.0 * float(np.abs(beta).max() + 1)
    lo, hi = -span, span
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return beta + (lo + hi) / 2 * members


def _prices(beta: np.ndarray, cov_b: np.ndarray, pts: np.ndarray, used: np.ndarray) -> _Prices:
    """The value of a typical point and suggested prices, with delta-method standard errors.

    The typical point is that of the median type by value per point (weighted by how many
    are fielded): ``λ̄ = β_m / pts_m``. The suggested price ``β / λ̄`` gives every type that
    value per point; the median type keeps its price, and so do types as good as it, so a
    single outlier moves alone.
    """
    m = _weighted_median_index(beta / pts, used)
    lam = float(beta[m] / pts[m])
    lam_se = float(np.sqrt(max(cov_b[m, m], 0.0)) / pts[m])
    if lam <= 0:  # no positive value per point: nothing to price against
        nan = np.full(len(pts), np.nan)
        return _Prices(lam, lam_se, beta, np.sqrt(np.clip(np.diag(cov_b), 0, None)), nan, nan)
    grad = np.eye(len(pts)) * (pts[m] / beta[m])
    grad[:, m] -= pts[m] * beta / beta[m] ** 2
    se = np.sqrt(np.clip(np.diag(grad @ cov_b @ grad.T), 0.0, None))
    return _Prices(lam, lam_se, beta,
                   np.sqrt(np.clip(np.diag(cov_b), 0, None)), beta / lam, se)


def _confounded(dn: np.ndarray, weights: np.ndarray, aside: list[np.ndarray]) -> np.ndarray:
    """Types whose own value the games cannot separate from other types' (beyond fixed classes).

    A type is confounded when its coefficient has a component in the null space of the
    design (e.g. two types always fielded together), after setting aside the ``aside``
    directions, which are dealt with otherwise.
    """
    k = dn.shape[1]
    xw = dn * np.sqrt(weights)[:, None]
    _, sv, vt = np.linalg.svd(xw, full_matrices=xw.shape[0] < k)  # all K right vectors, no n x n U
    rank = int(np.sum(sv > sv.max() * 1e-9)) if sv.size else 0
    null = vt[rank:].T  # K x (K - rank)
    if aside:
        c = np.column_stack(aside).astype(float)
        q, _ = np.linalg.qr(c)
        null = null - q @ (q.T @ null)
    return np.linalg.norm(null, axis=1) > 1e-6 if null.size else np.zeros(k, dtype=bool)


_TABLE_SCHEMA = {
    "rules_id": pl.Utf8, "code": pl.Utf8, "type": pl.Utf8, "kind": pl.Utf8, "pts": pl.Float64, "games": pl.Int64,
    "value_logit": pl.Float64, "value_se": pl.Float64, "rel_value_per_pt": pl.Float64, "excess_pts": pl.Float64,
    "suggested_pts": pl.Float64, "suggested_lo": pl.Float64, "suggested_hi": pl.Float64,
    "vp_suggested_pts": pl.Float64, "vp_suggested_lo": pl.Float64, "vp_suggested_hi": pl.Float64,
    "verdict": pl.Utf8,
}
_SUMMARY_SCHEMA = {
    "rules_id": pl.Utf8, "games": pl.Int64, "decisive": pl.Int64, "points_sd": pl.Float64, "lambda": pl.Float64,
    "lambda_se": pl.Float64, "vp_lambda": pl.Float64, "vp_lambda_se": pl.Float64, "priced": pl.Boolean,
    "message": pl.Utf8,
}


def fit_costs(cells: pl.DataFrame, rosters: pl.DataFrame, alpha: float = ALPHA) -> CostFit:
    """Fit the implied-cost model per rules id from :func:`game_cells` and :func:`army_rosters`.

    ``table``: one row per rules id and unit type: ``pts`` (current), ``games`` (games in which
    the sides field different numbers of it), ``value_logit`` (± ``value_se``: what one unit
    adds to the log-odds of winning), ``rel_value_per_pt`` (its value per point minus the
    games-weighted mean over types, logits per point: measurable even when prices are not),
    ``excess_pts``, ``suggested_pts`` with 95% ``suggested_lo``/``_hi`` (from wins) and
    ``vp_suggested_*`` (from the VP margin), and a ``verdict``: undercosted | overcosted |
    in line | not priced | confounded | too few games. ``summary``: one row per rules id with the number
    of games, the points spread, the value of a point (``lambda``, logits; ``vp_lambda``, VP)
    and a plain-words ``message``.
    """
    tables, summaries = [], []
    for rid in sorted(cells["rules_id"].unique().to_list()):
        t, s = _fit_one(rid, cells.filter(pl.col("rules_id") == rid), rosters.filter(pl.col("rules_id") == rid),
                        alpha)
        tables.append(t)
        summaries.append(s)
    table = pl.concat(tables) if tables else pl.DataFrame(schema=_TABLE_SCHEMA)
    return CostFit(table, pl.DataFrame(summaries, schema=_SUMMARY_SCHEMA))


def _fixed_classes(dn: np.ndarray, codes: list[str], kinds: dict[str, str]) -> dict[str, np.ndarray]:
    """Unit kinds whose count is the same on both sides in every game (e.g. two Warmechs each)."""
    fixed = {}
    for kind in sorted(set(kinds.values())):
        members = np.array([kinds[c] == kind for c in codes])
        if members.sum() > 1 and not np.any(dn[:, members].sum(axis=1)):
            fixed[kind] = members
    return fixed


def _message(games: int, points_sd: float, p: _Prices, lam_ok: bool, priced_any: bool, fixed: list[str],
             confounded: list[str]) -> str:
    if games < MIN_GAMES:
        msg = f"too few games to price units: {games} (at least {MIN_GAMES} needed)"
    elif not priced_any:
        msg = ("no unit type can be priced or ranked: the games do not vary the army lists enough to tell the "
               "types apart (a sweep of a few fixed lists compares the lists, not the units in them); play "
               "games with varied army lists")
    elif points_sd < MIN_POINTS_SD:
        msg = (f"the sides' point totals hardly differ (sd {points_sd:.2f} points), so the value of a point cannot "
               "be measured: units are ranked by value per point but not priced; play games with unequal point "
               "totals to price them")
    elif not lam_ok:
        est = f"{p.lam:.3f}" + ("" if np.isnan(p.lam_se) else f" ± {p.lam_se:.3f}")
        msg = (f"the value of a point is not clearly positive ({est} logits for the median type): units are "
               "ranked but not priced")
    else:
        msg = f"priced from {games} games; a typical point is worth {p.lam:.3f} ± {p.lam_se:.3f} logits of winning"
    for kind in fixed if priced_any else ():
        msg += (f"; every side fields the same number of {kind} units, so they are priced against each other, "
                "anchored on the class's median type being priced like the median type outside it")
    if confounded and priced_any:
        msg += (f"; {', '.join(confounded)} cannot be told apart from other types in these games (always fielded "
                "together or in fixed lists): vary the army lists to price them")
    return msg


#: The verdict words of the cost table, each with what it means (the dashboard's legend).
COST_VERDICTS = {
    "undercosted": "the 95% interval of the implied points lies above the current PTS",
    "overcosted": "the interval lies below the current PTS",
    "in line": "the interval holds the current PTS",
    "not priced": "the games rank the type but cannot put a price on a point (both sides spend the same points)",
    "confounded": "the type is always fielded together with others, so its effect cannot be told apart",
    "too few games": f"fewer than {MIN_GAMES} games, or too few where the sides field different numbers of it",
}


def _verdict(enough: bool, confounded: bool, priced: bool, lo: float, hi: float, pts: float) -> str:
    if not enough:
        return "too few games"
    if confounded:
        return "confounded"
    if not priced:
        return "not priced"
    return "undercosted" if lo > pts else "overcosted" if hi < pts else "in line"


def _fit_one(rid: str, cells: pl.DataFrame, rosters: pl.DataFrame, alpha: float) -> tuple[pl.DataFrame, dict[str, Any]]:
    codes, dn, dpts, both = _design(cells, rosters)
    n = both["n"].to_numpy().astype(float)
    games = int(n.sum())
    if not codes or games == 0:
        return pl.DataFrame(schema=_TABLE_SCHEMA), {"rules_id": rid, "games": games, "priced": False,
                                                    "message": "no games with known armies"}
    info = {r["code"]: r for r in rosters.group_by("code", "type", "kind").agg(
        pts=pl.col("pts_sum").sum() / pl.col("count").sum()).iter_rows(named=True)}
    pts = np.array([float(info[c]["pts"]) for c in codes])
    differ = np.array([int(n[dn[:, j] != 0].sum()) for j in range(len(codes))])
    if games < MIN_GAMES:  # a fit on a handful of games says nothing, and may not converge
        rows = [{"rules_id": rid, "code": c, "type": info[c]["type"], "kind": info[c]["kind"], "pts": float(pts[j]),
                 "games": int(differ[j]), "verdict": "too few games"} for j, c in enumerate(codes)]
        return pl.DataFrame(rows, schema=_TABLE_SCHEMA).sort("code"), {
            "rules_id": rid, "games": games, "decisive": int((both["blue_wins"] + both["red_wins"]).sum()),
            "priced": False, "message": f"too few games to price units: {games} (at least {MIN_GAMES} needed)"}
    used = np.array([float(np.sum(n * (both[c].to_numpy() + both[f"{c}_red"].to_numpy()))) for c in codes])
    x = np.column_stack([np.ones(len(n)), dpts, dn])
    penalty = np.array([_EPS, _EPS] + [alpha] * len(codes))
    y = (both["blue_wins"].to_numpy() + 0.5 * both["draws"].to_numpy()) / n
    fixed = _fixed_classes(dn, codes, {c: info[c]["kind"] for c in codes})
    # set aside what is handled otherwise: fixed classes (anchored) and the points direction
    # (equal-points games; then nothing is priced, but types can still be ranked)
    confounded = _confounded(dn, n, [*fixed.values(), pts])
    win_b, win_cov = _value_space(*_newton_logistic(x, y, n, penalty), pts)
    m_n, m_sum, m_sq = (both[c].to_numpy().astype(float) for c in ("margin_n", "margin_sum", "margin_sq"))
    vp_b, vp_cov = _value_space(*_ridge_linear(x, m_n, m_sum, m_sq, penalty), pts)
    for members in fixed.values():
        win_b, vp_b = _anchor(win_b, pts, used, members), _anchor(vp_b, pts, used, members)
    win, vp = _prices(win_b, win_cov, pts, used), _prices(vp_b, vp_cov, pts, used)
    points_sd = float(np.sqrt(np.average((dpts - np.average(dpts, weights=n)) ** 2, weights=n)))
    lam_ok = bool(points_sd >= MIN_POINTS_SD and win.lam > 0 and win.lam >= MIN_LAMBDA_Z * win.lam_se)
    vp_ok = bool(points_sd >= MIN_POINTS_SD and vp.lam > 0 and vp.lam >= MIN_LAMBDA_Z * vp.lam_se)
    priced = games >= MIN_GAMES and lam_ok
    rateable = (differ >= MIN_GAMES_PER_TYPE) & ~confounded
    priced_any = bool(rateable.any())
    priced = priced and priced_any
    rel = win.beta / pts
    rel = rel - (np.average(rel[rateable], weights=differ[rateable]) if priced_any else 0.0)
    rows = []
    for j, code in enumerate(codes):
        enough = games >= MIN_GAMES and differ[j] >= MIN_GAMES_PER_TYPE
        lo, hi = win.suggested[j] - Z95 * win.suggested_se[j], win.suggested[j] + Z95 * win.suggested_se[j]
        vlo, vhi = vp.suggested[j] - Z95 * vp.suggested_se[j], vp.suggested[j] + Z95 * vp.suggested_se[j]
        show, vshow = priced and enough and not confounded[j], vp_ok and enough and not confounded[j]
        rows.append({
            "rules_id": rid, "code": code, "type": info[code]["type"], "kind": info[code]["kind"],
            "pts": float(pts[j]), "games": int(differ[j]),
            "value_logit": None if confounded[j] else float(win.beta[j]),
            "value_se": None if confounded[j] else float(win.beta_se[j]),
            "rel_value_per_pt": float(rel[j]) if rateable[j] else None,
            "excess_pts": float(win.suggested[j] - pts[j]) if show else None,
            "suggested_pts": float(win.suggested[j]) if show else None,
            "suggested_lo": float(lo) if show else None, "suggested_hi": float(hi) if show else None,
            "vp_suggested_pts": float(vp.suggested[j]) if vshow else None,
            "vp_suggested_lo": float(vlo) if vshow else None, "vp_suggested_hi": float(vhi) if vshow else None,
            "verdict": _verdict(enough, bool(confounded[j]), priced, lo, hi, float(pts[j])),
        })
    summary = {"rules_id": rid, "games": games, "decisive": int((both["blue_wins"] + both["red_wins"]).sum()),
               "points_sd": points_sd, "lambda": win.lam, "lambda_se": win.lam_se, "vp_lambda": vp.lam,
               "vp_lambda_se": vp.lam_se, "priced": priced,
               "message": _message(games, points_sd, win, lam_ok, priced_any, list(fixed),
                                   [c for c, bad in zip(codes, confounded, strict=True) if bad])}
    return pl.DataFrame(rows, schema=_TABLE_SCHEMA).sort("code"), summary
