"""What refusing each hostile input of issue 33 costs: wall time, CPU, peak memory, exit code.

    .venv/bin/python bench/bench_refusals.py [--repeat 3] [--only TEXT]

Every case runs the real ``pmim`` console script as a child process, one after the other, and
reads the child's own resource usage back from the kernel (``os.wait4``): user + system CPU
(its waited-for children included) and peak RSS. Each case runs ``--repeat`` times; the
median wall and CPU are printed, with the largest peak RSS and the first line of the message.
The same is printed first for baselines run in the same process: ``python -c pass`` (the
interpreter alone), ``import pmim_analytics.cli`` (the CLI's own start-up) and ``pmim --help``
(every command module loaded), so the reader can see how much of a refusal is start-up. The
target (issue 33) is a refusal within 2 s and 300 MB; the good inputs of an ingest that also
holds hostile files must be stored (the "stored" column counts them).

Inputs are built in a temporary folder: three engine games (greedy against greedy), a
private copy of data/ for the variant files (``PMIM_DATA``), and a database loaded from the
three games. The benchmark imports nothing from ``tests/``. Under root the read-only-folder
case drops to user nobody after loading the ingest's modules (root ignores file
permissions, and the interpreter may sit where nobody cannot read): its CPU then includes
those imports, as an ordinary ingest's would.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PMIM = str(Path(sys.executable).parent / "pmim")
AS_LIMIT = 3 * 1024**3  # a runaway child fails fast instead of exhausting the machine
HANG = 60.0  # seconds: a child still running then is killed and reported as a hang
HUGE = str(10**12)
DEEP = "[" * 20_000 + "]" * 20_000

#: nine anchors, each nine aliases of the one before: 9**9 values once expanded
BOMB = "optional_rules:\n  a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)) + "  rush: *a8\n"

#: Run the ingest as user nobody (when root): the interpreter and the ingest's modules are
#: loaded first, then the process drops to uid/gid 65534 and runs the command line.
AS_NOBODY = """import os, sys
import concurrent.futures.process, concurrent.futures.thread  # noqa: E401
import pmim_analytics.cli as cli, pmim_analytics.store.ingest, pmim_analytics.store.info  # noqa: E401
cli.build_app(sys.argv[1])
os.setgroups([]); os.setgid(65534); os.setuid(65534)
sys.argv = ["pmim", *sys.argv[1:]]
sys.exit(cli.main())
"""


@dataclass
class Case:
    item: str  # the item it tries
    what: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    argv0: list[str] | None = None  # instead of ``pmim``
    stored: Callable[[], int] | None = None  # games stored by the run (for an ingest)
    before: Callable[[], None] | None = None  # called before each run (a fresh database)
    cwd: Path | None = None  # where it runs (default: the benchmark's folder)


@dataclass
class Sample:
    code: int
    wall: float
    cpu: float
    rss_mb: float
    first: str


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


#: Lines that say what was refused, strongest first (click's usage errors sit in a box under a usage line).
_SAYS = (re.compile(r"error:|rejected:|unreadable:|invalid value|does not match", re.IGNORECASE),
         re.compile(r"skipped|violation", re.IGNORECASE))


def _message(text: str) -> str:
    """The first line of ``text`` that says what was refused, else its first line."""
    lines = [x.strip(" \u2502\u256d\u256e\u2570\u256f\u2500") for x in text.splitlines()]
    lines = [x for x in lines if x and x != "Error"]
    for says in _SAYS:
        hit = next((x for x in lines if says.search(x)), None)
        if hit is not None:
            return hit
    return lines[0] if lines else ""


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> Sample:
    """Run ``argv``; its wall time, its own CPU and peak RSS (``wait4``), exit code, first message line."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, preexec_fn=_cap,
                                env={**os.environ, "COLUMNS": "200", **env})
        timer = threading.Timer(HANG, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        err.seek(0)
        out.seek(0)
        text = err.read().decode("utf-8", "replace") + "\n" + out.read().decode("utf-8", "replace")
    first = _message(text)
    if wall >= HANG:
        first = f"HUNG: killed after {HANG:.0f} s"
    return Sample(proc.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, first)


def measure(case: Case, cwd: Path, repeat: int) -> tuple[Sample, int | None]:
    samples = []
    stored = None
    for _ in range(repeat):
        if case.before is not None:
            case.before()
        argv = [PMIM, *case.args] if case.argv0 is None else [*case.argv0, *case.args]
        samples.append(run_once(argv, case.env, case.cwd or cwd))
        if case.stored is not None:
            stored = case.stored()
    codes = {s.code for s in samples}
    med = Sample(samples[0].code if len(codes) == 1 else -999, statistics.median(s.wall for s in samples),
                 statistics.median(s.cpu for s in samples), max(s.rss_mb for s in samples), samples[-1].first)
    return med, stored


def _games_in(db: Path) -> int:
    import duckdb

    if not db.exists():
        return 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute("SELECT count(*) FROM games").fetchall()[0][0])
    finally:
        con.close()


def _fresh(db: Path) -> Callable[[], None]:
    def clear() -> None:
        for suffix in ("", ".wal"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    return clear


Edit = Callable[[dict[str, Any], list[dict[str, Any]]], None]


def _edited(good: Path, out: Path, change: Edit, recompute: bool = True) -> Path:
    """``good`` changed by ``change(header, events)``, its game id recomputed to fit (or kept)."""
    from pmim_analytics.errors import Location
    from pmim_analytics.model.record import compute_game_id
    from pmim_analytics.replay.format import parse_event

    lines = good.read_text(encoding="utf-8").splitlines()
    head, events = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    change(head, events)
    if recompute:
        head["game_id"] = compute_game_id(head, [parse_event(e, Location("x")) for e in events])
    out.write_text("\n".join(json.dumps(x) for x in [head, *events]) + "\n", encoding="utf-8")
    return out


def build(tmp: Path) -> tuple[list[Case], Path]:
    """The inputs, in ``tmp``, the cases that run them, and the read-only case's folder (outside ``tmp``)."""
    from pmim_analytics.replay.format import write_game
    from pmim_analytics.rules import load_army, validate_army
    from pmim_analytics.sim.batch import BatchSpec, play_batch_game

    armies = ROOT / "data" / "armies"
    blue, red = str(armies / "v3-balanced.yaml"), str(armies / "v3-tank-heavy.yaml")
    a = validate_army(load_army(Path(blue)), "v3")
    b = validate_army(load_army(Path(red)), "v3")
    batch = BatchSpec("v3", "take-and-hold", a, b, "greedy", "greedy", seed=9, games=3)
    good = [write_game(play_batch_game(batch, n), tmp / "good" / f"good-{n}.jsonl") for n in range(3)]
    goods = [str(p) for p in good]

    data = tmp / "data"  # a private data/ holding the hostile variants
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("*.duckdb*", "*.wal"))
    variants = data / "rules" / "variants"
    for vid, body, base in (("v3-bomb", BOMB, "v3"), ("v3-huge", "optional_rules:\n  rush: {factor: 1000000000000}\n",
                                                       "v3"),
                            ("v3-deep", f"description: {DEEP}\n", "v3"), ("v3-ping", "", "v3-pong"),
                            ("v3-pong", "", "v3-ping")):
        (variants / f"{vid}.yaml").write_text(f"id: {vid}\nname: {vid}\nbase: {base}\n{body}", encoding="utf-8")
    hostile = {"PMIM_DATA": str(data)}

    db = tmp / "pmim.duckdb"
    subprocess.run([PMIM, "ingest", *goods, "--db", str(db), "-q"], check=True, cwd=tmp,
                   stdout=subprocess.DEVNULL)
    dbenv = {"PMIM_DB": str(db)}

    deep_army = tmp / "deep-army.yaml"
    deep_army.write_text(f"name: Deep\nrules: v3\nunits: {DEEP}\n", encoding="utf-8")
    deep_replay = tmp / "deep.jsonl"
    deep_replay.write_text(DEEP + "\n", encoding="utf-8")

    def rush(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
        head.update(version=2, optional_rules={"rush": {"factor": 10**12}})

    rush_replay = _edited(good[0], tmp / "rush.jsonl", rush)

    def flip(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
        events[-1]["winner"] = "blue" if events[-1]["winner"] == "red" else "red"

    broken = _edited(good[0], tmp / "winner-flipped.jsonl", flip)

    def newline(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
        head["sides"]["blue"]["name"] = "Evil\nresult: blue vp 99-0"

    names = _edited(good[0], tmp / "newline-name.jsonl", newline)

    def reroll(head: dict[str, Any], events: list[dict[str, Any]]) -> None:
        miss = next(e for e in events if e["type"] == "attack" and not e["hit"])
        miss["roll"] = [1, 1]  # still a miss: only the content changed, the id is the old one

    stale = _edited(good[0], tmp / "edited-old-id.jsonl", reroll, recompute=False)

    big = tmp / "big.jsonl"
    with big.open("wb") as fh:
        from pmim_analytics.limits import MAX_REPLAY_BYTES

        fh.write(good[0].read_bytes())
        fh.write(b" " * (MAX_REPLAY_BYTES + 1))

    foreign = tmp / "foreign"  # a folder already holding replays the simulation did not write
    foreign.mkdir()
    for p in good:
        shutil.copy(p, foreign / p.name)
    a_file = tmp / "notes.txt"
    a_file.write_text("mine", encoding="utf-8")

    cut = tmp / "cut.duckdb"
    cut.write_bytes(db.read_bytes()[:100_000])

    ro_top = Path(tempfile.mkdtemp(prefix="pmim-bench-ro-"))  # outside /tmp/..., which nobody may not enter
    ro_top.chmod(0o777)
    (ro_top / "ro").mkdir()
    shutil.copy(db, ro_top / "ro" / "pmim.duckdb")
    shutil.copy(good[1], ro_top / "good.jsonl")
    for p in (ro_top / "ro" / "pmim.duckdb", ro_top / "good.jsonl"):
        p.chmod(0o644)
    (ro_top / "ro").chmod(0o555)

    sweep = tmp / "huge-sweep.yaml"
    sweep.write_text(f"name: huge\nseed: 1\nrules: [v3]\ncompositions: [v3-balanced, v3-tank-heavy]\n"
                     f"games_per_pairing: {HUGE}\n", encoding="utf-8")

    ingest_db = tmp / "ingest.duckdb"
    stored = lambda: _games_in(ingest_db)  # noqa: E731
    fresh = _fresh(ingest_db)
    sim = ["simulate", "--blue", blue, "--red", red]
    cases = [
        Case("1 variant", "alias bomb (9^9) in optional_rules: rules show", ["rules", "show", "v3-bomb"], hostile),
        Case("1 variant", "alias-bomb variant present: ingest 3 good games", [*["ingest", *goods],
             "--db", str(ingest_db), "-q"], hostile, stored=stored, before=fresh),
        Case("1 variant", "rush factor 10^12: rules show", ["rules", "show", "v3-huge"], hostile),
        Case("1 variant", "replay header with rush factor 10^12: replay verify",
             ["replay", "verify", str(rush_replay)]),
        Case("1 variant", "same, with 2 good games: ingest", ["ingest", str(rush_replay), *goods[1:], "--db",
             str(ingest_db), "-q"], stored=stored, before=fresh),
        Case("1 variant", "20,000-deep nesting in a variant: rules show", ["rules", "show", "v3-deep"], hostile),
        Case("1 variant", "20,000-deep nesting in an army: army validate", ["army", "validate", str(deep_army)]),
        Case("1 variant", "20,000-deep replay: replay verify", ["replay", "verify", str(deep_replay)]),
        Case("1 variant", "20,000-deep replay with 3 good games: ingest", ["ingest", str(deep_replay), *goods,
             "--db", str(ingest_db), "-q"], stored=stored, before=fresh),
        Case("1 variant", "two variants based on each other: rules show", ["rules", "show", "v3-ping"], hostile),
        Case("1 variant", "replay over 16 MB: replay verify", ["replay", "verify", str(big)]),
        Case("2 counts", "simulate --games 10^12", [*sim, "--games", HUGE, "--workers", "1"]),
        Case("2 counts", "simulate --workers 10^12", [*sim, "--workers", HUGE]),
        Case("2 counts", "simulate, search budget 10^12", [*sim, "--blue-bot", f"search:budget={HUGE}"]),
        Case("2 counts", "bots ladder --games-per-pairing 10^12", ["bots", "ladder", "--games-per-pairing", HUGE,
                                                                   "--no-store"]),
        Case("2 counts", "bots ladder --bootstrap 10^12", ["bots", "ladder", "--bootstrap", HUGE, "--no-store"]),
        Case("2 counts", "bots ladder, search budget 10^12",
             ["bots", "ladder", "--bots", f"random,search:budget={HUGE}", "--no-store"]),
        Case("2 counts", "calibrate --games 10^12", ["calibrate", "--games", HUGE], dbenv),
        Case("2 counts", "balance propose --budget 10^12", ["balance", "propose", "--budget", HUGE, "--no-store"]),
        Case("2 counts", "sweep file, games_per_pairing 10^12", ["sweep", str(sweep), "--out", str(tmp / "sw"),
                                                                 "--no-ingest"]),
        Case("2 counts", "report meta --min-games -1", ["report", "meta", "--rules", "v3", "--min-games", "-1"], dbenv),
        Case("2 counts", "report robustness --min-games -1", ["report", "robustness", "--min-games", "-1"], dbenv),
        Case("3 signing", "simulate --out a folder of foreign replays", [*sim, "--games", "2", "--workers", "1",
                                                                         "--out", str(foreign)]),
        Case("4 log write", "log write of a replay with its winner flipped", ["log", "write", str(broken)]),
        Case("4 log write", "log write, a name holding a newline (written escaped)", ["log", "write", str(names)]),
        Case("6 messages", "ingest into a truncated database", ["ingest", goods[1], "--db", str(cut), "-q"]),
        Case("6 messages", "ingest into a database in a read-only folder",
             ["ingest", "good.jsonl", "--db", "ro/pmim.duckdb", "-q"],
             argv0=[sys.executable, "-c", AS_NOBODY] if os.geteuid() == 0 else None, cwd=ro_top),
        Case("6 messages", "simulate --out onto a file", [*sim, "--games", "1", "--workers", "1", "--out",
                                                           str(a_file)]),
        Case("6 messages", "replay verify, an edited replay keeping its old id", ["replay", "verify", str(stale)]),
    ]
    return cases, ro_top


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each case; the median is printed")
    ap.add_argument("--only", default=None, help="only the cases whose description holds this text")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pmim-bench-refusals-"))
    started = time.monotonic()
    ro_top = None
    try:
        cases, ro_top = build(tmp)
        if args.only:
            cases = [c for c in cases if args.only in c.what]
        print(f"load average at start: {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; "
              f"median of {args.repeat} runs; CPU = user + system of the command and its children")
        baselines = [("python -c pass", [sys.executable, "-c", "pass"]),
                     ("python -c 'import pmim_analytics.cli'", [sys.executable, "-c", "import pmim_analytics.cli"]),
                     ("pmim --help (every command loaded)", [PMIM, "--help"])]
        rows: list[tuple[str, str, Sample, int | None]] = []
        for name, argv in baselines:
            runs = [run_once(argv, {}, tmp) for _ in range(args.repeat)]
            rows.append(("baseline", name, Sample(runs[0].code, statistics.median(r.wall for r in runs),
                                                  statistics.median(r.cpu for r in runs),
                                                  max(r.rss_mb for r in runs), ""), None))
        for case in cases:
            s, stored = measure(case, tmp, args.repeat)
            rows.append((case.item, case.what, s, stored))
        _print(rows)
        for label, rows_of in (("refusals alone", [r for r in rows if r[0] != "baseline" and r[3] is None]),
                               ("ingests that also store the good inputs of the run",
                                [r for r in rows if r[3] is not None])):
            if rows_of:
                print(f"\nworst of the {label}: {max(r[2].wall for r in rows_of):.2f} s wall, "
                      f"{max(r[2].cpu for r in rows_of):.2f} s CPU, {max(r[2].rss_mb for r in rows_of):.0f} MB peak "
                      "RSS (target: 2 s, 300 MB)", end="")
        print(f"\nload average at end: {os.getloadavg()[0]:.2f}; bench took {time.monotonic() - started:.0f} s")
    finally:
        if ro_top is not None:
            (ro_top / "ro").chmod(0o755)
            shutil.rmtree(ro_top, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _print(rows: list[tuple[str, str, Sample, int | None]]) -> None:
    print("\n| item | input and command | wall s | CPU s | peak RSS MB | exit | stored | first line of the message |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for item, what, s, stored in rows:
        first = s.first if len(s.first) <= 110 else s.first[:107] + "..."
        print(f"| {item} | {what} | {s.wall:.2f} | {s.cpu:.2f} | {s.rss_mb:.0f} | {s.code} | "
              f"{'' if stored is None else stored} | {first.replace('|', '/')} |")


if __name__ == "__main__":
    main()
