"""Plain labels: human column names and "—" for missing values, a legend under verdict words,
values on the implied-cost chart, the Compositions chart saying how many games it needs, and
every bot level in a column of its own."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
import pytest

from pmim_analytics.analytics.robustness import levels_wide
from pmim_analytics.report.dashboard_figures import implied_cost_figure
from tests.app.test_dashboard_app import open_page, problems

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "app"))
import _shared  # noqa: E402  (the app's helpers, as the pages import them)


def test_a_table_has_human_labels_and_a_dash_for_missing_values() -> None:
    df = pl.DataFrame({"rules_id": ["v3", None], "win_rate": [0.8512, None], "games": [1200, 30]})
    html = _shared.labelled(df, {"rules_id": "Rules", "win_rate": "Win %", "games": "Games"},
                            percent=("win_rate",)).to_html()
    assert "Rules" in html and "Win %" in html and "rules_id" not in html and "win_rate" not in html
    assert "85.1" in html and "1,200" in html
    assert html.count("—") == 2 and "None" not in html and "nan" not in html


def test_every_bot_level_gets_a_column_weakest_first() -> None:
    t = pl.DataFrame({"rules_id": ["v3"], "composition": ["Tank-heavy"], "flag": ["holds"],
                      "levels": ["greedy 62% [55-69] (200) | search:budget=100 85% [81-87] (560) | "
                                 "tactician 70% [60-79] (100)"]})
    wide, order = levels_wide(t, "composition")
    assert order == ["greedy", "tactician", "search:budget=100"]  # the strongest last, not cut off
    assert wide["search:budget=100"].to_list() == ["85% [81-87] (560)"]


def test_the_implied_cost_chart_prints_its_values() -> None:
    costs = pl.DataFrame({"rules_id": ["v3"], "type": ["Infantry"], "pts": [4.0], "suggested_pts": [5.25],
                          "suggested_lo": [4.5], "suggested_hi": [6.0], "verdict": ["undercosted"], "games": [300]})
    fig = implied_cost_figure(costs)
    assert fig.data[0].text == ("5.2 (now 4)",) and "text" in fig.data[0].mode


def test_compositions_says_how_many_games_the_chart_needs(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    at = open_page("compositions", small_demo_db, monkeypatch, tmp_path)
    at.sidebar.radio(key="source_filter").set_value("manual").run()
    assert problems(at) == []
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    text = chart["layout"]["annotations"][0]["text"]
    assert "needs 10 games" in text and "No games to show" not in text
    assert "Rules" in at.dataframe[0].value.columns and "rules_id" not in at.dataframe[0].value.columns
