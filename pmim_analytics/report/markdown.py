"""Markdown tables from Polars frames, formatted for a design-notes post."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, SupportsFloat

if TYPE_CHECKING:
    import polars as pl

from pmim_analytics.report.inert import md_text

#: One table row, as Polars gives it (``iter_rows(named=True)``): column name to cell value.
Row = dict[str, Any]
Formatter = Callable[[Row], str]


@dataclass(frozen=True)
class Col:
    """One column of a Markdown table: a header and how to write a row's cell."""

    header: str
    cell: Formatter
    align: str = "right"  # left | right


def num(v: SupportsFloat | None, digits: int = 2) -> str:
    """A number with ``digits`` decimals; ints as ints; empty for null/NaN."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    return f"{float(v):,.{digits}f}"


def pct(v: SupportsFloat | None, digits: int = 0) -> str:
    """A share as a percentage."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{100 * float(v):.{digits}f}%"


def interval(v: SupportsFloat | None, lo: SupportsFloat | None, hi: SupportsFloat | None, as_pct: bool = False,
             digits: int = 2) -> str:
    """``value [lo, hi]``."""
    f: Callable[[SupportsFloat | None], str] = (lambda x: pct(x, 0)) if as_pct else (lambda x: num(x, digits))
    if v is None:
        return ""
    if lo is None or hi is None:
        return f(v)
    return f"{f(v)} [{f(lo)}, {f(hi)}]"


def points_change(v: SupportsFloat | None, lo: SupportsFloat | None, hi: SupportsFloat | None) -> str:
    """A change in a share, in percentage points: ``+8 pts [+3, +13]``."""
    if v is None:
        return ""
    head = f"{100 * float(v):+.0f} pts"
    return head if lo is None or hi is None else f"{head} [{100 * float(lo):+.0f}, {100 * float(hi):+.0f}]"


def plus_minus(v: SupportsFloat | None, half: SupportsFloat | None, digits: int = 2) -> str:
    """``value ± half``."""
    if v is None:
        return ""
    return num(v, digits) if half is None else f"{num(v, digits)} ± {num(half, digits)}"


def field(name: str, fmt: Callable[[Any], str] = num) -> Formatter:
    """A cell showing one column through ``fmt`` (given the cell value as the row holds it)."""
    return lambda r: fmt(r.get(name))


def text(name: str) -> Formatter:
    """A cell showing one column as text."""
    return lambda r: md_text(r.get(name))


def table_lines(headers: Sequence[str], right: Sequence[bool], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table's lines from cells already written: the header, the alignment rule
    (``---:`` for a column aligned right, ``right[k]``) and one line per row."""
    return ["| " + " | ".join(headers) + " |",
            "|" + "|".join("---:" if r else "---" for r in right) + "|",
            *("| " + " | ".join(row) + " |" for row in rows)]


def markdown_table(df: pl.DataFrame, cols: Sequence[Col], max_rows: int | None = None) -> str:
    """The frame as a Markdown table; a note says how many rows were left out."""
    if df.height == 0:
        return "_No data._\n"
    rows = list(df.iter_rows(named=True))
    shown = rows if max_rows is None else rows[:max_rows]
    out = "\n".join(table_lines([c.header for c in cols], [c.align == "right" for c in cols],
                                 ([c.cell(r) for c in cols] for r in shown))) + "\n"
    if len(shown) < len(rows):
        out += f"\n_{len(rows) - len(shown)} more rows in the CSV._\n"
    return out
