"""``pmim sweep``: a round-robin of compositions under rules versions, on the local pool or Ray."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.cli.output import Format, Listing, emit
from pmim_analytics.errors import display_path
from pmim_analytics.limits import MAX_WORKERS
from pmim_analytics.report.markdown import Col, field, text

if TYPE_CHECKING:  # the engine, the store and Polars load once the sweep file is read and checked
    from pmim_analytics.sweep import Sweep, SweepResult

SWEEPS_DIR = Path("replays") / "sweeps"


def _plan_listing(sweep: Sweep) -> Listing:
    import polars as pl

    frame = pl.DataFrame([{"pairing": p.id, "rules_id": p.rules_id, "a": p.key_a, "b": p.key_b, "bot_a": p.bot_a,
                           "bot_b": p.bot_b, "seed": p.seed, "games": p.games} for p in sweep.pairings],
                         schema={"pairing": pl.String, "rules_id": pl.String, "a": pl.String, "b": pl.String,
                                 "bot_a": pl.String, "bot_b": pl.String, "seed": pl.UInt64, "games": pl.Int64})
    return Listing("pairings", f"sweep {sweep.spec.name}: {len(sweep.pairings)} pairings, {sweep.games:,} games",
                   frame, [Col("pairing", text("pairing"), "left"), Col("seed", lambda r: str(r["seed"])),
                           Col("games", field("games"))])


def _result_table(sweep: Sweep, result: SweepResult) -> Table:
    from pmim_analytics.sim.batch import wilson_interval

    t = Table(title=f"sweep {sweep.spec.name}: {result.games:,} games "
                    f"({result.played:,} played now, {result.resumed:,} from earlier runs)")
    for col in ("rules", "A vs B", "games", "A wins (95%)", "B wins", "draws"):
        t.add_column(col)
    many_bots = len({(p.bot_a, p.bot_b) for p in sweep.pairings}) > 1
    for p in sweep.pairings:
        s = result.summaries[p.id]
        n = max(s.games, 1)
        lo, hi = wilson_interval(s.wins_a, s.games)
        label = f"{p.key_a} vs {p.key_b}" + (f" ({p.bot_a}/{p.bot_b})" if many_bots else "")
        t.add_row(p.rules_id, label, str(s.games), f"{s.wins_a / n:.0%} ({lo:.0%}-{hi:.0%})",
                  f"{s.wins_b / n:.0%}", f"{s.draws / n:.0%}")
    return t


@guarded
def sweep(
    file: Path = typer.Argument(..., help="Sweep file (YAML): rules ids, compositions, bots, games, seed."),
    backend: str = typer.Option("local", "--backend", help="local (process pool) or ray."),
    workers: int = typer.Option(min(os.cpu_count() or 1, MAX_WORKERS), "--workers", min=1, max=MAX_WORKERS,
                                help="Worker processes (or CPUs of a local Ray instance)."),
    address: str | None = typer.Option(None, "--address", help="Ray cluster: auto or ray://host:port."),
    out_dir: Path | None = typer.Option(None, "--out", help="Output folder (default replays/sweeps/<name>)."),
    db: Path | None = typer.Option(None, "--db", help="Database to load the games into "
                                   "(default: $PMIM_DB or data/pmim.duckdb)."),
    no_ingest: bool = typer.Option(False, "--no-ingest", help="Only write the Parquet parts."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the pairings and seeds; play nothing."),
    fmt: Format = typer.Option(Format.table, "--format", case_sensitive=False,
                               help="How --dry-run lists the pairings: table, csv, json or markdown."),
) -> None:
    """Play every pairing of a sweep file as a batch of Parquet parts; resume if interrupted.

    Pairings are every pair of compositions under every rules id (and bot pairing). Each
    pairing's seed comes from the sweep seed and the pairing, so the games are the same on
    any backend. Running the same command again skips every complete part. Then the parts
    the database does not hold yet are loaded into it (unless --no-ingest). Exit 2 for a
    bad sweep file or an output folder holding another sweep, 1 if the database rejected
    games, 130 when interrupted.

    Example: pmim sweep data/sweeps/demo.yaml --out replays/sweeps/demo
    """
    from pmim_analytics.sweep.spec import load_sweep

    plan = load_sweep(file)
    if dry_run:
        emit([_plan_listing(plan)], fmt)
        return
    from pmim_analytics.sim.backends import open_backend
    from pmim_analytics.sweep.run import run_sweep

    folder = out_dir if out_dir is not None else SWEEPS_DIR / plan.spec.name
    with open_backend(backend, workers, address) as runner, \
            Progress(TextColumn(f"sweep {plan.spec.name}"), BarColumn(), MofNCompleteColumn(),
                     TimeRemainingColumn(), console=err, transient=True, auto_refresh=False) as progress:
        task = progress.add_task("games", total=plan.games)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done)
            progress.refresh()

        try:
            result = run_sweep(plan, folder, runner, advance)
        except KeyboardInterrupt:
            progress.stop()
            err.print(f"[yellow]interrupted[/]: complete parts are kept in {display_path(folder)}; "
                      "run the same command again to resume", highlight=False)
            raise typer.Exit(130) from None
    out.print(_result_table(plan, result))
    err.print(f"{result.games:,} games in {display_path(folder)}", highlight=False)
    if not no_ingest:
        _ingest(plan, folder, db)


def _ingest(plan: Sweep, folder: Path, db: Path | None) -> None:
    from pmim_analytics.store.connection import resolve_db_path
    from pmim_analytics.sweep.ingest import ingest_sweep

    with Progress(TextColumn("[bold]ingest[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as bar:
        task = bar.add_task("parts", total=None)
        loaded = ingest_sweep(plan, folder, db,
                              progress=lambda done, total, r: bar.update(task, completed=done, total=total))
    if loaded.inputs == 0:
        out.print(f"ingest: {display_path(resolve_db_path(db))} already holds every game of the sweep",
                  highlight=False, soft_wrap=True)
        return
    for r in loaded.rejected:
        err.print(f"[bold red]rejected:[/] {r.render()}", highlight=False, soft_wrap=True)
    out.print(f"ingest: {loaded.summary()} into {display_path(resolve_db_path(db))}", highlight=False,
              soft_wrap=True)
    if loaded.interrupted:
        err.print("[yellow]interrupted[/]: run the same command again to load the rest", highlight=False)
        raise typer.Exit(130)
    if loaded.rejected:
        raise typer.Exit(1)
