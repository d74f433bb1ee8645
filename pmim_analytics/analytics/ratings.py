"""Bot ratings from a round robin: Bradley–Terry strengths on an Elo scale, with bootstrap
intervals, and the scores that grade a forecast (Brier score, log loss).

Bradley–Terry says bot *i* beats bot *j* with probability ``p_i / (p_i + p_j)``. The
strengths are fitted by the minorisation–maximisation iteration of Hunter (2004). A draw
counts as half a win for each side. Every pair of bots also gets one virtual drawn game
(half a win each), so a bot that never won still has a finite rating; with tens of games
a pair this prior moves ratings by a few points only.

Ratings are printed on the Elo scale (400 points = 10 to 1 odds), the first bot listed at
0. Intervals come from a bootstrap over games: the games are resampled with replacement
and the model refitted (log-strengths centred on their mean, then shifted by the same
amount as the point estimate, so the first bot's own uncertainty shows too); the 2.5 and
97.5 percentiles of each bot's rating bound its 95% interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

ELO = 400.0 / math.log(10.0)
PRIOR_GAMES = 1.0


def _fit(wins: np.ndarray, games: np.ndarray, iterations: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Log-strengths from ``wins[i, j]`` (i's score against j) and ``games[i, j]`` (symmetric)."""
    n = wins.shape[0]
    w = wins + PRIOR_GAMES / 2 * (1 - np.eye(n))
    g = games + PRIOR_GAMES * (1 - np.eye(n))
    total = w.sum(axis=1)
    p = np.ones(n)
    for _ in range(iterations):
        denom = (g / (p[:, None] + p[None, :])).sum(axis=1)
        new = total / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    return np.log(p)


def _matrices(results: pl.DataFrame, bots: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    index = {b: k for k, b in enumerate(bots)}
    a = results["bot_a"].replace_strict(index, return_dtype=pl.Int64).to_numpy()
    b = results["bot_b"].replace_strict(index, return_dtype=pl.Int64).to_numpy()
    s = results["score_a"].cast(pl.Float64).to_numpy()
    return a, b, s, np.ones(len(s))


def _accumulate(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray,
                weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    np.add.at(wins, (a, b), s * weight)
    np.add.at(wins, (b, a), (1 - s) * weight)
    np.add.at(games, (a, b), weight)
    np.add.at(games, (b, a), weight)
    return wins, games


def bradley_terry(results: pl.DataFrame, bots: Sequence[str] | None = None, bootstrap: int = 200,
                  seed: int = 0) -> pl.DataFrame:
    """Ratings of the bots in ``results`` (columns ``bot_a``, ``bot_b``, ``score_a`` in 0, ½, 1).

    ``bots`` fixes the order (the first one is anchored at 0); by default, sorted names.
    Returns ``bot, rating, lo, hi, games, score`` (score = mean points per game), best first.
    ``bootstrap=0`` leaves the interval columns null. Raises ``ValueError`` for a bot in the
    results that is missing from ``bots``, or for fewer than two bots.
    """
    names = list(bots) if bots is not None else sorted(set(results["bot_a"]) | set(results["bot_b"]))
    if len(names) < 2:
        raise ValueError("a rating needs at least two bots")
    unknown = (set(results["bot_a"]) | set(results["bot_b"])) - set(names)
    if unknown:
        raise ValueError(f"results name bots not in the list: {', '.join(sorted(unknown))}")
    n = len(names)
    a, b, s, one = _matrices(results, names)
    wins, games = _accumulate(n, a, b, s, one)
    theta = _fit(wins, games)
    anchor = theta[0]
    rating = (theta - anchor) * ELO
    lo = hi = [None] * n
    if bootstrap > 0 and len(s):
        rng = np.random.default_rng(seed)
        draws = np.empty((bootstrap, n))
        for k in range(bootstrap):
            weight = np.bincount(rng.integers(0, len(s), len(s)), minlength=len(s)).astype(float)
            bw, bg = _accumulate(n, a, b, s, weight)
            draws[k] = (_fit(bw, bg) - anchor) * ELO
        lo = list(np.percentile(draws, 2.5, axis=0))
        hi = list(np.percentile(draws, 97.5, axis=0))
    played = games.sum(axis=1)
    score = np.divide(wins.sum(axis=1), played, out=np.full(n, np.nan), where=played > 0)
    return pl.DataFrame({
        "bot": names, "rating": rating, "lo": lo, "hi": hi, "games": played.astype(np.int64), "score": score,
    }, schema={"bot": pl.String, "rating": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "games": pl.Int64,
               "score": pl.Float64}).sort("rating", descending=True)


def head_to_head(results: pl.DataFrame) -> pl.DataFrame:
    """Points per game of each bot against each other (``bot``, ``opponent``, ``games``, ``score``)
    from the same ``bot_a, bot_b, score_a`` rows as :func:`bradley_terry`."""
    both = pl.concat([
        results.select(pl.col("bot_a").alias("bot"), pl.col("bot_b").alias("opponent"), pl.col("score_a").alias("s")),
        results.select(pl.col("bot_b").alias("bot"), pl.col("bot_a").alias("opponent"),
                       (1 - pl.col("score_a")).alias("s"))])
    return both.group_by("bot", "opponent").agg(games=pl.len(), score=pl.col("s").mean()).sort("bot", "opponent")


def win_probability(rating_i: float, rating_j: float) -> float:
    """Chance that a bot rated ``rating_i`` beats one rated ``rating_j`` (Elo scale)."""
    return float(1.0 / (1.0 + 10.0 ** ((rating_j - rating_i) / 400.0)))


def smoothed_share(wins: pl.Expr, draws: pl.Expr, games: pl.Expr) -> pl.Expr:
    """A forecast from simulated games that is never exactly 0 or 1: (wins + ½ draws + 1) / (games + 2)
    (Laplace's rule of succession), so one surprising table game cannot cost an infinite log loss."""
    return (wins + 0.5 * draws + 1.0) / (games + 2.0)


def forecast_scores(forecasts: pl.DataFrame) -> pl.DataFrame:
    """Brier score and log loss per bot from ``bot, p, outcome`` rows (p = forecast chance that
    blue wins, outcome = 1 blue won, 0 red won, ½ a draw). Lower is better for both; a forecast
    of ½ every time scores 0.25 and 0.693. Also the best and worst single game's Brier term,
    which is all a handful of games can bound."""
    clipped = pl.col("p").clip(1e-9, 1 - 1e-9)
    return (
        forecasts.with_columns(
            brier_term=(pl.col("p") - pl.col("outcome")) ** 2,
            log_term=-(pl.col("outcome") * clipped.log() + (1 - pl.col("outcome")) * (1 - clipped).log()),
        )
        .group_by("bot", maintain_order=True)
        .agg(games=pl.len(), brier=pl.col("brier_term").mean(), log_loss=pl.col("log_term").mean(),
             brier_min=pl.col("brier_term").min(), brier_max=pl.col("brier_term").max())
    )
