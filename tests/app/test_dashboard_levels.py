"""One bot level per figure in the dashboard: the sidebar's bot level, its default (the strongest
level every rules id selected has, as ``choose_bot_level`` picks it), and the pages that rest on
it. The database is the one of ``tests/analytics/test_levels.py``: v3 at four levels (Heavy beats
Light 4 of 4 under random, greedy and tactician, 1 of 4 under search) and the L. Laser variant
at the search level only."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pmim_analytics.analytics import tables
from pmim_analytics.store.readers import DuckDBData
from tests.analytics.test_levels import level_games
from tests.app.test_dashboard_app import open_page, problems
from tests.support.dbhelper import create_db
from tests.support.gamebuilder import frames_of

SEARCH = "search:budget=0"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_db(tmp_path_factory.mktemp("dash-levels") / "pmim.duckdb", frames_of(level_games()))


def _texts(at) -> list[str]:  # noqa: ANN001
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


def test_overview_rests_on_the_level_every_rules_id_has(db: Path, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    at = open_page("overview", db, monkeypatch, tmp_path)
    assert problems(at) == []
    assert at.sidebar.selectbox(key="level_filter").value == SEARCH  # the variant has search games only
    heavy = tables.composition_report(DuckDBData(db, ("v3",), "engine", bot_level=SEARCH)).filter(
        pl.col("composition") == "Heavy").row(0, named=True)
    assert heavy["games"] == 8 and heavy["wins"] == 1  # search games alone, not the 12 weaker-level wins
    lines = _texts(at)
    assert any(t.startswith("- **v3**:") and f"at {SEARCH}, skill 1" in t for t in lines), lines
    assert any("Bot level **search:budget=0, skill 1** (both sides)" in t for t in lines), lines
    fig = at.get("plotly_chart")[0].proto.spec
    assert f"bot level {SEARCH}, skill 1; 24 games (v3: 12, v3-llaser-rpt4: 12)" in fig
    assert "Win rate by composition, v3, both sides search:budget=0, skill 1" in fig


def test_a_level_picked_in_the_sidebar_holds_on_every_page(db: Path, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    at = open_page("compositions", db, monkeypatch, tmp_path)
    assert problems(at) == []
    at.sidebar.selectbox(key="level_filter").set_value("tactician").run()
    assert problems(at) == []
    warned = [w.value for w in at.sidebar.caption]
    assert any("No games at tactician, skill 1 under v3-llaser-rpt4" in w for w in warned), warned
    assert any("bot level **tactician, skill 1**" in c for c in _texts(at))
    numbers = at.dataframe[0].value
    heavy = numbers[(numbers["Composition"] == "Heavy") & (numbers["Rules"] == "v3")].iloc[0]
    assert (heavy["Games"], heavy["Wins"]) == (4, 4)  # tactician's four games, none of the other levels
    assert "bot level tactician, skill 1; 6 games (v3: 6)" in at.get("plotly_chart")[0].proto.spec
    at.switch_page("views/units.py").run()  # the pick is kept across pages
    assert problems(at) == []
    assert at.sidebar.selectbox(key="level_filter").value == "tactician"
    assert "bot level tactician, skill 1" in at.get("plotly_chart")[0].proto.spec
