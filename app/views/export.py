"""Export: the design note and the Markdown report with PNG figures, CSV and Parquet tables for the
current filters, charts as PNG or interactive HTML."""

from __future__ import annotations

import io
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import _shared as sh
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pmim_analytics.report.export import export_report
from pmim_analytics.report.selection import head_markdown_files, selection_lines

#: A Markdown image link: alt text and relative path.
IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
#: An HTML comment (a previewer hides it; st.markdown would show it as text).
COMMENT = re.compile(r"<!--.*?-->\n?", re.S)

st.title("Export for design notes")
f = sh.sidebar()


@st.cache_data(show_spinner="Writing the report…", max_entries=4)
def build(db: str, version: tuple[int, int], rules_ids: tuple[str, ...] | None, source: str | None,
          level: str | None) -> dict[str, bytes]:
    """Every file of an export at bot ``level`` (the sidebar's), by its relative path."""
    with tempfile.TemporaryDirectory() as tmp:
        export_report(db, list(rules_ids) if rules_ids else None, tmp, source=source, bot=level)
        root = Path(tmp)
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def download(where: DeltaGenerator, label: str, data: bytes, name: str, mime: str, key: str, **kw: Any) -> None:
    """A download button that does not rerun the page (a rerun could drop the file mid-download)."""
    where.download_button(label, data, name, mime, key=key, on_click="ignore", **kw)


def body() -> None:
    if sh.empty_state(f, "the export"):
        return
    prov = sh.provenance(f)
    if sh.no_selection(f, prov):
        return
    lines = selection_lines(f.rules_ids, f.source, f.composition, prov)
    st.markdown("  \n".join(lines))
    st.caption("This export uses the sidebar's selection above (kept across pages and in the address) at its bot "
               f"level, {f.level_text}: every figure and table rests on that level alone. The first rules version is "
               "the baseline the others are compared with. The same lines head note.md and report.md.")
    if not st.toggle("Prepare the export", key="export_go", help="Runs every report table once (a few seconds)."):
        return
    files = head_markdown_files(sh.with_retry(lambda: build(*f.key)), lines)
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(f"pmim-report/{name}", data)
    st.markdown("**Paste-ready**: the zip holds `note.md` (one screen: the designer's four questions, each with "
                "its interval and games) and `report.md` (the note, then the full report), with the PNG figures "
                "they show in `figures/`, linked relatively: unzip it and a Markdown previewer shows the images "
                "beside the text.")
    c = st.columns(3)
    download(c[0], "Everything (zip)", zbuf.getvalue(), "pmim-report.zip", "application/zip", "dl_zip",
             type="primary", help="note.md and report.md, the PNG figures they show, every table as CSV and "
             "Parquet, every chart as interactive HTML")
    download(c[1], "Design note (note.md)", files["note.md"], "note.md", "text/markdown", "dl_note")
    download(c[2], "Full report (report.md)", files["report.md"], "report.md", "text/markdown", "dl_md")
    tables = sorted(n.removeprefix("tables/").removesuffix(".csv") for n in files if n.endswith(".csv"))
    charts = sorted(n.removeprefix("figures/").removesuffix(".html") for n in files if n.endswith(".html"))
    st.subheader("One table")
    t = st.columns([2, 1, 1])
    table = t[0].selectbox("Table", tables, key="export_table")
    download(t[1], "CSV", files[f"tables/{table}.csv"], f"{table}.csv", "text/csv", "dl_csv")
    download(t[2], "Parquet", files[f"tables/{table}.parquet"], f"{table}.parquet", "application/vnd.apache.parquet",
             "dl_parquet")
    st.subheader("One chart (PNG image or interactive HTML)")
    g = st.columns([2, 1, 1])
    chart = g[0].selectbox("Chart", charts, key="export_chart")
    if f"figures/{chart}.png" in files:
        download(g[1], "PNG", files[f"figures/{chart}.png"], f"{chart}.png", "image/png", "dl_png")
    download(g[2], "HTML", files[f"figures/{chart}.html"], f"{chart}.html", "text/html", "dl_html")
    with st.expander("Preview of note.md"):
        note = files["note.md"].decode("utf-8")
        st.markdown(IMAGE.sub("", COMMENT.sub("", note)))
        for alt, rel in IMAGE.findall(note):  # the figures the note links, shown as the previewer would
            if rel in files:
                st.image(files[rel], caption=alt)


sh.page_errors(body)
