"""Backends: games/s of the local process pool (1 and 2 workers) beside Ray, for one batch.

Run: .venv/bin/python bench/bench_backends.py [--games 5000] [--repeat 3] [--part-size 100]

The batch is the standard matchup of bench/bench_engine.py (v3 Balanced vs Tank-heavy,
greedy vs greedy) written as Parquet parts into a temporary folder -- what
``pmim simulate --out`` does. Each round runs every configuration once, in turn, so a
burst of load from other programs on this shared machine hits all of them alike; the table
shows the best and the median over the rounds and each median beside the baseline
(pool, 1 worker). Ray runs on a local instance with ``--workers`` CPUs, started for its
own run and stopped after it (so its processes never compete with the pool's); its
start-up is timed apart, since a batch or a sweep pays it once. Printed with the load
average, because other programs share the CPUs.

Targets: pool workers=2 at least 1.8x workers=1; Ray within 20% of the pool at 2 workers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import standard_batch  # noqa: E402

from pmim_analytics.engine.backends import Backend, LocalBackend  # noqa: E402
from pmim_analytics.engine.ray_backend import RayBackend  # noqa: E402
from pmim_analytics.engine.runner import run_batch  # noqa: E402


def timed_run(backend: Backend, games: int, part_size: int) -> float:
    """Games per second of one run of the standard batch on ``backend``, written as Parquet."""
    batch = standard_batch(games)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        summary = run_batch(batch, out=Path(tmp) / "bench", part_size=part_size, backend=backend)
        elapsed = time.perf_counter() - t0
    assert summary.games == games
    return games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000, help="games per run (default 5000)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--part-size", type=int, default=100, help="games per part / Ray task (default 100)")
    parser.add_argument("--workers", type=int, default=2, help="workers of the parallel configurations")
    args = parser.parse_args()

    run_batch(standard_batch(20), workers=1)  # warm up imports, rules, tables
    names = ["pool, workers=1", f"pool, workers={args.workers}", f"ray (local, {args.workers} CPUs)"]
    rates: dict[str, list[float]] = {name: [] for name in names}
    starts: list[float] = []
    loads = [os.getloadavg()[0]]
    print(f"{args.games} games a run, {args.repeat} rounds, {args.part_size} games a part/task; "
          f"{os.cpu_count()} CPUs; load average {loads[0]:.2f} at start")

    def record(name: str, rate: float, r: int) -> None:
        rates[name].append(rate)
        loads.append(os.getloadavg()[0])
        print(f"  round {r + 1}: {name:<24}{rate:>8.1f} games/s   (load {loads[-1]:.2f})", flush=True)

    for r in range(args.repeat):
        record(names[0], timed_run(LocalBackend(1), args.games, args.part_size), r)
        record(names[1], timed_run(LocalBackend(args.workers), args.games, args.part_size), r)
        # Ray is up only for its own run, so its processes never share the CPUs with the pool's
        t0 = time.perf_counter()
        with RayBackend(workers=args.workers) as ray_backend:
            starts.append(time.perf_counter() - t0)
            timed_run(ray_backend, 4 * args.workers, 1)  # let Ray start its worker processes
            record(names[2], timed_run(ray_backend, args.games, args.part_size), r)
    print(f"\n{'configuration':<26}{'best games/s':>14}{'median':>10}{'vs pool w=1':>13}")
    base = statistics.median(rates[names[0]])
    for name in names:
        best, median = max(rates[name]), statistics.median(rates[name])
        print(f"{name:<26}{best:>14.1f}{median:>10.1f}{median / base:>12.2f}x")
    pool, ray = statistics.median(rates[names[1]]), statistics.median(rates[names[2]])
    print(f"\nparallel efficiency, pool {args.workers} workers vs 1: {pool / base:.2f}x (target >= 1.8x)")
    print(f"Ray vs pool at {args.workers} workers: {ray / pool:.2f} (target >= 0.80); Ray start-up "
          f"{statistics.median(starts):.1f} s (median, not in the rates: a batch or sweep pays it once)")
    print(f"load average during the runs: min {min(loads):.2f}, max {max(loads):.2f} "
          f"(above {os.cpu_count()} means other programs took CPU time)")


if __name__ == "__main__":
    main()
