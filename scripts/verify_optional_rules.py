"""Play games under each optional-rule variant with every bot and verify each one.

Run: .venv/bin/python scripts/verify_optional_rules.py [--games 500] [--workers 2] [--budget 100] [--only v3-rush]

For each variant that switches on an optional rule (v3-heat, v3-rolled-initiative,
v3-catch-up, v3-rush) it plays ``--games`` games, shared out over the bots (random,
greedy, tactician, search at ``--budget``; each against itself), with random legal v3
armies, replays every game through :func:`pmim_analytics.engine.verify.verify_game` (what
``pmim replay verify`` runs), and prints per variant and bot the games checked, the
optional rules' events seen and the games with findings. Exits 1 if any game breaks a rule.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.verify import verify_game
from pmim_analytics.rules import validate_army
from pmim_analytics.rules.generate import random_army

VARIANTS = ("v3-heat", "v3-rolled-initiative", "v3-catch-up", "v3-rush")
COUNTED = ("initiative_roll", "overheat_roll", "weapon_lost", "rush")


def one(job: tuple[str, str, int]) -> tuple[str, str, Counter[str], list[str]]:
    rules, bot, i = job
    rng = random.Random(f"{rules}/{bot}/{i}")
    a, b = (validate_army(random_army(rules, rng), rules) for _ in range(2))
    game = play_game(GameSpec.create(rules, "take-and-hold", a, b), bot, bot, seed=i, game_index=i, played="x")
    found = verify_game(game)
    return rules, bot, Counter(e.type for e in game.events if e.type in COUNTED), [v.render(f"game {i}")
                                                                                 for v in found[:2]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per variant, over all bots (default 500)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=int, default=100, help="the search bot's budget (default 100)")
    parser.add_argument("--only", default=",".join(VARIANTS), help="comma-separated variants (default: all four)")
    args = parser.parse_args()
    bots = ["random", "greedy", "tactician", f"search:budget={args.budget}"]
    variants = [v for v in args.only.split(",") if v]
    jobs = [(r, bots[i % len(bots)], i) for r in variants for i in range(args.games)]
    games: Counter[tuple[str, str]] = Counter()
    events: dict[tuple[str, str], Counter[str]] = {}
    bad: Counter[tuple[str, str]] = Counter()
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for rules, bot, seen, findings in pool.map(one, jobs, chunksize=4):
            games[rules, bot] += 1
            events.setdefault((rules, bot), Counter()).update(seen)
            if findings:
                bad[rules, bot] += 1
                print(f"{rules} {bot}: " + "; ".join(findings), file=sys.stderr)
    print(f"{'variant':22} {'bot':18} {'games':>6} {'findings':>8}  optional-rule events")
    for (rules, bot), n in sorted(games.items()):
        ev = ", ".join(f"{k} {v}" for k, v in sorted(events[rules, bot].items())) or "-"
        print(f"{rules:22} {bot:18} {n:6} {bad[rules, bot]:8}  {ev}")
    print(f"{sum(games.values())} games verified in {time.perf_counter() - t0:.0f} s; "
          f"{sum(bad.values())} with findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
