"""The export: Markdown report, CSV/Parquet tables, figures, and the summary's signals."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pmim_analytics.analytics import tables
from pmim_analytics.analytics.dataset import FrameData
from pmim_analytics.analytics.dice import dice_table
from pmim_analytics.analytics.frames import Frames
from pmim_analytics.botlab.synthetic_costs import synthetic_cost_frames
from pmim_analytics.errors import StoreError
from pmim_analytics.report import figures
from pmim_analytics.report.export import export_report
from pmim_analytics.report.markdown import Col, field, markdown_table, pct, text
from pmim_analytics.rules import load_rules
from tests.store.test_readers import mixed_games
from tests.support.gamebuilder import frames_of


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("notes")
    return export_report(frames_of(mixed_games()), ["v3", "v3-llaser-rpt4"], out, date="2026-11-30"), out


def test_report_has_every_section_and_its_provenance(exported) -> None:
    result, out = exported
    md = result.report.read_text()
    for heading in ("## Summary: the biggest balance signals", "## The playtest's open questions", "## Units",
                    "## Weapons: observed against the dice", "### Dice maths, v3", "## Compositions",
                    "### Side and first-player advantage", "## Rules impact: v3 → v3-llaser-rpt4",
                    "## Implied point costs", "## Luck", "## Game quality"):
        assert heading in md, heading
    assert "rows tested, p per row" in md.split("## Weapons")[1].split("### Dice maths")[0]
    prov = result.provenance
    assert prov.games == 15 and prov.games_by_rules == {"v3": 14, "v3-llaser-rpt4": 1}
    caption = ("bot level greedy, skill 1; 15 games (v3: 14, v3-llaser-rpt4: 1); database " + prov.content_hash[:12]
               + "; generated 2026-11-30")
    assert caption in md
    assert md.count("_Source: " + caption) == len(result.figures) + 1  # the header and every figure
    assert "| weapon | L. Laser | RPT | 3 | 4 |" in md  # the rules diff beside the impact


def test_every_table_is_written_as_csv_and_parquet(exported) -> None:
    result, out = exported
    assert {"units", "weapons", "compositions", "matchups", "costs", "luck_summary", "quality_outcomes",
            "impact_compositions_v3_v3-llaser-rpt4", "dice_v3"} <= set(result.tables)
    for name, csv in result.tables.items():
        parquet = csv.with_suffix(".parquet")
        assert csv.exists() and parquet.exists(), name
        back = pl.read_parquet(parquet)
        if back.height:
            assert_frame_equal(pl.read_csv(csv, infer_schema_length=None).select(back.columns[:1]),
                               back.select(back.columns[:1]), check_dtypes=False)
    units = pl.read_parquet(result.tables["units"].with_suffix(".parquet"))
    assert units.filter(pl.col("code") == "TW")["kills"].max() > 0


def test_figures_are_written_as_png_and_html(exported) -> None:
    result, out = exported
    assert {"win_rates", "hit_rates", "vp_by_round", "matchups_v3", "survival_v3", "dice_v3"} <= set(result.figures)
    for path in result.figures.values():
        assert path.suffix == ".png" and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        html = path.with_suffix(".html").read_text()
        assert "plotly" in html and path.with_suffix(".html").stat().st_size < 200_000  # plotly.js from the CDN


def test_no_games_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no games to report on for rules v2"):
        export_report(frames_of(mixed_games()), ["v2"], tmp_path)


def test_a_planted_imbalance_reaches_the_summary(tmp_path: Path) -> None:
    result = export_report(synthetic_cost_frames(3000, seed=7), ["v3"], tmp_path, with_figures=False)
    summary = result.report.read_text().split("## The playtest")[0]
    assert "**Timber Wolf** (v3) looks undercosted" in summary


def test_markdown_tables() -> None:
    df = pl.DataFrame({"name": ["a|b", "c"], "share": [0.5, None]})
    cols = [Col("name", text("name"), "left"), Col("share", field("share", pct))]
    assert markdown_table(df, cols) == "| name | share |\n|---|---:|\n| a\\|b | 50% |\n| c |  |\n"
    assert "1 more rows in the CSV" in markdown_table(df, cols, max_rows=1)
    assert markdown_table(df.clear(), cols) == "_No data._\n"


def fig_data() -> FrameData:
    return FrameData(frames_of(mixed_games()))


def test_figures_are_labelled_and_use_side_colours() -> None:
    data = fig_data()
    prov = data.provenance()
    q = tables.quality_report(data)
    vp = figures.vp_by_round_figure(q.vp_by_round, prov)
    colours = {t.name.split(",")[0]: t.line.color for t in vp.data}
    assert colours == {"blue": figures.SIDE_COLOURS["blue"], "red": figures.SIDE_COLOURS["red"]}
    assert vp.layout.xaxis.title.text == "round" and "victory points" in vp.layout.yaxis.title.text
    assert vp.layout.title.subtitle.text.startswith("Source: every bot level; 15 games")  # no level chosen

    assert figures.win_rate_figure(tables.composition_report(data), prov).data == ()  # all under 10 games
    win = figures.win_rate_figure(tables.composition_report(data), prov, min_games=1)
    assert "Win rate" in win.layout.title.text and "Wilson" in win.layout.xaxis.title.text
    assert all(t.error_x.array is not None for t in win.data)

    heat = figures.matchup_heatmap(tables.matchup_report(data), "v3", prov, min_games=1)
    assert heat.data[0].zmid == 50 and heat.layout.yaxis.title.text == "composition"

    km = figures.km_figure(tables.survival_report(data), "v3", prov)
    curves = [t for t in km.data if t.showlegend is not False]
    assert {t.name for t in curves} == {"Timber Wolf", "Infantry", "Tyrant"}
    assert all(t.line.shape == "hv" for t in km.data)
    assert sum(t.fill == "tonexty" for t in km.data) == 3  # a 95% band under each curve
    assert all("at risk" in t.hovertemplate and "customdata[1]" in t.hovertemplate for t in curves)

    dice = figures.dice_heatmap(dice_table(load_rules("v3")))
    assert dice.layout.xaxis.title.text == "target" and len(dice.data[0].y) == len(load_rules("v3").weapons)

    hits = figures.hit_rate_figure(tables.weapon_report(data), prov)
    assert hits.data[-1].name == "as expected"


def test_figures_of_nothing_say_so() -> None:
    empty = FrameData(Frames.of())
    fig = figures.win_rate_figure(tables.composition_report(empty))
    assert fig.layout.annotations[0].text == "No games to show"
