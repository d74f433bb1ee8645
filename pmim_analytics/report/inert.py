"""Exports are inert: text users typed (army, player and unit names) cannot act in the
programs that open an export.

- Markdown and HTML: :func:`md_text` escapes what Markdown would format or link and what
  HTML would run (``<img onerror=...>`` stays text).
- CSV: :func:`csv_cell` neutralises a cell a spreadsheet would run as a formula (one that
  starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) by the usual leading
  single quote (OWASP's CSV-injection advice); :func:`csv_frame` applies it to every text
  column of a table before it is written.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")  # what formats, links or splits a table cell mid-line


def md_text(value: object) -> str:
    """``value`` as literal text inside Markdown (and the HTML it becomes)."""
    if value is None:
        return ""
    text = html.escape(str(value), quote=False)  # & < > first: no tag, no entity survives
    text = text.replace("\r", " ").replace("\n", " ")
    return _MD_SPECIAL.sub(r"\\\1", text)


def csv_cell(value: str | None) -> str | None:
    """A text cell a spreadsheet will show, never evaluate."""
    if value and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_frame(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with every text cell passed through :func:`csv_cell`."""
    import polars as pl

    exprs = [pl.when(pl.col(c).str.contains(r"^[=+\-@\t\r]")).then(pl.lit("'") + pl.col(c)).otherwise(pl.col(c))
             .alias(c) for c, t in df.schema.items() if t == pl.Utf8]
    return df.with_columns(exprs) if exprs else df
