"""The planted-price test of ``pmim balance propose`` at a size the suite cannot afford.

Run: .venv/bin/python bench/bench_balance_planted.py [--budget 2400] [--pairs 300] [--seed 13] [--resamples 100]
     [--bot greedy] [--workers 1]

The same plant as tests/engine/test_balance_planted.py: relative to T0 (the method's own
balanced table at greedy), a Tyrant 2 points too cheap and an L. Laser 1 point too dear. The
proposal runs from there with a larger budget. The script prints each round (games in the pool,
what was repriced, the two planted items' implied costs) and then every price that ends more
than 0 points from T0, with the verdict of the issue's criterion: both plants within ±1 of T0,
nothing else more than 1 away. Every figure is at the one bot level named in the header.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pmim_analytics.botlab.proposal import GREEDY_BALANCED_V3 as T0_CHANGES  # noqa: E402
from pmim_analytics.botlab.proposal import PLANTED_UNIT as UNIT  # noqa: E402
from pmim_analytics.botlab.proposal import PLANTED_WEAPON as WEAPON  # noqa: E402
from pmim_analytics.botlab.proposal import Round, Settings, listed_costs, propose  # noqa: E402
from pmim_analytics.rules.catalogue import load_rules  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=2400)
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--resamples", type=int, default=100)
    ap.add_argument("--bot", default="greedy")
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    t0 = {**listed_costs(load_rules("v3")), **T0_CHANGES}
    planted = {**t0, UNIT: t0[UNIT] - 2, WEAPON: t0[WEAPON] + 1}
    print(f"planted test at bot level {a.bot}, seed {a.seed}, budget {a.budget}, {a.pairs} pairs a round; "
          f"{UNIT} {t0[UNIT]} -> {planted[UNIT]}, {WEAPON} {t0[WEAPON]} -> {planted[WEAPON]}", flush=True)
    cpu, wall = time.process_time(), time.time()

    def on_round(r: Round) -> None:
        f = {x.item: x for x in r.fit.items}
        marks = "; ".join(f"{i} listed {f[i].listed}, implied {f[i].est:.2f} [{f[i].lo:.2f}, {f[i].hi:.2f}]"
                          for i in (UNIT, WEAPON) if f[i].est is not None and f[i].lo is not None
                          and f[i].hi is not None)
        print(f"round {r.number}: {r.games} games; repriced {r.changes or 'nothing'}; {marks} "
              f"(cpu {time.process_time() - cpu:.0f} s, wall {time.time() - wall:.0f} s)", flush=True)

    p = propose(Settings("v3", a.bot, a.seed, a.budget, a.pairs, resamples=a.resamples, workers=a.workers),
                start=planted, on_round=on_round)
    off = {i: (t0[i], p.costs[i]) for i in t0 if p.costs[i] != t0[i]}
    ok = all(abs(new - old) <= 1 for old, new in off.values())
    print(f"stopped: {p.stopped} after {p.games_played} games; prices that differ from T0 (T0, proposed): {off}")
    both = abs(p.costs[UNIT] - t0[UNIT]) <= 1 and abs(p.costs[WEAPON] - t0[WEAPON]) <= 1
    print(f"both plants within ±1 of T0: {both}; the weapon repriced: {p.costs[WEAPON] != planted[WEAPON]}; "
          f"nothing else more than 1 away: {ok}")


if __name__ == "__main__":
    main()
