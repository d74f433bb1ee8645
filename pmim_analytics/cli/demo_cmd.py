"""``pmim demo``: build the demo database."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.demo import DEFAULT_PLANS, DEFAULT_RANDOM, build_demo, count_planned_games
from pmim_analytics.limits import MAX_WORKERS
from pmim_analytics.rules import data_dir
from pmim_analytics.store.connection import resolve_db_path


@guarded
def demo(
    db: Path | None = typer.Option(None, "--db", help="Database file (default data/pmim.duckdb or $PMIM_DB)."),
    replays: Path = typer.Option(Path("replays/demo"), "--replays", help="Where the simulated batches go."),
    workers: int = typer.Option(2, "--workers", min=1, max=MAX_WORKERS, help="Worker processes for the simulations."),
) -> None:
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("batches"),
                  TimeElapsedColumn(), console=err) as bar:
        task = bar.add_task("simulating", total=None)

        def step(name: str, n: int, total: int) -> None:
            bar.update(task, description=f"simulating {name}", completed=n - 1, total=total)

        result = build_demo(db, replays, workers=workers, progress=step)
        bar.update(task, description="simulated", completed=bar.tasks[0].total)
    out.print(f"demo database {resolve_db_path(db)}: {result.summary()}", highlight=False)
    for r in result.rejected[:5]:
        err.print(f"[yellow]rejected:[/] {r}", highlight=False)
    raise typer.Exit(0 if result.ok else 1)


def _help() -> str:
    """The help of ``pmim demo``, counted from the demo's plans (so it says what the demo builds)."""
    simulated, batches = count_planned_games()
    logs = len(list((data_dir() / "playtests").glob("*.pmimlog")))
    rules = list(dict.fromkeys([r for p in DEFAULT_PLANS for r in p.rules_ids] + [p.rules_id for p in DEFAULT_RANDOM]))
    return (f"Build the demo database: {simulated + logs:,} games in all. The {logs} logged games in "
            f"data/playtests/ and {simulated:,} simulated ones in {batches} batches: a round-robin of the sample "
            f"armies under {', '.join(rules)}; the playtest lists translated to v3 (so v2 -> v3 has the same lists "
            "to compare); and random legal armies spending 56-72 points, paired at random, for the cost fit.\n\n"
            "Safe to run again: finished batches are kept and ingest skips games it already has. The progress "
            "bar counts batches.\n\n"
            "Example: pmim demo --db data/pmim.duckdb")


demo.__doc__ = _help()
