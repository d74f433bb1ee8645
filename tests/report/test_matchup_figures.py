"""The dashboard's matchup figures show n and intervals on hover and flag saturated diffs."""

from __future__ import annotations

from pmim_analytics.analytics.compositions import matchup_table
from pmim_analytics.report.dashboard_figures import matchup_difference_heatmap
from pmim_analytics.report.figures import matchup_heatmap
from tests.analytics.test_compositions import cells, five_games, game


def test_heatmap_hover_has_n_and_interval() -> None:
    fig = matchup_heatmap(matchup_table(cells(five_games())), "v3", min_games=1)
    trace = fig.data[0]
    assert "n=%{customdata[0]}" in trace.hovertemplate and "customdata[1]" in trace.hovertemplate
    names = list(trace.x)
    a, b = names.index("A"), names.index("B")
    assert trace.customdata[a][b][0] == 3  # A against B: 3 games


def test_difference_heatmap_marks_saturated_cells() -> None:
    v3 = [game(f"a{i}", "A", "B", "blue", (11, 0), 5) for i in range(4)]
    var = [game(f"b{i}", "A", "B", "blue", (11, 0), 5, "v3-llaser-rpt4") for i in range(4)]
    fig = matchup_difference_heatmap(matchup_table(cells(v3 + var)), "v3", "v3-llaser-rpt4")
    trace = fig.data[0]
    names = list(trace.x)
    a, b = names.index("A"), names.index("B")
    assert trace.text[a][b] == "+0~"
    assert trace.customdata[a][b][:2] == [4, 4] and "saturated" in trace.customdata[a][b][4]
