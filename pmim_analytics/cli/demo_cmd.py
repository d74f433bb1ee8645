"""``pmim demo``: build the demo database, all at once or a quick core first and the rest in the background."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from types import FrameType

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.demo import (
    DEFAULT_PLANS,
    DEFAULT_RANDOM,
    DEMOS,
    BuildProgress,
    BuildResult,
    DemoSpec,
    StatusWriter,
    build_steps,
    builder_lock,
    builder_running,
    core_size,
    count_planned_games,
    demo_status,
    demo_steps,
    read_status,
    start_background,
)
from pmim_analytics.errors import PmimError, display_path
from pmim_analytics.limits import MAX_WORKERS
from pmim_analytics.rules import data_dir
from pmim_analytics.store.connection import resolve_db_path


class _Ladder:
    """The core's scripted ladder (a :class:`pmim_analytics.demo.LadderStep`)."""

    def __init__(self, spec: DemoSpec) -> None:
        from pmim_analytics.botlab.ladder import ladder_plan

        armies = [data_dir() / "armies" / f"{a}.yaml" for a in spec.ladder_armies]
        self.plan = ladder_plan(spec.core_rules, ",".join(spec.ladder_bots), 1, spec.ladder_seed, armies)

    def stored(self, db: str | Path | None) -> bool:
        from pmim_analytics.store.ladder import read_ladder_runs

        if not resolve_db_path(db).exists():
            return False
        return self.plan.run_id() in read_ladder_runs(db)["run_id"].to_list()

    def run(self, db: str | Path | None, workers: int) -> None:
        from pmim_analytics.botlab.ladder import run_ladder
        from pmim_analytics.cli.bots_cmd import store_ladder

        store_ladder(self.plan, run_ladder(self.plan, workers), workers, None if db is None else Path(db))


class _Lines:
    """Progress as one plain line per stored batch: what a pipe, a log file or ``make`` shows."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __call__(self, p: BuildProgress) -> None:
        if p.phase == "resumed":
            err.print(f"{self.label}: {p.steps_done} of {p.steps_total} batches already stored; going on",
                      highlight=False)
        elif p.phase == "start" and p.current.startswith("ladder"):
            err.print(f"{self.label}: playing the scripted bot ladder ({p.current}) ...", highlight=False)
        elif p.phase == "simulated":
            err.print(f"{self.label}: simulated {p.current} ({p.seconds:.0f} s)", highlight=False)
        elif p.phase == "storing":
            err.print(f"{self.label}: storing the batches simulated so far ...", highlight=False)
        elif p.phase == "group stored" or p.phase == "stored" and p.current.startswith("ladder"):
            err.print(f"{self.label}: {p.steps_done} of {p.steps_total} batches, {p.games_done:,} of "
                      f"{p.games_total:,} games stored ({p.seconds:.0f} s)", highlight=False)


def _build(spec: DemoSpec, db: Path | None, replays: Path, workers: int, core_only: bool, label: str,
           plain: bool) -> BuildResult:
    steps = demo_steps(spec)
    status = StatusWriter(replays, spec.name, steps, db)
    ladder = _Ladder(spec) if spec.ladder_bots else None
    try:
        if plain:
            result = build_steps(steps, db, replays, workers=workers, ladder=ladder, progress=_Lines(label),
                                 status=status, core_only=core_only)
        else:
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("batches"),
                          TimeElapsedColumn(), console=err) as bar:
                task = bar.add_task(label, total=None)

                def step(p: BuildProgress) -> None:
                    bar.update(task, description=f"{label}: {p.current}", completed=p.steps_done, total=p.steps_total)

                result = build_steps(steps, db, replays, workers=workers, ladder=ladder, progress=step, status=status,
                                     core_only=core_only)
    except PmimError as e:
        status.finish("failed", str(e))
        raise
    except Exception as e:
        status.finish("failed", f"{type(e).__name__}: {e}")
        raise
    status.finish("done" if result.whole else "stopped")
    return result


def _report(result: BuildResult, db: Path | None, what: str) -> None:
    out.print(f"{what} in {display_path(resolve_db_path(db))}: {result.steps_done} of {result.steps_total} batches "
              f"({result.games_done:,} of {result.games_total:,} games) stored; this run "
              f"{result.ingest.summary()}", highlight=False)
    for r in result.ingest.rejected[:5]:
        err.print(f"[yellow]rejected:[/] {r}", highlight=False)


def _another_builder(replays: Path, core: bool, builder: bool) -> None:
    """Another process builds the demo in ``replays``: a second builder leaves, ``--core`` waits
    for it to store the core, a whole build in the foreground says so."""
    if builder:
        return
    st = demo_status(replays)
    if not core:
        e = PmimError(f"a demo build is already running in {display_path(replays)} "
                      f"({st.sentence() if st else 'just started'}); `pmim demo --stop` stops it")
        e.exit_code = 1
        raise e
    if not (st and st.core_done):
        err.print("waiting for the running demo builder to store the core ...", highlight=False)
        while builder_running(replays) and not ((st := demo_status(replays)) and st.core_done):
            time.sleep(1)
    if not (st and st.core_done):
        raise PmimError("the running demo builder stopped before it stored the core; run the same command again")
    out.print(f"core demo ready; {st.sentence()}", highlight=False)


def _on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@guarded
def demo(
    db: Path | None = typer.Option(None, "--db", help="Database file (default data/pmim.duckdb or $PMIM_DB)."),
    replays: Path = typer.Option(Path("replays/demo"), "--replays", help="Where the simulated batches go."),
    workers: int = typer.Option(2, "--workers", min=1, max=MAX_WORKERS, help="Worker processes for the simulations."),
    core: bool = typer.Option(False, "--core", help="Build only the quick core: the tactician games under v3, "
                              "the playtest logs and a scripted bot ladder (what the dashboard needs first)."),
    background: bool = typer.Option(False, "--background", help="Build what is missing in a process of its own "
                                    "and return at once (log: builder.log in --replays); with --core, once the "
                                    "core is stored."),
    status: bool = typer.Option(False, "--status", help="Say how far the demo build in --replays has got."),
    stop: bool = typer.Option(False, "--stop", help="Stop the background build (the batch in flight is dropped)."),
    plan: str = typer.Option("full", "--plan", help="full: the demo `make run` builds; small: under 100 games "
                             "in seconds, to try the tool."),
    builder: bool = typer.Option(False, "--builder", hidden=True, help="Run as the background builder."),
) -> None:
    chosen = [name for name, on in (("--core", core and not background), ("--background", background),
                                    ("--status", status), ("--stop", stop)) if on]
    if len(chosen) > 1:
        raise PmimError(f"{' and '.join(chosen)} cannot be combined; give one of them")
    if plan not in DEMOS:
        raise PmimError(f"unknown --plan {plan!r}; choose one of {', '.join(DEMOS)}")
    spec = DEMOS[plan]
    if status:
        st = demo_status(replays)
        out.print(st.sentence() if st else f"no demo build has run in {display_path(replays)}; "
                  "`make run` or `pmim demo` builds one", highlight=False)
        return
    if stop:
        st = demo_status(replays)
        if st is None or not st.building or st.pid is None:
            out.print(f"no demo build is running in {display_path(replays)}", highlight=False)
            return
        os.kill(st.pid, signal.SIGTERM)
        out.print(f"asked the demo builder (process {st.pid}) to stop; `pmim demo --background` goes on later",
                  highlight=False)
        return
    old = read_status(replays)
    if old and old.get("demo") not in (None, plan):
        raise PmimError(f"{display_path(replays)} holds the {old['demo']} demo; build the {plan} one in another "
                        "folder with --replays (and --db)")
    if background and not core:
        _start_background(plan, replays, db, workers)
        return
    if builder:
        signal.signal(signal.SIGTERM, _on_sigterm)
        os.nice(10)  # the dashboard stays quick while the demo builds
    plain = builder or not err.is_terminal
    t0 = time.perf_counter()
    with builder_lock(replays) as mine:
        if mine:
            result = _build(spec, db, replays, workers, core, "core demo" if core else "demo", plain)
    if not mine:
        _another_builder(replays, core, builder)
        if background:
            _start_background(plan, replays, db, workers)
        return
    if result.interrupted:
        err.print(f"[yellow]interrupted[/] after {result.steps_done} of {result.steps_total} batches; nothing of "
                  "the batch in flight was kept. Run the same command to go on.", highlight=False)
        raise typer.Exit(130)
    _report(result, db, "core demo" if core else "demo database")
    if builder:
        err.print(f"demo builder finished in {time.perf_counter() - t0:.0f} s", highlight=False)
    if background and result.steps_done < result.steps_total:
        _start_background(plan, replays, db, workers)
    raise typer.Exit(0 if result.ingest.ok else 1)


def _start_background(plan: str, replays: Path, db: Path | None, workers: int) -> None:
    pid = start_background(plan, replays, db, workers)
    st = demo_status(replays)
    if pid is None:
        out.print(f"already building in the background: {st.sentence() if st else ''}", highlight=False)
    else:
        out.print(f"building the rest of the demo in the background (process {pid}); `pmim demo --status` "
                  f"says how far it is, the log is {display_path(replays / 'builder.log')}", highlight=False)


def _help() -> str:
    """The help of ``pmim demo``, counted from the demo's plans (so it says what the demo builds)."""
    simulated, batches = count_planned_games()
    logs = len(list((data_dir() / "playtests").glob("*.pmimlog")))
    rules = list(dict.fromkeys([r for p in DEFAULT_PLANS for r in p.rules_ids] + [p.rules_id for p in DEFAULT_RANDOM]))
    core_games, core_batches = core_size()
    return (f"Build the demo database: {simulated + logs:,} games in all. The {logs} logged games in "
            f"data/playtests/ and {simulated:,} simulated ones in {batches} batches: a round-robin of the sample "
            f"armies under {', '.join(rules)}; the playtest lists translated to v3 (so v2 -> v3 has the same lists "
            "to compare); and random legal armies spending 56-72 points, paired at random, for the cost fit; "
            "and a scripted bot ladder.\n\n"
            f"--core builds a quick core first ({core_games:,} games in {core_batches} batches, the "
            "ladder included); --background builds the rest in a process of its own, batch by batch: each batch "
            "is stored whole or not at all, so a stopped build loses at most the batch in flight. "
            "Safe to run again: it goes on from the first batch the database does not hold. The status is in "
            "status.json in --replays, the background log in builder.log.\n\n"
            "Examples:\n\n"
            "  pmim demo --db data/pmim.duckdb\n\n"
            "  pmim demo --core --background    (what make run does: the core now, the rest in the background)\n\n"
            "  pmim demo --status")


demo.__doc__ = _help()
