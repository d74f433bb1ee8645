"""Parquet batches for the store tests, written by the engine's own batch writer
(:mod:`pmim_analytics.replay.parquet`), plus the raw tables for crafting broken parts."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa

from pmim_analytics.model.events import event_to_row
from pmim_analytics.replay.format import GameRecord
from pmim_analytics.replay.parquet import EVENT_SCHEMA, GAME_SCHEMA, header_json, write_part


def games_table(games: list[GameRecord]) -> pa.Table:
    """The ``games`` rows of a part, as the writer makes them."""
    rows = [{"game_id": g.header.game_id, "source": g.header.source, "rules": g.header.rules,
             "scenario": g.header.scenario, "seed": g.header.seed, "game_index": g.header.game_index,
             "batch": g.header.batch, "played": g.header.played, "header_json": header_json(g)} for g in games]
    return pa.Table.from_pylist(rows, schema=GAME_SCHEMA)


def events_table(games: list[GameRecord]) -> pa.Table:
    """The ``events`` rows of a part (every game's events in order)."""
    return pa.Table.from_pylist([event_to_row(g.header.game_id, ev) for g in games for ev in g.events],
                                schema=EVENT_SCHEMA)


def write_parquet_parts(folder: Path, games: Iterable[GameRecord], part_size: int = 500) -> list[int]:
    """Write games into parts of ``part_size`` games with the batch writer; return the part numbers."""
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
