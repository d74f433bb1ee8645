"""Null tests on engine games: identical play at two "levels" must raise flags at no more than
the nominal rate (it prints the rates; many sample matchups are one-sided, where a two-proportion
test rarely rejects, so the raw rate sits below 5%). Kept small (about 1,600 greedy games, seconds)
so the suite can run it; the seeds are fixed, so the counts are the same on every run."""

from __future__ import annotations

import itertools

import polars as pl

from pmim_analytics.analytics.robustness import matchup_robustness
from pmim_analytics.analytics.stats import two_proportion_p
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.sim.batch import BatchSpec, outcome_of, play_batch_game
from tests.conftest import ARMIES

LISTS = ("v3-balanced", "v3-fast-gev", "v3-infantry-swarm", "v3-mech-heavy", "v3-tank-heavy")
GAMES = 20  # per pairing and "level"
COPIES = 4  # independent families (rules-id labels), each a full robustness table


def _cells() -> pl.DataFrame:
    armies = {n: validate_army(load_army(ARMIES / f"{n}.yaml"), "v3") for n in LISTS}
    rows = []
    for copy in range(COPIES):
        for k, (a, b) in enumerate(itertools.combinations(LISTS, 2)):
            # the same bot at two labels: only the seeds differ, so any flag is a false one
            for level, seed in (("greedy", 1000 * copy + k), ("search:budget=0", 1000 * copy + k + 500)):
                batch = BatchSpec("v3", "take-and-hold", armies[a], armies[b], "greedy", "greedy", seed, GAMES)
                specs: dict = {}
                outs = [outcome_of(batch, play_batch_game(batch, i, specs)) for i in range(GAMES)]
                wa, wb = sum(o.winner == "A" for o in outs), sum(o.winner == "B" for o in outs)
                d = GAMES - wa - wb
                rows.append((f"copy{copy}", level, a, b, GAMES, wa, d))
                rows.append((f"copy{copy}", level, b, a, GAMES, wb, d))
    return pl.DataFrame(rows, schema={"rules_id": pl.String, "bot": pl.String, "composition": pl.String,
                                      "opp_composition": pl.String, "games": pl.Int64, "wins": pl.Int64,
                                      "draws": pl.Int64}, orient="row")


def test_robustness_flags_at_the_nominal_rate_on_identical_play() -> None:
    m = matchup_robustness(_cells(), min_games=10)
    rows = m.height
    flagged = m.filter(~pl.col("flag").is_in(["holds", "unconfirmed", "one level"])).height
    raw = int((m["p"] <= 0.05).sum())
    print(f"\nnull robustness on engine games: {rows} rows in {COPIES} families of {m['family'].max()}; "
          f"raw p <= 0.05: {raw} ({raw / rows:.1%}); flagged after BH: {flagged} ({flagged / rows:.1%})")
    assert rows == COPIES * 10
    assert raw / rows <= 0.075  # the two-proportion test at its nominal 5% (conservative with draws)
    assert flagged / rows <= 0.075  # BH can only flag fewer


def test_the_test_is_not_blind() -> None:
    # a real difference of this size in 20 games a side is found: 18 of 20 against 6 of 20
    assert (two_proportion_p(18, 20, 6, 20) or 1) < 0.001
