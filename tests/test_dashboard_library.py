"""The library parts the dashboard stands on: stored games, viewer steps, summary-form logs, figures."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pmim_analytics.analytics import tables
from pmim_analytics.errors import StoreError
from pmim_analytics.model.events import Activate, Deploy, GameEnd, RoundEnd, RoundStart, UnitDestroyed
from pmim_analytics.replay.manual import parse_log
from pmim_analytics.replay.manual.summary_form import SummaryForm, format_summary_log, inline_army
from pmim_analytics.replay.show import describe_event
from pmim_analytics.replay.steps import has_positions, iter_steps, round_vp
from pmim_analytics.report.dashboard_figures import (
    game_vp_figure,
    games_figure,
    implied_cost_figure,
    length_figure,
    matchup_difference_heatmap,
    unit_metric_figure,
)
from pmim_analytics.rules import data_dir, load_army
from pmim_analytics.store.games import list_games, read_stored_game, selection_choices
from pmim_analytics.store.readers import DuckDBData


def test_list_and_read_stored_games(small_demo_db: Path) -> None:
    games = list_games(small_demo_db)
    assert games.height == 36 + 4  # 2 rules ids x 3 pairings x 6 games, and the four logs
    v3 = list_games(small_demo_db, ["v3"], "engine", "Fast GEV")
    assert v3.height == 12 and set(v3["rules_id"]) == {"v3"}
    assert all("Fast GEV" in (b, r) for b, r in v3.select("blue", "red").iter_rows())
    choices = selection_choices(small_demo_db)
    assert choices["rules_ids"] == ["v2", "v3", "v3-llaser-rpt4"] and choices["sources"] == ["engine", "manual"]
    game = read_stored_game(v3["game_id"][0], small_demo_db)
    assert len(game.events) == game.info["n_events"] and isinstance(game.events[-1], GameEnd)
    assert [e.seq for e in game.events] == sorted(e.seq for e in game.events)
    uid, utype = game.units.filter(pl.col("side") == "blue").select("unit_id", "type").row(0)
    assert uid.startswith("B:") and game.unit_labels[uid].startswith(utype + " (")


def test_reading_a_missing_game_or_database_says_so(small_demo_db: Path, tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no game 'nope'"):
        read_stored_game("nope", small_demo_db)
    with pytest.raises(StoreError, match="no database"):
        list_games(tmp_path / "none.duckdb")


def test_steps_cut_an_engine_game_at_activations_and_scoring(small_demo_db: Path) -> None:
    gid = list_games(small_demo_db, source="engine", limit=1)["game_id"][0]
    events = read_stored_game(gid, small_demo_db).events
    steps = iter_steps(events)
    assert steps[0].label == "Deployment" and all(isinstance(events[i], Deploy) for i in range(steps[0].last + 1))
    assert steps[-1].label == "Game over"
    # every event belongs to exactly one step, in order
    assert [i for s in steps for i in range(s.first, s.last + 1)] == list(range(len(events)))
    activations = sum(isinstance(e, Activate) for e in events)
    scorings = sum(isinstance(e, RoundEnd) for e in events)
    assert len(steps) == 1 + activations + scorings + 1
    assert round_vp(events)[-1][1:] == (events[-1].blue_vp, events[-1].red_vp)
    assert has_positions(events)


def test_steps_of_a_summary_log_without_rounds() -> None:
    events = (UnitDestroyed(1, None, "B:TW1", None), GameEnd(2, None, "red", "manual", None, None, None))
    steps = iter_steps(events)
    assert [s.label for s in steps] == ["No round given: logged events", "Game over"]
    assert not has_positions(events) and round_vp(events) == []
    assert iter_steps(()) == []
    assert describe_event(events[1]) == "Game over (rounds not logged): red wins (logged result) (VP not logged)"
    assert describe_event(RoundStart(3, 2, "blue")) == "Round 2 (blue activates first)"


def test_a_summary_form_becomes_a_valid_log_and_errors_name_the_line() -> None:
    army = load_army(data_dir() / "armies" / "v3-balanced.yaml")
    form = SummaryForm("v3", inline_army(army), "v3-tank-heavy", "blue", "vp", 11, 7, 8, ("R4 B:GE1", "R:TY1"),
                       "2025-06-21", "Ann", "Bob", "Balanced, typed in")
    text = format_summary_log(form)
    game, errors = parse_log(text, "form", strict=False)
    assert errors == [] and game is not None
    assert game.header.sides["blue"].points == 72 and game.header.sides["blue"].name == "Balanced, typed in"
    assert game.events[-1].winner == "blue" and (game.events[-1].blue_vp, game.events[-1].red_vp) == (11, 7)
    bad = format_summary_log(SummaryForm("v3", "v3-balanced", "v3-tank-heavy", "blue", "vp", 11, 7,
                                         destroyed=("R:ZZ9",)))
    _, errors = parse_log(bad, "form", strict=False)
    line = bad.splitlines().index("R:ZZ9 destroyed") + 1
    assert [e.where.line for e in errors] == [line] and "R:ZZ9" in errors[0].message


def test_dashboard_figures_have_titles_axes_and_data(small_demo_db: Path) -> None:
    data = DuckDBData(small_demo_db)
    diff = matchup_difference_heatmap(tables.matchup_report(data), "v3", "v3-llaser-rpt4")
    assert "v3 to v3-llaser-rpt4" in diff.layout.title.text and diff.data[0].z is not None
    assert diff.layout.xaxis.title.text == "opponent composition"
    units = unit_metric_figure(tables.unit_report(data), "damage_per_pt", "damage_per_pt_ci", "Damage per point",
                               "damage per point")
    assert {t.name for t in units.data} == {"rules v3", "rules v3-llaser-rpt4"}
    lengths = length_figure(tables.quality_report(data).lengths)
    assert sum(sum(t.y) for t in lengths.data) == pytest.approx(200)  # two rules ids, 100% each
    vp = game_vp_figure([(1, 0, 2), (2, 3, 4)], 2)
    assert [t.name for t in vp.data] == ["blue", "red"] and vp.data[0].line.color != vp.data[1].line.color
    assert "not logged" in game_vp_figure([]).layout.annotations[0].text + game_vp_figure([]).layout.title.text
    assert [t.name for t in games_figure([("engine", "v3", 10), ("manual", "v2", 2)]).data] == [
        "engine games", "manual games"]
    empty = implied_cost_figure(tables.cost_report(data).table.clear())
    assert "cannot price" in empty.layout.title.text
