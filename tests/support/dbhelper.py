"""Build a real DuckDB file from the schema migrations (sql/001_initial.sql onwards) and frames."""

from __future__ import annotations

from pathlib import Path

import duckdb

from pmim_analytics.analytics.frames import SCHEMAS, Frames
from pmim_analytics.store.migrate import migrate
from pmim_analytics.store.rollups import rebuild_rollups


def create_db(path: Path, frames: Frames) -> Path:
    """A database file at ``path``: every migration applied, then the tables of ``frames``, then
    the rollups the readers use, computed from those tables.

    The rules tables are left as ``frames`` has them (empty unless given), so the loader's
    fallback to the rules catalogue is exercised.
    """
    con = duckdb.connect(str(path))
    try:
        migrate(con)
        for table in SCHEMAS:
            df = getattr(frames, table)
            if df.height:
                con.register("incoming", df)
                cols = ", ".join(f'"{c}"' for c in df.columns)
                con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM incoming")
                con.unregister("incoming")
        rebuild_rollups(con)
    finally:
        con.close()
    return path
