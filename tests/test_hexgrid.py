"""Hex maths, the precomputed grid tables, and the fairness of the Take and Hold map."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pmim_analytics.engine.spec import BLUE, RED, build_board
from pmim_analytics.errors import PmimError
from pmim_analytics.model.hexes import Hex, HexGrid, cube_distance
from pmim_analytics.rules import load_scenario

hexes = st.builds(Hex, st.integers(-30, 30), st.integers(-30, 30))


def test_notation_round_trips() -> None:
    h = Hex.parse("5,12")
    assert h == Hex(5, 12) == (5, 12)
    assert h.format() == "5,12" and str(h) == "5,12"
    assert eval(repr(h)) == h  # noqa: S307 - repr rebuilds the value
    assert Hex.parse(" (3, 4) ") == Hex(3, 4)
    with pytest.raises(PmimError, match="'five'"):
        Hex.parse("five")


@given(hexes)
def test_offset_cube_round_trip(h: Hex) -> None:
    q, r, s = h.to_cube()
    assert q + r + s == 0
    assert Hex.from_cube((q, r, s)) == h


@given(hexes)
def test_six_neighbours_at_distance_one(h: Hex) -> None:
    ns = h.neighbours()
    assert len(set(ns)) == 6
    assert all(h.distance(n) == 1 for n in ns)


def test_odd_columns_sit_lower() -> None:
    # flat-topped odd-q: an odd column's hex touches the even-column hexes of its own row and the row below
    assert set(Hex(1, 3).neighbours()) == {Hex(1, 2), Hex(1, 4), Hex(0, 3), Hex(2, 3), Hex(0, 4), Hex(2, 4)}
    assert set(Hex(2, 3).neighbours()) == {Hex(2, 2), Hex(2, 4), Hex(1, 2), Hex(3, 2), Hex(1, 3), Hex(3, 3)}
    assert Hex(0, 0).distance(Hex(0, 13)) == 13  # a straight column runs the short way
    assert Hex(0, 0).distance(Hex(19, 0)) == 19


def test_grid_tables_match_the_maths() -> None:
    g = HexGrid(20, 14)
    assert g.size == 280
    for i in range(0, g.size, 7):
        for j in range(0, g.size, 11):
            assert g.dist[i][j] == cube_distance(g.hexes[i].to_cube(), g.hexes[j].to_cube())
    assert all(g.dist[i][n] == 1 for i in range(g.size) for n in g.neighbours[i])
    corner = g.index((0, 0))
    assert len(g.neighbours[corner]) == 2
    assert len(g.neighbours[g.index((5, 5))]) == 6
    within2 = g.within(g.index((10, 7)), 2)
    assert len(within2) == 18 and [g.dist[g.index((10, 7))][j] for j in within2] == sorted(
        g.dist[g.index((10, 7))][j] for j in within2)
    with pytest.raises(ValueError, match="off the 20x14 map"):
        g.index((20, 0))


def test_take_and_hold_is_symmetric_under_a_half_turn() -> None:
    scen = load_scenario("take-and-hold")
    board = build_board(scen)
    g = board.grid

    def turn(i: int) -> int:
        return g.index(g.rotate_half_turn(g.hexes[i]))

    # the half-turn is an isometry of the grid: every distance is kept
    assert all(g.dist[turn(i)][turn(j)] == g.dist[i][j] for i in range(g.size) for j in range(0, g.size, 3))
    # objectives map onto themselves, capture zones onto capture zones
    objectives = set(board.objectives)
    assert {turn(o) for o in objectives} == objectives and len(objectives) == 6
    zones = {h for h in range(g.size) if board.zones_of[h]}
    assert {turn(h) for h in zones} == zones
    # blue's deployment zones map onto red's, kind by kind
    for kind in ("infantry", "vehicle", "warmech"):
        blue, red = board.deploy_zone[BLUE][kind], board.deploy_zone[RED][kind]
        assert {turn(h) for h in blue} == set(red)
        # every distance from a side's zone to the objectives comes out the same
        def spread(zone: tuple[int, ...]) -> Counter:
            return Counter(g.dist[h][o] for h in zone for o in board.objectives)
        assert spread(blue) == spread(red)
        assert Counter(min(g.dist[h][o] for o in objectives) for h in blue) == Counter(
            min(g.dist[h][o] for o in objectives) for h in red)


def test_deployment_zones_are_the_rows_nearest_each_edge() -> None:
    board = build_board(load_scenario("take-and-hold"))
    rows = {side: {kind: sorted({board.grid.hexes[h].row for h in board.deploy_zone[side][kind]})
                   for kind in ("infantry", "vehicle", "warmech")} for side in (BLUE, RED)}
    assert rows[BLUE] == {"infantry": [10, 11, 12, 13], "vehicle": [12, 13], "warmech": [12, 13]}
    assert rows[RED] == {"infantry": [0, 1, 2, 3], "vehicle": [0, 1], "warmech": [0, 1]}
    assert len(board.deploy_zone[BLUE]["vehicle"]) == 40
    # the objectives lie on the centre line, and each capture zone holds 7 hexes
    assert sorted(board.grid.hexes[o].row for o in board.objectives) == [6, 6, 6, 7, 7, 7]
    assert Counter(k for h in range(board.grid.size) for k in board.zones_of[h]) == {k: 7 for k in range(6)}
