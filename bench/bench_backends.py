"""Backends: games/s of the local process pool (1 and 2 workers) beside Ray, for one batch.

Run: .venv/bin/python bench/bench_backends.py [--games 5000] [--repeat 3] [--part-size 100]

The batch is the standard matchup of bench/bench_engine.py (v3 Balanced vs Tank-heavy,
greedy vs greedy) written as Parquet parts into a temporary folder -- what
``pmim simulate --out`` does. Each round runs every configuration once, in turn, so a
burst of load from other programs on this shared machine hits all of them alike; the table
shows the best and the median over the rounds and each median beside the baseline
(pool, 1 worker). Ray runs on a local instance with ``--workers`` CPUs, started for its
own run and stopped after it (so its processes never compete with the pool's); its
start-up is timed apart, since a batch or a sweep pays it once.

Other programs share this machine's CPUs, so beside wall-clock rates the script prints
(1) the CPU time each configuration spent per 1,000 games, over this process and all its
descendants (pool workers, Ray's workers and daemons) -- the parallel overhead shows there
whatever the load -- and (2) a calibration each round: the speed-up of a pure-Python loop
on 2 processes against 1, i.e. what the machine can give right now. Linux only (/proc).

Targets: pool workers=2 at least 1.8x workers=1; Ray within 20% of the pool at 2 workers.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import standard_batch  # noqa: E402

from pmim_analytics.sim.backends import Backend, LocalBackend  # noqa: E402
from pmim_analytics.sim.ray_backend import RayBackend  # noqa: E402
from pmim_analytics.sim.runner import run_batch  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int | None = None) -> float:
    """CPU seconds of ``root`` (this process), its live descendants and every child they reaped."""
    root = root or os.getpid()
    stats: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid = int(fields[1])
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        stats[int(entry)] = (ppid, (utime + stime + cutime + cstime) / TICK)
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0.0))[1]
        todo.extend(children.get(pid, []))
    return total


def timed_run(backend: Backend, games: int, part_size: int) -> tuple[float, float]:
    """(games per second, CPU seconds per 1,000 games) of one run of the standard batch, written as Parquet."""
    batch = standard_batch(games)
    with tempfile.TemporaryDirectory() as tmp:
        cpu0, t0 = tree_cpu_seconds(), time.perf_counter()
        summary = run_batch(batch, out=Path(tmp) / "bench", part_size=part_size, backend=backend)
        elapsed, cpu = time.perf_counter() - t0, tree_cpu_seconds() - cpu0
    assert summary.games == games
    return games / elapsed, 1000 * cpu / games


def _spin(n: int) -> float:
    x = 0
    for i in range(n):
        x += i * i
    return float(x)


def machine_speedup(n: int = 6_000_000) -> float:
    """Wall-clock speed-up of two copies of a pure-Python loop on 2 processes against 1 after the other."""
    t0 = time.perf_counter()
    _spin(n)
    _spin(n)
    serial = time.perf_counter() - t0
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        t0 = time.perf_counter()
        pool.map(_spin, [n, n])
        parallel = time.perf_counter() - t0
    return serial / parallel


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
    cpus: dict[str, list[float]] = {name: [] for name in names}
    starts: list[float] = []
    ceilings: list[float] = []
    loads = [os.getloadavg()[0]]
    print(f"{args.games} games a run, {args.repeat} rounds, {args.part_size} games a part/task; "
          f"{os.cpu_count()} CPUs; load average {loads[0]:.2f} at start")

    def record(name: str, result: tuple[float, float], r: int) -> None:
        rates[name].append(result[0])
        cpus[name].append(result[1])
        loads.append(os.getloadavg()[0])
        print(f"  round {r + 1}: {name:<24}{result[0]:>8.1f} games/s {result[1]:>7.2f} CPU s/1000 games"
              f"   (load {loads[-1]:.2f})", flush=True)

    for r in range(args.repeat):
        ceilings.append(machine_speedup())
        print(f"  round {r + 1}: machine right now: 2 processes give {ceilings[-1]:.2f}x one", flush=True)
        record(names[0], timed_run(LocalBackend(1), args.games, args.part_size), r)
        record(names[1], timed_run(LocalBackend(args.workers), args.games, args.part_size), r)
        # Ray is up only for its own run, so its processes never share the CPUs with the pool's
        t0 = time.perf_counter()
        with RayBackend(workers=args.workers) as ray_backend:
            starts.append(time.perf_counter() - t0)
            timed_run(ray_backend, 4 * args.workers, 1)  # let Ray start its worker processes
            record(names[2], timed_run(ray_backend, args.games, args.part_size), r)

    print(f"\n{'configuration':<26}{'best games/s':>14}{'median':>10}{'vs pool w=1':>13}{'CPU s/1000 g':>14}")
    base = statistics.median(rates[names[0]])
    for name in names:
        best, median = max(rates[name]), statistics.median(rates[name])
        print(f"{name:<26}{best:>14.1f}{median:>10.1f}{median / base:>12.2f}x{statistics.median(cpus[name]):>14.2f}")
    pool, ray = statistics.median(rates[names[1]]), statistics.median(rates[names[2]])
    ceiling = statistics.median(ceilings)
    each = ", ".join(f"{c:.2f}" for c in ceilings)
    print(f"\nparallel efficiency, pool {args.workers} workers vs 1: {pool / base:.2f}x (target >= 1.8x); "
          f"meanwhile the machine gave a plain loop {ceiling:.2f}x on 2 processes (median of {each})")
    print(f"Ray vs pool at {args.workers} workers: {ray / pool:.2f} (target >= 0.80); Ray start-up "
          f"{statistics.median(starts):.1f} s (median, not in the rates: a batch or sweep pays it once)")
    print(f"load average during the runs: min {min(loads):.2f}, max {max(loads):.2f} "
          f"(above {os.cpu_count()} means other programs wanted CPU time too)")


if __name__ == "__main__":
    main()
