"""``pmim export``: a one-screen note with PNG figures beside it, the appendix, the offline HTML page,
and an ``--out`` that is refused in one sentence when it cannot or should not be written."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pmim_analytics.cli import app
from pmim_analytics.report.export import ExportError, export_report
from pmim_analytics.report.images import FigureExportError, write_pngs
from pmim_analytics.report.note import MAX_COLUMNS, QUESTIONS
from tests.store.test_readers import mixed_games, paired_games
from tests.support.dbhelper import create_db
from tests.support.gamebuilder import frames_of

runner = CliRunner()
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("export") / "notes"
    result = export_report(frames_of([*mixed_games(), *paired_games()]), ["v3", "v3-llaser-rpt4"], out,
                           date="2026-11-30", html=True)
    return result, out


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, path
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_note_fits_one_screen_and_answers_the_four_questions(notes) -> None:
    result, out = notes
    note = (out / "note.md").read_text(encoding="utf-8")
    assert len(note.splitlines()) <= 60
    for q in QUESTIONS:
        assert f"**{q.title}**" in note
    # the L. Laser answer: paired games with interval and sample size, and the exact dice
    ll = note.split(f"**{QUESTIONS[0].title}**")[1].split("**")[0:3]
    assert re.search(r"\[[+-]\d+, [+-]\d+\]; \d+ / \d+ games", " ".join(ll))
    assert "Exact dice: against Infantry an L. Laser deals 2.17 expected damage per attack under v3 and 2.89" in note
    # questions whose rules ids were not exported say which --rules to add
    assert "`--rules v3,v3-heavy-def6`" in note and "`--rules v3,v3-mjolnir-16`" in note
    # heavy DEF from the dice alone: a Paladin at DEF 7 and 6
    assert "at DEF 7 (v3)" in note and "at DEF 6 (v3-heavy-def6)" in note
    for line in note.splitlines():
        if line.startswith("|"):
            assert line.count(" | ") + 1 <= MAX_COLUMNS, line


def test_the_report_is_the_note_then_the_appendix(notes) -> None:
    result, out = notes
    md = result.report.read_text(encoding="utf-8")
    note = (out / "note.md").read_text(encoding="utf-8")
    assert md.startswith(note)
    assert "# Appendix: the full report" in md and "## Units" in md.split("# Appendix")[1]


def test_every_link_resolves_and_every_figure_is_a_png(notes) -> None:
    result, out = notes
    for name in ("note.md", "report.md"):
        links = LINK.findall((out / name).read_text(encoding="utf-8"))
        images = [x for x in links if x.endswith(".png")]
        assert images, name
        for rel in links:
            assert not rel.startswith(("/", "http")), rel  # relative, so it works wherever the folder goes
            assert (out / rel).is_file(), rel
    for path in result.figures.values():
        width, height = png_size(path)
        assert width == 1000 and 200 <= height <= 4000, (path, width, height)
    assert result.figures["win_rates"].relative_to(out).as_posix() == "figures/win_rates.png"


def test_the_html_page_is_self_contained(notes) -> None:
    result, out = notes
    page = result.html.read_text(encoding="utf-8")
    head, body = page.split("</head>")
    assert "Plotly" in head and "<script src" not in head  # plotly.js itself, inline
    assert "<script src" not in body and 'src="http' not in body and "cdn.plot.ly" not in body
    assert page.count('class="plotly-graph-div"') == len(re.findall(r"!\[", result.report.read_text()))
    assert "<img" not in page  # every figure is the interactive one
    assert "Should the L. Laser fire four times (RPT 4)?" in page
    assert result.html.stat().st_size > 1_000_000  # plotly.js is inside


def test_text_in_the_html_is_not_markup(tmp_path: Path) -> None:
    from pmim_analytics.report.images import markdown_to_html

    page = markdown_to_html("**A** <script>alert(1)</script>", {}, "t")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_no_browser_is_one_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import plotly.graph_objects as go

    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-such-chromium"))
    with pytest.raises(FigureExportError, match=r"could not render the PNG figures .*--no-png"):
        write_pngs({"x": go.Figure(go.Bar(x=[1], y=[1]))}, tmp_path)


def _dropping_renderer(calls: list[list[str]], *, once: frozenset = frozenset(), always: frozenset = frozenset()):
    """Stands in for kaleido on a busy machine: a figure in ``once`` fails in its tab on the first
    call, one in ``always`` on every call, and a failed figure is left unwritten with no exception,
    as ``write_images`` does; the others are written."""
    def write_images(figs, paths, **_):
        calls.append([Path(p).stem for p in paths])
        failing = always | (once if len(calls) == 1 else frozenset())
        for path in paths:
            if Path(path).stem not in failing:
                Path(path).write_bytes(PNG_SIGNATURE)
    return write_images


def test_a_figure_the_browser_drops_is_rendered_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import plotly.graph_objects as go
    import plotly.io as pio

    calls: list[list[str]] = []
    monkeypatch.setattr(pio, "write_images", _dropping_renderer(calls, once=frozenset({"b"})))
    figs = {name: go.Figure(go.Bar(x=[1], y=[1])) for name in ("a", "b", "c")}
    paths = write_pngs(figs, tmp_path)
    assert calls == [["a", "b", "c"], ["b"]]  # the dropped one alone, once more
    assert all(paths[n].read_bytes() == PNG_SIGNATURE for n in figs)


def test_a_figure_that_never_renders_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import plotly.graph_objects as go
    import plotly.io as pio

    calls: list[list[str]] = []
    monkeypatch.setattr(pio, "write_images", _dropping_renderer(calls, always=frozenset({"c"})))
    (tmp_path / "c.png").write_bytes(PNG_SIGNATURE)  # a file from an earlier export is not taken for a new one
    figs = {name: go.Figure(go.Bar(x=[1], y=[1])) for name in ("a", "c")}
    with pytest.raises(FigureExportError, match=r"PNG figure\(s\) c after a second try"):
        write_pngs(figs, tmp_path)
    assert calls == [["a", "c"], ["c"]]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_db(tmp_path_factory.mktemp("exportdb") / "pmim.duckdb", frames_of([*mixed_games(), *paired_games()]))


def export(db: Path, out: Path, *extra: str):
    return runner.invoke(app, ["export", "--rules", "v3,v3-llaser-rpt4", "--db", str(db), "--out", str(out),
                               "--no-png", *extra])


def test_out_onto_a_file_is_refused_in_one_sentence(db: Path, tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("my notes\n")
    r = export(db, target)
    assert r.exit_code == 2
    assert "it is a file, not a folder" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert target.read_text() == "my notes\n"
    r = export(db, target / "inside")
    assert r.exit_code == 2 and "is a file, not a folder" in r.stderr and "Traceback" not in r.output


def test_an_earlier_export_is_kept_unless_forced(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "notes"
    assert export(db, out).exit_code == 0
    (out / "report.md").write_text("edited by hand\n")
    r = export(db, out)
    assert r.exit_code == 2 and "already holds an export" in r.stderr and "--force" in r.stderr
    assert (out / "report.md").read_text() == "edited by hand\n"
    r = export(db, out, "--force")
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_text().startswith("# PMIM design notes")


def test_the_library_refuses_too(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(ExportError, match="is a file, not a folder"):
        export_report(frames_of([*mixed_games(), *paired_games()]), ["v3"], tmp_path / "f", with_figures=False)


def test_html_from_the_cli(db: Path, tmp_path: Path) -> None:
    from tests.report.test_design_notes import copy_with_run

    db = copy_with_run(db, tmp_path, "v3-llaser-rpt4")  # a stored balance proposal that wrote v3-llaser-rpt4
    r = export(db, tmp_path / "n", "--html")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "n" / "report.html").is_file() and "report.html" in r.stdout
    # the note ends with the proposal's design notes, and the report and the page hold them too
    note = (tmp_path / "n" / "note.md").read_text(encoding="utf-8")
    assert "## Design notes: the proposal v3-llaser-rpt4 (from v3)" in note
    assert "### What it did not fix" in note and "at bot level **greedy, skill 0.75**" in note
    assert note in (tmp_path / "n" / "report.md").read_text(encoding="utf-8")
    assert "What it did not fix</h3>" in (tmp_path / "n" / "report.html").read_text(encoding="utf-8")
