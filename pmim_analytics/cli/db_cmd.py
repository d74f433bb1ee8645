"""``pmim ingest`` and ``pmim db``: load games into the database and look after it."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.cli.output import FORMAT_OPT, Format, Listing, emit
from pmim_analytics.limits import MAX_WORKERS
from pmim_analytics.report.markdown import Col, field, text
from pmim_analytics.store.check import check_db
from pmim_analytics.store.connection import open_writer, resolve_db_path
from pmim_analytics.store.info import db_info
from pmim_analytics.store.ingest import IngestResult, ingest_paths

app = typer.Typer(help="The replay database: what it holds, whether it is whole.", no_args_is_help=True)
DB_HELP = "Database file (default: $PMIM_DB or data/pmim.duckdb)."


def register(root: typer.Typer) -> None:
    """Add ``pmim ingest`` and the ``pmim db`` group to the root app."""
    root.command("ingest")(ingest_cmd)
    root.add_typer(app, name="db")


@guarded
def ingest_cmd(
    paths: list[str] = typer.Argument(..., help="Replay files (.jsonl), Parquet batch folders, manual logs "
                                                "(.pmimlog), folders or glob patterns."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first rejected game."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    trust_own: bool = typer.Option(False, "--trust-own", help="Skip the rules check for replays this "
                                   "installation's `pmim simulate` wrote and signed (unchanged since); "
                                   "every other game is still checked."),
    workers: int = typer.Option(min(os.cpu_count() or 1, MAX_WORKERS), "--workers", min=1, max=MAX_WORKERS,
                                help="Processes replaying games through the rules (the ingest's own included)."),
) -> None:
    """Load games into the database: idempotent, one transaction per batch, bad games rejected whole.

    Every game is replayed through the rules first (the check of `pmim replay verify`, on
    all cores); a game that breaks a rule is rejected with file, line, field and the rule.

    Prints every rejection (file, line, field, why) on stderr and a summary on stdout.
    Exit 0 when everything loaded or was already there, 1 when any game was rejected,
    2 for a path that does not exist, 130 when interrupted (run it again to finish).

    Example: pmim ingest replays/ data/playtests/*.pmimlog --db data/pmim.duckdb
    """
    columns = (TextColumn("[bold]ingest[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
               TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True, disable=quiet) as bar:
        task = bar.add_task("", total=None)

        def progress(done: int, total: int, r: IngestResult) -> None:
            bar.update(task, completed=done, total=total,
                       description=f"{r.loaded} games, {r.events:,} events, {len(r.rejected)} rejected")

        targets: list[str | Path] = list(paths)
        result = ingest_paths(targets, db, strict=strict, progress=progress, workers=workers, trust_own=trust_own,
                              on_wait=lambda msg: err.print(f"[yellow]waiting:[/] {msg}", highlight=False))
    for note in result.notes:
        err.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    for r in result.rejected:
        err.print(f"[bold red]rejected:[/] {r.render()}", highlight=False, soft_wrap=True)
        if r.raw:
            err.print(f"    {r.raw}", highlight=False, soft_wrap=True, markup=False)
    out.print(result.summary() + f" into {resolve_db_path(db)}", highlight=False, soft_wrap=True)
    if result.interrupted:
        err.print("[yellow]interrupted:[/] the batch in flight was rolled back; run the same command again "
                  "to finish (games already loaded are skipped)")
        raise typer.Exit(130)
    if result.rejected and strict:
        err.print("[red]stopped at the first rejection (--strict)[/]")
    raise typer.Exit(0 if result.ok else 1)


@app.command("info")
@guarded
def info_cmd(db: Path | None = typer.Option(None, "--db", help=DB_HELP), fmt: Format = FORMAT_OPT) -> None:
    """Show the schema version, file size and games per source and rules version.

    csv holds the games per source and rules version; json also the database's facts.

    Example: pmim db info --db data/pmim.duckdb
    """
    import polars as pl  # loaded here, not for every ingest

    info = db_info(db)
    counts = pl.DataFrame(info.by_source_rules, schema={"source": pl.String, "rules_id": pl.String,
                                                        "games": pl.Int64, "events": pl.Int64}, orient="row")
    games = Listing("games", "games per source and rules version", counts,
                    [Col("source", text("source"), "left"), Col("rules", text("rules_id"), "left"),
                     Col("games", field("games")), Col("events", field("events"))])
    facts = pl.DataFrame([{"path": str(info.path), "schema_version": info.schema_version,
                           "latest_version": info.latest_version, "size_bytes": info.size_bytes,
                           "games": info.games, "events": info.events,
                           "last_ingest": None if info.last_ingest is None else str(info.last_ingest),
                           "rejects": info.rejects}],
                         schema={"path": pl.String, "schema_version": pl.Int64, "latest_version": pl.Int64,
                                 "size_bytes": pl.Int64, "games": pl.Int64, "events": pl.Int64,
                                 "last_ingest": pl.String, "rejects": pl.Int64})
    if fmt is not Format.table:
        emit([games, Listing("database", "database", facts)] if fmt is Format.csv
             else [Listing("database", "database", facts), games], fmt)
        return
    version = f"{info.schema_version}" + ("" if info.schema_version == info.latest_version
                                          else f" (this tool expects {info.latest_version}: run pmim db migrate)")
    out.print(f"database       {info.path}", highlight=False, markup=False)
    out.print(f"schema version {version}", highlight=False)
    out.print(f"file size      {info.size_bytes / 2**20:.1f} MB", highlight=False)
    out.print(f"games          {info.games:,} ({info.events:,} events)", highlight=False)
    out.print(f"last ingest    {info.last_ingest or '-'}", highlight=False)
    out.print(f"rejections     {info.rejects:,} recorded (table ingest_rejects)", highlight=False)
    out.print(f"rules checked  {info.rules_checked:,} of {info.games:,} games replayed through the rules "
              "before they were stored (table game_checks)", highlight=False)
    if info.by_source_rules:
        emit([games], fmt)


@app.command("check")
@guarded
def check_cmd(db: Path | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Check the database is whole: events, units and sides belong to games; counts, results and
    per-unit aggregates agree with the events. Exit 0 when whole, 1 with findings.

    Example: pmim db check
    """
    report = check_db(db)
    if report.ok:
        out.print(f"ok: {report.games:,} games and {report.events:,} events check out", highlight=False)
        return
    for f in report.findings:
        out.print(f"[red]FAIL[/] {f.check}: {f.count:,} (e.g. {f.example})", highlight=False)
    raise typer.Exit(1)


@app.command("migrate")
@guarded
def migrate_cmd(db: Path | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Create the database or bring its schema up to date, and reload the rules tables.

    Example: pmim db migrate --db data/pmim.duckdb
    """
    with open_writer(db):
        pass
    info = db_info(db)
    out.print(f"{info.path}: schema version {info.schema_version}", highlight=False)


@app.command("compact")
@guarded
def compact_cmd(
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
    checkpoint_only: bool = typer.Option(False, "--checkpoint-only", help="Only CHECKPOINT; no rewrite."),
) -> None:
    """Shrink the database file: checkpoint, then rewrite it densely (COPY FROM DATABASE) in place.

    Needs free disk space for the copy and waits for readers to let go, like an ingest.

    Example: pmim db compact --db data/pmim.duckdb
    """
    from pmim_analytics.store.compact import compact_db

    result = compact_db(db, rewrite=not checkpoint_only,
                        on_wait=lambda msg: err.print(f"[yellow]waiting:[/] {msg}", highlight=False))
    out.print(result.summary(), highlight=False)
