"""Staging Parquet batches: folders of ``games.<part>.parquet`` + ``events.<part>.parquet``.

The engine writes a part's events file first and its games file last, so a part counts
as complete once its games file exists. ``events`` has exactly the columns of
:data:`pmim_analytics.model.events.EVENT_COLUMNS`; ``games`` one row a game whose
``header_json`` is the source of truth for sides and units. Games are trusted by their
``game_id`` column (still checked against the header and deduplicated); events are
staged in bulk by DuckDB straight from the files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pmim_analytics.errors import Location, ReplayError, display_path
from pmim_analytics.model.events import EVENT_COLUMNS
from pmim_analytics.store.headers import HeaderParser
from pmim_analytics.store.rejects import Rejection
from pmim_analytics.store.staging import EVENT_STAGE_COLUMNS, StageBuffer

PART_NAME = re.compile(r"^games\.(\d{5})\.parquet$")
GAMES_COLUMNS = {"game_id": "VARCHAR", "source": "VARCHAR", "rules": "VARCHAR", "scenario": "VARCHAR",
                 "seed": "BIGINT", "game_index": "INTEGER", "batch": "VARCHAR", "played": "VARCHAR",
                 "header_json": "VARCHAR"}


@dataclass(frozen=True)
class ParquetPart:
    """One complete part of a batch folder."""

    part: str
    games: Path
    events: Path


@dataclass
class ParquetStaged:
    """What staging some parts found besides the staged games."""

    next_g: int
    duplicates: int
    notes: list[str]


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _type_ok(arrow_type: pa.DataType, sql_type: str) -> bool:
    if sql_type == "VARCHAR":
        return bool(pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
                    or pa.types.is_null(arrow_type))
    if sql_type == "BOOLEAN":
        return bool(pa.types.is_boolean(arrow_type) or pa.types.is_null(arrow_type))
    return bool(pa.types.is_integer(arrow_type) or pa.types.is_null(arrow_type))


def schema_problem(path: Path, expected: dict[str, str]) -> tuple[str | None, str] | None:
    """(column, why) if a Parquet file lacks a column or has one of the wrong type."""
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException) as e:
        return None, f"not a readable Parquet file ({str(e).splitlines()[0]})"
    for name, sql_type in expected.items():
        idx = schema.get_field_index(name)
        if idx < 0:
            return name, f"column {name!r} is missing"
        if not _type_ok(schema.field(idx).type, sql_type):
            return name, f"column {name!r} is {schema.field(idx).type}, expected {sql_type.lower()}"
    return None


def stage_parts(con: duckdb.DuckDBPyConnection, parts: list[ParquetPart], buf: StageBuffer, parser: HeaderParser,
                g0: int, rejects: dict[int, Rejection]) -> ParquetStaged:
    """Stage whole parts; games refused already (unreadable part, bad header) go to ``rejects``."""
    g = g0
    duplicates = 0
    notes: list[str] = []
    mapping: dict[str, list[Any]] = {"g": [], "game_id": [], "path": []}
    listed: dict[str, list[Any]] = {"game_id": [], "path": []}  # every game the games files list
    events_paths: list[str] = []
    event_expect = {n: t for n, t in EVENT_COLUMNS}
    for part in parts:
        gname, ename = display_path(part.games), display_path(part.events)
        problem = schema_problem(part.games, GAMES_COLUMNS)
        where_name = gname
        if problem is None:
            problem = schema_problem(part.events, event_expect)
            where_name = ename
        if problem is not None:
            fld, why = problem
            rejects[g] = Rejection(where_name, None, fld, "schema", f"the whole part is refused: {why}", None)
            g += 1
            continue
        table = pq.read_table(part.games, columns=["game_id", "header_json"])
        seen: set[str] = set()
        for row, (gid, hj) in enumerate(zip(table.column("game_id").to_pylist(),
                                            table.column("header_json").to_pylist(), strict=True), start=1):
            listed["game_id"].append(gid)
            listed["path"].append(str(part.events))
            if gid in seen:
                duplicates += 1
                continue
            seen.add(gid)
            try:
                if not isinstance(hj, str):
                    raise ReplayError("header_json is empty", Location(gname, row, field="header_json"))
                try:
                    obj = json.loads(hj)
                except json.JSONDecodeError as e:
                    raise ReplayError(f"header_json is not valid JSON: {e.msg}",
                                      Location(gname, row, field="header_json")) from None
                head, sides = parser.parse(obj, Location(gname, row))
                if head.game_id != gid:
                    raise ReplayError(f"game_id {gid!r} differs from the header's {head.game_id!r}",
                                      Location(gname, row, field="game_id"))
            except ReplayError as e:
                rejects[g] = Rejection.from_error(e, "header", hj)
                g += 1
                continue
            buf.add_game(g, head, sides, file=gname, events_file=ename, path=str(part.events), kind="parquet",
                         head_line=row, game_id=gid)
            mapping["g"].append(g)
            mapping["game_id"].append(gid)
            mapping["path"].append(str(part.events))
            g += 1
        events_paths.append(str(part.events))
    buf.flush(con)
    if mapping["g"]:
        con.register("_pq_map", pa.table({"g": pa.array(mapping["g"], pa.int32()),
                                          "game_id": pa.array(mapping["game_id"], pa.string()),
                                          "path": pa.array(mapping["path"], pa.string())}))
        con.execute("CREATE OR REPLACE TEMP TABLE st_pq_map AS SELECT * FROM _pq_map")
        con.unregister("_pq_map")
        cols = ", ".join(f'CAST(e."{c}" AS {t}) AS "{c}"' for c, t in EVENT_STAGE_COLUMNS)
        files = "[" + ", ".join(_literal(p) for p in events_paths) + "]"
        # The events stay in their files: validation and loading read them through this view.
        con.execute("DROP TABLE st_events")
        con.execute(f"""
            CREATE TEMP VIEW st_events AS
            SELECT m.g, CAST(e.file_row_number + 1 AS INTEGER) AS line, {cols},
                   CAST(NULL AS BOOLEAN) AS ok, CAST(NULL AS VARCHAR) AS canon
            FROM read_parquet({files}, filename = true, file_row_number = true) e
            JOIN st_pq_map m ON m.game_id = e.game_id AND m.path = e.filename
        """)
    if events_paths:
        con.register("_pq_listed", pa.table({"game_id": pa.array(listed["game_id"], pa.string()),
                                             "path": pa.array(listed["path"], pa.string())}))
        orphans = con.execute("""
            SELECT e.filename, count(*) FROM read_parquet(?, filename = true) e
            ANTI JOIN _pq_listed m ON m.game_id = e.game_id AND m.path = e.filename
            GROUP BY ALL ORDER BY 1
        """, [events_paths]).fetchall()
        con.unregister("_pq_listed")
        for fname, n in orphans:
            notes.append(f"{display_path(fname)}: {n} event rows belong to no game of its games file; skipped")
    return ParquetStaged(g, duplicates, notes)
