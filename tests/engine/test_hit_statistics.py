"""Counted outcomes: over many engine games the hit rate of every (ACC, DEF) pair matches 2d6.

Tolerance: the observed rate of each pair with at least 200 attacks lies within 4 standard
errors (sqrt(p(1 - p) / n)) of the exact probability P(2d6 >= DEF - ACC). The games are
seeded, so the test is repeatable; a wrong hit rule (``>`` for ``>=``, ACC ignored or
subtracted) moves some pair by far more than that.
"""

from __future__ import annotations

import math
from collections import Counter

from pmim_analytics.engine.bots import make_bot
from pmim_analytics.engine.dice import game_streams
from pmim_analytics.engine.driver import run
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.model.combat import hit_probability
from pmim_analytics.model.events import Attack, FirstPlayer
from tests.engine.test_verify import army

GAMES_PER_MATCHUP = 150
MIN_ATTACKS = 200
TOLERANCE_SE = 4.0


def test_hit_rate_per_acc_and_def_matches_2d6() -> None:
    attacks: Counter = Counter()
    hits: Counter = Counter()
    faces: Counter = Counter()
    for rules, a, b in (("v3", "v3-balanced", "v3-tank-heavy"), ("v1", "v1-avian-mix", "v1-heavy")):
        spec = GameSpec.create(rules, "take-and-hold", army(a, rules), army(b, rules))
        for i in range(GAMES_PER_MATCHUP):
            dice, blue_rng, red_rng = game_streams(2024, i)
            state = run(spec, make_bot("greedy", blue_rng), make_bot("greedy", red_rng), dice)
            for ev in state.events:
                if isinstance(ev, Attack):
                    attacks[ev.acc, ev.needed] += 1
                    hits[ev.acc, ev.needed] += ev.hit
                    faces.update(ev.roll)
    checked = 0
    for (acc, defence), n in sorted(attacks.items()):
        if n < MIN_ATTACKS:
            continue
        p = float(hit_probability(acc, defence))
        observed = hits[acc, defence] / n
        se = math.sqrt(p * (1 - p) / n)
        assert abs(observed - p) <= TOLERANCE_SE * se, (
            f"ACC {acc} vs DEF {defence}: {observed:.3f} over {n} attacks, 2d6 gives {p:.3f}")
        checked += 1
    assert checked >= 4, f"only {checked} (ACC, DEF) pairs had {MIN_ATTACKS} attacks: {attacks}"
    # and the attack dice themselves are fair: every face within 4 SE of 1/6
    total = sum(faces.values())
    se = math.sqrt((1 / 6) * (5 / 6) / total)
    assert all(abs(faces[f] / total - 1 / 6) <= TOLERANCE_SE * se for f in range(1, 7)), faces


def test_every_die_the_engine_draws_is_logged_in_order() -> None:
    # The dice of a game are one seeded stream: the first-player die, each attack's 2d6 and its
    # hit-location d6 (re-rolls included) must be that stream's first values, in order, none
    # drawn and left out of the log. Then an attack's dice are drawn after the bot chose it and
    # the log holds them as drawn, so no choice of the bots can bias the hit rates.
    spec = GameSpec.create("v3", "take-and-hold", army("v3-balanced", "v3"), army("v3-tank-heavy", "v3"),
                           "random")
    for i in range(3):
        dice, blue_rng, red_rng = game_streams(7, i)
        state = run(spec, make_bot("tactician", blue_rng), make_bot("tactician", red_rng), dice)
        logged: list[int] = []
        for ev in state.events:
            if isinstance(ev, FirstPlayer) and ev.die is not None:
                logged.append(ev.die)
            elif isinstance(ev, Attack):
                assert ev.roll is not None
                logged += [*ev.roll, *ev.location_rolls]
                assert ev.hit is (sum(ev.roll) + ev.acc >= ev.needed)
        assert any(isinstance(ev, Attack) and ev.location_rolls for ev in state.events)
        fresh, _, _ = game_streams(7, i)
        assert logged == list(fresh.roll(len(logged)))
