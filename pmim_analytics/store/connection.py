"""Connections to the replay database: where it is, and opening it safely.

DuckDB lets one process write a database file, or any number of processes read it, never
both at once. So the dashboard and the analytics read through :func:`open_reader` /
:func:`read_frame` (short-lived read-only connections) and the ingest writes through
:func:`open_writer`; both wait for the other side with bounded retries and a clear
message instead of failing on DuckDB's lock error.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from pmim_analytics.errors import Location, StoreError, display_path
from pmim_analytics.rules.catalogue import data_dir
from pmim_analytics.store.rollback import rollback_quietly as rollback_quietly  # re-exported

if TYPE_CHECKING:
    import polars as pl

DB_ENV = "PMIM_DB"
READ_TIMEOUT = 20.0
WRITE_TIMEOUT = 120.0

_migrated: set[Path] = set()
_migrate_lock = threading.Lock()


def resolve_db_path(db: str | Path | None = None) -> Path:
    """The database file: ``db`` if given, else ``$PMIM_DB``, else ``data/pmim.duckdb``."""
    if db:
        return Path(db)
    env = os.environ.get(DB_ENV)
    return Path(env) if env else data_dir() / "pmim.duckdb"


def is_lock_error(e: BaseException) -> bool:
    """True for DuckDB's 'another process holds the file' errors (and the in-process twin)."""
    text = str(e)
    return "Could not set lock" in text or "Conflicting lock" in text or "different configuration" in text


def _holder(e: BaseException) -> str:
    m = re.search(r"PID (\d+)", str(e))
    return f"process {m.group(1)}" if m else "another connection"


def _connect_with_retry(path: Path, read_only: bool, timeout: float,
                        on_wait: Callable[[str], None] | None) -> duckdb.DuckDBPyConnection:
    """Connect, retrying while the file is locked by the other kind of user."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    told = False
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            _check_whole(con, path)
            return con
        except duckdb.Error as e:
            if not is_lock_error(e):
                raise StoreError(explain_db_error(e, read_only), _where(path)) from e
            if time.monotonic() >= deadline:
                who = "being written" if read_only else "in use"
                raise StoreError(
                    f"the database stayed locked ({who} by {_holder(e)}) for {timeout:.0f} s; "
                    f"{'an ingest may be running, ' if read_only else 'close the dashboard or other readers, or '}"
                    "try again when it has finished",
                    _where(path)) from e
            if on_wait and not told:
                on_wait(f"{display_path(path)} is locked by {_holder(e)}; waiting up to {timeout:.0f} s")
                told = True
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 1.6, 0.1)


#: a DuckDB file starts with three 4 KB headers, then its blocks
_DB_HEADER_BYTES = 3 * 4096
TRUNCATED = ("the file is not a whole DuckDB database (truncated, damaged or another kind of file); "
             "it was left as it is: restore it from a copy or ingest into a new file")


def _check_whole(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a file shorter than the blocks its header says are in use (a copy or a download
    cut short): DuckDB opens such a file and fails only when a query reaches a missing block,
    or not at all (a duplicate check may never read past the cut). Closes ``con`` then. Not
    judged while a write-ahead log is beside the file (its blocks are not in the file yet)."""
    if Path(f"{path}.wal").exists():
        return
    try:
        rows = con.execute("SELECT used_blocks, block_size FROM pragma_database_size()").fetchall()
    except duckdb.Error:
        rows = []
    used, size = (rows[0] if rows else (0, 0))
    try:
        on_disk = path.stat().st_size
    except OSError:
        return
    if used and on_disk < _DB_HEADER_BYTES + int(used) * int(size):
        con.close()
        raise StoreError(TRUNCATED, _where(path))


def explain_db_error(e: BaseException, read_only: bool = False) -> str:
    """One sentence for DuckDB's common file errors: permission, full disk, not a database."""
    text = str(e)
    low = text.lower()
    if "permission denied" in low or "read-only file system" in low or "readonly" in low:
        return ("the database file or its folder cannot be written (permission denied or a read-only "
                "file system); nothing was changed: check the permissions or choose another --db")
    if "no space left" in low or "disk is full" in low or "not enough space" in low:
        return ("the disk is full; nothing of the batch in flight was stored and the database is as it was "
                "before it: free some space and run the same command again")
    if "not a valid duckdb database" in low or "invalid" in low and "database file" in low or \
            "truncated" in low or "corrupt" in low or "checksum" in low or "unexpected end" in low or \
            "could not read enough bytes" in low:
        return TRUNCATED
    if "invalidated" in low:
        return ("a write to the database failed (most often a full disk); nothing of the batch in flight was "
                "stored: free some space and run the same command again")
    what = "read" if read_only else "open for writing"
    return f"the database could not be {what}: {_first_line(e)}"


def _where(path: Path) -> Location:
    return Location(display_path(path))


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


@contextmanager
def open_writer(db: str | Path | None = None, *, timeout: float = WRITE_TIMEOUT,
                on_wait: Callable[[str], None] | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection; the schema is migrated and the rules tables loaded on the
    first open in this process. Closed (and so checkpointed and unlocked) on exit.

    Waits up to ``timeout`` seconds for readers to let go. Raises :class:`StoreError`.
    """
    path = resolve_db_path(db)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        _create(path)
    con = _connect_with_retry(path, False, timeout, on_wait)
    try:
        key = path.resolve()
        from pmim_analytics.store.migrate import latest_version, schema_version

        have, want = schema_version(con), latest_version()
        if have > want:
            raise StoreError(newer_schema_message(have, want), _where(path))
        with _migrate_lock:
            if key not in _migrated or have < want:  # a file deleted and made again since is new
                from pmim_analytics.store.migrate import load_rules_tables, migrate

                try:
                    migrate(con)
                    load_rules_tables(con)
                except duckdb.Error as e:
                    raise StoreError(explain_db_error(e), _where(path)) from e
                _migrated.add(key)
        yield con
    finally:
        con.close()


def _create(path: Path) -> None:
    """Make a new database at ``path`` whole or not at all: its schema is built in a file of
    its own beside it, then linked into place. A process killed while creating it leaves no
    database at ``path`` (only that file, removed by the next creation), so nobody meets a
    database without its tables; if another process created ``path`` meanwhile, its file stays."""
    for stale in path.parent.glob(f".{path.name}.*.creating*"):  # the file and its WAL
        pid = stale.name[len(path.name) + 2:].split(".", 1)[0]
        if pid.isdigit() and (int(pid) == os.getpid() or not process_alive(int(pid))):
            stale.unlink(missing_ok=True)  # left by a killed creation (ours: a reused process id)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.creating")
    try:
        try:
            con = duckdb.connect(str(tmp))
        except duckdb.Error as e:  # a folder it cannot write is the usual cause: say so, not DuckDB's IO Error
            why = explain_db_error(e)
            if why.startswith("the database could not be"):
                why = f"cannot create the database: {_first_line(e)}"
            raise StoreError(why, _where(path)) from e
        try:
            from pmim_analytics.store.migrate import load_rules_tables, migrate

            migrate(con)
            load_rules_tables(con)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        try:
            os.link(tmp, path)  # fails if the path exists: never replaces a database
        except FileExistsError:
            pass  # another process made it meanwhile: use theirs
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}.wal").unlink(missing_ok=True)


def process_alive(pid: int) -> bool:
    """True while a process with this id runs (someone else's too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


@contextmanager
def open_reader(db: str | Path | None = None, *, timeout: float = READ_TIMEOUT,
                on_wait: Callable[[str], None] | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived read-only connection; keep the ``with`` block short.

    Waits up to ``timeout`` seconds while an ingest holds the file. Raises
    :class:`StoreError` if there is no database yet, it stays locked, or its schema is
    older than this tool's (open it for writing once to upgrade: ``pmim db migrate``).
    """
    path = resolve_db_path(db)
    if not path.exists():
        raise StoreError("no database here yet; create it with `pmim ingest REPLAYS...`", _where(path))
    con = _connect_with_retry(path, True, timeout, on_wait)
    try:
        _check_schema(con, path)
        yield con
    finally:
        con.close()


def _check_schema(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    from pmim_analytics.store.migrate import latest_version, schema_version

    have, want = schema_version(con), latest_version()
    if have > want:
        raise StoreError(newer_schema_message(have, want), _where(path))
    if have < want:
        raise StoreError(f"the database has schema version {have} but this tool needs {want}; "
                         "upgrade it with `pmim db migrate`", _where(path))


def read_frame(sql: str, params: list[Any] | dict[str, Any] | None = None, db: str | Path | None = None,
               *, timeout: float = READ_TIMEOUT) -> pl.DataFrame:
    """Run one query on a short-lived read-only connection and return a Polars frame.

    Raises :class:`StoreError` for a locked or missing database or a failing query.
    """
    with open_reader(db, timeout=timeout) as con:
        try:
            frame: pl.DataFrame = con.sql(sql, params=params).pl()
            return frame
        except duckdb.Error as e:
            raise StoreError(f"query failed: {_first_line(e)}", _where(resolve_db_path(db))) from e


def forget_migrated() -> None:
    """Make the next writer open re-check migrations and reload the rules (tests)."""
    with _migrate_lock:
        _migrated.clear()


def newer_schema_message(have: int, want: int) -> str:
    """Why a database from a newer pmim is neither read nor written."""
    return (f"the database has schema version {have}, newer than this tool's {want} (it was written by a newer "
            "pmim); it was left untouched: use that newer version")
