"""The Overview's first screen: the headline per rules id at one named bot level, the sorted
bars and the movers, checked against the composition report on the same games."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pmim_analytics.analytics import balance, tables
from pmim_analytics.store.readers import DuckDBData
from tests.app.test_dashboard_app import open_page, problems


def test_headline_names_the_level_and_matches_the_composition_report(
        small_demo_db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = open_page("overview", small_demo_db, monkeypatch, tmp_path)
    assert problems(at) == []
    assert at.header[0].value == "Balance at a glance"
    assert at.sidebar.selectbox(key="level_filter").value == "tactician"  # the demo's only level here
    report = tables.composition_report(DuckDBData(small_demo_db, ("v3",), "engine"))
    top = report.sort(["win_rate", "composition"], descending=[True, False]).row(0, named=True)
    low = report.sort("win_rate").row(0, named=True)
    want = (f"**v3**: {top['composition']} wins {top['win_rate'] * 100:.0f}% [{top['win_lo'] * 100:.0f}, "
            f"{top['win_hi'] * 100:.0f}] of {top['games']} games at tactician, skill 1; "
            f"{low['composition']} {low['win_rate'] * 100:.0f}%")
    lines = [m.value for m in at.markdown]
    assert f"- {want}" in lines, lines
    assert any(m.startswith("- **v3-llaser-rpt4**:") for m in lines)
    assert at.get("plotly_chart")
    assert at.subheader[0].value == "Movers"  # v3 is charted first: no earlier version has engine games here
    at.selectbox(key="overview_rules").set_value("v3-llaser-rpt4").run()
    assert problems(at) == []
    assert at.subheader[0].value == "Movers: v3 → v3-llaser-rpt4"
    movers = at.dataframe[0].value
    assert list(movers.columns)[:3] == ["Composition", "Games v3", "Win % v3"]
    assert len(movers) == 3  # the three lists played under both


def test_the_level_is_choose_bot_levels_the_strongest_with_enough_games() -> None:
    levels = pl.DataFrame({"rules_id": ["v3", "v3", "v3", "v2"], "source": ["engine"] * 4,
                           "level": ["tactician", "search:budget=100", "search:budget=400", "tactician"],
                           "games": [800, 120, 5, 900]})
    assert balance.pick_level(levels, ["v3"]).key == "search:budget=100"  # budget 400 has too few games
    assert balance.pick_level(levels).key == "tactician"  # the only level with games under v2 and v3
    assert balance.pick_level(levels.head(0)) is None


def test_movers_pair_compositions_by_name_with_newcombe_intervals() -> None:
    t = pl.DataFrame({"rules_id": ["v2", "v2", "v3", "v3"], "composition": ["A", "B", "A", "B"],
                      "games": [100, 100, 100, 100], "win_rate": [0.5, 0.5, 0.8, 0.45],
                      "win_lo": [0.4, 0.4, 0.71, 0.35], "win_hi": [0.6, 0.6, 0.87, 0.55]})
    m = balance.movers(t, "v3", "v2")
    assert m["composition"].to_list() == ["A", "B"]
    a = m.row(0, named=True)
    assert a["change"] == pytest.approx(0.3)
    assert a["change_lo"] == pytest.approx(0.3 - ((0.8 - 0.71) ** 2 + (0.6 - 0.5) ** 2) ** 0.5)
