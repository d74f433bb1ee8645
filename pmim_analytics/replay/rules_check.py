"""The rules check of whole files, as ``pmim ingest`` runs it in worker processes.

:func:`check_replay_file` reads one JSON Lines replay and :func:`check_parquet_part` one
part of a Parquet batch, and replay every game through the rules
(:func:`~pmim_analytics.engine.verify.verify_game`, the same judge as ``pmim replay
verify``). They never raise: whatever goes wrong is part of the answer, so one bad file
cannot stop a pool. Both are plain module-level functions of picklable arguments and
results, for :class:`concurrent.futures.ProcessPoolExecutor`.

A JSON Lines result carries the content id computed from what was checked, so the ingest
stores a game only when the bytes it staged and the bytes it checked are the same game.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from pmim_analytics.engine.verify import Violation, verify_game
from pmim_analytics.errors import Location, PmimError, display_path
from pmim_analytics.limits import MAX_REPLAY_BYTES, loads_json, read_bytes_limited
from pmim_analytics.model.events import EVENT_COLUMN_NAMES, Event, event_from_dict
from pmim_analytics.replay.format import GameRecord, check_event_types, game_id_of, parse_header

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class GameCheck:
    """The verdict on one game: its content id (JSON Lines) or ``game_id`` (Parquet), the
    rules it breaks, or why it could not be checked (``error``, with line and field)."""

    file: str
    game_id: str | None
    violations: tuple[Violation, ...] = ()
    error: str | None = None
    line: int | None = None
    field: str | None = None
    events: int = 0
    header_file: str | None = None  # where header-level findings sit (a Parquet part's games file)

    @property
    def ok(self) -> bool:
        """True when the game was read and breaks no rule."""
        return self.error is None and not self.violations


@dataclass
class _Parsed:
    record: GameRecord
    lines: list[int] = field(default_factory=list)
    game_id: str = ""


def _raw_id(header_obj: dict[str, Any], event_objs: list[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    h.update(_CANONICAL.encode({k: v for k, v in header_obj.items() if k not in ("game_id", "played")}).encode())
    for obj in event_objs:
        h.update(_CANONICAL.encode(obj).encode())
    return h.hexdigest()[:16]


def _parse_replay(data: bytes, name: str) -> _Parsed:
    """A replay's header and events, each line checked for types; raises :class:`PmimError`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PmimError(f"not UTF-8 text (byte {e.start})", Location(name)) from None
    header_obj: dict[str, Any] | None = None
    objs: list[dict[str, Any]] = []
    events: list[Event] = []
    lines: list[int] = []
    header = None
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = Location(name, n)
        try:
            obj = loads_json(line, where, check_depth=header is None)
        except json.JSONDecodeError as e:
            raise PmimError(f"invalid JSON: {e.msg}", Location(name, n, e.colno)) from None
        if header is None:
            header = parse_header(obj, where)
            header_obj = obj
            lines.append(n)
            continue
        if not isinstance(obj, dict):
            raise PmimError("an event must be a JSON object", where)
        try:
            ev = event_from_dict(obj)
        except KeyError as e:
            raise PmimError(f"missing field or unknown type {e.args[0]!r}", Location(name, n, field="type")) from None
        except (TypeError, ValueError) as e:
            raise PmimError(f"malformed event ({e})", where) from None
        check_event_types(obj, where)
        if ev.seq != len(events) + 1:
            raise PmimError(f"event seq {ev.seq} out of order (expected {len(events) + 1})",
                            Location(name, n, field="seq"))
        objs.append(obj)
        events.append(ev)
        lines.append(n)
    if header is None or header_obj is None:
        raise PmimError("the file is empty; a replay starts with a header line", Location(name))
    evs = tuple(events)
    gid = _raw_id(header_obj, objs)
    if gid != header.game_id:
        full = game_id_of(header, evs)
        gid = full if full == header.game_id else gid
    return _Parsed(GameRecord(header, evs), lines, gid)


def check_replay_file(path: str) -> GameCheck:
    """Read a JSON Lines replay and replay it through the rules; never raises."""
    name = display_path(path)
    try:
        data = read_bytes_limited(path, MAX_REPLAY_BYTES, "replay")
        parsed = _parse_replay(data, name)
        found = verify_game(parsed.record, parsed.lines)
    except PmimError as e:
        w = e.where
        return GameCheck(name, None, error=e.message, line=w.line if w else None, field=w.field if w else None)
    except Exception as e:  # noqa: BLE001 -- a shape no check foresaw must reject the game, not the batch
        return GameCheck(name, None, error=f"could not be replayed through the rules ({type(e).__name__}: {e})")
    return GameCheck(name, parsed.game_id, tuple(found), events=len(parsed.record.events))


def check_parquet_part(games_path: str, events_path: str) -> list[GameCheck]:
    """Replay every game of one Parquet part through the rules; never raises.

    Violations carry the events file's row (1-based) as their line. A part that cannot
    be read gives one result with ``game_id`` None and the error.
    """
    import pyarrow.parquet as pq

    from pmim_analytics.replay.parquet import event_from_row

    gname, ename = display_path(games_path), display_path(events_path)
    try:
        games = pq.read_table(games_path, columns=["game_id", "header_json"]).to_pylist()
        rows = pq.read_table(events_path, columns=list(EVENT_COLUMN_NAMES)).to_pylist()
    except Exception as e:  # noqa: BLE001 -- the ingest refuses the part; here we only report
        return [GameCheck(ename, None, error=f"cannot be read ({str(e).splitlines()[0]})")]
    by_game: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for n, row in enumerate(rows, start=1):
        by_game.setdefault(row["game_id"], []).append((n, row))
    out = []
    seen: set[str] = set()
    for n, g in enumerate(games, start=1):
        gid = g["game_id"]
        if gid in seen:
            continue
        seen.add(gid)
        try:
            where = Location(gname, n, field="header_json")
            header = parse_header(loads_json(g["header_json"] or "", where, check_depth=True), where)
            evrows = by_game.get(gid, [])
            events = tuple(event_from_row(r) for _, r in evrows)
            found = verify_game(GameRecord(header, events), [n] + [line for line, _ in evrows])
        except PmimError as e:
            w = e.where
            out.append(GameCheck(gname, gid, error=e.message, line=w.line if w else n, field=w.field if w else None))
            continue
        except Exception as e:  # noqa: BLE001
            out.append(GameCheck(ename, gid, error=f"could not be replayed through the rules "
                                                    f"({type(e).__name__}: {e})"))
            continue
        out.append(GameCheck(ename, gid, tuple(found), events=len(events), header_file=gname))
    return out


def _hex(a: Any, b: Any) -> tuple[int, int]:
    return (a, b)


def _event_builders() -> dict[str, Any]:
    from pmim_analytics.model import events as E

    def rolls(text: str | None) -> tuple[int, ...]:
        return tuple(int(x) for x in text.split(",") if x) if text else ()

    return {
        "attack": lambda c, i: E.Attack(c["seq"][i], c["round"][i], c["unit"][i], c["weapon"][i], c["mount"][i],
                                        c["target"][i], c["distance"][i], (c["die1"][i], c["die2"][i]), c["acc"][i],
                                        c["needed"][i], c["hit"][i], c["location"][i],
                                        rolls(c["location_rolls"][i]), c["damage"][i], c["overkill"][i]),
        "move": lambda c, i: E.Move(c["seq"][i], c["round"][i], c["unit"][i], (c["from_col"][i], c["from_row"][i]),
                                    (c["to_col"][i], c["to_row"][i]), c["path"][i]),
        "activate": lambda c, i: E.Activate(c["seq"][i], c["round"][i], c["unit"][i]),
        "deploy": lambda c, i: E.Deploy(c["seq"][i], c["round"][i], c["unit"][i], (c["to_col"][i], c["to_row"][i])),
        "round_start": lambda c, i: E.RoundStart(c["seq"][i], c["round"][i], c["side"][i]),
        "location_destroyed": lambda c, i: E.LocationDestroyed(c["seq"][i], c["round"][i], c["unit"][i],
                                                               c["location"][i], c["by"][i]),
        "immobilized": lambda c, i: E.Immobilized(c["seq"][i], c["round"][i], c["unit"][i], c["by"][i]),
        "disarmed": lambda c, i: E.Disarmed(c["seq"][i], c["round"][i], c["unit"][i], c["by"][i]),
        "unit_destroyed": lambda c, i: E.UnitDestroyed(c["seq"][i], c["round"][i], c["unit"][i], c["by"][i]),
        "vp": lambda c, i: E.VP(c["seq"][i], c["round"][i], c["objective"][i], c["side"][i],
                                tuple((c["blue_holders"][i] or "").split()),
                                tuple((c["red_holders"][i] or "").split())),
        "round_end": lambda c, i: E.RoundEnd(c["seq"][i], c["round"][i], c["blue_vp"][i], c["red_vp"][i]),
        "game_end": lambda c, i: E.GameEnd(c["seq"][i], c["round"][i], c["side"][i], c["reason"][i],
                                           c["rounds"][i], c["blue_vp"][i], c["red_vp"][i]),
    }


_BUILDERS: dict[str, Any] = {}


@dataclass(frozen=True)
class StagedVerdict:
    """The rules check of one staged game ``g``: what it breaks, or why it could not be replayed."""

    g: int
    violations: tuple[Violation, ...]
    error: str | None = None


def check_staged(ipc: bytes, headers: list[tuple[int, Any, int | None]]) -> list[StagedVerdict]:
    """Replay staged games through the rules; never raises.

    ``ipc`` is an Arrow IPC stream of staged event rows (``g``, ``line`` and the wide event
    columns) sorted by ``g`` then ``line``; ``headers`` the ``(g, GameHeader, header
    line)`` of each game in it. The events checked are exactly the rows to be stored.
    """
    import pyarrow as pa

    if not _BUILDERS:
        _BUILDERS.update(_event_builders())
    table = pa.ipc.open_stream(ipc).read_all()
    cols = table.to_pydict()
    gs, lines, types = cols["g"], cols["line"], cols["type"]
    n = len(gs)
    out: list[StagedVerdict] = []
    i = 0
    for g, header, head_line in headers:
        start = i
        while i < n and gs[i] == g:
            i += 1
        try:
            events = tuple(_BUILDERS[types[k]](cols, k) for k in range(start, i))
            found = verify_game(GameRecord(header, events), [head_line, *lines[start:i]])
        except Exception as e:  # noqa: BLE001 -- a shape no check foresaw rejects the game, not the batch
            out.append(StagedVerdict(g, (), f"could not be replayed through the rules ({type(e).__name__}: {e})"))
            continue
        out.append(StagedVerdict(g, tuple(found)))
    return out
