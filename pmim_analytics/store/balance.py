"""The tables of ``pmim balance propose`` (``sql/010_balance_runs.sql``): a run, every candidate table
it evaluated (one row per round and item) and its held-out check.

:func:`save_balance_run` writes a run whole in one transaction (a run with the same id is replaced),
so an interrupted write leaves the previous state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from pmim_analytics.errors import StoreError
from pmim_analytics.store.connection import open_writer, rollback_quietly

CANDIDATE_COLUMNS = ("round", "item", "listed", "games", "implied", "lo", "hi", "p", "q", "proposed", "note")
CHECK_COLUMNS = ("level", "tbl", "archetype", "score", "lo", "hi", "games")


def save_balance_run(run: dict[str, Any], candidates: Sequence[dict[str, Any]], checks: Sequence[dict[str, Any]],
                     db: str | Path | None = None) -> None:
    """Store one run: ``run`` (the columns of ``balance_runs``), its candidates and its checks.

    Raises :class:`StoreError` when the database cannot be written (nothing of the run stays).
    """
    run_id = run["run_id"]
    with open_writer(db) as con:
        try:
            con.execute("BEGIN TRANSACTION")
            for table in ("balance_checks", "balance_candidates", "balance_runs"):
                con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
            cols = list(run)
            con.execute(f"INSERT INTO balance_runs ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                        [run[c] for c in cols])
            for table, columns, rows in (("balance_candidates", CANDIDATE_COLUMNS, candidates),
                                         ("balance_checks", CHECK_COLUMNS, checks)):
                if rows:
                    con.executemany(
                        f"INSERT INTO {table} (run_id, {', '.join(columns)}) "
                        f"VALUES ({', '.join('?' * (len(columns) + 1))})",
                        [[run_id, *(r[c] for c in columns)] for r in rows])
            con.execute("COMMIT")
        except duckdb.Error as e:
            rollback_quietly(con)
            raise StoreError(f"the balance run could not be stored: {str(e).splitlines()[0]}") from e
