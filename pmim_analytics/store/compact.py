"""``pmim db compact``: give a database file's dead space back to the disk.

DuckDB only partly reuses the space of deleted or rewritten rows (a ``CHECKPOINT`` frees
whole blocks; ``VACUUM`` reclaims nothing), and a file built by many ingest transactions
can hold half-empty blocks. The documented way to compact is to copy the database into a
fresh file (``COPY FROM DATABASE``), which writes every table once, densely. So compaction
checkpoints, copies into ``<file>.compact.tmp`` next to the database, checks that every
table has the same number of rows in the copy, and renames the copy over the original
while still holding the original's write lock (no ingest can slip in between). It needs
free disk space for the copy, and waits, like an ingest, for readers to let go.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pmim_analytics.errors import Location, StoreError, display_path
from pmim_analytics.store.connection import open_writer, resolve_db_path

COPY_ALIAS = "pmim_compacted"


@dataclass(frozen=True)
class CompactResult:
    """File size before and after, and how long it took."""

    path: Path
    before_bytes: int
    after_bytes: int
    seconds: float
    rewritten: bool

    def summary(self) -> str:
        """One sentence: sizes and time."""
        mb = 2**20
        how = "rewritten" if self.rewritten else "checkpointed"
        return (f"{display_path(self.path)} {how}: {self.before_bytes / mb:.1f} MB -> {self.after_bytes / mb:.1f} MB "
                f"in {self.seconds:.1f} s")


def file_bytes(path: Path) -> int:
    """Size of the database file plus its write-ahead log."""
    return sum(p.stat().st_size for p in (path, Path(f"{path}.wal")) if p.exists())


def _table_counts(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, int]:
    names = [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND NOT temporary ORDER BY 1",
        [catalog]).fetchall()]
    return {n: int(con.execute(f'SELECT count(*) FROM "{catalog}".main."{n}"').fetchall()[0][0]) for n in names}


def _remove(path: Path) -> None:
    for p in (path, Path(f"{path}.wal")):
        p.unlink(missing_ok=True)


def compact_db(db: str | Path | None = None, *, rewrite: bool = True,
               on_wait: Callable[[str], None] | None = None) -> CompactResult:
    """Checkpoint the database and (``rewrite``) copy it densely into a fresh file in its place.

    Raises :class:`StoreError` if there is no database, it stays locked, or the copy fails
    or differs from the original (the original is then left as it was).
    """
    path = resolve_db_path(db)
    if not path.exists():
        raise StoreError("no database here yet; create it with `pmim ingest REPLAYS...`",
                         Location(display_path(path)))
    started, before = time.perf_counter(), file_bytes(path)
    tmp = path.with_name(path.name + ".compact.tmp")
    with open_writer(path, on_wait=on_wait) as con:
        try:
            con.execute("CHECKPOINT")
            if rewrite:
                _remove(tmp)
                catalog = con.execute("SELECT current_database()").fetchall()[0][0]
                con.execute(f"ATTACH '{str(tmp).replace(chr(39), chr(39) * 2)}' AS {COPY_ALIAS}")
                try:
                    con.execute(f'COPY FROM DATABASE "{catalog}" TO {COPY_ALIAS}')
                    con.execute(f"CHECKPOINT {COPY_ALIAS}")
                    if _table_counts(con, catalog) != _table_counts(con, COPY_ALIAS):
                        raise StoreError("the compacted copy does not hold the same rows; the database is "
                                         "left as it was", Location(display_path(path)))
                finally:
                    con.execute(f"DETACH {COPY_ALIAS}")
                os.replace(tmp, path)
        except duckdb.Error as e:
            _remove(tmp)
            raise StoreError(f"compaction failed, the database is left as it was: {str(e).strip().splitlines()[0]}",
                             Location(display_path(path))) from e
        except BaseException:
            _remove(tmp)
            raise
    return CompactResult(path, before, file_bytes(path), time.perf_counter() - started, rewrite)
