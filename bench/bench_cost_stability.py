"""Cost verdict stability: two independent runs under identical rules, verdict by verdict.

Run: .venv/bin/python bench/bench_cost_stability.py [--games 3000] [--bot greedy] [--workers 2]
     [--resamples 200] [--null-runs 0] [--null-games 400] [--synthetic-null 0]

Two runs of ``--games`` engine games each: random legal v3 armies (56-72 points, as the demo's
random plan draws them), both sides played by the same bot level (``--bot``, greedy by
default), seeds 1 and 2; nothing else differs. Each run is fitted by the unpinned fit (what
``pmim report costs`` prints) and, as the baseline in the same process, by the earlier pinned
fit. Per type the table shows both runs' verdicts; a **flip** is a type that reads
"mis-priced" in one run and "in line" in the other (the target is at most 1 of 24).

Null false-flag rates (identical rules, so every flag is false):

* costs on engine games: the two runs compared type by type (:func:`.implied_costs.cost_changes`,
  z on the bootstrap SEs, BH across the types). ``--null-runs K`` adds K more pairs of runs of
  ``--null-games`` games each, to reach enough tests for the rate check (5% ± 2.5%).
* ``--synthetic-null N``: N synthetic data sets whose types are worth exactly their price, so
  the "mis-priced" verdict's own test is under its null (raw rate and BH flags).

Every figure is at one bot level, the one named in the header.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# one OpenBLAS thread (before numpy loads): the fits' matrices are small, and spare threads only
# spin (a 240-game fit took 3 times the CPU with them on a busy machine)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import polars as pl  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pmim_analytics.analytics.dataset import FrameData  # noqa: E402
from pmim_analytics.analytics.frames import Frames  # noqa: E402
from pmim_analytics.analytics.implied_costs import cost_changes  # noqa: E402
from pmim_analytics.analytics.tables import cost_report, pinned_cost_report  # noqa: E402
from pmim_analytics.botlab.cost_games import Rows, random_army_rows, rows_to_frames  # noqa: E402
from pmim_analytics.botlab.synthetic_costs import synthetic_cost_frames  # noqa: E402

CHUNK = 50  # pairs of random armies per worker task


def _chunk(args: tuple[int, str, int, str, int]) -> Rows:
    pairs, bot, seed, label, first = args
    return random_army_rows(pairs, bot, seed, label=label, first_pair=first)


def play_run(games: int, bot: str, seed: int, label: str, workers: int) -> Frames:
    """``games`` engine games of random armies (pairs of two), played on ``workers`` processes (forked
    before any Polars work of theirs: the workers return plain rows)."""
    pairs = games // 2
    tasks = [(min(CHUNK, pairs - f), bot, seed, label, f) for f in range(0, pairs, CHUNK)]
    if workers <= 1:
        parts = [_chunk(t) for t in tasks]
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            parts = list(pool.map(_chunk, tasks))
    return rows_to_frames(parts)


def cached_run(args: argparse.Namespace, seed: int) -> Frames:
    """A main run, read from ``--cache`` when it holds this run's games (same games, bot and seed)."""
    if args.cache is None:
        return play_run(args.games, args.bot, seed, f"run{seed}", args.workers)
    folder = args.cache / f"{args.bot}-{args.games}-seed{seed}"
    if not (folder / "units.parquet").exists():
        f = play_run(args.games, args.bot, seed, f"run{seed}", args.workers)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("games", "sides", "units"):
            getattr(f, name).write_parquet(folder / f"{name}.parquet")
    return Frames.of(**{name: pl.read_parquet(folder / f"{name}.parquet") for name in ("games", "sides", "units")})


def record(runs: list[Frames], folder: Path) -> None:
    """The runs' fit inputs (game lineups and army rosters, each army numbered in place of its
    content hash) as two small Parquet files: what the suite's stability test fits."""
    data = [FrameData(f) for f in runs]
    lineups = pl.concat([d.game_lineups() for d in data])
    rosters = pl.concat([d.army_rosters() for d in data])
    number = {h: f"{i:05d}" for i, h in enumerate(sorted(set(rosters["army_hash"])))}  # same order as the hashes
    folder.mkdir(parents=True, exist_ok=True)
    lineups.select("game_id", "rules_id", "blue_vp", "red_vp", blue_hash=pl.col("blue_hash").replace_strict(number),
                   red_hash=pl.col("red_hash").replace_strict(number)).write_parquet(
        folder / "lineups.parquet", compression="zstd", compression_level=19)
    rosters.with_columns(army_hash=pl.col("army_hash").replace_strict(number)).write_parquet(
        folder / "rosters.parquet", compression="zstd", compression_level=19)


def binomial_outside(n: int, p: float, lo: float, hi: float) -> float:
    """P(X / n < lo or X / n > hi) for X ~ Binomial(n, p), exactly."""
    def pmf(k: int) -> float:
        return math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                        + k * math.log(p) + (n - k) * math.log1p(-p))
    return sum(pmf(k) for k in range(n + 1) if k / n < lo or k / n > hi)


def tested_verdict(v: str | None) -> str | None:
    """The verdict as a test outcome: mis-priced or in line (None: not tested)."""
    if v in ("mis-priced", "undercosted", "overcosted"):
        return "mis-priced"
    return "in line" if v == "in line" else None


def verdicts(fit_table: pl.DataFrame) -> dict[str, tuple[str, str]]:
    """code -> (verdict with direction, implied PTS [interval])."""
    out = {}
    for r in fit_table.iter_rows(named=True):
        v = r["verdict"] + (f" ({r['direction'][:5]}.)" if r.get("direction") else "")
        est = "" if r["suggested_pts"] is None else \
            f"{r['suggested_pts']:.1f} [{r['suggested_lo']:.1f}, {r['suggested_hi']:.1f}]"
        out[r["code"]] = (v, est)
    return out


def flips(a: pl.DataFrame, b: pl.DataFrame) -> tuple[int, int, list[str]]:
    """(flips, types tested in both runs, flipped codes)."""
    va = dict(zip(a["code"], a["verdict"], strict=True))
    vb = dict(zip(b["code"], b["verdict"], strict=True))
    both = [c for c in sorted(set(va) & set(vb)) if tested_verdict(va[c]) and tested_verdict(vb[c])]
    flipped = [c for c in both if tested_verdict(va[c]) != tested_verdict(vb[c])]
    return len(flipped), len(both), flipped


def null_counts(fit_a, fit_b) -> tuple[int, int, int]:  # noqa: ANN001
    """(tests, raw p <= 0.05, BH flags) of the cost-change test between two identical-rules runs."""
    ch = cost_changes(fit_a, fit_b, "v3", "v3")
    return ch.height, int((ch["p"] <= 0.05).sum()), int(ch["flag"].sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per run (default 3000)")
    parser.add_argument("--bot", default="greedy", help="the bot level of both sides in every game (default greedy)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing games (default 2)")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap samples of games (default 200)")
    parser.add_argument("--null-runs", type=int, default=0, help="extra pairs of runs for the null rate (default 0)")
    parser.add_argument("--null-games", type=int, default=400, help="games per extra null run (default 400)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="a folder to keep the two main runs' games in (Parquet) and read them back from")
    parser.add_argument("--synthetic-null", type=int, default=0,
                        help="synthetic data sets (3000 games, right prices) for the verdict's null rate")
    parser.add_argument("--record", type=Path, default=None,
                        help="a folder to write the two main runs' fit inputs to (lineups.parquet, rosters.parquet; "
                             "armies numbered): tests/fixtures/cost_stability holds seeds 1 and 2 at 3000 games")
    args = parser.parse_args()

    t0 = time.perf_counter()
    print(f"cost verdict stability: two runs of {args.games} engine games each, random v3 armies (56-72 points), "
          f"bot level {args.bot} on both sides, seeds 1 and 2; {args.resamples} bootstrap samples; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, {args.workers} workers")
    runs = [cached_run(args, seed) for seed in (1, 2)]
    if args.record is not None:
        record(runs, args.record)
    played = time.perf_counter() - t0
    new = [cost_report(FrameData(f), args.resamples) for f in runs]
    old = [pinned_cost_report(FrameData(f)) for f in runs]
    new = [type(f)(f.table.with_columns(rules_id=pl.lit("v3")), f.summary) for f in new]
    print(f"played in {played:.0f} s; fitted in {time.perf_counter() - t0 - played:.0f} s")
    for i, f in enumerate(new):
        print(f"run {i + 1}: {f.summary['message'].item()}")
    na, nb = verdicts(new[0].table), verdicts(new[1].table)
    oa, ob = verdicts(old[0].table), verdicts(old[1].table)
    print(f"\n{'type':<22}{'PTS':>4}  {'run 1 (unpinned)':<44}{'run 2 (unpinned)':<44}{'pinned 1':<16}{'pinned 2':<16}")
    types = dict(zip(new[0].table["code"], new[0].table["type"], strict=True))
    pts = dict(zip(new[0].table["code"], new[0].table["pts"], strict=True))
    for c in sorted(types):
        a, b = na.get(c, ("-", "")), nb.get(c, ("-", ""))
        print(f"{types[c][:21]:<22}{pts[c]:>4.0f}  {(a[0] + ' ' + a[1])[:43]:<44}{(b[0] + ' ' + b[1])[:43]:<44}"
              f"{oa.get(c, ('-', ''))[0][:15]:<16}{ob.get(c, ('-', ''))[0][:15]:<16}")
    f_new, n_new, which_new = flips(new[0].table, new[1].table)
    f_old, n_old, which_old = flips(old[0].table, old[1].table)
    fam = [int(f.summary["family"].item() or 0) for f in new]
    print(f"\nflips, unpinned fit: {f_new} of {n_new} types tested in both runs ({', '.join(which_new) or 'none'}); "
          f"BH families of {fam[0]} and {fam[1]} types, q <= 0.05; target <= 1 of 24")
    print(f"flips, pinned fit (baseline): {f_old} of {n_old} ({', '.join(which_old) or 'none'})")
    misp = [int((f.table["verdict"] == "mis-priced").sum()) for f in new]
    print(f"mis-priced: {misp[0]} in run 1, {misp[1]} in run 2 (unpinned)")

    tests, raw, flagged = null_counts(*new)
    families, with_flag = 1, int(flagged > 0)
    rates = [raw / tests] if tests else []
    for k in range(args.null_runs):
        extra = [play_run(args.null_games, args.bot, 1000 + 2 * k + j, f"null{k}-{j}", args.workers) for j in (0, 1)]
        fits = [cost_report(FrameData(f), args.resamples) for f in extra]
        fits = [type(f)(f.table.with_columns(rules_id=pl.lit("v3")), f.summary) for f in fits]
        t, r, fl = null_counts(*fits)
        tests, raw, flagged, families, with_flag = tests + t, raw + r, flagged + fl, families + 1, with_flag + (fl > 0)
        rates += [r / t] if t else []
        print(f"  null pair {k + 1} of {args.null_runs}: {r} of {t} raw", flush=True)
    chance = binomial_outside(tests, 0.05, 0.025, 0.075) if tests else math.nan
    print(f"\nnull, costs on engine games (bot level {args.bot}; implied cost of run A vs run B, identical rules): "
          f"{tests} type tests in {families} pairs of runs; raw p <= 0.05: {raw} ({raw / max(tests, 1):.1%}); "
          f"BH flags: {flagged}, in {with_flag} of {families} families")
    if len(rates) > 1:
        mean = sum(rates) / len(rates)
        sd = math.sqrt(sum((r - mean) ** 2 for r in rates) / (len(rates) - 1))
        print(f"  rate per pair of runs: {mean:.1%} ± {sd:.1%} (sd; binomial sd of one pair at 5%: "
              f"{math.sqrt(0.05 * 0.95 / max(tests // families, 1)):.1%})")
    print(f"  a Binomial({tests}, 5%) rate falls outside 5% ± 2.5% with probability {chance:.2g}"
          + (" (too few tests for a check that rarely fails by chance)" if chance > 1e-4 else ""))
    if args.synthetic_null:
        tests = raw = flagged = with_flag = 0
        for k in range(args.synthetic_null):
            fit = cost_report(FrameData(synthetic_cost_frames(3000, seed=500 + k, boost=1.0)), args.resamples)
            p = fit.table["p"].drop_nulls()
            tests, raw = tests + p.len(), raw + int((p <= 0.05).sum())
            fl = int((fit.table["verdict"] == "mis-priced").sum())
            flagged, with_flag = flagged + fl, with_flag + (fl > 0)
        chance = binomial_outside(tests, 0.05, 0.025, 0.075)
        print(f"null, the mis-priced verdict on synthetic games (worth = price): {tests} tests in "
              f"{args.synthetic_null} data sets; raw p <= 0.05: {raw} ({raw / tests:.1%}); BH flags {flagged}, in "
              f"{with_flag} of {args.synthetic_null} families; chance outside 5% ± 2.5%: {chance:.2g}")
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
