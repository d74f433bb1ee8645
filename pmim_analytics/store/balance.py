"""The tables of ``pmim balance propose`` (``sql/010_balance_runs.sql``, ``sql/012_balance_notes.sql``):
a run, every candidate table it evaluated (one row per round and item) and its held-out check, with
the verdict on each criterion of "balanced"; :func:`read_balance_runs` reads them back for the
design notes.

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

CANDIDATE_COLUMNS = ("round", "item", "listed", "games", "implied", "lo", "hi", "p", "q", "proposed", "note",
                     "applied")
CHECK_COLUMNS = ("level", "tbl", "archetype", "score", "lo", "hi", "games")
VERDICT_COLUMNS = ("level", "tbl", "criterion", "position", "holds", "measured")
RUN_TABLES = ("balance_verdicts", "balance_checks", "balance_candidates", "balance_runs")


def save_balance_run(run: dict[str, Any], candidates: Sequence[dict[str, Any]], checks: Sequence[dict[str, Any]],
                     db: str | Path | None = None, verdicts: Sequence[dict[str, Any]] = ()) -> None:
    """Store one run: ``run`` (the columns of ``balance_runs``), its candidates, its checks and their verdicts.

    Raises :class:`StoreError` when the database cannot be written (nothing of the run stays).
    """
    run_id = run["run_id"]
    with open_writer(db) as con:
        try:
            con.execute("BEGIN TRANSACTION")
            for table in RUN_TABLES:
                con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
            cols = list(run)
            con.execute(f"INSERT INTO balance_runs ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                        [run[c] for c in cols])
            for table, columns, rows in (("balance_candidates", CANDIDATE_COLUMNS, candidates),
                                         ("balance_checks", CHECK_COLUMNS, checks),
                                         ("balance_verdicts", VERDICT_COLUMNS, verdicts)):
                if rows:
                    con.executemany(
                        f"INSERT INTO {table} (run_id, {', '.join(columns)}) "
                        f"VALUES ({', '.join('?' * (len(columns) + 1))})",
                        [[run_id, *(r[c] for c in columns)] for r in rows])
            con.execute("COMMIT")
        except duckdb.Error as e:
            rollback_quietly(con)
            raise StoreError(f"the balance run could not be stored: {str(e).splitlines()[0]}") from e


def save_balance_games(run_id: str, games: Sequence[tuple[str, str]], db: str | Path | None = None) -> None:
    """Keep played pairs of a run (``(pair_key, outcomes JSON)``), so that the run can resume."""
    if not games:
        return
    with open_writer(db) as con:
        try:
            con.execute("BEGIN TRANSACTION")
            con.executemany("INSERT OR REPLACE INTO balance_games (run_id, pair_key, outcomes) VALUES (?, ?, ?)",
                            [[run_id, k, o] for k, o in games])
            con.execute("COMMIT")
        except duckdb.Error as e:
            rollback_quietly(con)
            raise StoreError(f"the balance games could not be stored: {str(e).splitlines()[0]}") from e


def read_balance_games(run_id: str, db: str | Path | None = None) -> dict[str, str]:
    """The pairs a run has played so far: pair key -> outcomes JSON (empty when none, or no database)."""
    from pmim_analytics.store.connection import resolve_db_path

    if not resolve_db_path(db).exists():
        return {}
    with open_writer(db) as con:
        rows = con.execute("SELECT pair_key, outcomes FROM balance_games WHERE run_id = ?", [run_id]).fetchall()
    return {str(k): str(o) for k, o in rows}


def read_balance_runs(db: str | Path | None = None, variant: str | None = None) -> list[dict[str, Any]]:
    """Every stored run (only those that wrote ``variant`` when given), newest first, each with its
    ``candidates``, ``checks`` and ``verdicts`` as lists of rows (dicts of the tables' columns).

    Empty when there is no database. Raises :class:`StoreError` when it cannot be read.
    """
    from pmim_analytics.store.connection import open_reader, resolve_db_path

    if not resolve_db_path(db).exists():
        return []
    with open_reader(db) as con:
        try:
            where, args = ("WHERE variant = ?", [variant]) if variant is not None else ("", [])
            cur = con.execute(f"SELECT * FROM balance_runs {where} ORDER BY created_at DESC, run_id", args)
            runs = [dict(zip([d[0] for d in cur.description], row, strict=True)) for row in cur.fetchall()]
            for run in runs:
                for key, table, order in (("candidates", "balance_candidates", "round, item"),
                                          ("checks", "balance_checks", "level, tbl, archetype"),
                                          ("verdicts", "balance_verdicts", "level, tbl, position")):
                    cur = con.execute(f"SELECT * EXCLUDE (run_id) FROM {table} WHERE run_id = ? ORDER BY {order}",
                                      [run["run_id"]])
                    names = [d[0] for d in cur.description]
                    run[key] = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        except duckdb.Error as e:
            raise StoreError(f"the balance runs could not be read: {str(e).splitlines()[0]}") from e
    return runs


def read_balance_variants(db: str | Path | None = None) -> list[tuple[str, str]]:
    """(variant, base rules id) of every stored run's proposal, newest first, each variant once
    (empty when there is no database). Raises :class:`StoreError` when it cannot be read."""
    from pmim_analytics.store.connection import open_reader, resolve_db_path

    if not resolve_db_path(db).exists():
        return []
    with open_reader(db) as con:
        try:
            rows = con.execute("SELECT variant, any_value(rules_id ORDER BY created_at DESC) FROM balance_runs "
                               "GROUP BY variant ORDER BY max(created_at) DESC, variant").fetchall()
        except duckdb.Error as e:
            raise StoreError(f"the balance runs could not be read: {str(e).splitlines()[0]}") from e
    return [(str(v), str(r)) for v, r in rows]
