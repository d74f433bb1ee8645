"""Write games in the Parquet batch format (the engine's batch runner writes the same).

A batch is a folder of pairs ``events.<part>.parquet`` + ``games.<part>.parquet``
(part = 5 digits). ``events`` has the columns of ``EVENT_COLUMNS``; ``games`` one row a
game with ``header_json`` as the source of truth for sides and units. The events file
of a part is written first: a part is complete when its games file exists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pmim_analytics.replay.events import EVENT_COLUMNS, event_to_row
from pmim_analytics.replay.format import GameRecord

_ARROW = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "SMALLINT": pa.int16(), "TINYINT": pa.int8(),
          "BOOLEAN": pa.bool_(), "BIGINT": pa.int64()}
EVENTS_SCHEMA = pa.schema([(name, _ARROW[t]) for name, t in EVENT_COLUMNS])
GAMES_SCHEMA = pa.schema([("game_id", pa.string()), ("source", pa.string()), ("rules", pa.string()),
                          ("scenario", pa.string()), ("seed", pa.int64()), ("game_index", pa.int32()),
                          ("batch", pa.string()), ("played", pa.string()), ("header_json", pa.string())])


def games_table(games: list[GameRecord]) -> pa.Table:
    """The ``games`` rows of a part."""
    rows = []
    for g in games:
        h = g.header
        rows.append({"game_id": h.game_id, "source": h.source, "rules": h.rules, "scenario": h.scenario,
                     "seed": h.seed, "game_index": h.game_index, "batch": h.batch, "played": h.played,
                     "header_json": json.dumps(h.model_dump(mode="json"), separators=(",", ":"))})
    return pa.Table.from_pylist(rows, schema=GAMES_SCHEMA)


def events_table(games: list[GameRecord]) -> pa.Table:
    """The ``events`` rows of a part (every game's events in order)."""
    rows = [event_to_row(g.header.game_id, ev) for g in games for ev in g.events]
    return pa.Table.from_pylist(rows, schema=EVENTS_SCHEMA)


def write_part(folder: Path, part: int, games: list[GameRecord]) -> tuple[Path, Path]:
    """Write one part: events first, then games (which marks the part complete)."""
    folder.mkdir(parents=True, exist_ok=True)
    ev_path, g_path = folder / f"events.{part:05d}.parquet", folder / f"games.{part:05d}.parquet"
    pq.write_table(events_table(games), ev_path)
    pq.write_table(games_table(games), g_path)
    return ev_path, g_path


def write_parquet_parts(folder: Path, games: Iterable[GameRecord], part_size: int = 500) -> list[int]:
    """Write games into parts of ``part_size`` games; return the part numbers."""
    parts: list[int] = []
    chunk: list[GameRecord] = []
    for g in games:
        chunk.append(g)
        if len(chunk) == part_size:
            write_part(folder, len(parts), chunk)
            parts.append(len(parts))
            chunk = []
    if chunk:
        write_part(folder, len(parts), chunk)
        parts.append(len(parts))
    return parts
