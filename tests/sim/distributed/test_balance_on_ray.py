"""``pmim balance propose`` on Ray (issue 34): the same seed and budget give the same proposal on the
local pool and on Ray, to the last digit of every fit (bot level greedy, the smallest budget that tests
anything: one round of 200 games)."""

from __future__ import annotations

from typing import Any

from pmim_analytics.botlab.proposal import Settings, propose


def test_the_same_seed_and_budget_give_the_same_proposal_locally_and_on_ray(ray_instance: Any) -> None:
    runs = {backend: propose(Settings("v3", "greedy", seed=5, budget=200, pairs_per_round=100, resamples=20,
                                      workers=w, backend=backend))
            for backend, w in (("local", 1), ("ray", 2))}
    local, ray = runs["local"], runs["ray"]
    print(f"\nlocal vs ray (greedy, seed 5, 200 games): changes {local.changes()} / {ray.changes()}")
    assert ray.games_played == local.games_played == 200
    assert ray.costs == local.costs and ray.stopped == local.stopped
    fits = [[(f.item, f.games, f.est, f.lo, f.hi, f.q) for f in p.rounds[-1].fit.items] for p in (local, ray)]
    assert fits[0] == fits[1]
    assert sum(f.est is not None for f in ray.rounds[-1].fit.items) >= 20  # the fit priced something
