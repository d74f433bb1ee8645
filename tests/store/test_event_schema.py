"""The wide event row is declared once (pmim_analytics.model.events.schema): the migration,
the Parquet schema, the staging tables, the analytics frames and the validation ranges are
all that one declaration, checked here against a real database."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pytest

from pmim_analytics.analytics.frames import SCHEMAS, empty_frame
from pmim_analytics.model.events import (
    COLUMN_TYPES,
    EVENT_COLUMNS,
    EVENT_FIELDS,
    KINDS,
    Attack,
    event_from_row,
    event_to_row,
    events_ddl,
)
from pmim_analytics.replay.parquet import EVENT_SCHEMA
from pmim_analytics.store.migrate import migrate
from pmim_analytics.store.staging import EVENT_STAGE_COLUMNS
from pmim_analytics.store.validate import event_checks_sql


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in con.execute(f"DESCRIBE {table}").fetchall()]


def test_the_migrated_events_table_is_the_declared_wide_row(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    migrate(con)
    assert _columns(con, "events") == list(EVENT_COLUMNS)
    con.execute(events_ddl("declared"))
    assert _columns(con, "declared") == list(EVENT_COLUMNS)
    not_null = {r[0] for r in con.execute("DESCRIBE events").fetchall() if r[2] == "NO"}
    assert not_null == {r[0] for r in con.execute("DESCRIBE declared").fetchall() if r[2] == "NO"}
    con.close()


def test_parquet_staging_and_frames_take_their_types_from_the_one_table() -> None:
    assert [f.name for f in EVENT_SCHEMA] == [n for n, _ in EVENT_COLUMNS]
    by_name = dict(EVENT_COLUMNS)
    assert EVENT_SCHEMA.field("die1").type == pa.int8() and by_name["die1"] == "TINYINT"
    assert EVENT_SCHEMA.field("seq").type == pa.int32() and EVENT_SCHEMA.field("hit").type == pa.bool_()
    assert dict(EVENT_STAGE_COLUMNS)["damage"] == "BIGINT" and dict(EVENT_STAGE_COLUMNS)["unit"] == "VARCHAR"
    assert "game_id" not in dict(EVENT_STAGE_COLUMNS)
    assert list(SCHEMAS["events"]) == [n for n, _ in EVENT_COLUMNS]
    assert SCHEMAS["events"]["damage"] == pl.Int16 and SCHEMAS["events"]["location"] == pl.Utf8
    assert empty_frame("events").width == len(EVENT_COLUMNS)
    for ctype in COLUMN_TYPES.values():
        if ctype.lo is not None:  # the range is the Arrow type's own
            bits = pa.type_for_alias(ctype.arrow).bit_width
            assert (ctype.lo, ctype.hi) == (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def test_validation_checks_the_range_of_every_narrowed_column() -> None:
    sql = event_checks_sql()
    for name, sql_type in EVENT_COLUMNS:
        ctype = COLUMN_TYPES[sql_type]
        checked = f'e."{name}" NOT BETWEEN {ctype.lo} AND {ctype.hi}' in sql
        assert checked == (ctype.lo is not None and ctype.staged != ctype.sql), name
    assert 'e."die1" NOT BETWEEN -128 AND 127' in sql


def test_every_field_fills_columns_that_fit_its_kind() -> None:
    types = dict(EVENT_COLUMNS)
    for fs in EVENT_FIELDS.values():
        for f in fs:
            assert len(f.columns) == KINDS[f.kind].width
            for c in f.columns:
                assert (types[c] in ("VARCHAR",)) == (f.kind in ("str", "d6_list", "ids")), (f.name, c)


@pytest.mark.parametrize("value", [(1, 2, 3), None])
def test_a_row_round_trips_through_the_declared_columns(value: tuple[int, ...] | None) -> None:
    ev = Attack(seq=3, round=1, unit="B:TW1", weapon="GG", mount="RA", target="R:TY1", distance=None,
                roll=(6, 5), acc=1, needed=8, hit=True, location="CT", location_rolls=value or (),
                damage=4, overkill=0)
    row = event_to_row("g", ev)
    assert set(row) <= {n for n, _ in EVENT_COLUMNS}
    assert event_from_row({n: row.get(n) for n, _ in EVENT_COLUMNS}) == ev
