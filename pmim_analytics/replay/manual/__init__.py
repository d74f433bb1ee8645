"""Manual logs: games played on a real table, typed in a line notation ("PGN for PMIM").

A log (``*.pmimlog``) is a few tags (rules, scenario, date, players, armies) and one line
per thing that happened: deployments, moves, attacks, destroyed units, VP at a round's
end, and the result. A summary log, written after the fact, has only the tags, the
units destroyed and the result. Both read into the same :class:`GameRecord` as an
engine replay (``source = "manual"``), so they ingest alike. The notation is described
with examples in ``docs/manual-logs.md``.

Reading is tokenizer -> visitor, as python-chess reads PGN: :func:`parse_log` collects
every error in lenient mode and raises the first in strict mode, through one
``handle_error`` hook (:class:`LogReader`). Each error is a :class:`ReplayError` naming
the file, line and column and quoting the token at fault.
"""

from __future__ import annotations

from pathlib import Path

from pmim_analytics.errors import Location, ReplayError, display_path
from pmim_analytics.limits import MAX_LINE_BYTES, MAX_LOG_BYTES, MAX_PASTE_BYTES, LimitError, check_regular_file
from pmim_analytics.model.events import Event, GameEnd
from pmim_analytics.model.record import format_version_for
from pmim_analytics.replay.format import GameHeader, GameRecord, compute_game_id
from pmim_analytics.replay.manual.builder import LogBuilder
from pmim_analytics.replay.manual.header import SIDE_PREFIX, SIDES, LogHeader, read_header
from pmim_analytics.replay.manual.notation import (
    AttackStmt,
    DeployStmt,
    HoldStmt,
    MoveStmt,
    Tag,
    VPStmt,
    iter_statements,
    parse_tag,
    strip_comment,
)
from pmim_analytics.replay.manual.writer import format_log

LOG_SUFFIX = ".pmimlog"

__all__ = ["LOG_SUFFIX", "MAX_PASTE_BYTES", "LogReader", "format_log", "parse_log", "read_log", "read_log_text"]


class LogReader:
    """Reads one log's text; ``handle_error`` raises (strict) or collects (lenient).

    Subclass and override :meth:`handle_error` to treat errors otherwise.
    """

    def __init__(self, source: str = "<log>", strict: bool = True, base_dir: Path | None = None) -> None:
        self.source = source
        self.strict = strict
        self.base_dir = base_dir
        self.errors: list[ReplayError] = []

    def handle_error(self, error: ReplayError) -> None:
        """Raise ``error`` in strict mode; otherwise remember it and go on."""
        if self.strict:
            raise error
        self.errors.append(error)

    def read(self, text: str) -> GameRecord | None:
        """The game in ``text``, or ``None`` when no game can be built (see :attr:`errors`)."""
        tags = [t for n, raw in enumerate(text.splitlines(), start=1)
                if (t := parse_tag(strip_comment(raw), n)) is not None]
        header = read_header(tags, self.source, self.base_dir, self.handle_error)
        statements = iter_statements(text, self.source, self.handle_error)
        if header is None:
            for _ in statements:  # still report every syntax error
                pass
            return None
        try:
            builder = LogBuilder(header, self.source, self.handle_error, record_header(header))
        except ReplayError as e:  # the engine cannot rebuild the game the tags describe
            self.handle_error(e)
            return None
        played = False  # a play log: deployments, moves, holds, attacks or VP lines, not only losses
        try:
            for stmt in statements:
                if isinstance(stmt, Tag) and stmt.name not in ("rounds", "result"):
                    continue
                played = played or isinstance(stmt, (DeployStmt, MoveStmt, HoldStmt, AttackStmt, VPStmt))
                builder.visit(stmt)
            events = builder.finish()
        finally:
            builder.judge.close()
        if events is None:
            return None
        end = events[-1]
        if "vp" in header.estimated and isinstance(end, GameEnd) and end.blue_vp is None and header.estimated_tag:
            tok = header.estimated_tag.value
            self.handle_error(ReplayError(f"{tok.text!r}: the log gives no final VP to mark as estimated",
                                          Location(self.source, tok.line, tok.column)))
        return build_record(header, events, played)


def build_record(header: LogHeader, events: list[Event], played: bool = True) -> GameRecord:
    """Assemble the replay header (game id from the content) and the events.

    What was not recorded is what the ``not recorded:`` tag says; without it, a summary
    log (``played`` false: no deployment, move, hold, attack or VP line) recorded neither combat
    nor every loss, and a play log recorded everything.
    """
    draft = record_header(header, played)
    game_id = compute_game_id(draft.model_dump(mode="json"), events)
    return GameRecord(draft.model_copy(update={"game_id": game_id}), tuple(events))


def record_header(header: LogHeader, played: bool = True) -> GameHeader:
    """The replay header of a log's tags, without its game id (:func:`build_record`)."""
    not_recorded = header.not_recorded
    if not_recorded is None:
        not_recorded = () if played else ("combat", "losses")
    sides = {}
    for side in SIDES:
        spec = header.sides[side]
        units = [{**u.as_dict(), "id": f"{SIDE_PREFIX[side]}:{u.id}"} for u in spec.roster.units]
        sides[side] = {"name": spec.name, "bot": None, "player": spec.player,
                       "army_hash": spec.roster.content_hash(), "points": spec.roster.points, "units": units}
    m = header.scenario.map
    optional = header.rules.optional.settings() or None  # as an engine replay's header records them
    return GameHeader.model_validate({
        "version": format_version_for(optional), "optional_rules": optional,
        "game_id": "", "source": "manual", "rules": header.rules.id, "scenario": header.scenario.id,
        "map": {"columns": m.columns, "rows": m.rows, "layout": m.layout}, "sides": sides,
        "played": header.played, "notes": header.notes, "not_recorded": not_recorded,
        "estimated": header.estimated,
    })


def parse_log(text: str, source: str = "<log>", strict: bool = True,
              base_dir: Path | None = None) -> tuple[GameRecord | None, list[ReplayError]]:
    """Parse a manual log's text.

    Army files are looked up relative to ``base_dir`` (default: the working directory),
    then in ``data/armies``. In strict mode the first problem raises :class:`ReplayError`;
    otherwise every problem is collected and returned with the game built from the
    lines that could be read (``None`` when none can be built: no rules, army or result).
    """
    if len(text) > MAX_LOG_BYTES or any(len(line) > MAX_LINE_BYTES for line in text.splitlines()):
        what = (f"{len(text) / 2**20:.1f} MB, over the {MAX_LOG_BYTES >> 20} MB limit for a manual log"
                if len(text) > MAX_LOG_BYTES else f"a line is over the {MAX_LINE_BYTES >> 20} MB line-length limit")
        err = LimitError(f"the log is refused: {what} (pmim_analytics.limits)", Location(source))
        if strict:
            raise err
        return None, [err]
    reader = LogReader(source, strict, base_dir)
    game = reader.read(text)
    return game, reader.errors


def read_log_text(path: str | Path) -> str:
    """The text of a log file; raises :class:`ReplayError` when it is missing or not UTF-8."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        check_regular_file(p, MAX_LOG_BYTES, "manual log")
    try:
        return p.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise ReplayError("file not found; check the path", Location(display_path(p))) from None
    except IsADirectoryError:
        raise ReplayError("is a folder, not a log file", Location(display_path(p))) from None
    except UnicodeDecodeError as e:
        line = p.read_bytes()[: e.start].count(b"\n") + 1
        raise ReplayError(f"not UTF-8 text (byte {e.start})", Location(display_path(p), line)) from None
    except OSError as e:
        raise ReplayError(f"cannot be read ({e.strerror})", Location(display_path(p))) from None


def read_log(path: str | Path, strict: bool = True) -> GameRecord:
    """Read a ``.pmimlog`` file into a :class:`GameRecord` (``source = "manual"``).

    Strict (the default, what ingest uses): raises :class:`ReplayError` at the first
    problem, naming file, line, column and token. Lenient: returns the game built from
    the lines that could be read, raising only when no game can be built.
    """
    p = Path(path)
    game, errors = parse_log(read_log_text(p), display_path(p), strict, base_dir=p.parent)
    if game is None:
        raise errors[0] if errors else ReplayError("no game could be read", Location(display_path(p)))
    return game
