"""The planted-price test of ``pmim balance propose`` (issue 34), on engine games at bot level greedy.

T0 is a table the method found balanced (``GREEDY_BALANCED_V3``: a greedy run from v3's table on
seed 1, with the Mjolnir and Drake prices the planted bench on seed 11 corrected). Relative to T0
we plant a Tyrant 2 points too cheap (6 -> 4) and an L. Laser 1 point too dear (0 -> 1), and run
the proposal from there (seed 13, one round of 640 games: the first round of
bench/bench_balance_planted.py, about 12 CPU-seconds).

What it checks, and what it cannot (docs/balance.md, "The planted test"):
- the Tyrant is repriced, and comes back within 1 point of T0;
- nothing else moves more than 1 point from T0 (the L. Laser included);
- the L. Laser's implied cost lies below its planted price. At 640 games its interval is about
  ±0.5 point, too wide to show a 1-point error beyond the half point the test allows: the laser
  stays within ±1 of T0 here because it was planted only 1 point off. The bench's 2,400-game run
  does reprice it (to 0, in round 2).
"""

from __future__ import annotations

from pmim_analytics.botlab.proposal import GREEDY_BALANCED_V3 as T0_CHANGES
from pmim_analytics.botlab.proposal import PLANTED_UNIT as UNIT
from pmim_analytics.botlab.proposal import PLANTED_WEAPON as WEAPON
from pmim_analytics.botlab.proposal import Settings, listed_costs, propose
from pmim_analytics.rules.catalogue import load_rules


def test_a_planted_cheap_unit_is_repriced_and_nothing_else_moves_more_than_a_point() -> None:
    t0 = {**listed_costs(load_rules("v3")), **T0_CHANGES}
    planted = {**t0, UNIT: t0[UNIT] - 2, WEAPON: t0[WEAPON] + 1}
    p = propose(Settings("v3", "greedy", seed=13, budget=640, pairs_per_round=300, resamples=50), start=planted)
    fit = {f.item: f for f in p.rounds[0].fit.items}
    u, w = fit[UNIT], fit[WEAPON]
    assert u.est is not None and u.lo is not None and u.hi is not None
    assert w.est is not None and w.lo is not None and w.hi is not None
    print(f"\nplanted (greedy, seed 13, {p.games_played} games, {len(p.rounds)} round(s)): Tyrant planted "
          f"{planted[UNIT]} (T0 {t0[UNIT]}), implied {u.est:.2f} [{u.lo:.2f}, {u.hi:.2f}], proposed {p.costs[UNIT]}; "
          f"L. Laser planted {planted[WEAPON]} (T0 {t0[WEAPON]}), implied {w.est:.2f} [{w.lo:.2f}, {w.hi:.2f}], "
          f"proposed {p.costs[WEAPON]}; changes {p.changes()}")
    assert p.costs[UNIT] != planted[UNIT] and abs(p.costs[UNIT] - t0[UNIT]) <= 1
    assert abs(p.costs[WEAPON] - t0[WEAPON]) <= 1 and w.est < planted[WEAPON]
    assert all(abs(p.costs[i] - t0[i]) <= 1 for i in t0), {i: (t0[i], p.costs[i]) for i in t0 if p.costs[i] != t0[i]}
