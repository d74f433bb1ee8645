"""Synthetic games for the implied-cost fit: armies whose true worth is known.

Each army has two Warmechs and basic units filling a random budget (or exactly 72 points).
Its true strength is the sum of its units' points, except the ``planted`` type which is
secretly worth ``boost`` times its cost. Blue wins with probability
logistic(kappa * (strength_blue - strength_red)); the VP margin follows the same latent value.
"""

from __future__ import annotations

import math
import random

import polars as pl

from pmim_analytics.analytics.frames import SCHEMAS, Frames
from pmim_analytics.rules import load_rules

MECHS = ("TW", "VI", "AV", "LE", "JA")
BASIC = ("IN", "OD", "BE", "GE", "MA", "TY", "NE")
FINISH = {0: (), 2: ("IN",), 3: ("OD",), 4: ("IN", "IN"), 5: ("IN", "OD"), 6: ("OD", "OD"), 7: ("IN", "IN", "OD")}


def _army(rng: random.Random, cost: dict[str, int], equal_points: bool) -> list[str]:
    units = [rng.choice(MECHS), rng.choice(MECHS)]
    budget = 72 if equal_points else rng.randint(60, 72)
    left = budget - sum(cost[u] for u in units)
    while left > 7:
        choices = [b for b in BASIC if cost[b] <= left - 2]
        pick = rng.choice(choices)
        units.append(pick)
        left -= cost[pick]
    return units + list(FINISH[left])


def synthetic_cost_frames(n_games: int, seed: int = 1, planted: str = "TW", boost: float = 1.3,
                          kappa: float = 0.35, equal_points: bool = False, n_lists: int | None = None,
                          rules_id: str = "v3", listed: dict[str, int] | None = None) -> Frames:
    """``n_games`` v3 games (games, sides and units tables) with a planted undercosted type.

    With ``n_lists`` every side picks one of that many fixed army lists, as in a sweep of
    sample armies. ``listed`` changes the printed cost of some types (armies are built and
    stored with it) while their worth stays the v3 cost: a mispriced rules id ``rules_id``.
    """
    rules = load_rules("v3")
    spec = {u.code: u for u in rules.iter_units()}
    worth_of = {c: u.pts for c, u in spec.items()}
    cost = {**worth_of, **(listed or {})}
    rng = random.Random(seed)
    lists = [_army(rng, cost, equal_points) for _ in range(n_lists)] if n_lists else None
    games, sides, units = [], [], []
    for g in range(n_games):
        gid = f"syn{g:05d}"
        if lists:
            armies = {"blue": rng.choice(lists), "red": rng.choice(lists)}
        else:
            armies = {"blue": _army(rng, cost, equal_points), "red": _army(rng, cost, equal_points)}
        worth = {s: sum(worth_of[u] * (boost if u == planted else 1.0) for u in a) for s, a in armies.items()}
        u = rng.random()
        latent = kappa * (worth["blue"] - worth["red"]) + math.log(u / (1 - u))  # logistic noise
        margin = round(latent * 3)
        winner = None if margin == 0 else ("blue" if margin > 0 else "red")
        blue_vp = max(0, 8 + margin)
        games.append({"game_id": gid, "source": "engine", "rules_id": rules_id, "scenario": "take-and-hold",
                      "winner": winner, "reason": "vp", "rounds": 10, "blue_vp": blue_vp,
                      "red_vp": blue_vp - margin, "first_side": "blue", "n_events": 0})
        for side, army in armies.items():
            result = "draw" if winner is None else ("win" if winner == side else "loss")
            sides.append({"game_id": gid, "side": side, "composition": "random", "army_hash": f"{gid}-{side}",
                          "points": sum(cost[c] for c in army), "n_units": len(army), "result": result,
                          "vp": games[-1][f"{side}_vp"], "bot": "synthetic"})
            for i, c in enumerate(army):
                units.append({"game_id": gid, "unit_id": f"{side[0].upper()}:{c}{i}", "side": side, "code": c,
                              "type": spec[c].name, "kind": spec[c].kind, "weapons": "", "pts": cost[c]})
    return Frames.of(games=pl.DataFrame(games, schema_overrides={k: v for k, v in SCHEMAS["games"].items()}),
                     sides=pl.DataFrame(sides), units=pl.DataFrame(units))
