"""Parquet batches: many games as columnar parts, written by simulations, read by ingest.

A batch is a folder of pairs ``events.<part>.parquet`` / ``games.<part>.parquet`` (part =
5 digits). ``events`` files have exactly the columns of
:data:`pmim_analytics.model.events.EVENT_COLUMNS`; ``games`` files have one row per game
(:data:`GAME_COLUMNS`) whose ``header_json`` is the complete header and the source of
truth. Each file is written under a temporary name and renamed; the events file first, so
a part is complete once its games file exists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pmim_analytics.errors import Location, ReplayError, display_path
from pmim_analytics.model.events import (
    COLUMN_TYPES,
    EVENT_COLUMN_NAMES,
    EVENT_COLUMNS,
    Event,
    event_from_row,
    event_to_row,
)
from pmim_analytics.replay.format import GameRecord, parse_header


def arrow_type(sql_type: str) -> pa.DataType:
    """The Arrow type of an SQL column type (:data:`pmim_analytics.model.events.COLUMN_TYPES`)."""
    return pa.type_for_alias(COLUMN_TYPES[sql_type].arrow)


EVENT_SCHEMA = pa.schema([(name, arrow_type(kind)) for name, kind in EVENT_COLUMNS])
GAME_COLUMNS: tuple[tuple[str, str], ...] = (
    ("game_id", "VARCHAR"), ("source", "VARCHAR"), ("rules", "VARCHAR"), ("scenario", "VARCHAR"),
    ("seed", "BIGINT"), ("game_index", "INTEGER"), ("batch", "VARCHAR"), ("played", "VARCHAR"),
    ("header_json", "VARCHAR"),
)
GAME_SCHEMA = pa.schema([(name, arrow_type(kind)) for name, kind in GAME_COLUMNS])
_PART = re.compile(r"^games\.(\d{5})\.parquet$")


def part_path(folder: str | Path, kind: str, part: int) -> Path:
    """``folder/events.00042.parquet`` or ``folder/games.00042.parquet``."""
    return Path(folder) / f"{kind}.{part:05d}.parquet"


def _write_atomic(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        pq.write_table(table, tmp)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def header_json(game: GameRecord) -> str:
    """The header as compact JSON text, exactly as a JSON Lines replay's first line."""
    return json.dumps(game.header.model_dump(mode="json"), separators=(",", ":"))


def write_part(folder: str | Path, part: int, games: Sequence[GameRecord]) -> Path:
    """Write one part of a batch (events, then games) and return the games file's path."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    total = sum(len(g.events) for g in games)
    columns: dict[str, list[Any]] = {name: [None] * total for name in EVENT_COLUMN_NAMES}
    i = 0
    for game in games:
        gid = game.header.game_id
        for ev in game.events:
            for name, value in event_to_row(gid, ev).items():
                columns[name][i] = value
            i += 1
    events = pa.Table.from_pydict(columns, schema=EVENT_SCHEMA)
    _write_atomic(events, part_path(out, "events", part))
    heads = [g.header for g in games]
    table = pa.Table.from_pydict({
        "game_id": [h.game_id for h in heads], "source": [h.source for h in heads],
        "rules": [h.rules for h in heads], "scenario": [h.scenario for h in heads],
        "seed": [h.seed for h in heads], "game_index": [h.game_index for h in heads],
        "batch": [h.batch for h in heads], "played": [h.played for h in heads],
        "header_json": [header_json(g) for g in games],
    }, schema=GAME_SCHEMA)
    games_path = part_path(out, "games", part)
    _write_atomic(table, games_path)
    return games_path


def list_parts(folder: str | Path) -> list[int]:
    """The complete parts of a batch folder (those whose games file exists), in order."""
    p = Path(folder)
    if not p.is_dir():
        raise ReplayError("not a batch folder (no such directory)", Location(display_path(p)))
    return sorted(int(m.group(1)) for f in p.iterdir() if (m := _PART.match(f.name)))


def read_part(folder: str | Path, part: int) -> list[GameRecord]:
    """Every game of one part, in the order written.

    Raises :class:`ReplayError` naming the file for an unreadable part or a bad header.
    """
    games_path, events_path = part_path(folder, "games", part), part_path(folder, "events", part)
    try:
        games = pq.read_table(games_path).to_pylist()
        rows = pq.read_table(events_path, columns=list(EVENT_COLUMN_NAMES)).to_pylist()
    except (OSError, pa.ArrowException) as e:
        raise ReplayError(f"cannot read the part: {e}", Location(display_path(games_path))) from None
    by_game: dict[str, list[Event]] = {}
    for n, row in enumerate(rows):
        try:
            by_game.setdefault(row["game_id"], []).append(event_from_row(row))
        except (KeyError, TypeError, ValueError) as e:
            raise ReplayError(f"row {n} is not a valid event ({e})", Location(display_path(events_path))) from None
    out = []
    for n, g in enumerate(games):
        where = Location(display_path(games_path), field=f"row {n} header_json")
        try:
            obj = json.loads(g["header_json"])
        except (TypeError, json.JSONDecodeError) as e:
            raise ReplayError(f"header_json is not JSON ({e})", where) from None
        header = parse_header(obj, where)
        out.append(GameRecord(header, tuple(by_game.get(header.game_id, ()))))
    return out


def read_batch(folder: str | Path) -> Iterator[GameRecord]:
    """Every game of every complete part of a batch folder."""
    for part in list_parts(folder):
        yield from read_part(folder, part)
