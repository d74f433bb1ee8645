"""A quiet rollback, in a module of its own so that the connection, the migrations and the
rollups can all use it without importing one another."""

from __future__ import annotations

import duckdb


def rollback_quietly(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, if any: a ROLLBACK after a failed BEGIN or a lost
    transaction raises a second error that would hide the first, the one worth saying."""
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass
