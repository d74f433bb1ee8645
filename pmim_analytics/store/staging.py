"""Staging: every input format lands in the same temporary tables before validation.

A batch of games is numbered ``g`` = 0, 1, ... in input order. ``st_games`` holds one row a
game (where it came from, its header fields), ``st_sides`` its two sides, ``st_side_units``
each distinct side's roster (shared by the games that field the same army), and
``st_events`` the events in the wide row shape with ``line`` = where each sits in its
file. Numbers are staged as BIGINT and only narrowed once validation has checked ranges.
Temporary tables live in memory and vanish with the connection: a killed ingest leaves
nothing of them behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa

from pmim_analytics.model.events import COLUMN_TYPES, EVENT_COLUMNS, Event, event_to_row
from pmim_analytics.replay.format import GameHeader
from pmim_analytics.replay.parquet import arrow_type
from pmim_analytics.store.headers import SideInfo

#: The wide columns as staged: every number is BIGINT until validation has checked its range.
EVENT_STAGE_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (name, COLUMN_TYPES[t].staged) for name, t in EVENT_COLUMNS if name != "game_id"
)

GAME_COLUMNS = (("g", "INTEGER"), ("file", "VARCHAR"), ("events_file", "VARCHAR"), ("head_line", "INTEGER"),
                ("claimed_id", "VARCHAR"), ("game_id", "VARCHAR"), ("source", "VARCHAR"), ("rules_id", "VARCHAR"),
                ("scenario", "VARCHAR"), ("seed", "BIGINT"), ("game_index", "BIGINT"), ("batch", "VARCHAR"),
                ("played", "VARCHAR"), ("head_canon", "VARCHAR"), ("path", "VARCHAR"), ("kind", "VARCHAR"),
                ("not_recorded", "VARCHAR"), ("estimated", "VARCHAR"), ("readings", "VARCHAR"))
SIDE_COLUMNS = (("g", "INTEGER"), ("side", "VARCHAR"), ("sid", "INTEGER"), ("name", "VARCHAR"), ("bot", "VARCHAR"),
                ("player", "VARCHAR"), ("army_hash", "VARCHAR"), ("points", "BIGINT"))
UNIT_COLUMNS = (("sid", "INTEGER"), ("pos", "INTEGER"), ("unit_id", "VARCHAR"), ("code", "VARCHAR"),
                ("type", "VARCHAR"), ("kind", "VARCHAR"), ("weapons", "VARCHAR[]"), ("mounts", "VARCHAR[]"),
                ("arms", "VARCHAR[]"), ("pts", "BIGINT"))


def readings_text(readings: dict[str, Any] | None) -> str | None:
    """The readings in doubt a header records as the games table keeps them: ``name=value``
    sorted by name, comma-separated (``hit=beat, vp_to_win=10``); ``None`` for none (as written)."""
    if not readings:
        return None
    return ", ".join(f"{k}={readings[k]}" for k in sorted(readings))


def _ddl(name: str, cols: tuple[tuple[str, str], ...]) -> str:
    return f"CREATE OR REPLACE TEMP TABLE {name} (" + ", ".join(f'"{c}" {t}' for c, t in cols) + ")"


#: Staged events: ``ok``/``canon`` are only set by the JSON Lines fast path.
STAGE_EVENT_TABLE = (("g", "INTEGER"), ("line", "INTEGER"), *EVENT_STAGE_COLUMNS, ("ok", "BOOLEAN"),
                     ("canon", "VARCHAR"))
_TEMP_OBJECTS = ("st_games", "st_sides", "st_side_units", "st_events", "st_units", "st_pq_map", "st_good",
                 "st_new_games", "st_new_units", "st_new_events", "st_new_sides", "st_new_stats")


def create_staging(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the empty staging tables."""
    drop_staging(con)
    con.execute(_ddl("st_games", GAME_COLUMNS))
    con.execute(_ddl("st_sides", SIDE_COLUMNS))
    con.execute(_ddl("st_side_units", UNIT_COLUMNS))
    con.execute(_ddl("st_events", STAGE_EVENT_TABLE))


def materialize_units(con: duckdb.DuckDBPyConnection) -> None:
    """``st_units``: one row per unit per staged game (rosters joined to their games)."""
    con.execute("CREATE OR REPLACE TEMP TABLE st_units AS SELECT s.g, s.side, u.* "
                "FROM st_sides s JOIN st_side_units u USING (sid)")


def drop_staging(con: duckdb.DuckDBPyConnection) -> None:
    """Drop every staging table and view (freeing their memory)."""
    rows = con.execute("SELECT table_name, table_type FROM information_schema.tables "
                       "WHERE table_schema = 'main' AND table_catalog = 'temp'").fetchall()
    kinds = dict(rows)
    for name in _TEMP_OBJECTS:
        if name in kinds:
            con.execute(f"DROP {'VIEW' if kinds[name] == 'VIEW' else 'TABLE'} {name}")


def _arrow(cols: tuple[tuple[str, str], ...], data: dict[str, list[Any]]) -> pa.Table:
    arrays = []
    for name, t in cols:
        typ = pa.list_(pa.string()) if t == "VARCHAR[]" else arrow_type(t)
        arrays.append(pa.array(data[name], type=typ))
    return pa.Table.from_arrays(arrays, names=[c for c, _ in cols])


@dataclass
class StageBuffer:
    """Rows gathered in Python for one batch, sent to DuckDB in one go by :meth:`flush`."""

    games: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c, _ in GAME_COLUMNS})
    sides: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c, _ in SIDE_COLUMNS})
    units: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c, _ in UNIT_COLUMNS})
    events: list[dict[str, Any]] = field(default_factory=list)
    staged_sids: set[int] = field(default_factory=set)
    headers: dict[int, tuple[GameHeader, int | None]] = field(default_factory=dict)  # g -> (header, its line)

    def add_game(self, g: int, header: GameHeader, sides: dict[str, SideInfo], *, file: str, events_file: str,
                 path: str, kind: str, head_line: int | None = 1, head_canon: str | None = None,
                 game_id: str | None = None) -> None:
        """Stage a game's header: the game row, its two sides and any roster not yet staged."""
        self.headers[g] = (header, head_line)
        row = {"g": g, "file": file, "events_file": events_file, "head_line": head_line,
               "claimed_id": header.game_id, "game_id": game_id, "source": header.source,
               "rules_id": header.rules, "scenario": header.scenario, "seed": header.seed,
               "game_index": header.game_index, "batch": header.batch, "played": header.played,
               "head_canon": head_canon, "path": path, "kind": kind,
               "not_recorded": " ".join(header.not_recorded) or None, "estimated": " ".join(header.estimated) or None,
               "readings": readings_text(header.readings)}
        for c, v in row.items():
            self.games[c].append(v)
        for side, info in sides.items():
            rec = info.record
            for c, v in (("g", g), ("side", side), ("sid", info.sid), ("name", rec.name), ("bot", rec.bot),
                         ("player", rec.player), ("army_hash", rec.army_hash), ("points", rec.points)):
                self.sides[c].append(v)
            if info.sid in self.staged_sids:
                continue
            self.staged_sids.add(info.sid)
            for pos, u in enumerate(rec.units):
                arms = [f"{w}@{m}" for w, m in zip(u.weapons, u.mounts, strict=False)]
                for c, v in (("sid", info.sid), ("pos", pos), ("unit_id", u.id), ("code", u.code),
                             ("type", u.type), ("kind", u.kind), ("weapons", list(u.weapons)),
                             ("mounts", list(u.mounts)), ("arms", arms), ("pts", u.pts)):
                    self.units[c].append(v)

    def add_events(self, g: int, events: tuple[Event, ...], lines: list[int | None]) -> None:
        """Stage events read in Python (the careful path, manual logs)."""
        for ev, line in zip(events, lines, strict=True):
            row = event_to_row("", ev)
            del row["game_id"]
            row["g"], row["line"] = g, line
            self.events.append(row)

    def flush(self, con: duckdb.DuckDBPyConnection) -> None:
        """Append everything gathered to the staging tables and start afresh."""
        cols: tuple[tuple[str, str], ...]
        for name, cols, data in (("st_games", GAME_COLUMNS, self.games), ("st_sides", SIDE_COLUMNS, self.sides),
                                 ("st_side_units", UNIT_COLUMNS, self.units)):
            if data[cols[0][0]]:
                con.register("_stage_rows", _arrow(cols, data))
                con.execute(f"INSERT INTO {name} SELECT * FROM _stage_rows")
                con.unregister("_stage_rows")
                for v in data.values():
                    v.clear()
        if self.events:
            cols = (("g", "INTEGER"), ("line", "INTEGER"), *EVENT_STAGE_COLUMNS)
            data = {c: [r.get(c) for r in self.events] for c, _ in cols}
            con.register("_stage_rows", _arrow(cols, data))
            con.execute("INSERT INTO st_events BY NAME SELECT * FROM _stage_rows")
            con.unregister("_stage_rows")
            self.events.clear()


def forget_games(con: duckdb.DuckDBPyConnection, gs: Iterable[int], *, events_only: bool = False) -> None:
    """Drop staged rows of games that are rejected or will be staged again."""
    gs = sorted(gs)
    if not gs:
        return
    con.register("_forget", pa.table({"g": pa.array(gs, pa.int32())}))
    for t in () if events_only else ("st_games", "st_sides"):
        con.execute(f"DELETE FROM {t} WHERE g IN (SELECT g FROM _forget)")
    kind = con.execute("SELECT table_type FROM information_schema.tables WHERE table_catalog = 'temp' "
                       "AND table_name = 'st_events'").fetchall()
    if kind and kind[0][0] != "VIEW":
        con.execute("DELETE FROM st_events WHERE g IN (SELECT g FROM _forget)")
    con.unregister("_forget")
