"""The meta of a rules id: which mix of compositions no other composition beats, and cycles.

**Equilibrium mix (Nash averaging).** Under one rules id the matchup matrix gives each
composition's score against each other one (a draw counts half): ``S[i][j] + S[j][i] = 1``.
Picking a composition against an opponent who also picks one is a symmetric zero-sum game
with payoff ``A = S - 1/2``. A mix ``x`` (shares of compositions) is an equilibrium when no
composition scores above one half against it: ``sum_i x_i A[i][j] >= 0`` for every ``j``.
Its compositions are the meta: any strategy that beats the mix must do so against one of
them. A composition outside it is beaten by the mix; ``vs_mix`` says by how much. We find it
exactly by support enumeration (every subset of compositions, an equaliser on it, checked
against the rest), which is fine for the few compositions a sweep compares (up to
:data:`MAX_EXACT`); among several equilibria the one of largest entropy is kept (Nash
averaging's choice). Above that size a regret-matching iteration gives an approximate mix
and its *exploitability* (how far the best reply scores above one half).

The matrix is an estimate, so the mix is too: ``in_mix_share`` is how often a composition
is in the equilibrium when each pairing's games are resampled with replacement (a bootstrap
over games: the wins, draws and losses of a pairing redrawn as a multinomial on their own
shares, :data:`BOOTSTRAP` draws, fixed seed). Resampling games keeps a draw one game worth
half a point; redrawing half-points as independent coin flips would halve the variance a
game's draw or decision carries. Pairings never played are not guessed: the
composition missing most pairings is left out until the matrix is complete, and the
report says which.

**Cycles.** A rock-paper-scissors cycle is three compositions each beating the next
(``a`` beats ``b``, ``b`` beats ``c``, ``c`` beats ``a``: scores above one half). It is
``clear`` when all three Wilson intervals exclude one half.

**Power.** :func:`games_needed` says how many games per side a two-sided test at level
``alpha`` needs to tell a win rate ``p`` from ``p + diff`` with probability ``power``
(normal approximation with the pooled variance under the null), and how many more than
already played; a design effect (e.g. paired or clustered games) multiplies it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import polars as pl

from pmim_analytics.analytics.stats import Z95, wilson_interval

#: Largest number of compositions solved exactly by support enumeration (2^n subsets).
MAX_EXACT = 12
#: Bootstrap draws of the matrix for ``in_mix_share``.
BOOTSTRAP = 200
_TOL = 1e-9


@dataclass(frozen=True)
class Meta:
    """The meta of one rules id and source."""

    rules_id: str
    source: str | None
    mix: pl.DataFrame        # composition, games, field_score, weight, vs_mix, in_mix_share
    cycles: pl.DataFrame     # a, b, c, ab, bc, ca (scores of the first over the second), clear
    left_out: list[str]      # compositions dropped for unplayed pairings
    exploitability: float    # 0 for an exact equilibrium
    exact: bool


def score_matrix(matchups: pl.DataFrame, rules_id: str, source: str | None = None, key: str = "composition",
                 min_games: int = 1) -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    """(names, scores, games, left out): :func:`outcome_matrices` without the draws."""
    names, s, g, _, left = outcome_matrices(matchups, rules_id, source, key, min_games)
    return names, s, g, left


def outcome_matrices(matchups: pl.DataFrame, rules_id: str, source: str | None = None, key: str = "composition",
                     min_games: int = 1) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(names, scores, games, draws, left out) of one rules id from :func:`.compositions.matchup_table` output.

    Only pairings with at least ``min_games`` games count; compositions are left out (most
    missing pairings first) until every remaining pairing is played. Diagonals are 0.5.
    """
    m = matchups.filter(pl.col("rules_id") == rules_id)
    if source is not None:
        m = m.filter(pl.col("source") == source)
    m = m.group_by(key, f"opp_{key}").agg(pl.col("wins").sum(), pl.col("draws").sum(), pl.col("games").sum())
    m = m.filter(pl.col("games") >= min_games)
    cell = {(a, b): (w + 0.5 * d, g, d) for a, b, w, d, g in m.select(key, f"opp_{key}", "wins", "draws",
                                                                       "games").iter_rows()}
    names = sorted({a for a, _ in cell} | {b for _, b in cell})
    left: list[str] = []
    while names:
        missing = {a: sum((a, b) not in cell for b in names if b != a) for a in names}
        worst = max(names, key=lambda a: (missing[a], a))
        if missing[worst] == 0:
            break
        names.remove(worst)
        left.append(worst)
    n = len(names)
    s, g, d = np.full((n, n), 0.5), np.zeros((n, n)), np.zeros((n, n))
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                won, games, drawn = cell[(a, b)]
                s[i, j], g[i, j], d[i, j] = won / games, games, drawn
    return names, s, g, d, left


def _entropy(x: np.ndarray) -> float:
    p = x[x > _TOL]
    return float(-(p * np.log(p)).sum())


def solve_symmetric(a: np.ndarray, first_only: bool = False) -> tuple[np.ndarray, float, bool]:
    """An equilibrium mix of the symmetric zero-sum game with antisymmetric payoff ``a``.

    Returns (mix, exploitability, exact). Exact support enumeration up to :data:`MAX_EXACT`
    strategies (largest-entropy equilibrium; with ``first_only`` the one of smallest support,
    which is the only one unless scores tie exactly), regret matching above.
    """
    n = a.shape[0]
    if n == 0:
        return np.zeros(0), 0.0, True
    if n <= MAX_EXACT:
        best: np.ndarray | None = None
        for size in range(1, n + 1):
            for support in itertools.combinations(range(n), size):
                x = _equaliser(a, list(support))
                if x is not None and (best is None or _entropy(x) > _entropy(best) + _TOL):
                    best = x
                    if first_only:
                        return best, exploitability(a, best), True
        if best is not None:
            return best, exploitability(a, best), True
    x = _regret_matching(a)
    return x, exploitability(a, x), False


def _equaliser(a: np.ndarray, support: list[int]) -> np.ndarray | None:
    """The mix on ``support`` that scores exactly one half against each of its members, if it is an equilibrium."""
    k = len(support)
    sub = a[np.ix_(support, support)]
    lhs = np.vstack([sub.T, np.ones((1, k))])
    rhs = np.concatenate([np.zeros(k), [1.0]])
    sol, *_ = np.linalg.lstsq(lhs, rhs, rcond=None)
    if np.abs(lhs @ sol - rhs).max() > 1e-7 or (sol < -_TOL).any():
        return None
    x = np.zeros(a.shape[0])
    x[support] = np.clip(sol, 0, None)
    x /= x.sum()
    if (x @ a < -1e-7).any():  # some composition scores above one half against the mix
        return None
    return x


def _regret_matching(a: np.ndarray, iterations: int = 20000) -> np.ndarray:
    n = a.shape[0]
    regret, total = np.zeros(n), np.zeros(n)
    for t in range(1, iterations + 1):
        pos = np.clip(regret, 0, None)
        x = pos / pos.sum() if pos.sum() > 0 else np.full(n, 1 / n)
        payoff = a @ x  # each pure strategy against the current mix
        regret = np.clip(regret + payoff - x @ payoff, 0, None)  # regret matching+
        total += t * x
    mix: np.ndarray = total / total.sum()
    return mix


def exploitability(a: np.ndarray, x: np.ndarray) -> float:
    """How far above one half the best composition scores against the mix ``x`` (0 at equilibrium)."""
    return float(max(0.0, (a @ x).max())) if len(x) else 0.0


def find_cycles(names: list[str], s: np.ndarray, g: np.ndarray) -> pl.DataFrame:
    """Every rock-paper-scissors triple (each beats the next), with its scores and whether it is clear."""
    rows = []
    n = len(names)

    def beats(i: int, j: int) -> bool:
        return bool(s[i, j] > 0.5)

    def clear(i: int, j: int) -> bool:
        return wilson_interval(s[i, j] * g[i, j], g[i, j], Z95)[0] > 0.5

    for i, j, k in itertools.combinations(range(n), 3):
        for a, b, c in ((i, j, k), (i, k, j)):
            if beats(a, b) and beats(b, c) and beats(c, a):
                rows.append({"a": names[a], "b": names[b], "c": names[c], "ab": s[a, b], "bc": s[b, c],
                             "ca": s[c, a], "games": int(g[a, b] + g[b, c] + g[c, a]),
                             "clear": clear(a, b) and clear(b, c) and clear(c, a)})
    schema = {"a": pl.Utf8, "b": pl.Utf8, "c": pl.Utf8, "ab": pl.Float64, "bc": pl.Float64, "ca": pl.Float64,
              "games": pl.Int64, "clear": pl.Boolean}
    return pl.DataFrame(rows, schema=schema).sort("clear", "games", descending=[True, True])


def meta_report(matchups: pl.DataFrame, rules_id: str, source: str | None = None, key: str = "composition",
                min_games: int = 1, seed: int = 2026) -> Meta:
    """Equilibrium mix, bootstrap membership and cycles of one rules id (see the module)."""
    names, s, g, d, left = outcome_matrices(matchups, rules_id, source, key, min_games)
    a = s - 0.5
    x, gap, exact = solve_symmetric(a)
    rng = np.random.default_rng(seed)
    inside = np.zeros(len(names))
    if len(names) > 1:
        for _ in range(BOOTSTRAP):
            draw = np.full_like(s, 0.5)
            for i, j in itertools.combinations(range(len(names)), 2):
                n = int(g[i, j])
                # resample the pairing's n games: wins, draws and losses on their own shares
                p_draw = d[i, j] / n
                p_win = max(0.0, s[i, j] - p_draw / 2)
                wins, draws, _ = rng.multinomial(n, [p_win, p_draw, max(0.0, 1 - p_win - p_draw)])
                v = (wins + 0.5 * draws) / n
                draw[i, j], draw[j, i] = v, 1 - v
            xb, _, _ = solve_symmetric(draw - 0.5, first_only=True)
            inside += xb > 1e-6
    games = g.sum(axis=1)
    field = np.array([(s[i].sum() - 0.5) / (len(names) - 1) if len(names) > 1 else 0.5 for i in range(len(names))])
    mix = pl.DataFrame({
        key: names, "games": games.astype(np.int64), "field_score": field, "weight": x,
        "vs_mix": (a @ x) + 0.5 if len(names) else np.zeros(0),
        "in_mix_share": inside / BOOTSTRAP if len(names) > 1 else np.ones(len(names)),
    }, schema={key: pl.Utf8, "games": pl.Int64, "field_score": pl.Float64, "weight": pl.Float64,
               "vs_mix": pl.Float64, "in_mix_share": pl.Float64}).sort("weight", "vs_mix", descending=True)
    return Meta(rules_id, source, mix, find_cycles(names, s, g), left, gap, exact)


@dataclass(frozen=True)
class Power:
    """Games needed to tell two win rates apart."""

    p1: float
    p2: float
    alpha: float
    power: float
    per_side: int          # games needed for each of the two win rates
    more_a: int            # beyond those already played
    more_b: int
    pair_correlation: float = 0.0  # > 0: a paired design (games played on the same seeds under both)
    unpaired: int = 0      # games per side the same test needs without pairing

    @property
    def saved(self) -> int:
        """Games per side the pairing saves (0 for an unpaired design)."""
        return max(0, self.unpaired - self.per_side)


def games_needed(p: float, diff: float, alpha: float = 0.05, power: float = 0.8, have_a: int = 0,
                 have_b: int = 0, design_effect: float = 1.0, pair_correlation: float = 0.0) -> Power:
    """Games per side to detect ``p`` against ``p + diff`` (two-sided, level ``alpha``).

    ``n = (z_{1-alpha/2} sqrt(2 pbar qbar) + z_power sqrt(p1 q1 + p2 q2))^2 / diff^2``, times
    ``design_effect``, rounded up. Raises ``ValueError`` for rates outside (0, 1).
    Example: ``games_needed(0.5, 0.1).per_side`` is 388.

    A **paired** design (``pair_correlation`` rho > 0: each game under one rules id has a twin
    under the other, same lists, bots, sides and seed, whose outcomes correlate by rho) tests the
    mean of the pairs' differences, whose variance is ``p1 q1 + p2 q2 - 2 rho sqrt(p1 q1 p2 q2)``:
    ``n = (z_{1-alpha/2} sqrt(2 pbar qbar (1 - rho)) + z_power sqrt(that))^2 / diff^2`` pairs. At
    rho = 0 this is the unpaired count; ``unpaired`` keeps that count, ``saved`` the difference.
    """
    p1, p2 = p, p + diff
    if not (0 < p1 < 1 and 0 < p2 < 1) or diff == 0:
        raise ValueError(f"win rates must be between 0 and 1 and differ: {p1:.3f} and {p2:.3f}")
    if not (0 < alpha < 1 and 0 < power < 1) or design_effect < 1:
        raise ValueError("alpha and power must be between 0 and 1, the design effect at least 1")
    if not 0 <= pair_correlation < 1:
        raise ValueError(f"the pair correlation must be at least 0 and below 1, not {pair_correlation:g}")
    za, zb = NormalDist().inv_cdf(1 - alpha / 2), NormalDist().inv_cdf(power)
    pbar = (p1 + p2) / 2
    v1, v2 = p1 * (1 - p1), p2 * (1 - p2)

    def count(rho: float) -> int:
        n = (za * math.sqrt(2 * pbar * (1 - pbar) * (1 - rho))
             + zb * math.sqrt(max(v1 + v2 - 2 * rho * math.sqrt(v1 * v2), 0.0))) ** 2 / diff**2
        return math.ceil(n * design_effect - 1e-9)

    need, unpaired = count(pair_correlation), count(0.0)
    return Power(p1, p2, alpha, power, need, max(0, need - have_a), max(0, need - have_b), pair_correlation,
                 unpaired)
