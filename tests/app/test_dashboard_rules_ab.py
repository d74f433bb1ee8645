"""The Rules A → B page: the paired change per list as `pmim report impact` prints it, the lists
left out named with their reason, and A and B in the page's address."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from pmim_analytics.analytics import impact
from tests.app.test_dashboard_app import open_page, problems


def frame_with(at, column: str):  # noqa: ANN001, ANN201 (an AppTest; a pandas frame)
    """The first table on the page with a column labelled ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_the_page_shows_the_paired_impact_of_pmim_report_impact(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    at = open_page("rules_ab", small_demo_db, monkeypatch, tmp_path)
    assert problems(at) == []
    assert (at.selectbox(key="ab_a").value, at.selectbox(key="ab_b").value) == ("v3", "v3-llaser-rpt4")
    assert at.query_params["a"] == "v3" and at.query_params["b"] == "v3-llaser-rpt4"
    out = subprocess.run([sys.executable, "-m", "pmim_analytics", "report", "impact", "--rules", "v3,v3-llaser-rpt4",
                          "--db", str(small_demo_db), "--format", "json"], capture_output=True, text=True, check=True)
    cli = json.loads(out.stdout)
    rows = pl.DataFrame(cli["compositions"])
    assert rows.height == 3
    shown = frame_with(at, "Verdict")
    for r in rows.iter_rows(named=True):
        mine = shown[shown["List"] == r["list"]].iloc[0]
        assert mine["Change (points)"] == pytest.approx(r["win_diff"] * 100)
        assert mine["95% from"] == pytest.approx(r["win_diff_lo"] * 100)
        assert mine["Verdict"] in impact.VERDICTS
        line = next(m.value for m in at.markdown if m.value.startswith(f"- {r['list']}: "))
        assert f"{r['games_a']} / {r['games_b']} paired games" in line
    assert "Rules A → B" in at.title[0].value
    assert not any(h.value.startswith("Design notes") for h in at.header)  # no stored proposal wrote B


def test_b_written_by_a_stored_proposal_shows_its_design_notes(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    from tests.report.test_design_notes import copy_with_run

    db = copy_with_run(small_demo_db, tmp_path, "v3-llaser-rpt4")
    at = open_page("rules_ab", db, monkeypatch, tmp_path)
    assert problems(at) == []
    assert [h.value for h in at.header if h.value.startswith("Design notes")] == [
        "Design notes: how the search proposed v3-llaser-rpt4"]
    text = "\n".join(m.value for m in at.markdown)
    for title in ("What changed", "Why", "What it did", "What it did not fix"):
        assert f"#### {title}" in text
    # each figure names the bot level and skill it rests on
    assert "at bot level **greedy, skill 0.75**" in text and "Held-out games at **greedy, skill 1**" in text
    assert "| Tyrant (unit) | 4 | 6 | 1 |" in text


def test_a_and_b_come_from_the_address_and_rest_on_one_bot_level(
        small_demo_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.app.test_dashboard_app import APP

    monkeypatch.setenv("PMIM_DB", str(small_demo_db))
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.switch_page("views/rules_ab.py")
    at.query_params["a"] = "v2"
    at.query_params["b"] = "v3"
    at.run()
    assert problems(at) == []
    assert (at.selectbox(key="ab_a").value, at.selectbox(key="ab_b").value) == ("v2", "v3")
    # v2 has table play only: at the default level (tactician) there is nothing to pair, said in one sentence
    assert any("v2 has no games at bot level tactician, skill 1" in i.value for i in at.info)
    assert not at.get("plotly_chart")
    at.sidebar.selectbox(key="level_filter").set_value("human").run()  # table play, under both
    assert problems(at) == []
    assert any("bot level **human (table play)**" in c.value for c in at.caption)
    assert any("only engine games are paired" in m.value for m in at.markdown)  # logged games carry no seeds


def test_a_proposal_with_no_games_yet_can_be_b_with_its_diff_notes_and_the_command_that_plays_it(
        small_demo_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.app.test_dashboard_app import APP
    from tests.report.test_design_notes import copy_with_run
    from tests.support.cli import pmim_in_process

    db = copy_with_run(small_demo_db, tmp_path, "v3-mjolnir-16")  # a variant file the demo never played
    monkeypatch.setenv("PMIM_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.switch_page("views/rules_ab.py")
    at.query_params["a"] = "v3"
    at.query_params["b"] = "v3-mjolnir-16"
    at.run()
    assert problems(at) == []
    assert (at.selectbox(key="ab_a").value, at.selectbox(key="ab_b").value) == ("v3", "v3-mjolnir-16")
    assert "v3-mjolnir-16" not in at.selectbox(key="ab_a").options  # A needs games
    assert "v3-mjolnir-16 (a proposal, no games yet)" in at.selectbox(key="ab_b").options
    diff = frame_with(at, "Change")
    assert list(diff.iloc[0][["Item", "In v3", "In v3-mjolnir-16"]]) == ["Mjolnir", "18", "16"]
    assert [h.value for h in at.header if h.value.startswith("Design notes")] == [
        "Design notes: how the search proposed v3-mjolnir-16"]
    assert "#### What it did not fix" in "\n".join(m.value for m in at.markdown)
    # the paired parts: one sentence saying B has no games, with the exact command that plays it
    [info] = [i.value for i in at.info if "has no games yet" in i.value]
    assert info.startswith("B (v3-mjolnir-16) has no games yet, so there is nothing to pair")
    assert not at.get("plotly_chart") and not any(h.value.startswith("Paired") for h in at.header)
    cmd = info.split("`")[1]
    assert cmd.startswith("pmim simulate --rules v3-mjolnir-16 --blue ") and f"--ingest --db {db}" in cmd
    # the command runs as printed, from where the dashboard runs (here 2 games, 1 worker, replays in a
    # private folder), and its games land in the database
    args = shlex.split(cmd)[1:]
    args[args.index("--games") + 1] = "2"
    args[args.index("--out") + 1] = str(tmp_path / "replays")
    r = pmim_in_process(*args, "--workers", "1")
    assert r.returncode == 0, r.stderr
    at.run()
    assert problems(at) == []
    assert at.selectbox(key="ab_b").value == "v3-mjolnir-16"
    assert not any("has no games yet" in i.value for i in at.info)
    assert any(h.value == "Paired change per list" for h in at.header)
