"""``pmim log``: check manual playtest logs and show them as replays."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.errors import ReplayError, display_path
from pmim_analytics.limits import MAX_LOG_BYTES, MAX_REPLAY_BYTES, check_regular_file

if TYPE_CHECKING:
    from pmim_analytics.replay.format import GameRecord

#: The suffix of a manual log (``replay.manual.LOG_SUFFIX``, not imported for it).
LOG_SUFFIX = ".pmimlog"


def _size_checked(path: Path, limit: int = MAX_LOG_BYTES, what: str = "manual log") -> None:
    """Refuse a file too large or not regular (as the reader would, same sentence) before the
    reader, the rules and pydantic load: an oversized input costs only the start-up."""
    if path.exists() and not path.is_dir():
        check_regular_file(path, limit, what)

app = typer.Typer(help="Manual playtest logs (.pmimlog): check them, show them as replays.",
                  no_args_is_help=True)


def summarize(game: GameRecord) -> str:
    """One line about a game: rules, armies, result, VP and event counts."""
    from pmim_analytics.model.events import GameEnd

    h = game.header
    end = game.events[-1]
    assert isinstance(end, GameEnd)

    def side(s: str) -> str:
        rec = h.sides["blue" if s == "blue" else "red"]
        return rec.name + (f" ({rec.player})" if rec.player else "")

    how = {"vp": "on VP", "wipeout": "by wipeout", "round_limit": "at the round limit",
           "manual": "(result as logged)"}.get(end.reason, end.reason)
    result = f"{end.winner} wins {how}" if end.winner else f"draw {how}"
    rounds = f" after {end.rounds} round{'s' if end.rounds != 1 else ''}" if end.rounds else ""
    vp = f", VP {end.blue_vp}-{end.red_vp}" if end.blue_vp is not None else ", VP not logged"
    if "vp" in h.estimated:
        vp += " (estimated)"
    attacks = sum(e.type == "attack" for e in game.events)
    kills = sum(e.type == "unit_destroyed" for e in game.events)
    unknown = f"; {' and '.join(h.not_recorded)} not recorded" if h.not_recorded else ""
    return (f"{h.rules} {h.scenario}, blue {side('blue')} vs red {side('red')}: {result}{rounds}{vp}; "
            f"{len(game.events)} events ({attacks} attacks, {kills} units destroyed){unknown}")


@app.command("check")
@guarded
def check_cmd(files: list[Path] = typer.Argument(..., help="Manual log files (.pmimlog).")) -> None:
    """Validate manual logs against the notation and the rules, without ingesting.

    Prints every error as FILE:LINE:COLUMN: message, or a one-line summary of a good log.
    Exit 0 when all are valid, 1 when any has errors, 2 when a file cannot be read.

    Example: pmim log check data/playtests/*.pmimlog
    """
    worst = 0
    for path in files:
        name = display_path(path)
        try:
            _size_checked(path)
            from pmim_analytics.replay.manual import parse_log, read_log_text

            text = read_log_text(path)
        except ReplayError as e:
            err.print(f"[bold red]error:[/] {e.render()}", highlight=False, soft_wrap=True)
            worst = 2
            continue
        game, errors = parse_log(text, name, strict=False, base_dir=path.parent)
        if errors:
            worst = max(worst, 1)
            for problem in errors:
                w = problem.where
                pos = f"{w.line}:{w.column}" if w and w.column else f"{w.line if w else '?'}"
                out.print(f"{name}:{pos}: {problem.message}", highlight=False, soft_wrap=True, markup=False)
            out.print(f"[red]INVALID[/] {name}: {len(errors)} error{'s' if len(errors) > 1 else ''}",
                      highlight=False, soft_wrap=True)
        elif game is not None:
            out.print(f"[green]ok[/] {name}: ", end="", highlight=False, soft_wrap=True)
            out.print(summarize(game), highlight=False, soft_wrap=True, markup=False)
    raise typer.Exit(worst)


@app.command("show")
@guarded
def show_cmd(
    file: Path = typer.Argument(..., help="A manual log file (.pmimlog)."),
    notation: bool = typer.Option(False, "--notation", help="Print the log in canonical notation, not JSON Lines."),
) -> None:
    """Print a manual log as a JSON Lines replay (header line, then one event a line).

    The output is exactly what `pmim ingest` stores, and a valid replay file. Stops at
    the log's first error (exit 2); use `pmim log check` to see them all.

    Example: pmim log show data/playtests/playtest-2.pmimlog > replays/playtest-2.jsonl
    """
    _size_checked(file)
    from pmim_analytics.replay.format import format_game
    from pmim_analytics.replay.manual import format_log, read_log

    game = read_log(file)
    text = format_log(game) if notation else format_game(game)
    typer.echo(text, nl=False)


@app.command("write")
@guarded
def write_cmd(
    replay: Path = typer.Argument(..., help="A replay: JSON Lines file, manual log, or a Parquet batch folder."),
    with_violations: bool = typer.Option(False, "--with-violations", help="Print a replay that breaks the rules "
                                         "anyway, each violation as a comment line at the top of its log."),
) -> None:
    """Print any replay (engine or manual) in the manual-log notation, to read or annotate.

    Every game is checked first: an engine replay that `pmim replay verify` refuses is not
    printed (its first violation is said; --with-violations prints it with them as
    comments), and a printed log must read back (`pmim log show`) as the same game: the
    same events, names and players. Names holding a line break or a # are written quoted,
    so no name can start a line of its own. Every game of a batch folder is printed, one
    after another, separated by a line of dashes. Exit 0, or 2 when a replay cannot be
    read or is refused.

    Example: pmim log write replays/sample-v3-balanced-vs-tank-heavy.jsonl > game.pmimlog
    """
    if replay.suffix == LOG_SUFFIX:
        _size_checked(replay)
    else:
        _size_checked(replay, MAX_REPLAY_BYTES, "replay")
    from pmim_analytics.engine.verify import replay_gap, verify_game
    from pmim_analytics.replay.manual import format_log, read_log
    from pmim_analytics.replay.manual.roundtrip import round_trip_problem
    from pmim_analytics.replay.sources import iter_games

    if replay.suffix == LOG_SUFFIX:
        typer.echo(format_log(read_log(replay)), nl=False)
        return
    for n, loaded in enumerate(iter_games(replay)):
        record = loaded.record
        found = []
        if record.header.source == "engine" and replay_gap(record) is None:
            found = [" ".join(v.render(loaded.source).split()) for v in verify_game(record, loaded.lines)]
        if found and not with_violations:
            raise ReplayError(f"breaks the rules, so no log is written: {found[0]}; `pmim replay verify` lists "
                              "every violation, --with-violations prints the log with them as comments")
        if loaded.id_problem is not None and not found:  # the rules kept, the file edited: as ingest says
            raise loaded.id_problem
        problem = None if found else round_trip_problem(record)
        if problem is not None:
            raise ReplayError(f"{loaded.source}: the log would not read back as the same game ({problem}), so "
                              "none is written")
        if n:
            typer.echo("# " + "-" * 60)
        for v in found:
            typer.echo(f"# violation: {v}")
        typer.echo(format_log(record), nl=False)
