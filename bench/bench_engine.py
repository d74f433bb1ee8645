"""Engine speed: full games per second for the standard matchup, 1 worker beside 2.

Run: .venv/bin/python bench/bench_engine.py [--games N] [--repeat R] [--no-write]

The standard matchup is two v3 archetypes (data/armies/v3-balanced.yaml against
v3-tank-heavy.yaml), greedy against greedy, sides swapped every other game -- what
``pmim simulate --workers W`` plays. Each configuration runs ``R`` times; the table shows
the best and the median rate, and each rate beside the 1-worker play-only baseline of the
same run. "play" is playing and recording the games (events, header, game id); "+ parquet"
also writes the Parquet batch. The machine is shared, so figures move between runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.sim.batch import BatchSpec
from pmim_analytics.sim.runner import run_batch

ARMIES = Path(__file__).resolve().parents[1] / "data" / "armies"


def standard_batch(games: int, seed: int = 1) -> BatchSpec:
    """Balanced vs tank-heavy under v3, greedy vs greedy."""
    a = validate_army(load_army(ARMIES / "v3-balanced.yaml"), "v3")
    b = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    return BatchSpec("v3", "take-and-hold", a, b, "greedy", "greedy", seed, games, name="bench")


def games_per_second(batch: BatchSpec, workers: int, write: bool) -> tuple[float, float]:
    """(games per second, mean rounds) of one run of the batch."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        summary = run_batch(batch, workers=workers, out=Path(tmp) if write else None, fmt="parquet")
        elapsed = time.perf_counter() - t0
    return batch.games / elapsed, summary.mean_rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per run (default 2000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration (default 3)")
    parser.add_argument("--no-write", action="store_true", help="skip the Parquet-writing rows")
    args = parser.parse_args()

    batch = standard_batch(args.games)
    run_batch(standard_batch(20), workers=1)  # warm up: imports, rules, tables
    configs = [("play", 1, False), ("play", 2, False)]
    if not args.no_write:
        configs += [("play + parquet", 1, True), ("play + parquet", 2, True)]
    load = os.getloadavg()[0]
    print(f"standard matchup: v3 Balanced vs Tank-heavy, greedy vs greedy, {args.games} games x "
          f"{args.repeat} runs; {os.cpu_count()} CPUs, load average {load:.2f} at start")
    print(f"{'configuration':<28}{'best games/s':>14}{'median':>10}{'ms/game/worker':>16}{'vs baseline':>13}")
    baseline = None
    for label, workers, write in configs:
        rates = []
        rounds = 0.0
        for _ in range(args.repeat):
            rate, rounds = games_per_second(batch, workers, write)
            rates.append(rate)
        best, median = max(rates), statistics.median(rates)
        baseline = baseline or median
        print(f"{label + f', workers={workers}':<28}{best:>14.0f}{median:>10.0f}"
              f"{1000 * workers / median:>16.2f}{median / baseline:>12.2f}x")
    print(f"mean rounds per game {rounds:.2f}; target: >= 150 games/s with 2 workers")


if __name__ == "__main__":
    main()
