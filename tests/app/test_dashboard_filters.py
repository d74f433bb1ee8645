"""The sidebar filters persist across pages and live in the URL (AppTest; the browser test
checks the same in Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"


def _app(db: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("PMIM_DB", str(db))
    return AppTest.from_file(str(APP), default_timeout=600)


def test_filters_come_from_the_url_and_go_back_into_it(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(small_demo_db, monkeypatch)
    at.query_params["rules"] = "v3-llaser-rpt4"
    at.query_params["source"] = "engine"
    at.switch_page("views/compositions.py").run()
    assert not at.exception
    assert at.sidebar.multiselect(key="rules_filter").value == ["v3-llaser-rpt4"]
    assert at.sidebar.radio(key="source_filter").value == "engine"
    assert set(at.dataframe[0].value["Rules"]) == {"v3-llaser-rpt4"}
    at.sidebar.radio(key="source_filter").set_value("all").run()
    assert at.query_params.get("source") in (None, [], "")  # the default is left out of the URL
    assert at.query_params["rules"] in ("v3-llaser-rpt4", ["v3-llaser-rpt4"])


def test_filters_survive_a_page_change(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(small_demo_db, monkeypatch)
    at.switch_page("views/units.py").run()
    at.sidebar.multiselect(key="rules_filter").set_value(["v3"]).run()
    at.sidebar.selectbox(key="composition_filter").set_value("Fast GEV").run()
    at.switch_page("views/export.py").run()
    assert not at.exception
    assert at.sidebar.multiselect(key="rules_filter").value == ["v3"]
    assert at.sidebar.selectbox(key="composition_filter").value == "Fast GEV"
    text = " ".join(m.value for m in at.markdown)
    assert "rules v3" in text and "Fast GEV" in text  # the Export page states the selection it uses


def test_an_unknown_rules_id_in_the_url_is_ignored(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(small_demo_db, monkeypatch)
    at.query_params["rules"] = "v9,v3"
    at.query_params["composition"] = "no such list"
    at.run()
    assert not at.exception
    assert at.sidebar.multiselect(key="rules_filter").value == ["v3"]
    assert at.sidebar.selectbox(key="composition_filter").value == "(all)"


def test_the_export_file_states_its_selection(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(small_demo_db, monkeypatch)
    at.query_params["rules"] = "v3"
    at.query_params["source"] = "engine"
    at.switch_page("views/export.py").run()
    at.toggle(key="export_go").set_value(True).run()
    assert not at.exception
    # the preview of note.md: the file's head (its HTML comment hidden, as a previewer hides it)
    top = [m.value for m in at.markdown if "# PMIM design notes" in m.value][0]
    assert top.startswith("**Selection**: rules v3; source engine; all compositions.")
    assert "`?rules=v3&source=engine`" in top and "<!--" not in top


def test_a_url_naming_no_known_rules_id_selects_them_all(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _app(small_demo_db, monkeypatch)
    at.query_params["rules"] = "v9"
    at.run()
    assert not at.exception and not at.warning
    assert at.sidebar.multiselect(key="rules_filter").value == ["v2", "v3", "v3-llaser-rpt4"]
