"""How every report and listing command prints its tables: ``--format table|csv|json|markdown``.

A command builds one or more :class:`Listing` (a Polars frame, the columns a person reads, a
title) and hands them to :func:`emit`. The four formats:

- ``table`` (the default): rich tables. On a terminal they fit its width; written to a pipe
  or a file they are never wrapped or cut (the consoles in :mod:`._common` have no width
  limit there), so ``pmim report compositions | less`` and ``> file`` hold complete rows.
- ``csv``: the first listing's frame, raw values (full precision, analytics column names),
  one header line. Other listings of the command are named on stderr: ``--format json``
  holds them all.
- ``json``: one object, each listing's frame as a list of records under its name.
- ``markdown``: the same cells as the table, as Markdown tables under ``###`` titles.

Every cell a person reads is made by :func:`cell_text` and every CSV by :func:`write_csv`:
the one place to escape or neutralise what a table cell holds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.table import Table

from pmim_analytics.cli._common import err, out
from pmim_analytics.report.markdown import Col, table_lines

if TYPE_CHECKING:  # Polars loads when a table is printed, not when a command only refuses its input
    import polars as pl


class Format(StrEnum):
    """Output formats of report and listing commands."""

    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


FORMAT_OPT = typer.Option(Format.table, "--format", case_sensitive=False,
                          help="table (for people), csv (the first table, raw values), json (every table) or "
                               "markdown.")


@dataclass(frozen=True)
class Listing:
    """One table of a command's output.

    ``frame`` is the data (what csv and json write); ``cols`` how a person reads it (table and
    markdown; ``None`` shows every column as it is). ``limit`` caps the rows a person sees,
    never the rows of csv or json. ``empty`` is said on stderr when there are no rows;
    ``notes`` are printed after the table (to stderr for csv and json, where stdout is data).
    ``display`` is what table and markdown show when it differs from the data (a pivot).
    """

    name: str
    title: str
    frame: pl.DataFrame
    cols: Sequence[Col] | None = None
    limit: int | None = None
    empty: str = ""
    notes: Sequence[str] = field(default_factory=tuple)
    show_header: bool = True
    display: pl.DataFrame | None = None

    @property
    def shown(self) -> pl.DataFrame:
        """The frame a person reads (``display`` when the data is reshaped for reading, e.g. pivoted)."""
        return self.frame if self.display is None else self.display


def auto_cols(df: pl.DataFrame) -> list[Col]:
    """One column per frame column, its values as text, numbers right-aligned."""
    def cell(name: str) -> Callable[[dict[str, Any]], str]:
        return lambda r: _plain(r.get(name))
    return [Col(c, cell(c), "right" if df.schema[c].is_numeric() else "left") for c in df.columns]


def _plain(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return " ".join(_plain(x) for x in v)
    return str(v)


def cell_text(col: Col, row: dict[str, Any], fmt: Format) -> str:
    """The text of one cell as a person reads it, for a rich table or a Markdown table."""
    value = col.cell(row)
    return escape(value) if fmt is Format.table else markdown_text(value)


def markdown_text(value: str) -> str:
    """Text safe inside a Markdown table cell: pipes escaped, one line."""
    return value.replace("\\|", "|").replace("|", "\\|").replace("\n", " ")


def flat_frame(df: pl.DataFrame) -> pl.DataFrame:
    """The frame with list columns joined by spaces and struct columns as JSON: CSV holds only scalars."""
    import polars as pl

    exprs = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, (pl.List, pl.Array)):
            exprs.append(pl.col(name).cast(pl.List(pl.String)).list.join(" ").alias(name))
        elif isinstance(dtype, pl.Struct):
            exprs.append(pl.col(name).struct.json_encode().alias(name))
    return df.with_columns(exprs) if exprs else df


def write_csv(df: pl.DataFrame) -> str:
    """The frame as CSV text (raw values, a header line)."""
    return flat_frame(df).write_csv()


def _json_value(v: object) -> object:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def to_json(listings: Sequence[Listing]) -> str:
    """Every listing's frame as records, under its name, in one JSON object."""
    doc = {x.name: [{k: _json_value(v) for k, v in r.items()} for r in x.frame.iter_rows(named=True)]
           for x in listings}
    return json.dumps(doc, indent=1, ensure_ascii=False, default=str) + "\n"


def rich_table(x: Listing) -> Table:
    """A rich table of a listing (at most ``limit`` rows; a caption says how many are left out)."""
    cols = x.cols if x.cols is not None else auto_cols(x.shown)
    t = Table(title=x.title or None, title_justify="left", show_header=x.show_header)
    for c in cols:
        t.add_column(escape(c.header), justify="right" if c.align == "right" else "left", overflow="fold")
    rows = list(x.shown.iter_rows(named=True))
    for r in rows[:x.limit] if x.limit else rows:
        t.add_row(*(cell_text(c, r, Format.table) for c in cols))
    if x.limit and len(rows) > x.limit:
        t.caption = f"{len(rows) - x.limit} more rows (use --limit, or --format csv for all)"
    return t


def markdown(x: Listing) -> str:
    """A listing as a Markdown table under a ``###`` title."""
    cols = x.cols if x.cols is not None else auto_cols(x.shown)
    rows = list(x.shown.iter_rows(named=True))
    shown = rows[:x.limit] if x.limit else rows
    lines = [f"### {x.title}", ""] if x.title else []
    lines += table_lines([markdown_text(c.header) if x.show_header else "" for c in cols],
                         [c.align == "right" for c in cols],
                         ([cell_text(c, r, Format.markdown) for c in cols] for r in shown))
    if len(shown) < len(rows):
        lines += ["", f"_{len(rows) - len(shown)} more rows (use --limit, or --format csv for all)._"]
    lines += [*([""] + [f"_{n}_" for n in x.notes] if x.notes else [])]
    return "\n".join(lines) + "\n"


def emit(listings: Sequence[Listing], fmt: Format) -> None:
    """Print a command's listings in ``fmt`` on stdout; what is not data goes to stderr."""
    fmt = Format(fmt)
    if fmt is Format.json:
        _write(to_json(listings))
        return
    if fmt is Format.csv:
        first, rest = listings[0], listings[1:]
        _write(write_csv(first.frame))
        if first.frame.height == 0 and first.empty:
            err.print(first.empty, highlight=False, markup=False)
        for n in first.notes:
            err.print(n, highlight=False, markup=False)
        if rest:
            err.print(f"csv holds the first table ({first.name}); --format json holds all of them: "
                      + ", ".join(x.name for x in listings) + ".", highlight=False, markup=False)
        return
    blocks = []
    for x in listings:
        if x.shown.height == 0:
            if x.empty:
                err.print(x.empty, highlight=False, markup=False)
            for n in x.notes:
                err.print(n, highlight=False, markup=False)
            continue
        if fmt is Format.markdown:
            blocks.append(markdown(x))
        else:
            out.print(rich_table(x))
            for n in x.notes:
                out.print(n, style="dim", highlight=False, markup=False)
    if blocks:
        _write("\n".join(blocks))


def _write(text: str) -> None:
    """Raw text on stdout, untouched by rich (no wrapping, no markup)."""
    typer.echo(text, nl=False)
