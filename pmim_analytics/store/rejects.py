"""A refused game: where, what kind of problem, why, and the offending text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa

from pmim_analytics.errors import PmimError

RAW_LIMIT = 240


def shorten(raw: str | None, limit: int = RAW_LIMIT) -> str | None:
    """The raw text cut to ``limit`` characters (with an ellipsis) for messages and the table."""
    if raw is None:
        return None
    raw = raw.rstrip("\r\n")
    return raw if len(raw) <= limit else raw[: limit - 1] + "…"


@dataclass(frozen=True)
class Rejection:
    """One rejected game (or a whole unreadable Parquet part), like a row of DuckDB's
    CSV reject table: file, line, field, error type, message and raw text."""

    file: str
    line: int | None
    field: str | None
    error_type: str
    message: str
    raw: str | None

    @classmethod
    def from_error(cls, e: PmimError, error_type: str, raw: str | None = None) -> Rejection:
        """Turn a positioned library error into a rejection."""
        w = e.where
        return cls(w.file if w and w.file else "?", w.line if w else None, w.field if w else None,
                   error_type, e.message, shorten(raw))

    def render(self) -> str:
        """One line: ``file, line N, field 'x': why [kind]`` (``row N`` in a Parquet file)."""
        parts = [self.file]
        if self.line is not None:
            parts.append(f"{'row' if self.file.endswith('.parquet') else 'line'} {self.line}")
        if self.field:
            parts.append(f"field {self.field!r}")
        return f"{', '.join(parts)}: {self.message} [{self.error_type}]"


def fill_raw(con: duckdb.DuckDBPyConnection, rejects: list[Rejection]) -> None:
    """Give each rejection the raw text of its line (or Parquet row), shortened."""
    for i, r in enumerate(rejects):
        if r.raw is not None or r.line is None:
            continue
        raw = None
        path = Path(r.file)
        try:
            if r.file.endswith(".parquet"):
                row = con.execute("SELECT to_json(t) FROM (SELECT * EXCLUDE (file_row_number) FROM "
                                  "read_parquet(?, file_row_number = true) WHERE file_row_number = ?) t",
                                  [str(path), r.line - 1]).fetchall()
                raw = row[0][0] if row else None
            else:
                with path.open("rb") as fh:
                    for n, b in enumerate(fh, start=1):
                        if n == r.line:
                            raw = b[:1000].decode("utf-8", errors="replace")
                            break
        except (OSError, duckdb.Error):
            raw = None
        if raw is not None:
            rejects[i] = Rejection(r.file, r.line, r.field, r.error_type, r.message, shorten(raw))


def record_rejects(con: duckdb.DuckDBPyConnection, run_id: str, rejects: list[Rejection]) -> None:
    """Insert rejections into ``ingest_rejects`` (in the caller's transaction)."""
    if not rejects:
        return
    con.register("_rej", pa.Table.from_pylist([
        {"run_id": run_id, "file": r.file, "line": r.line, "field": r.field, "error_type": r.error_type,
         "message": r.message, "raw": r.raw} for r in rejects],
        schema=pa.schema([("run_id", pa.string()), ("file", pa.string()), ("line", pa.int32()),
                          ("field", pa.string()), ("error_type", pa.string()), ("message", pa.string()),
                          ("raw", pa.string())])))
    con.execute("INSERT INTO ingest_rejects (run_id, file, line, field, error_type, message, raw) "
                "SELECT * FROM _rej")
    con.unregister("_rej")
