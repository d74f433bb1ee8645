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
        Deploy(1, 0, "B:TW1", (3, 12)), Deploy(2, 0, "R:IN1", (3, 2)),
        RoundStart(3, 1, "blue"), Move(4, 1, "B:TW1", (3, 12), (3, 10), 2),
        Attack(5, 1, "B:TW1", "GG", "LA", "R:IN1", 8, (6, 6), 1, 8, True, None, (), 5, 1),
        UnitDestroyed(6, 1, "R:IN1", "B:TW1"), RoundEnd(7, 1, 0, 0),
    ]
    mid = fold_events(["B:TW1", "R:IN1"], events, upto=4)
    assert mid.units["B:TW1"].hex == (3, 10) and not mid.units["R:IN1"].destroyed
    end = fold_events(["B:TW1", "R:IN1"], events)
    assert end.units["R:IN1"].destroyed and end.units["R:IN1"].damage_taken == 4
    assert len(end.last_attacks) == 1


def test_board_figure_draws_units_by_side() -> None:
    events = [Deploy(1, 0, "B:TW1", (3, 12)), Deploy(2, 0, "R:IN1", (3, 2))]
    fig = board_figure(SCEN, fold_events(["B:TW1", "R:IN1"], events))
    names = {t.name for t in fig.data}
    assert {"blue units", "red units", "objective"} <= names
