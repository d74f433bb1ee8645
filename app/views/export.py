"""Export: the Markdown report, CSV and Parquet tables for the current filters, charts as HTML."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

import _shared as sh
import streamlit as st

from pmim_analytics.report.export import export_report
from pmim_analytics.report.selection import head_markdown_files, selection_lines

st.title("Export for design notes")
f = sh.sidebar()


@st.cache_data(show_spinner="Writing the report…", max_entries=4)
def build(db: str, version: tuple[int, int], rules_ids: tuple[str, ...] | None, source: str | None
          ) -> dict[str, bytes]:
    """Every file of an export, by its relative path."""
    with tempfile.TemporaryDirectory() as tmp:
        export_report(db, list(rules_ids) if rules_ids else None, tmp, source=source)
        root = Path(tmp)
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def body() -> None:
    if sh.empty_state(f, "the export"):
        return
    prov = sh.provenance(f)
    if sh.no_selection(f, prov):
        return
    lines = selection_lines(f.rules_ids, f.source, f.composition, prov)
    st.markdown("  \n".join(lines))
    st.caption("This export uses the sidebar's selection above (kept across pages and in the address); the first "
               "rules version is the baseline the others are compared with. The same lines head report.md.")
    if not st.toggle("Prepare the export", key="export_go", help="Runs every report table once (a few seconds)."):
        return
    files = head_markdown_files(sh.with_retry(lambda: build(*f.key)), lines)
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(f"pmim-report/{name}", data)
    c = st.columns(2)
    c[0].download_button("Markdown report (report.md)", files["report.md"], "report.md", "text/markdown",
                         key="dl_md", type="primary")
    c[1].download_button("Everything (zip: report, CSV, Parquet, charts)", zbuf.getvalue(), "pmim-report.zip",
                         "application/zip", key="dl_zip")
    tables = sorted(n.removeprefix("tables/").removesuffix(".csv") for n in files if n.endswith(".csv"))
    charts = sorted(n.removeprefix("figures/").removesuffix(".html") for n in files if n.endswith(".html"))
    st.subheader("One table")
    t = st.columns([2, 1, 1])
    table = t[0].selectbox("Table", tables, key="export_table")
    t[1].download_button("CSV", files[f"tables/{table}.csv"], f"{table}.csv", "text/csv", key="dl_csv")
    t[2].download_button("Parquet", files[f"tables/{table}.parquet"], f"{table}.parquet",
                         "application/vnd.apache.parquet", key="dl_parquet")
    st.subheader("One chart (interactive HTML)")
    g = st.columns([2, 1])
    chart = g[0].selectbox("Chart", charts, key="export_chart")
    g[1].download_button("HTML", files[f"figures/{chart}.html"], f"{chart}.html", "text/html", key="dl_html")
    with st.expander("Preview of report.md"):
        st.markdown(files["report.md"].decode("utf-8")[:20000])


sh.page_errors(body)
