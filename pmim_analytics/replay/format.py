"""The JSON Lines replay format: one game per file, a header line then one event a line.

Line 1 is the header::

    {"format": "pmim-replay", "version": 1, "game_id": "...", "source": "engine",
     "rules": "v3", "scenario": "take-and-hold", "seed": 7, "game_index": 0,
     "map": {"columns": 20, "rows": 14, "layout": "odd-q"},
     "sides": {"blue": {"name": "...", "bot": "greedy", "player": null, "army_hash": "...",
                        "points": 72, "units": [{"id": "B:TW1", "type": "Timber Wolf", ...}]},
               "red": {...}},
     "played": "2026-11-30"}

Every further line is one event (:mod:`pmim_analytics.model.events`). The header and the
game record are :mod:`pmim_analytics.model.record`; this module reads and writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pmim_analytics.errors import Location, ReplayError, display_path
from pmim_analytics.limits import MAX_REPLAY_BYTES, check_regular_file, loads_json
from pmim_analytics.model.events import EVENT_FIELDS, EVENT_TYPES, Event, event_from_dict
from pmim_analytics.model.record import (
    FORMAT_NAME,
    FORMAT_VERSION,
    FORMAT_VERSIONS,
    GameHeader,
    GameRecord,
    MapRecord,
    SideRecord,
    UnitRecord,
    compute_game_id,
    game_id_of,
)
from pmim_analytics.rules.optional import OptionalRules


def format_game(game: GameRecord) -> str:
    """The whole replay as JSON Lines text (one trailing newline)."""
    lines = [json.dumps(game.header.model_dump(mode="json"), separators=(",", ":"))]
    lines.extend(json.dumps(ev.to_dict(), separators=(",", ":")) for ev in game.events)
    return "\n".join(lines) + "\n"


def write_game(game: GameRecord, path: str | Path) -> Path:
    """Write a replay file atomically (a temporary file renamed into place)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(format_game(game), encoding="utf-8")
    tmp.replace(p)
    return p


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) of a UTF-8 file, raising :class:`ReplayError` on bad bytes."""
    try:
        with path.open("rb") as fh:
            for n, raw in enumerate(fh, start=1):
                try:
                    yield n, raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise ReplayError(f"not UTF-8 text (byte {e.start})", Location(display_path(path), n)) from None
    except FileNotFoundError:
        raise ReplayError("file not found; check the path", Location(display_path(path))) from None


def parse_header(obj: Any, where: Location) -> GameHeader:
    """Validate a header object, raising a positioned :class:`ReplayError`."""
    if not isinstance(obj, dict):
        raise ReplayError("the first line must be the game header (a JSON object)", where)
    if obj.get("format") != FORMAT_NAME:
        raise ReplayError(f"format is {obj.get('format')!r}, expected {FORMAT_NAME!r}",
                          Location(where.file, where.line, field="format"))
    if obj.get("version") not in FORMAT_VERSIONS:
        raise ReplayError(f"replay version {obj.get('version')!r} is not supported (this tool reads "
                          f"{', '.join(map(str, FORMAT_VERSIONS))})", Location(where.file, where.line, field="version"))
    if obj.get("optional_rules") and obj.get("version") == 1:
        raise ReplayError("optional_rules needs replay version 2", Location(where.file, where.line, field="version"))
    if obj.get("readings") and obj.get("version") in (1, 2):
        raise ReplayError("readings need replay version 3", Location(where.file, where.line, field="version"))
    try:
        head = GameHeader.model_validate(obj)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ReplayError(first["msg"], Location(where.file, where.line, field=field)) from None
    if head.optional_rules:
        # the settings are held to a rules file's bounds before any game is replayed by them
        try:
            OptionalRules.model_validate(head.optional_rules)
        except ValidationError as e:
            first = e.errors()[0]
            field = ".".join(["optional_rules", *(str(p) for p in first["loc"])])
            raise ReplayError(f"{first['msg']} (got {str(first.get('input'))[:40]}); the limits are those of a "
                              "rules file (docs/limits.md)", Location(where.file, where.line, field=field)) from None
    return head


def parse_event(obj: Any, where: Location) -> Event:
    """Validate one event object (types included), raising a positioned :class:`ReplayError`."""
    if not isinstance(obj, dict):
        raise ReplayError("an event must be a JSON object", where)
    etype = obj.get("type")
    cls = EVENT_TYPES.get(etype) if isinstance(etype, str) else None
    if cls is None:
        raise ReplayError(f"unknown event type {etype!r}", Location(where.file, where.line, field="type"))
    try:
        ev = event_from_dict(obj)
    except KeyError as e:
        missing = str(e.args[0])
        raise ReplayError(f"missing field {missing!r}", Location(where.file, where.line, field=missing)) from None
    except TypeError as e:
        raise ReplayError(str(e), Location(where.file, where.line)) from None
    check_event_types(ev.to_dict(), where)
    return ev


_INT_FIELDS = {f.name for fs in EVENT_FIELDS.values() for f in fs if f.kind == "int"} | {"seq"}
#: (event type, field) pairs that may be null: what a manual log does not know (as declared).
_NULLABLE = {(t, f.name) for t, fs in EVENT_FIELDS.items() for f in fs if f.nullable}
_TEXT_FIELDS = {f.name for fs in EVENT_FIELDS.values() for f in fs if f.kind == "str"}
_HEX_FIELDS = {f.name for fs in EVENT_FIELDS.values() for f in fs if f.kind == "hex"}
_ID_LIST_FIELDS = {f.name for fs in EVENT_FIELDS.values() for f in fs if f.kind == "ids"}
_BOOL_FIELDS = {f.name for fs in EVENT_FIELDS.values() for f in fs if f.kind == "bool"}


def check_event_types(d: dict[str, Any], where: Location) -> None:
    """Check the field types of one event in its JSON form (every field present);
    raises a positioned :class:`ReplayError` for the first wrong one."""
    def bad(field: str, why: str) -> ReplayError:
        return ReplayError(why, Location(where.file, where.line, field=field))

    for key, value in d.items():
        if value is None and (d["type"], key) in _NULLABLE:
            continue
        if key in _INT_FIELDS and (not isinstance(value, int) or isinstance(value, bool)):
            raise bad(key, f"{key} must be a whole number, got {value!r}")
        if key == "round" and value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise bad(key, f"round must be a whole number, got {value!r}")
        if key in _TEXT_FIELDS and not isinstance(value, str):
            nullable = (d["type"], key) in _NULLABLE
            raise bad(key, f"{key} must be text{' or null' if nullable else ''}, got {value!r}")
        if key in _HEX_FIELDS and (
            not isinstance(value, tuple | list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise bad(key, f"{key} must be [column, row], got {value!r}")
        if key in _ID_LIST_FIELDS and (
            not isinstance(value, tuple | list) or not all(isinstance(v, str) for v in value)
        ):
            raise bad(key, f"{key} must be a list of unit ids, got {value!r}")
        if key in _BOOL_FIELDS and not isinstance(value, bool):
            raise bad(key, f"{key} must be true or false, got {value!r}")
    if d["type"] == "attack":
        roll = d["roll"]
        if roll is not None and (
            not isinstance(roll, tuple | list) or len(roll) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in roll)
        ):
            raise bad("roll", f"roll must be two d6 results (1-6 each), got {roll!r}")
        rolls = d["location_rolls"]
        if not isinstance(rolls, tuple | list) or not all(
            isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in rolls
        ):
            raise bad("location_rolls", f"location rolls must be d6 results 1-6, got {d['location_rolls']!r}")
        if d["damage"] < 0 or d["overkill"] < 0:
            raise bad("damage", "damage and overkill are never negative")
    elif d["type"] == "overheat_roll" and not 1 <= d["result"] <= 6:
        raise bad("result", f"the overheat roll is one d6 (1-6), got {d['result']!r}")
    elif d["type"] == "weapon_lost" and not all(isinstance(x, int) and 1 <= x <= 6 for x in d["location_rolls"]):
        raise bad("location_rolls", f"location rolls must be d6 results 1-6, got {d['location_rolls']!r}")
    elif d["type"] == "initiative_roll" and (d["blue_roll"] < 1 or d["red_roll"] < 1):
        raise bad("blue_roll", "initiative rolls are die results (1 or more)")


def content_id_problem(header: GameHeader, events: tuple[Event, ...], raw_header: dict[str, Any] | None = None,
                       file: str | None = None) -> ReplayError | None:
    """Why ``header.game_id`` is not the content id of the header and ``events`` (``None``
    when it is): the file was changed after it was written. ``raw_header`` (the header
    object as written) also counts, for a header whose defaults were written out or left
    out. The one check of ``pmim ingest``, ``pmim replay verify`` and ``pmim log write``."""
    gid = game_id_of(header, events)
    if header.game_id == gid or (raw_header is not None and header.game_id == compute_game_id(raw_header, events)):
        return None
    return ReplayError(f"game_id {header.game_id!r} does not match the replay's content (computed {gid!r}); "
                       "the file was changed after it was written", Location(file, 1, field="game_id"))


def read_game(path: str | Path) -> GameRecord:
    """Read one JSON Lines replay.

    Raises :class:`ReplayError` naming the file, line and field of the first problem
    (bad UTF-8, invalid JSON, a wrong or missing field, events out of order).
    """
    p = Path(path)
    name = display_path(p)
    if p.exists():
        check_regular_file(p, MAX_REPLAY_BYTES, "replay")
    header: GameHeader | None = None
    events: list[Event] = []
    for n, text in iter_lines(p):
        if not text.strip():
            continue
        try:
            obj = loads_json(text, Location(name, n), check_depth=header is None)
        except json.JSONDecodeError as e:
            raise ReplayError(f"invalid JSON: {e.msg}", Location(name, n, e.colno)) from None
        where = Location(name, n)
        if header is None:
            header = parse_header(obj, where)
            continue
        ev = parse_event(obj, where)
        if ev.seq != len(events) + 1:
            raise ReplayError(f"event seq {ev.seq} out of order (expected {len(events) + 1})",
                              Location(name, n, field="seq"))
        events.append(ev)
    if header is None:
        raise ReplayError("the file is empty; a replay starts with a header line", Location(name))
    return GameRecord(header, tuple(events))


__all__ = [
    "FORMAT_NAME", "FORMAT_VERSION", "FORMAT_VERSIONS", "GameHeader", "GameRecord", "MapRecord", "SideRecord",
    "UnitRecord",
    "compute_game_id", "content_id_problem", "format_game", "game_id_of", "iter_lines", "parse_event", "parse_header",
    "read_game",
    "write_game",
]
