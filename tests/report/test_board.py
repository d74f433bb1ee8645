"""The board figure and the viewer fold."""

from __future__ import annotations

from pmim_analytics.model.events import Attack, Deploy, Move, RoundEnd, RoundStart, UnitDestroyed
from pmim_analytics.model.hexes import Hex
from pmim_analytics.replay.fold import fold_events
from pmim_analytics.report.board import board_figure, objective_zone, zone_rows
from pmim_analytics.rules import load_scenario

SCEN = load_scenario("take-and-hold")


def test_objective_zone_is_the_hex_and_its_six_neighbours() -> None:
    for i in range(6):
        zone = objective_zone(SCEN, i)
        assert len(zone) == 7
        assert SCEN.objectives.hexes[i] in zone


def test_offset_distance_odd_q() -> None:
    assert Hex(0, 0).distance((0, 3)) == 3
    assert Hex(0, 0).distance((1, 0)) == 1  # odd column sits half a hex lower
    assert Hex(1, 0).distance((2, 0)) == 1
    assert Hex(0, 0).distance((2, 0)) == 2
    assert Hex(0, 0).distance((19, 13)) == 23  # 19 diagonal steps gain 9.5 rows, then 4 straight down


def test_deployment_rows_are_the_rows_nearest_each_edge() -> None:
    assert list(zone_rows(SCEN, "blue", "vehicle")) == [12, 13]
    assert list(zone_rows(SCEN, "red", "warmech")) == [0, 1]
    assert list(zone_rows(SCEN, "blue", "infantry")) == [10, 11, 12, 13]


def test_fold_tracks_positions_damage_and_losses() -> None:
    events = [
        Deploy(seq=1, round=0, unit="B:TW1", hex=(3, 12)), Deploy(seq=2, round=0, unit="R:IN1", hex=(3, 2)),
        RoundStart(seq=3, round=1, first="blue"),
        Move(seq=4, round=1, unit="B:TW1", from_hex=(3, 12), to_hex=(3, 10), path=2),
        Attack(seq=5, round=1, unit="B:TW1", weapon="GG", mount="LA", target="R:IN1", distance=8, roll=(6, 6),
               acc=1, needed=8, hit=True, location=None, location_rolls=(), damage=5, overkill=1),
        UnitDestroyed(seq=6, round=1, unit="R:IN1", by="B:TW1"), RoundEnd(seq=7, round=1, blue_vp=0, red_vp=0),
    ]
    mid = fold_events(["B:TW1", "R:IN1"], events, upto=4)
    assert mid.units["B:TW1"].hex == (3, 10) and not mid.units["R:IN1"].destroyed
    end = fold_events(["B:TW1", "R:IN1"], events)
    assert end.units["R:IN1"].destroyed and end.units["R:IN1"].damage_taken == 4
    assert len(end.last_attacks) == 1


def test_board_figure_draws_units_by_side() -> None:
    events = [Deploy(seq=1, round=0, unit="B:TW1", hex=(3, 12)), Deploy(seq=2, round=0, unit="R:IN1", hex=(3, 2))]
    fig = board_figure(SCEN, fold_events(["B:TW1", "R:IN1"], events))
    names = {t.name for t in fig.data}
    assert {"blue units", "red units", "objective"} <= names


def test_board_shows_coordinates_and_destroyed_units_in_their_side_colour() -> None:
    from pmim_analytics.report.board import DESTROYED_COLOURS

    events = [Deploy(seq=1, round=0, unit="B:TW1", hex=(3, 12)), Deploy(seq=2, round=0, unit="R:IN1", hex=(3, 2)),
              Deploy(seq=3, round=0, unit="B:IN1", hex=(5, 11)),
              UnitDestroyed(seq=4, round=1, unit="R:IN1", by="B:TW1"),
              UnitDestroyed(seq=5, round=1, unit="B:IN1", by=None)]
    fig = board_figure(SCEN, fold_events(["B:TW1", "R:IN1", "B:IN1"], events))
    by_name = {t.name: t for t in fig.data}
    coords = by_name["coordinates"]
    assert list(coords.text[:20]) == [str(c) for c in range(20)]  # columns along the top edge
    assert [str(r) for r in range(14)] == list(coords.text[40:54])  # rows down the left side
    assert "hex 3,12" in by_name["hex"].hovertext
    assert by_name["red units (destroyed)"].marker.color == DESTROYED_COLOURS["red"]
    assert by_name["blue units (destroyed)"].marker.color == DESTROYED_COLOURS["blue"]
    assert DESTROYED_COLOURS["red"] != DESTROYED_COLOURS["blue"]
    assert "at 3,2" in by_name["red units (destroyed)"].hovertext[0]
