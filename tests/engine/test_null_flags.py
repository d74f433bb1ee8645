"""Null test of the robustness flags on engine games (bot level greedy on both sides, v3 rules,
the five v3 sample lists in a round robin, 40 games a pairing: one pool of 400 games).

The pool is split at random into two halves of 200 games, and the halves are labelled as two bot
levels ("greedy" and "tactician"); the robustness report's own tables (:func:`matchup_robustness`,
:func:`composition_robustness`) then compare the two "levels". Both halves are the same play, so
every row whose raw p is at most 0.05 is a false flag: a calibrated test flags 5% of the rows.

* The split is over the whole pool, not within each pairing: a composition's score against the
  field pools its pairings, and a split stratified by pairing would take out the between-pairing
  spread that the two-proportion test counts (it then ran conservative, 3.3%).
* A matchup whose 40 games all had the same result (here three, such as Tank-heavy winning all 40
  against Mech-heavy) reads the same in any split: its p is 1 by construction, so it is counted
  apart ("0 where games are identical") and not in the rate.
* 200 splits of 12 tested rows give 2,400 tests. The splits share one pool, and the rows of a
  split share its games, so they are not independent: the test prints the split-to-split spread
  beside the rate (docs/analytics.md, "Null rates on engine games"). The seeds are fixed, so the
  counts are the same on every run.
"""

from __future__ import annotations

import itertools
import random
import statistics

import polars as pl

from pmim_analytics.analytics.robustness import composition_robustness, matchup_robustness
from pmim_analytics.analytics.stats import two_proportion_p
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.sim.batch import BatchSpec, outcome_of, play_batch_game
from tests.conftest import ARMIES

BOT = "greedy"
LISTS = ("v3-balanced", "v3-fast-gev", "v3-infantry-swarm", "v3-mech-heavy", "v3-tank-heavy")
GAMES = 40  # per pairing, one pool of 400 games
SPLITS = 200
LABELS = ("greedy", "tactician")  # two "levels" that are halves of the same play
SCHEMA = {"rules_id": pl.String, "bot": pl.String, "composition": pl.String, "opp_composition": pl.String,
          "games": pl.Int64, "wins": pl.Int64, "draws": pl.Int64}


def _pool() -> list[tuple[str, str, str]]:
    """(list A, list B, winner "A", "B" or "" for a draw) of every game in the pool."""
    armies = {n: validate_army(load_army(ARMIES / f"{n}.yaml"), "v3") for n in LISTS}
    games = []
    for k, (a, b) in enumerate(itertools.combinations(LISTS, 2)):
        batch = BatchSpec("v3", "take-and-hold", armies[a], armies[b], BOT, BOT, 31 + 1000 * k, GAMES)
        specs: dict[bool, GameSpec] = {}
        games += [(a, b, outcome_of(batch, play_batch_game(batch, i, specs)).winner or "") for i in range(GAMES)]
    return games


def _cells(games: list[tuple[str, str, str]], labels: list[str]) -> pl.DataFrame:
    """The report's input: per (level, list, opponent) games, wins and draws, each game from both sides."""
    agg: dict[tuple[str, str, str], list[int]] = {}
    for (a, b, w), level in zip(games, labels, strict=True):
        r = agg.setdefault((level, a, b), [0, 0, 0, 0])
        r[0] += 1
        r[1] += w == "A"
        r[2] += w == "B"
        r[3] += w not in ("A", "B")
    rows = []
    for (level, a, b), (n, wa, wb, d) in sorted(agg.items()):
        rows += [("v3", level, a, b, n, wa, d), ("v3", level, b, a, n, wb, d)]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def test_robustness_flags_at_the_nominal_rate_on_identical_play() -> None:
    games = _pool()
    results: dict[str, set[str]] = {}
    for a, b, w in games:
        results.setdefault(f"{a} vs {b}", set()).add(w)
        results.setdefault(f"{b} vs {a}", set()).add(w)
    constant = sorted(m for m, ws in results.items() if len(ws) == 1)  # both orientations
    rng = random.Random(2026)
    k_m = n_m = k_c = n_c = k_const = n_const = bh = 0
    rates = []
    for _ in range(SPLITS):
        labels = [LABELS[0]] * (len(games) // 2) + [LABELS[1]] * (len(games) - len(games) // 2)
        rng.shuffle(labels)
        cells = _cells(games, labels)
        m, c = matchup_robustness(cells, min_games=10), composition_robustness(cells, min_games=10)
        assert m.height == 10 and c.height == len(LISTS) and (m["strongest_bot"] == LABELS[1]).all()
        same = m.filter(pl.col("matchup").is_in(constant))
        n_const += same.height
        k_const += int((same["p"] < 1).sum())
        m = m.filter(~pl.col("matchup").is_in(constant))
        km, kc = int((m["p"] <= 0.05).sum()), int((c["p"] <= 0.05).sum())
        k_m, n_m, k_c, n_c = k_m + km, n_m + m.height, k_c + kc, n_c + c.height
        rates.append((km + kc) / (m.height + c.height))
        bh += sum(t.filter(~pl.col("flag").is_in(["holds", "unconfirmed", "one level"])).height for t in (m, c))
    k, n = k_m + k_c, n_m + n_c
    print(f"\nnull robustness on engine games (bot level {BOT} on both sides, v3, one pool of {len(games)} games, "
          f"{SPLITS} random splits into halves of {len(games) // 2}): raw p <= 0.05 in {k} of {n} tests "
          f"({k / n:.1%}); matchups {k_m} of {n_m} ({k_m / n_m:.1%}), compositions {k_c} of {n_c} "
          f"({k_c / n_c:.1%}); rate per split {statistics.fmean(rates):.1%} ± {statistics.pstdev(rates):.1%} (sd); "
          f"flagged after BH (within each table of a split): {bh}; "
          f"{len(constant) // 2} matchups with one result in all {GAMES} games: p = 1 in all {n_const} rows "
          f"(0 by construction)")
    assert len(constant) // 2 <= 5 and n == SPLITS * (10 - len(constant) // 2 + len(LISTS))
    assert k_const == 0  # identical results: the test cannot reject
    assert 0.025 <= k / n <= 0.075  # the two-proportion test at its nominal 5% (a 1% or 20% test fails here)


def test_the_test_is_not_blind() -> None:
    # a real difference of this size in 20 games a side is found: 18 of 20 against 6 of 20
    assert (two_proportion_p(18, 20, 6, 20) or 1) < 0.001
