"""``pmim replay verify|show``: check engine replays against the rules, print them.

Apart from ``pmim play`` and ``pmim simulate`` so that checking a replay loads no bots, batch
runner, DuckDB or Polars: an unreadable or oversized file is refused after the reader alone
has loaded, and the engine loads only once a game has been read.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import typer

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.cli.output import Format, Listing, emit
from pmim_analytics.errors import Location, PmimError, ReplayError, display_path
from pmim_analytics.replay.show import describe_event, iter_play_by_play
from pmim_analytics.replay.sources import LoadedGame, iter_games, read_game_with_lines

replay_app = typer.Typer(help="Engine and manual replays: verify them against the rules, show them.",
                         no_args_is_help=True)


def _one_game(path: Path) -> list[LoadedGame]:
    return [read_game_with_lines(path)]


def _verify_items(path: Path) -> list[tuple[str, Callable[[], list[LoadedGame]]]]:
    """What to check at ``path``, one readable unit (a file or a Parquet part) each, so an
    unreadable one is reported and the others are still checked."""
    if not path.is_dir():
        return [(display_path(path), lambda: list(iter_games(path)))]
    from pmim_analytics.replay.parquet import list_parts, read_part  # Arrow: only for a folder

    parts = list_parts(path)
    files = sorted(f for f in path.glob("*.jsonl"))
    if not parts and not files:
        raise ReplayError("the folder holds no replays (*.jsonl) and no Parquet parts", Location(display_path(path)))

    def part_games(n: int) -> list[LoadedGame]:
        return [LoadedGame(f"{display_path(path)} game {rec.header.game_id}", rec, None) for rec in read_part(path, n)]

    items: list[tuple[str, Callable[[], list[LoadedGame]]]] = [
        (f"{display_path(path)} part {n:05d}", partial(part_games, n)) for n in parts]
    items += [(display_path(f), partial(_one_game, f)) for f in files]
    return items


@replay_app.command("verify")
@guarded
def verify_cmd(
    paths: list[Path] = typer.Argument(..., help="Replay files (.jsonl) or batch folders."),
) -> None:
    """Replay games through the rules and report every event that breaks them.

    Prints one line per violation with the file and line (a game played at a table is
    replayed with the leniencies its log needs, as `pmim log check` does), and a file that
    cannot be read (too large, not a regular file, broken) with why; every other file is
    still checked, and a summary line
    ends the run. Exit 0 when all are clean, 1 when any breaks a rule, 2 when a file
    cannot be read.

    Example: pmim replay verify replays/game.jsonl
    """
    games = bad = unreadable = 0
    for path in paths:
        try:
            items = _verify_items(path)
        except PmimError as e:
            err.print(f"[red]unreadable:[/] {e.render()}", highlight=False, soft_wrap=True)
            unreadable += 1
            continue
        for _, load in items:
            try:
                loaded_games = load()
            except PmimError as e:
                err.print(f"[red]unreadable:[/] {e.render()}", highlight=False, soft_wrap=True)
                unreadable += 1
                continue
            for loaded in loaded_games:
                games += 1
                from pmim_analytics.engine.verify import table_log_options, verify_game

                # a table game is replayed with the leniencies its log needs, as the log reader does
                found = verify_game(loaded.record, loaded.lines, **table_log_options(loaded.record))
                if found:
                    bad += 1
                    for v in found:
                        out.print(v.render(loaded.source), highlight=False, soft_wrap=True, markup=False)
                elif loaded.id_problem is not None:  # edited after it was written, rules kept: ingest refuses it too
                    bad += 1
                    out.print(loaded.id_problem.render(), highlight=False, soft_wrap=True, markup=False)
    err.print(f"{games} game(s) checked, {bad} with violations, {unreadable} file(s) unreadable", highlight=False)
    raise typer.Exit(2 if unreadable else 1 if bad else 0)


@replay_app.command("show")
@guarded
def show_cmd(
    path: Path = typer.Argument(..., help="A replay file (.jsonl)."),
    round_no: int | None = typer.Option(None, "--round", min=0, help="Only this round (0 = deployment)."),
    fmt: Format | None = typer.Option(None, "--format", case_sensitive=False,
                                      help="csv, json, markdown or table: one row per event (game_id, seq, round, "
                                           "type, text); default: the play-by-play as text."),
) -> None:
    """Print a readable play-by-play of a replay.

    Example: pmim replay show replays/game.jsonl --round 2
    """
    rows: list[dict[str, Any]] = []
    for loaded in iter_games(path):
        if fmt is None:
            for line in iter_play_by_play(loaded.record, round_no):
                out.print(line, highlight=False, soft_wrap=True, markup=False)
            continue
        rows += [{"game_id": loaded.record.header.game_id, "seq": ev.seq, "round": ev.round, "type": ev.type,
                  "text": describe_event(ev)} for ev in loaded.record.events
                 if round_no is None or ev.round == round_no]
    if fmt is not None:
        import polars as pl

        frame = pl.DataFrame(rows, schema={"game_id": pl.String, "seq": pl.Int64, "round": pl.Int64,
                                           "type": pl.String, "text": pl.String})
        emit([Listing("events", f"Events of {display_path(path)}", frame)], fmt)
