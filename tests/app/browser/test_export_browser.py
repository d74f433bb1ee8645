"""The Export page in a real browser: Debian's Chromium (driven by Playwright) against a real
``streamlit run``. It clicks the downloads (the design note, the full report, the zip and one
chart's PNG) and checks what lands on disk: Markdown with the selection at its head, the four
questions, narrow tables and only links that resolve inside the zip; PNG figures that decode at
the export's size with a chart drawn on them. The database is a copy of the small demo plus a few
real engine games of an army whose name a user typed as a spreadsheet formula, HTML and a
Markdown link (the export must keep it inert), and a few v3 games at a weaker bot level (random)
that the variant never played: the export and the Overview's first screen must draw v3 and the
variant at the one level both have, and say which, never pooling the random games in.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from playwright.sync_api import expect

from tests.support.browser import CHROMIUM, LONG_WAIT_MS, ROOT, WAIT_MS, scratch_copy, settle, streamlit_server

SHOTS = ROOT / "test-artifacts" / "screenshots"
#: An army name as a user might type it: a formula, a tag that runs script, a link.
HOSTILE = '=1+2 <img src=x onerror=alert(1)> [click](http://example.invalid)'

pytestmark = pytest.mark.browser


def _pmim(*args: str) -> None:
    r = subprocess.run([sys.executable, "-m", "pmim_analytics", *args], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture(scope="module")
def server(small_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make test runs scripts/ensure-chromium.sh)")
    tmp = tmp_path_factory.mktemp("export-browser")
    db, data = scratch_copy(Path(os.environ.get("PMIM_BROWSER_DB") or small_demo_db).resolve(), tmp)
    army = (data / "armies" / "v3-fast-gev.yaml").read_text(encoding="utf-8")
    hostile = tmp / "hostile.yaml"
    hostile.write_text(army.replace("name: Fast GEV", f"name: '{HOSTILE}'", 1), encoding="utf-8")
    _pmim("simulate", "--rules", "v3", "--blue", str(hostile), "--red", str(data / "armies" / "v3-balanced.yaml"),
          "--games", "4", "--seed", "1", "--workers", "1", "--out", str(tmp / "hostile-games"), "--format", "jsonl",
          # at the demo's bot level, the one the export's figures and tables rest on (never pooled)
          "--blue-bot", "tactician", "--red-bot", "tactician")
    _pmim("ingest", str(tmp / "hostile-games"), "--db", str(db))
    sweep = tmp / "random.yaml"  # v3 only, at a level the variant lacks: every pairing, 2 games each
    sweep.write_text("name: random-v3\nseed: 7\nrules: [v3]\ncompositions: [v3-balanced, v3-tank-heavy, "
                     "v3-fast-gev]\nbots: [random]\ngames_per_pairing: 2\n", encoding="utf-8")
    _pmim("sweep", str(sweep), "--workers", "1", "--out", str(tmp / "random-games"), "--db", str(db))
    os.environ["PMIM_EXPORT_DB_COPY"] = str(db)  # the database the server reads, for the CLI checks
    try:
        with streamlit_server(db, data, tmp) as url:
            yield url
    finally:
        os.environ.pop("PMIM_EXPORT_DB_COPY", None)


def _compositions_at(level: str) -> list[dict]:
    """The rows of `pmim report compositions` at bot ``level`` on the export's selection."""
    r = subprocess.run([sys.executable, "-m", "pmim_analytics", "report", "compositions", "--rules",
                        "v3,v3-llaser-rpt4", "--source", "engine", "--bot", level, "--min-games", "1", "--db",
                        os.environ["PMIM_EXPORT_DB_COPY"], "--format", "json"],
                       capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(r.stdout)["compositions"]


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
MD_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _download(page, button: str, into: Path) -> Path:  # noqa: ANN001
    """Click the download button labelled ``button`` and save what the browser receives."""
    with page.expect_download(timeout=WAIT_MS) as d:
        page.get_by_role("button", name=button, exact=True).click()
    path = into / d.value.suggested_filename
    d.value.save_as(path)
    assert d.value.failure() is None
    return path


def _png(data: bytes, name: str) -> tuple[int, int]:
    """Decode a PNG fully; its size. A rendered chart, not a blank canvas: many colours, ink on it."""
    from PIL import Image

    assert data[:8] == PNG_SIGNATURE, name
    with Image.open(io.BytesIO(data)) as img:
        img.load()  # decodes every pixel: a truncated or corrupt file raises here
        rgb = img.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20) or []
        assert len(colours) > 50, (name, len(colours))
        white = sum(n for n, c in colours if min(c) >= 250)
        assert white < 0.97 * rgb.width * rgb.height, name
        return rgb.size


def _plotly_heights(html: bytes) -> set[int]:
    """The heights a Plotly HTML figure declares (its layout's among them)."""
    return {int(h) for h in re.findall(rb'"height":\s*(\d+)', html)}


def test_export_downloads_the_note_the_report_and_png_figures(page, server: str, tmp_path: Path) -> None:  # noqa: ANN001
    from pmim_analytics.report.images import PNG_WIDTH
    from pmim_analytics.report.note import MAX_COLUMNS, QUESTIONS

    page.goto(f"{server}/export?rules=v3,v3-llaser-rpt4&source=engine")
    page.get_by_role("heading", name="Export for design notes").first.wait_for(timeout=WAIT_MS)
    page.get_by_text("Selection: rules v3, v3-llaser-rpt4; source engine").first.wait_for(timeout=WAIT_MS)
    settle(page)
    page.get_by_text("Prepare the export", exact=True).click()
    page.get_by_role("button", name="Design note (note.md)").wait_for(timeout=LONG_WAIT_MS)  # PNGs take a while
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    note_path = _download(page, "Design note (note.md)", tmp_path)
    report_path = _download(page, "Full report (report.md)", tmp_path)
    zip_path = _download(page, "Everything (zip)", tmp_path)
    png_path = _download(page, "PNG", tmp_path)  # the chart picked in "One chart"
    assert (note_path.name, report_path.name, zip_path.name) == ("note.md", "report.md", "pmim-report.zip")

    with zipfile.ZipFile(zip_path) as z:
        assert z.testzip() is None
        files = {n.removeprefix("pmim-report/"): z.read(n) for n in z.namelist()}
    note, report = note_path.read_text(encoding="utf-8"), report_path.read_text(encoding="utf-8")
    # the zip holds the very files the buttons give
    assert files["note.md"].decode("utf-8") == note and files["report.md"].decode("utf-8") == report
    assert files[f"figures/{png_path.stem}.png"] == png_path.read_bytes()

    # the selection heads both files; then the note answers the four questions in narrow tables
    for md in (note, report):
        assert md.startswith("<!-- the dashboard selection this export was made from -->\n"
                             "**Selection**: rules v3, v3-llaser-rpt4; source engine;")
        assert "**Dashboard view**: `?rules=v3%2Cv3-llaser-rpt4&source=engine`" in md
    assert "\n# PMIM design notes: v3, v3-llaser-rpt4\n" in note
    for q in QUESTIONS:
        assert f"**{q.title}**" in note
    assert re.search(r"\d+ / \d+ games", note)  # the L. Laser answer rests on paired games, both counts given
    for line in note.splitlines():
        if line.startswith("|"):
            assert line.count(" | ") + 1 <= MAX_COLUMNS, line
    assert report.startswith(note) and "\n# Appendix: the full report" in report
    assert "\n## Units" in report.split("# Appendix")[1]
    # Markdown only: no HTML a previewer would run or hide (the one comment aside), no formulas left as
    # markup, no figure loaded from the network
    for md in (note, report):
        body = md.split("\n", 1)[1]
        assert not re.search(r"<\s*/?\s*[a-zA-Z][^>]*>", body), re.search(r"<\s*/?\s*[a-zA-Z][^>]*>", body)
        assert "$$" not in body and "\\frac" not in body and "\\sqrt" not in body
        assert "cdn.plot.ly" not in body and "<script" not in body

    # every image the Markdown shows is a PNG in the zip, beside it (relative), decoding at the export's size
    images = [rel for md in (note, report) for _, rel in MD_IMAGE.findall(md)]
    assert images and all(rel.startswith("figures/") and rel.endswith(".png") for rel in images)
    for rel in set(images) | {n for n in files if n.endswith(".png")}:
        assert rel in files, rel
        width, height = _png(files[rel], rel)
        assert width == PNG_WIDTH, (rel, width)
        assert height in _plotly_heights(files[rel.removesuffix(".png") + ".html"]), (rel, height)
    for md in (note, report):
        for rel in MD_LINK.findall(md):
            assert rel.startswith(("http://", "https://", "#")) or rel in files, rel
    assert [rel for _, rel in MD_IMAGE.findall(note)] == ["figures/win_rates.png"]
    assert _png(png_path.read_bytes(), png_path.name)[0] == PNG_WIDTH

    # v3 and the variant at the one level both have, said in the figure's subtitle; the random games left out
    level = "bot level tactician, skill 1"
    assert f"Source: {level}; " in files["figures/win_rates.html"].decode("utf-8")
    assert f"**Games**: {level};" in note
    comps_csv = pl.read_csv(io.BytesIO(files["tables/compositions.csv"]))
    exported = {(r["rules_id"], r["composition"].lstrip("'")): r["games"] for r in comps_csv.iter_rows(named=True)}
    assert exported == {(x["rules_id"], x["composition"]): x["games"] for x in _compositions_at("tactician")}
    assert _compositions_at("random")  # the random games are in the database, and were left out

    # the army name a user typed stays text: no tag, no live link, no formula a spreadsheet would run
    for md in (note, report):
        assert "<img" not in md and not re.search(r"(?<!\\)\]\(http://example\.invalid\)", md)
    comps = pl.read_csv(io.BytesIO(files["tables/compositions.csv"]))
    assert f"'{HOSTILE}" in comps["composition"].to_list()  # the cell, quoted so it is never evaluated
    for name, data in files.items():
        if name.endswith(".csv"):
            table = pl.read_csv(io.BytesIO(data), infer_schema_length=0)  # every cell as text
            for col in table.columns:
                cells = table[col].drop_nulls().to_list()
                assert not any(c.startswith(("=", "+", "@")) for c in cells), (name, col)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "export.png"), full_page=True)


def test_overview_first_screen_draws_v3_and_the_variant_at_one_named_level(page, server: str) -> None:  # noqa: ANN001
    """v3 has tactician and random games, the variant tactician only: the first screen rests on
    tactician for both, says so in the sidebar, each headline and the chart's subtitle, and its
    headline counts tactician's games alone."""
    page.goto(f"{server}/")
    page.get_by_role("heading", name="Balance at a glance").first.wait_for(timeout=WAIT_MS)
    name = "tactician, skill 1"
    v3 = [r for r in _compositions_at("tactician") if r["rules_id"] == "v3" and r["games"]]
    top = max(v3, key=lambda r: (r["win_rate"], [-ord(c) for c in r["composition"]]))  # the headline's order
    items = page.locator("[data-testid='stMarkdown'] li")
    for rid in ("v3", "v3-llaser-rpt4"):
        expect(items.filter(has_text=f"{rid}:").first).to_contain_text(f"games at {name}", timeout=WAIT_MS)
    # tactician's games alone: with the random games pooled in, every v3 list would have more
    expect(items.filter(has_text="v3:").first).to_contain_text(
        f"wins {top['win_rate'] * 100:.0f}% [{top['win_lo'] * 100:.0f}, {top['win_hi'] * 100:.0f}] of {top['games']} "
        f"games at {name}", timeout=WAIT_MS)
    level_box = page.locator("[data-testid='stSidebar']").get_by_role("combobox", name="Bot level (both sides)")
    expect(level_box).to_have_value(re.compile(re.escape(name)), timeout=WAIT_MS)
    expect(page.locator(".js-plotly-plot").first).to_contain_text(f"bot level {name}", timeout=WAIT_MS)
    assert page.locator("[data-testid='stException']").count() == 0
