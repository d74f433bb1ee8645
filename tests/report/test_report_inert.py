"""Exports are inert: what users typed cannot format, link, run HTML or spreadsheet formulas."""

from __future__ import annotations

import polars as pl

from pmim_analytics.report.inert import csv_cell, csv_frame, md_text
from pmim_analytics.report.markdown import Col, markdown_table, text

EVIL = '=HYPERLINK("http://evil.example","x")<img src=x onerror=alert(1)>'


def test_markdown_cells_escape_html_and_markdown() -> None:
    out = md_text(EVIL + " *b* [l](u) a|b")
    assert "<img" not in out and "&lt;img" in out
    assert r"\*b\*" in out and r"\[l\]" in out and r"a\|b" in out
    table = markdown_table(pl.DataFrame({"army": [EVIL]}), [Col("army", text("army"))])
    assert "<img" not in table and table.count("|") == 6  # the cell cannot split the row


def test_csv_cells_that_a_spreadsheet_would_run_get_a_leading_quote() -> None:
    for bad in ("=1+1", "+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1", EVIL):
        assert csv_cell(bad) == "'" + bad
    assert csv_cell("Wolfpack") == "Wolfpack" and csv_cell(None) is None and csv_cell("") == ""
    df = csv_frame(pl.DataFrame({"army": [EVIL, "plain", None], "games": [1, 2, 3]}))
    assert df["army"].to_list() == ["'" + EVIL, "plain", None] and df["games"].to_list() == [1, 2, 3]
    csv = df.write_csv()
    assert not any(line.startswith("=") for line in csv.splitlines())
