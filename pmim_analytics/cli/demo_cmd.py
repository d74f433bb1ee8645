"""``pmim demo``: build the demo database."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.demo import build_demo
from pmim_analytics.store.connection import resolve_db_path


@guarded
def demo(
    db: Path | None = typer.Option(None, "--db", help="Database file (default data/pmim.duckdb or $PMIM_DB)."),
    replays: Path = typer.Option(Path("replays/demo"), "--replays", help="Where the simulated batches go."),
    workers: int = typer.Option(2, "--workers", help="Worker processes for the simulations."),
) -> None:
    """Build the demo database: the two real playtests, the sample logs, a simulated
    round-robin of the sample armies under v2, v3 and every variant, the playtest lists
    translated to v3, and 1,200 games of random armies spending 56-72 points, so unit
    costs can be priced (about 3,400 games).

    Safe to run again: finished batches are kept and ingest skips games it already has.

    Example: pmim demo --db data/pmim.duckdb
    """
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err) as bar:
        task = bar.add_task("simulating", total=None)

        def step(name: str, n: int, total: int) -> None:
            bar.update(task, description=f"simulating {name}", completed=n - 1, total=total)

        result = build_demo(db, replays, workers=workers, progress=step)
        bar.update(task, description="simulated", completed=bar.tasks[0].total)
    out.print(f"demo database {resolve_db_path(db)}: {result.summary()}", highlight=False)
    for r in result.rejected[:5]:
        err.print(f"[yellow]rejected:[/] {r}", highlight=False)
    raise typer.Exit(0 if result.ok else 1)
