"""A refused game: where, what kind of problem, why, and the offending text."""

from __future__ import annotations

from dataclasses import dataclass

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
        """One line: ``file, line N, field 'x': why``."""
        parts = [self.file]
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(f"field {self.field!r}")
        return f"{', '.join(parts)}: {self.message} [{self.error_type}]"
