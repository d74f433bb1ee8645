"""Play search-bot games under every rules version and check each with `pmim replay verify`.

Run: .venv/bin/python scripts/verify_search_games.py [--games 500] [--workers 2] [--budget 200]

For each rules version (v1, v2, v3; --variants adds the variants) it takes every sample
army legal under it (data/armies/ and tests/fixtures/armies/), plays ``--games`` games over
rotating pairings -- the search bot against tactician, greedy and itself, sides swapped --
writes them as Parquet batches in a temporary folder, and runs ``pmim replay verify`` on
them. Prints the games checked per version; exits 1 if any game breaks a rule.
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pmim_analytics.errors import PmimError
from pmim_analytics.rules import list_rules_ids, load_army, validate_army
from pmim_analytics.sim.batch import BatchSpec
from pmim_analytics.sim.runner import run_batch

ROOT = Path(__file__).resolve().parents[1]
ARMY_DIRS = (ROOT / "data" / "armies", ROOT / "tests" / "fixtures" / "armies")


def legal_armies(rules_id: str) -> list:
    out = []
    for folder in ARMY_DIRS:
        for path in sorted(folder.glob("*.yaml")):
            try:
                out.append(validate_army(load_army(path), rules_id))
            except PmimError:
                continue
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per rules version (default 500)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=int, default=None, help="search budget (default: the bot's default)")
    parser.add_argument("--variants", action="store_true", help="also every rules variant")
    args = parser.parse_args()
    search = "search" if args.budget is None else f"search:budget={args.budget}"
    opponents = ["tactician", "greedy", search]
    ids = [r for r in list_rules_ids() if args.variants or "-" not in r]
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for rules_id in ids:
            armies = legal_armies(rules_id)
            pairs = list(itertools.product(range(len(armies)), repeat=2))
            folder = Path(tmp) / rules_id
            t0 = time.perf_counter()
            per_batch = 10
            n = 0
            for b in range(-(-args.games // per_batch)):
                a_i, b_i = pairs[b % len(pairs)]
                games = min(per_batch, args.games - n)
                batch = BatchSpec(rules_id, "take-and-hold", armies[a_i], armies[b_i], search,
                                  opponents[b % len(opponents)], 500 + b, games, name=f"{rules_id}-{b}")
                run_batch(batch, workers=args.workers, out=folder / f"batch-{b:04d}", fmt="parquet")
                n += games
            played = time.perf_counter() - t0
            r = subprocess.run([sys.executable, "-m", "pmim_analytics", "replay", "verify", *sorted(
                str(p) for p in folder.iterdir())], capture_output=True, text=True)
            summary = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
            print(f"{rules_id}: {n} games ({len(armies)} armies, {played:.0f} s to play); "
                  f"pmim replay verify exit {r.returncode}: {summary}", flush=True)
            if r.returncode != 0:
                print(r.stdout[:2000])
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
