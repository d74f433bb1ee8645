"""Build a real DuckDB file from sql/001_initial.sql and a bundle of frames."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from pmim_analytics.analytics.frames import SCHEMAS, Frames
from pmim_analytics.rules.catalogue import REPO_ROOT


def schema_sql() -> str:
    """Migration 1 as written; if DuckDB rejects the events column named ``by`` (a reserved
    word), the same DDL with that one name quoted."""
    text = (REPO_ROOT / "sql" / "001_initial.sql").read_text(encoding="utf-8")
    try:
        duckdb.connect().execute(text)
        return text
    except duckdb.ParserException:
        return re.sub(r'(?m)^(\s+)by(\s+VARCHAR)', r'\1"by"\2', text)


def create_db(path: Path, frames: Frames) -> Path:
    """A database file at ``path`` holding the tables of ``frames``."""
    con = duckdb.connect(str(path))
    try:
        con.execute(schema_sql())
        for table in SCHEMAS:
            df = getattr(frames, table)
            if df.height:
                con.register("incoming", df)
                cols = ", ".join(f'"{c}"' for c in df.columns)
                con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM incoming")
                con.unregister("incoming")
    finally:
        con.close()
    return path
