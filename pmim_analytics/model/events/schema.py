"""The wide event row: one row per event, the columns every stored form of an event shares.

The Parquet batches, the database's ``events`` table (``sql/001_initial.sql``), the staging
tables of an ingest and the analytics frames all hold events in this shape. It is declared
here once: :data:`WIDE_COLUMNS` names each column and its SQL type, and :data:`COLUMN_TYPES`
says what each SQL type is in Arrow, in Polars, while staged, and which values fit it. The
event fields (:mod:`.types`) say which columns they fill; :func:`_check_declarations` makes
sure every field's columns are declared with a type that fits its kind, and every column is
filled by some field. ``tests/store/test_event_schema.py`` checks the migration against it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pmim_analytics.model.events.types import COMMON_FIELDS, EVENT_FIELDS, KINDS


@dataclass(frozen=True)
class ColumnType:
    """One SQL column type and what it is elsewhere: its Arrow alias
    (``pyarrow.type_for_alias``), its Polars dtype name, the type it is staged as during an
    ingest (every number is BIGINT until its range is checked), and its range (integers only)."""

    sql: str
    arrow: str
    polars: str
    staged: str
    lo: int | None = None
    hi: int | None = None


#: Every SQL type a wide or header column has, and its forms (the one type table).
COLUMN_TYPES: dict[str, ColumnType] = {t.sql: t for t in (
    ColumnType("VARCHAR", "string", "Utf8", "VARCHAR"),
    ColumnType("BOOLEAN", "bool", "Boolean", "BOOLEAN"),
    ColumnType("TINYINT", "int8", "Int8", "BIGINT", -(2**7), 2**7 - 1),
    ColumnType("SMALLINT", "int16", "Int16", "BIGINT", -(2**15), 2**15 - 1),
    ColumnType("INTEGER", "int32", "Int32", "BIGINT", -(2**31), 2**31 - 1),
    ColumnType("BIGINT", "int64", "Int64", "BIGINT", -(2**63), 2**63 - 1),
)}


@dataclass(frozen=True)
class WideColumn:
    """One column of the wide event row: its name, its SQL type (a key of :data:`COLUMN_TYPES`)
    and, where the name does not say it, what it holds."""

    name: str
    sql: str
    note: str = ""


#: The wide row, in table order. A column an event type does not use is null.
WIDE_COLUMNS: tuple[WideColumn, ...] = (
    WideColumn("game_id", "VARCHAR", "the game's content id; leads every row"),
    WideColumn("seq", "INTEGER"),
    WideColumn("round", "INTEGER"),
    WideColumn("type", "VARCHAR"),
    WideColumn("unit", "VARCHAR"),
    WideColumn("target", "VARCHAR"),
    WideColumn("weapon", "VARCHAR"),
    WideColumn("mount", "VARCHAR"),
    WideColumn("from_col", "SMALLINT"),
    WideColumn("from_row", "SMALLINT"),
    WideColumn("to_col", "SMALLINT"),
    WideColumn("to_row", "SMALLINT"),
    WideColumn("path", "SMALLINT"),
    WideColumn("distance", "SMALLINT"),
    WideColumn("die1", "TINYINT", "also a first_player draw, blue's initiative, an overheat roll"),
    WideColumn("die2", "TINYINT", "also red's initiative"),
    WideColumn("acc", "TINYINT"),
    WideColumn("needed", "TINYINT", "also an overheat roll's excess"),
    WideColumn("hit", "BOOLEAN", "also whether an overheat roll overheated"),
    WideColumn("location", "VARCHAR"),
    WideColumn("location_rolls", "VARCHAR", "the d6 results joined by commas, e.g. 1,5"),
    WideColumn("damage", "SMALLINT"),
    WideColumn("overkill", "SMALLINT"),
    WideColumn("by", "VARCHAR"),
    WideColumn("objective", "SMALLINT"),
    WideColumn("side", "VARCHAR", "scoring side (vp), first side (round_start), winner (game_end)"),
    WideColumn("blue_holders", "VARCHAR", "vp: ids of blue units in the zone, space-separated"),
    WideColumn("red_holders", "VARCHAR"),
    WideColumn("blue_vp", "SMALLINT"),
    WideColumn("red_vp", "SMALLINT"),
    WideColumn("reason", "VARCHAR", "game_end: why it ended; first_player: the setting"),
    WideColumn("rounds", "SMALLINT"),
)

#: The wide row shape as (column, SQL type) pairs.
EVENT_COLUMNS: tuple[tuple[str, str], ...] = tuple((c.name, c.sql) for c in WIDE_COLUMNS)
EVENT_COLUMN_NAMES = tuple(name for name, _ in EVENT_COLUMNS)

#: Which SQL types may hold each field kind's columns.
_KIND_SQL = {"int": ("TINYINT", "SMALLINT", "INTEGER", "BIGINT"), "str": ("VARCHAR",), "bool": ("BOOLEAN",),
             "hex": ("TINYINT", "SMALLINT", "INTEGER"), "dice": ("TINYINT",), "d6_list": ("VARCHAR",),
             "ids": ("VARCHAR",)}


def _check_declarations() -> None:
    """Every field's columns are wide columns of a type that fits its kind, in the number its
    kind spreads over; every wide column but ``game_id`` is filled by some field."""
    types = dict(EVENT_COLUMNS)
    if set(_KIND_SQL) != set(KINDS) or set(types.values()) - set(COLUMN_TYPES):
        raise RuntimeError("the wide row's types do not cover the field kinds")
    filled = {"game_id", "type"}
    for etype, fs in EVENT_FIELDS.items():
        for f in (*COMMON_FIELDS, *fs):
            if len(f.columns) != KINDS[f.kind].width or not all(types.get(c) in _KIND_SQL[f.kind] for c in f.columns):
                raise RuntimeError(f"{etype}.{f.name}: columns {f.columns} do not fit its kind {f.kind!r}")
            filled.update(f.columns)
    if filled != set(types):
        raise RuntimeError(f"wide columns no event fills: {sorted(set(types) - filled)}")


_check_declarations()


def events_ddl(table: str = "events") -> str:
    """The ``CREATE TABLE`` of the wide event row (what ``sql/001_initial.sql`` holds)."""
    cols = [f'"{c.name}" {c.sql}' + (" NOT NULL" if c.name in ("game_id", "seq", "type") else "")
            for c in WIDE_COLUMNS]
    return f"CREATE TABLE IF NOT EXISTS {table} (" + ", ".join(cols) + ")"
