"""Deployment, movement, activation order, objectives, VP and the end of the game."""

from __future__ import annotations

import pytest

from pmim_analytics.engine.actions import ActivateUnit, EndActivation, MoveUnit, PlaceUnit
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import BATTLE, DEPLOY, OVER, GameState
from pmim_analytics.errors import IllegalActionError
from pmim_analytics.model.events import VP, Activate, GameEnd, Move, RoundEnd, RoundStart
from pmim_analytics.model.hexes import Hex
from tests.support.positions import activate, fire, position, roster

OBJ = [(2, 7), (5, 6), (8, 7), (11, 6), (14, 7), (17, 6)]


def zone(k: int) -> list[tuple[int, int]]:
    """The objective hex and its six neighbours."""
    return [OBJ[k], *Hex(*OBJ[k]).neighbours()]


def finish_round(st: GameState) -> None:
    """Every unit activates and ends at once, in whatever order the state allows."""
    n = st.round
    while st.phase == BATTLE and st.round == n:
        if st.active is not None:
            st.apply(EndActivation(st.active.id))
        else:
            w = next(u for u in st.side_units[st.to_act] if u.alive and not u.activated)
            st.apply(ActivateUnit(w.id))


# -- deployment ---------------------------------------------------------------
def test_deployment_alternates_sides_in_any_order_within_each_zone() -> None:
    blue = roster("v3", [("TY", ("HAC",), (0, 0)), ("IN", ("LAC",), (0, 0))], "b")
    red = roster("v3", [("GE", ("SC",), (0, 0))], "r")
    st = GameState(GameSpec.create("v3", "take-and-hold", blue, red))
    assert st.phase == DEPLOY and st.current_side() == 0
    rows = {a.hex.row for a in st.legal_actions() if a.unit == "B:TY1"}
    assert rows == {12, 13} and {a.unit for a in st.legal_actions()} == {"B:TY1", "B:IN1"}  # any order
    assert [u.id for u in st.units_to_place()] == ["B:TY1", "B:IN1"]
    with pytest.raises(IllegalActionError, match="outside blue's vehicle deployment zone"):
        st.check(PlaceUnit("B:TY1", Hex(3, 11)))
    with pytest.raises(IllegalActionError, match="it is blue's turn to place"):
        st.check(PlaceUnit("R:GE1", Hex(3, 1)))
    st.check(PlaceUnit("B:IN1", Hex(3, 11)))  # the infantry may go first
    st.apply(PlaceUnit("B:TY1", Hex(3, 12)))
    assert st.current_side() == 1 and {a.hex.row for a in st.legal_actions()} == {0, 1}
    st.apply(PlaceUnit("R:GE1", Hex(3, 1)))
    assert {a.hex.row for a in st.legal_actions()} == {10, 11, 12, 13}  # infantry: four rows
    assert Hex(3, 12) not in {a.hex for a in st.legal_actions()}  # no stacking
    with pytest.raises(IllegalActionError, match="no stacking"):
        st.check(PlaceUnit("B:IN1", Hex(3, 12)))
    st.apply(PlaceUnit("B:IN1", Hex(3, 10)))  # red had nothing left to place: blue goes on
    assert st.phase == BATTLE and isinstance(st.events[-1], RoundStart) and st.events[-1].first == "blue"


def test_red_infantry_and_oda_deploy_in_the_four_northern_rows() -> None:
    st = GameState(GameSpec.create("v3", "take-and-hold", roster("v3", [("IN", ("LAC",), (0, 0))], "b"),
                                   roster("v3", [("OD", ("LPC",), (0, 0))], "r")))
    st.apply(PlaceUnit("B:IN1", Hex(0, 13)))
    assert {a.hex.row for a in st.legal_actions()} == {0, 1, 2, 3}


# -- movement -----------------------------------------------------------------
def test_moves_pass_friends_but_not_enemies_and_never_end_on_a_unit() -> None:
    # A GEV (MOV 4) in the corner: its only neighbours are (1,0), a friend, and (0,1), an enemy.
    st = position("v3", [("GE", ("SC",), (0, 0)), ("TY", ("HAC",), (1, 0))], [("TY", ("HAC",), (0, 1))])
    activate(st, "B:GE1")
    reach = {st.grid.hexes[h]: d for h, d in st.reachable(st.unit("B:GE1")).items()}
    assert Hex(1, 0) not in reach and Hex(0, 1) not in reach  # occupied: no stacking
    assert reach[Hex(2, 0)] == 2  # through the friend
    assert reach[Hex(0, 2)] == 3  # 2 hexes away, but the straight path crosses the enemy
    assert all(d <= 4 for d in reach.values())
    with pytest.raises(IllegalActionError, match="R:TY1 is there \\(no stacking\\)"):
        st.check(MoveUnit("B:GE1", Hex(0, 1)))
    with pytest.raises(IllegalActionError, match="B:TY1 is there"):
        st.check(MoveUnit("B:GE1", Hex(1, 0)))
    st.apply(MoveUnit("B:GE1", Hex(0, 2)))
    assert st.events[-1] == Move(seq=st.events[-1].seq, round=1, unit="B:GE1", from_hex=(0, 0), to_hex=(0, 2), path=3)
    with pytest.raises(IllegalActionError, match="already moved"):
        st.check(MoveUnit("B:GE1", Hex(0, 3)))


def test_enemies_can_wall_a_unit_in() -> None:
    st = position("v3", [("GE", ("SC",), (0, 0))], [("TY", ("HAC",), (0, 1)), ("TY", ("HAC",), (1, 0))])
    activate(st, "B:GE1")
    assert st.reachable(st.unit("B:GE1")) == {}
    with pytest.raises(IllegalActionError, match="every path within MOV is blocked"):
        st.check(MoveUnit("B:GE1", Hex(0, 3)))


def test_moves_are_limited_to_mov() -> None:
    st = position("v3", [("TY", ("HAC",), (5, 5))], [("TY", ("HAC",), (15, 5))])
    activate(st, "B:TY1")
    with pytest.raises(IllegalActionError, match="3 hexes away, MOV 2"):
        st.check(MoveUnit("B:TY1", Hex(5, 8)))
    assert max(st.reachable(st.unit("B:TY1")).values()) == 2
    assert len(st.reachable(st.unit("B:TY1"))) == 18


# -- activations and rounds ----------------------------------------------------
def test_sides_alternate_and_a_side_with_nobody_left_passes() -> None:
    st = position("v3", [("TY", ("HAC",), (0, 13))],
                  [("TY", ("HAC",), (19, 0)), ("TY", ("HAC",), (18, 0)), ("TY", ("HAC",), (17, 0))])
    assert st.current_side() == 0  # odd round: blue first
    st.apply(ActivateUnit("B:TY1"))
    with pytest.raises(IllegalActionError, match="B:TY1 is still active"):
        st.check(ActivateUnit("R:TY1"))
    st.apply(EndActivation("B:TY1"))
    assert st.current_side() == 1
    with pytest.raises(IllegalActionError, match="it is red's turn"):
        st.check(ActivateUnit("B:TY1"))
    st.apply(ActivateUnit("R:TY1"))
    st.apply(EndActivation("R:TY1"))
    assert st.current_side() == 1  # blue has nobody left: red continues
    with pytest.raises(IllegalActionError, match="already activated in round 1"):
        st.check(ActivateUnit("R:TY1"))
    st.apply(ActivateUnit("R:TY2"))
    st.apply(EndActivation("R:TY2"))
    st.apply(ActivateUnit("R:TY3"))
    st.apply(EndActivation("R:TY3"))
    assert st.round == 2 and st.current_side() == 1  # even round: red first
    assert [e.type for e in st.events[-2:]] == ["round_end", "round_start"]
    assert st.events[-1] == RoundStart(seq=st.events[-1].seq, round=2, first="red")
    assert sum(isinstance(e, Activate) for e in st.events) == 4


def test_a_unit_destroyed_before_it_activates_does_not_hold_up_the_round() -> None:
    st = position("v3", [("TY", ("HAC",), (5, 5))], [("BE", ("LAC",), (5, 8)), ("TY", ("HAC",), (19, 0))])
    activate(st, "B:TY1")
    fire(st, "B:TY1", "HULL", "R:BE1", 6, 6)
    st.apply(EndActivation("B:TY1"))
    st.apply(ActivateUnit("R:TY1"))
    st.apply(EndActivation("R:TY1"))
    assert st.round == 2


def test_doing_nothing_is_legal_and_a_unit_with_nothing_left_ends_its_activation() -> None:
    st = position("v3", [("TY", ("HAC",), (5, 5))], [("TY", ("HAC",), (5, 8))])
    st.apply(ActivateUnit("B:TY1"))
    assert EndActivation("B:TY1") in st.legal_actions()
    st.apply(MoveUnit("B:TY1", Hex(5, 6)))
    assert st.active is not None  # moved, can still attack
    fire(st, "B:TY1", "HULL", "R:TY1", 1, 1)
    assert st.active is None and st.current_side() == 1


# -- objectives and VP ---------------------------------------------------------
def test_vp_go_to_the_side_with_more_units_in_each_zone() -> None:
    z0, z1, z2 = zone(0), zone(1), zone(2)
    st = position(
        "v3",
        [("TY", ("HAC",), z0[0]), ("TY", ("HAC",), z0[1]), ("TY", ("HAC",), z1[0]), ("BE", ("LAC",), (10, 13))],
        [("TY", ("HAC",), z0[2]), ("TY", ("HAC",), z1[1]), ("TY", ("HAC",), z2[3]), ("BE", ("LAC",), (19, 0))],
    )
    finish_round(st)
    vps = [e for e in st.events if isinstance(e, VP)]
    assert [(e.objective, e.side) for e in vps] == [(0, "blue"), (2, "red")]  # objective 1 is tied 1-1
    assert vps[0].blue == ("B:TY1", "B:TY2") and vps[0].red == ("R:TY1",)
    assert vps[1].blue == () and vps[1].red == ("R:TY3",)
    end = next(e for e in st.events if isinstance(e, RoundEnd))
    assert (end.blue_vp, end.red_vp) == (1, 1)


def test_destroyed_units_do_not_count_but_crippled_warmechs_do() -> None:
    z = zone(0)
    st = position("v3", [("TY", ("HAC",), z[0]), ("MJ", ("GG", "HPB"), (2, 10))],
                  [("VI", ("MPC", "MAC"), z[1]), ("BE", ("LAC",), z[2]), ("TY", ("HAC",), (19, 0))])
    activate(st, "B:MJ1")
    fire(st, "B:MJ1", "LA", "R:VI1", 6, 6, 3)  # both legs of the Vinge
    fire(st, "B:MJ1", "RA", "R:VI1", 6, 6, 4)
    assert st.unit("R:VI1").immobilized
    activate(st, "B:TY1")
    fire(st, "B:TY1", "HULL", "R:BE1", 6, 6)  # the Beetle dies
    st.apply(EndActivation("B:TY1"))
    finish_round(st)
    assert [(e.objective, e.side, e.blue, e.red) for e in st.events if isinstance(e, VP)] == []  # 1 v 1
    assert st.objective_holders()[0] == (["B:TY1"], ["R:VI1"])


def _end_round_with(vp: tuple[int, int], blue_holds: int, red_holds: int, round_no: int = 1,
                    at_round_limit: str | None = None) -> GameState:
    blue = [("TY", ("HAC",), OBJ[k]) for k in range(blue_holds)] or [("TY", ("HAC",), (0, 13))]
    red = [("TY", ("HAC",), OBJ[5 - k]) for k in range(red_holds)] or [("TY", ("HAC",), (19, 0))]
    st = position("v3", blue, red, round_no, victory={"at_round_limit": at_round_limit} if at_round_limit else None)
    st.vp = list(vp)
    finish_round(st)
    return st


@pytest.mark.parametrize(
    ("vp", "blue_holds", "red_holds", "winner"),
    [
        ((10, 5), 1, 0, "blue"),  # 11 > 10 and ahead
        ((9, 5), 1, 0, None),  # 10 is not more than 10
        ((10, 10), 1, 1, None),  # 11 each: nobody is ahead
        ((10, 10), 0, 2, "red"),
        ((11, 12), 1, 0, None),  # blue 12 = red 12
        ((3, 11), 0, 0, "red"),  # already over 10 and ahead: red wins at this round's end
    ],
)
def test_victory_is_checked_at_the_end_of_each_round(vp, blue_holds, red_holds, winner) -> None:  # noqa: ANN001
    st = _end_round_with(vp, blue_holds, red_holds)
    if winner is None:
        assert st.phase == BATTLE and st.round == 2
    else:
        end = st.events[-1]
        assert isinstance(end, GameEnd) and (end.winner, end.reason, end.rounds) == (winner, "vp", 1)
        assert isinstance(st.events[-2], RoundEnd)
        assert st.result().winner == winner and st.is_terminal()


@pytest.mark.parametrize("vp", [(4, 4), (5, 4), (2, 7), (10, 3)])
def test_the_round_limit_is_a_draw_by_default(vp: tuple[int, int]) -> None:
    # nobody has more than 10 VP and more than the other at the end of round 20: a draw,
    # whoever is ahead (the victory rule names no other way to win)
    st = _end_round_with(vp, 0, 0, round_no=20)
    end = st.events[-1]
    assert isinstance(end, GameEnd)
    assert (end.winner, end.reason, end.rounds, end.blue_vp, end.red_vp) == (None, "round_limit", 20, *vp)
    assert st.phase == OVER and st.legal_actions() == []


def test_a_win_under_the_victory_rule_in_the_last_round_is_still_a_win() -> None:
    st = _end_round_with((10, 4), 1, 0, round_no=20)  # blue scores its 11th VP in round 20
    end = st.events[-1]
    assert (end.winner, end.reason, end.blue_vp) == ("blue", "vp", 11)


@pytest.mark.parametrize(("vp", "winner"), [((4, 4), None), ((5, 4), "blue"), ((2, 7), "red")])
def test_the_round_limit_option_vp_gives_the_game_to_the_side_ahead(vp: tuple[int, int], winner: str | None) -> None:
    st = _end_round_with(vp, 0, 0, round_no=20, at_round_limit="vp")
    end = st.events[-1]
    assert (end.winner, end.reason, end.rounds, end.blue_vp, end.red_vp) == (winner, "round_limit", 20, *vp)


def test_before_the_limit_play_goes_on() -> None:
    st = _end_round_with((5, 4), 0, 0, round_no=19)
    assert st.phase == BATTLE and st.round == 20


def test_a_side_that_loses_its_last_unit_loses_at_once() -> None:
    st = position("v3", [("TY", ("HAC",), (5, 5)), ("TY", ("HAC",), (6, 5))], [("BE", ("LAC",), (5, 8))])
    activate(st, "B:TY1")
    ev = fire(st, "B:TY1", "HULL", "R:BE1", 6, 6)
    assert [e.type for e in st.events[st.events.index(ev) + 1:]] == ["unit_destroyed", "game_end"]
    end = st.events[-1]
    assert (end.winner, end.reason, end.rounds) == ("blue", "wipeout", 1)
    assert st.is_terminal() and st.current_side() is None
    with pytest.raises(IllegalActionError, match="game is over"):
        st.check(ActivateUnit("B:TY2"))
