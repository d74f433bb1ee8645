"""Staging JSON Lines replays: DuckDB reads the events of many files at once; a game whose
lines do not come back exactly as the writer wrote them goes through the careful reader.

Fast path (every replay the engine writes): Python reads only the header line; DuckDB
reads the files (``read_blob``), splits lines, parses them into typed values, checks each
line re-serialises to the same bytes and computes the content id. Careful path (anything
else): :func:`read_game_lines` reads the file line by line like
:func:`pmim_analytics.replay.format.read_game` and names the first problem.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pmim_analytics.errors import Location, PmimError, ReplayError, display_path
from pmim_analytics.limits import MAX_LINE_BYTES, MAX_REPLAY_BYTES, LimitError, check_regular_file, loads_json
from pmim_analytics.model.events import Event
from pmim_analytics.replay.format import GameHeader, content_id_problem, game_id_of, iter_lines, parse_event
from pmim_analytics.store import event_sql
from pmim_analytics.store.headers import HeaderParser, SideInfo, header_canonical
from pmim_analytics.store.rejects import Rejection
from pmim_analytics.store.staging import StageBuffer, forget_games

_INT64 = 2**63


@dataclass(frozen=True)
class SlowGame:
    """A replay read line by line: header, sides, events and the line of each event."""

    header: GameHeader
    sides: dict[str, SideInfo]
    events: tuple[Event, ...]
    lines: list[int]
    game_id: str
    id_problem: ReplayError | None = None


def read_header_line(path: Path, name: str, parser: HeaderParser) -> tuple[GameHeader, dict[str, SideInfo], str] | None:
    """Parse line 1 of a replay for the fast path, or return None to send it the careful way."""
    try:
        with path.open("rb") as fh:
            raw = fh.readline(MAX_LINE_BYTES + 1)
        text = raw.decode("utf-8")
        if not text.strip():
            return None
        obj = loads_json(text, Location(name, 1), check_depth=True)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    except LimitError as e:
        raise ReplayError(e.message, e.where) from None
    head, sides = parser.parse(obj, Location(name, 1))
    return head, sides, header_canonical(obj)


def read_game_lines(path: Path, name: str, parser: HeaderParser) -> SlowGame:
    """Read a whole replay in Python, checking types and order; the careful path.

    Raises :class:`ReplayError` naming the line and field of the first problem. A
    ``game_id`` that does not match the content is returned as ``id_problem`` (with the
    computed id as ``game_id``) so that the rules checks can name a more telling problem
    first (a file cut short also changes the content).
    """
    header: GameHeader | None = None
    raw_header: dict[str, Any] = {}
    sides: dict[str, SideInfo] = {}
    events: list[Event] = []
    lines: list[int] = []
    for n, text in iter_lines(path):
        if not text.strip():
            continue
        try:
            obj = loads_json(text.rstrip("\r\n"), Location(name, n), check_depth=header is None)
        except LimitError as e:
            raise ReplayError(e.message, e.where) from None
        except json.JSONDecodeError as e:
            raise ReplayError(f"invalid JSON: {e.msg}", Location(name, n, e.colno)) from None
        where = Location(name, n)
        if header is None:
            header, sides = parser.parse(obj, where)
            raw_header = obj
            continue
        try:
            ev = parse_event(obj, where)
        except (TypeError, ValueError, AttributeError) as e:  # a shape the format's checks did not foresee
            raise ReplayError(f"malformed event ({e})", where) from None
        for key, value in ev.to_dict().items():
            if isinstance(value, int) and not -_INT64 < value < _INT64:
                raise ReplayError(f"{key} {value} is out of range", Location(name, n, field=key))
        if ev.seq != len(events) + 1:
            raise ReplayError(f"event seq {ev.seq} out of order (expected {len(events) + 1})",
                              Location(name, n, field="seq"))
        events.append(ev)
        lines.append(n)
    if header is None:
        raise ReplayError("the file is empty; a replay starts with a header line", Location(name))
    evs = tuple(events)
    problem = content_id_problem(header, evs, raw_header, name)
    if problem is None:
        return SlowGame(header, sides, evs, lines, header.game_id)
    return SlowGame(header, sides, evs, lines, game_id_of(header, evs), problem)


def stage_fast(con: duckdb.DuckDBPyConnection, files: list[tuple[int, str]]) -> list[int]:
    """Stage the events of fast-path files ``(g, path)`` whose headers are in ``st_games``.

    One pass reads, splits, parses and flattens every line into ``st_events`` together
    with whether it re-serialises exactly (``ok``) and its canonical JSON. A game passes
    when every line is ``ok`` and the content id matches its header's ``game_id``; the
    rows of games that do not pass are removed again. Returns the ``g`` of those games
    (for the careful path).
    """
    if not files:
        return []
    con.register("_fast_files", pa.table({"g": pa.array([g for g, _ in files], pa.int32()),
                                          "path": pa.array([p for _, p in files], pa.string())}))
    try:
        _insert_fast(con, files)
    except duckdb.InterruptException:
        raise
    except duckdb.Error:  # a file vanished or became unreadable since it was listed: read each in Python
        con.unregister("_fast_files")
        forget_games(con, [g for g, _ in files], events_only=True)
        return [g for g, _ in files]
    passed = con.execute("""
        SELECT p.g FROM (
            SELECT g, bool_and(ok) AS all_ok, string_agg(canon, '' ORDER BY line) AS body
            FROM st_events WHERE ok IS NOT NULL AND g IN (SELECT g FROM _fast_files) GROUP BY g) p
        JOIN st_games sg USING (g)
        WHERE p.all_ok AND substr(sha256(sg.head_canon || p.body), 1, 16) = sg.claimed_id
    """).fetchall()
    con.unregister("_fast_files")
    good = {g for (g,) in passed}
    failed = [g for g, _ in files if g not in good]
    forget_games(con, failed, events_only=True)
    con.register("_fast_good", pa.table({"g": pa.array(sorted(good), pa.int32())}))
    con.execute("UPDATE st_games SET game_id = claimed_id WHERE g IN (SELECT g FROM _fast_good)")
    con.unregister("_fast_good")
    return failed


def _insert_fast(con: duckdb.DuckDBPyConnection, files: list[tuple[int, str]]) -> None:
    con.execute(f"""
        INSERT INTO st_events BY NAME
        SELECT g, line, {event_sql.wide_columns_sql()},
               coalesce(raw = {event_sql.writer_form_sql()}, false) AS ok, {event_sql.canonical_sql()} AS canon
        FROM (SELECT g, line, raw, try(from_json(raw, '{event_sql.json_struct()}')) AS s
              FROM (SELECT g, generate_subscripts(ls, 1) AS line, unnest(ls) AS raw
                    FROM (SELECT f.g, string_split(try(decode(b.content)), chr(10)) AS ls
                          FROM read_blob(?) b JOIN _fast_files f ON b.filename = f.path))
              WHERE line > 1 AND raw <> '')
    """, [[p for _, p in files]])


def stage_files(con: duckdb.DuckDBPyConnection, files: list[Path], buf: StageBuffer, parser: HeaderParser,
                rejects: dict[int, Rejection], identity: dict[int, Rejection], g0: int) -> int:
    """Stage the replays ``files`` as games ``g0``, ``g0 + 1``...; return the next ``g``.

    Games refused while reading go to ``rejects``; a content id mismatch goes to
    ``identity`` (reported only if validation finds nothing more telling).
    """
    fast: list[tuple[int, str]] = []
    slow: list[int] = []
    paths: dict[int, Path] = {}
    g = g0
    for p in files:
        name = display_path(p)
        paths[g] = p
        try:
            check_regular_file(p, MAX_REPLAY_BYTES, "replay")
        except LimitError as e:
            rejects[g] = Rejection(name, None, None, "size" if "limit" in e.message else "io", e.message, None)
        except PmimError as e:
            rejects[g] = Rejection(name, None, None, "io", e.message, None)
        else:
            try:
                head = read_header_line(p, name, parser)
            except ReplayError as e:
                rejects[g] = Rejection.from_error(e, "header")
                head = None
            if head is not None:
                header, sides, canon = head
                buf.add_game(g, header, sides, file=name, events_file=name, path=str(p), kind="jsonl",
                             head_canon=canon)
                fast.append((g, str(p)))
            elif g not in rejects:
                slow.append(g)
        g += 1
    buf.flush(con)
    slow.extend(stage_fast(con, fast))
    if slow:
        forget_games(con, slow)
    for gg in sorted(slow):
        p = paths[gg]
        name = display_path(p)
        try:
            game = read_game_lines(p, name, parser)
        except ReplayError as e:
            rejects[gg] = Rejection.from_error(e, error_type(e))
            continue
        if game.id_problem is not None:
            identity[gg] = Rejection.from_error(game.id_problem, "identity")
        buf.add_game(gg, game.header, game.sides, file=name, events_file=name, path=str(p), kind="jsonl",
                     game_id=game.game_id)
        buf.add_events(gg, game.events, list(game.lines))
    return g


def error_type(e: ReplayError) -> str:
    """The reject-table kind of a careful-path error."""
    m = e.message
    if m.startswith("invalid JSON"):
        return "syntax"
    if m.startswith("not UTF-8"):
        return "encoding"
    if "does not match the replay's content" in m:
        return "identity"
    if "out of order" in m:
        return "sequence"
    if e.where and e.where.line == 1:
        return "header"
    return "type"
