"""The optional rules in the engine, each on a small hand-checkable position.

Rolled initiative and catch-up activations (Armor Grid: Mech Attack), heat and overheating
(StarMarines battle-mech supplement), rushing (Armor Grid). See docs/rules-notes.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from pmim_analytics.engine.actions import ActivateUnit, EndActivation, FireWeapon, MoveUnit, RushUnit
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import HEAT_HIT, INITIATIVE, OVER, OVERHEAT, GameState
from pmim_analytics.errors import IllegalActionError
from pmim_analytics.model.events import (
    Activate,
    GameEnd,
    InitiativeRoll,
    LocationDestroyed,
    OverheatRoll,
    RoundStart,
    Rush,
    UnitDestroyed,
    WeaponLost,
)
from pmim_analytics.model.hexes import Hex
from pmim_analytics.rules.optional import OptionalRules
from tests.support.positions import Placed, roster

GRUMBLER: Placed = ("GR", ("HAC", "HL", "ML"), (5, 5))  # LA H. Autocannon 15t, RA H. Laser 15t, CT M. Laser 10t


def opt_position(optional: dict[str, Any], blue: list[Placed], red: list[Placed], round_no: int = 1) -> GameState:
    """A v3 position at the start of ``round_no`` under the given optional rules."""
    b, r = roster("v3", blue, "blue"), roster("v3", red, "red")
    spec = GameSpec.create("v3", "take-and-hold", b, r, optional_rules=OptionalRules.model_validate(optional))
    placements = {}
    for prefix, ros, units in (("B:", b, blue), ("R:", r, red)):
        for ru, (_, _, hex_) in zip(ros.units, units, strict=True):
            placements[prefix + ru.id] = hex_
    return GameState.from_position(spec, placements, round_no)


def heat(rating: int, **more: Any) -> dict[str, Any]:
    return {"heat": {"ratings": {"heavy": rating, "medium": rating, "light": rating, "ultralight": rating}, **more}}


def shoot(st: GameState, unit: str, mount: str, target: str, *dice: int) -> None:
    st.apply(FireWeapon(unit, mount, target))
    rest = list(dice)
    while st.roll_needed() and rest:
        need = st.roll_needed()
        st.apply_roll(tuple(rest[:need]))
        del rest[:need]
    assert not rest, f"dice left over: {rest}"


# -- rolled initiative ---------------------------------------------------------
def test_rolled_initiative_waits_for_one_die_a_side_and_the_higher_goes_first() -> None:
    st = opt_position({"rolled_initiative": {}}, [("TW", ("GG", "ML"), (5, 12))], [("TW", ("GG", "ML"), (5, 1))])
    assert st.optional_roll_kind() == INITIATIVE and st.is_chance_node()
    assert (st.roll_needed(), st.roll_sides()) == (2, 6)
    assert st.legal_actions() == [] and st.current_side() is None
    with pytest.raises(IllegalActionError, match="waiting for the initiative roll"):
        st.check(ActivateUnit("B:TW1"))
    st.apply_roll((2, 5))
    assert st.events[-2:] == [InitiativeRoll(seq=len(st.events) - 1, round=1, blue_roll=2, red_roll=5, first="red"),
                              RoundStart(seq=len(st.events), round=1, first="red")]
    assert st.current_side() == 1 and not st.is_chance_node()


def test_an_initiative_tie_is_rolled_again() -> None:
    st = opt_position({"rolled_initiative": {}}, [("IN", ("LL",), (5, 12))], [("IN", ("LL",), (5, 1))])
    st.apply_roll((4, 4))
    last = st.events[-1]
    assert isinstance(last, InitiativeRoll) and last.first is None and st.optional_roll_kind() == INITIATIVE
    st.apply_roll((6, 1))
    assert [e.type for e in st.events[-3:]] == ["initiative_roll", "initiative_roll", "round_start"]
    assert st.events[-1].first == "blue" and st.current_side() == 0  # type: ignore[attr-defined]


def test_initiative_is_rolled_again_every_round_with_the_variants_die() -> None:
    st = opt_position({"rolled_initiative": {"die": 10}}, [("IN", ("LL",), (5, 12))], [("IN", ("LL",), (5, 1))])
    assert st.roll_sides() == 10
    with pytest.raises(IllegalActionError, match="expected 2 d10"):
        st.apply_roll((11, 1))
    st.apply_roll((10, 9))  # blue first in round 1
    st.apply(ActivateUnit("B:IN1"))
    st.apply(EndActivation("B:IN1"))
    st.apply(ActivateUnit("R:IN1"))
    st.apply(EndActivation("R:IN1"))
    assert st.round == 2 and st.optional_roll_kind() == INITIATIVE
    st.apply_roll((3, 8))
    assert st.events[-1] == RoundStart(seq=len(st.events), round=2, first="red")


def test_rolled_initiative_gives_each_side_the_first_move_half_the_time() -> None:
    from pmim_analytics.engine.dice import optional_rule_dice

    st = opt_position({"rolled_initiative": {}}, [("IN", ("LL",), (5, 12))], [("IN", ("LL",), (5, 1))])
    dice = optional_rule_dice(2026, 0)
    blue_first = 0
    rounds = 10_000
    for _ in range(rounds):
        sim = st.clone()
        while sim.optional_roll_kind() == INITIATIVE:
            sim.apply_roll(dice.roll(2, sim.roll_sides()))
        blue_first += sim.current_side() == 0
    # exact chance 1/2 (15 of the 36 pairs each way, 6 ties rolled again); 4 standard errors = 0.02
    assert abs(blue_first / rounds - 0.5) < 0.02


# -- catch-up activations -------------------------------------------------------
def _activation_sides(st: GameState) -> str:
    """Play the round out, each unit ending at once; the acting sides in order (b/r)."""
    n = st.round
    while st.round == n and st.phase != OVER:
        w = next(u for u in st.side_units[st.to_act] if u.alive and not u.activated)
        st.apply(ActivateUnit(w.id))
        if st.active is not None:
            st.apply(EndActivation(w.id))
    return "".join("b" if e.unit.startswith("B") else "r" for e in st.events if isinstance(e, Activate)
                   and e.round == n)


INF = ("IN", ("LL",))


def test_a_side_with_twice_the_units_activates_two_at_each_turn() -> None:
    blue = [(*INF, (c, 12)) for c in range(4)]
    red = [(*INF, (c, 1)) for c in range(2)]
    st = opt_position({"catch_up": {}}, blue, red)  # round 1: blue first (alternate)
    assert _activation_sides(st) == "bbrbbr"


def test_short_of_twice_the_units_the_sides_alternate_as_usual() -> None:
    blue = [(*INF, (c, 12)) for c in range(3)]
    red = [(*INF, (c, 1)) for c in range(2)]
    assert _activation_sides(opt_position({"catch_up": {}}, blue, red)) == "brbrb"


def test_catch_up_also_serves_the_side_that_moves_second() -> None:
    blue = [(*INF, (c, 12)) for c in range(1)]
    red = [(*INF, (c, 1)) for c in range(3)]
    st = opt_position({"catch_up": {}}, blue, red, round_no=2)  # round 2: red first
    assert _activation_sides(st) == "rrbr"


def test_twice_as_many_is_counted_when_the_turn_begins() -> None:
    # 4 against 3: no catch-up. Blue's first unit destroys a red infantry, leaving 4 against 2:
    # red's turn is ordinary, and blue's next turn is a double one.
    blue = [("TW", ("GG", "ML"), (5, 8)), *((*INF, (c, 12)) for c in (0, 1, 2))]
    red = [(*INF, (5, 6)), (*INF, (15, 1)), (*INF, (16, 1))]
    st = opt_position({"catch_up": {}}, blue, red)
    st.apply(ActivateUnit("B:TW1"))
    shoot(st, "B:TW1", "LA", "R:IN1", 6, 6)  # Gauss Gun: 5 - 0 = 5 damage, infantry HP 4
    assert not st.unit("R:IN1").alive
    st.apply(EndActivation("B:TW1"))
    assert st.to_act == 1  # the turn that began at 4 against 3 was a single one
    assert _activation_sides(st) == "brbbrb"  # b (the kill), r, bb (4 against 2), r, b


def test_catch_up_with_a_ratio_never_reached_changes_nothing() -> None:
    blue = [(*INF, (c, 12)) for c in range(4)]
    red = [(*INF, (c, 1)) for c in range(2)]
    assert _activation_sides(opt_position({"catch_up": {"ratio": 3}}, blue, red)) == "brbrbb"


# -- heat and overheating ---------------------------------------------------------
TARGET: Placed = ("PA", ("HL", "HAC"), (5, 3))


def test_attacks_within_the_heat_rating_need_no_overheat_roll() -> None:
    st = opt_position(heat(6), [GRUMBLER], [TARGET])
    st.apply(ActivateUnit("B:GR1"))
    shoot(st, "B:GR1", "LA", "R:PA1", 1, 1)  # HAC, 3 heat: a miss, no roll
    shoot(st, "B:GR1", "RA", "R:PA1", 1, 1)  # HL, 3 more: 6, exactly the rating
    assert st.heat == 6 and not st.is_chance_node()
    assert not any(isinstance(e, OverheatRoll) for e in st.events)


def test_an_attack_above_the_rating_is_followed_by_an_overheat_roll_on_the_excess() -> None:
    st = opt_position(heat(3), [GRUMBLER], [TARGET])
    st.apply(ActivateUnit("B:GR1"))
    shoot(st, "B:GR1", "LA", "R:PA1", 1, 1)  # 3 heat: at the rating
    shoot(st, "B:GR1", "CT", "R:PA1", 1, 1)  # M. Laser, 2 heat: 5, 2 above
    assert st.optional_roll_kind() == OVERHEAT and st.roll_needed() == 1 and st.legal_actions() == []
    st.apply_roll((3,))  # 3 > 2: no overheat
    roll = st.events[-1]
    assert roll == OverheatRoll(seq=roll.seq, round=1, unit="B:GR1", weapon="ML", mount="CT", excess=2, result=3,
                                overheated=False)
    assert st.unit("B:GR1").can_use(2)


def test_an_overheated_weapon_is_destroyed_and_hits_its_own_warmech_ignoring_arm() -> None:
    st = opt_position(heat(3), [GRUMBLER], [TARGET])
    st.apply(ActivateUnit("B:GR1"))
    shoot(st, "B:GR1", "LA", "R:PA1", 1, 1)
    shoot(st, "B:GR1", "CT", "R:PA1", 1, 1, 2)  # overheat roll 2 <= excess 2
    assert st.optional_roll_kind() == HEAT_HIT
    gr = st.unit("B:GR1")
    assert not gr.can_use(2)
    st.apply_roll((1,))  # left arm: M. Laser STR 2 x RPT 2 = 4, ARM 2 ignored; the arm has 3
    lost = next(e for e in st.events if isinstance(e, WeaponLost))
    assert (lost.unit, lost.weapon, lost.mount, lost.location, lost.location_rolls, lost.damage, lost.overkill) == (
        "B:GR1", "ML", "CT", "LA", (1,), 4, 1)
    assert st.events[-1] == LocationDestroyed(seq=st.events[-1].seq, round=1, unit="B:GR1", location="LA", by=None)
    assert gr.loc_hp[0] == 0 and not gr.can_use(0) and not gr.can_use(2) and gr.can_use(1)
    st.apply(EndActivation("B:GR1"))
    for _ in range(2):  # red ends round 1, then opens round 2
        st.apply(ActivateUnit("R:PA1"))
        st.apply(EndActivation("R:PA1"))
    st.apply(ActivateUnit("B:GR1"))
    assert st.heat == 0
    with pytest.raises(IllegalActionError, match="destroyed by overheating"):
        st.check(FireWeapon("B:GR1", "CT", "R:PA1"))


def test_overheating_can_destroy_the_warmech_and_end_the_game() -> None:
    st = opt_position(heat(0, weapons={"ML": 9}), [("GR", ("HAC", "HL", "ML"), (5, 5))], [TARGET])
    gr = st.unit("B:GR1")
    gr.loc_hp[6] = 3  # center torso at 3 HP
    st.apply(ActivateUnit("B:GR1"))
    shoot(st, "B:GR1", "CT", "R:PA1", 1, 1, 6, 5)  # heat 9 above 0: overheats on anything; location 5 = CT
    kinds = [e.type for e in st.events[-4:]]
    assert kinds == ["weapon_lost", "location_destroyed", "unit_destroyed", "game_end"]
    assert st.events[-1] == GameEnd(seq=st.events[-1].seq, round=1, winner="red", reason="wipeout", rounds=1,
                                    blue_vp=0, red_vp=0)
    destroyed = next(e for e in st.events if isinstance(e, UnitDestroyed))
    assert destroyed.unit == "B:GR1" and destroyed.by is None
    assert st.result() is not None and st.result().winner == "red"  # type: ignore[union-attr]


def test_overheat_location_rolls_skip_destroyed_locations() -> None:
    st = opt_position(heat(0), [GRUMBLER], [TARGET])
    st.unit("B:GR1").loc_hp[0] = 0  # left arm gone
    st.apply(ActivateUnit("B:GR1"))
    shoot(st, "B:GR1", "RA", "R:PA1", 1, 1, 1, 1, 3)  # HL heat 3, excess 3: roll 1 overheats; LA re-rolls; LL
    lost = next(e for e in st.events if isinstance(e, WeaponLost))
    assert lost.location_rolls == (1, 3) and lost.location == "LL" and lost.damage == 4


def test_units_that_are_not_warmechs_make_no_heat() -> None:
    st = opt_position(heat(0), [("GE", ("SC",), (5, 5))], [TARGET])
    st.apply(ActivateUnit("B:GE1"))
    shoot(st, "B:GE1", "HULL", "R:PA1", 1, 1)
    assert not st.is_chance_node() and st.heat == 0


# -- rushing ------------------------------------------------------------------------
def test_a_rush_goes_up_to_twice_mov_and_forbids_attacks() -> None:
    st = opt_position({"rush": {}}, [("TW", ("GG", "ML"), (5, 10))], [TARGET])
    st.apply(ActivateUnit("B:TW1"))
    rushes = [a for a in st.legal_actions() if isinstance(a, RushUnit)]
    dists = {st.grid.dist[st.grid.index(Hex(5, 10))][st.grid.index(a.to)] for a in rushes}
    assert dists == {3, 4}  # beyond a move (MOV 2), up to twice MOV
    st.apply(RushUnit("B:TW1", Hex(5, 6)))
    assert st.events[-1] == Rush(seq=st.events[-1].seq, round=1, unit="B:TW1", from_hex=(5, 10), to_hex=(5, 6),
                                 path=4)
    assert st.active is None  # no attack allowed, nothing left: the activation ended


def test_rush_is_illegal_after_an_attack_beyond_twice_mov_and_without_the_rule() -> None:
    st = opt_position({"rush": {}}, [("TW", ("GG", "ML"), (5, 9))], [TARGET])
    st.apply(ActivateUnit("B:TW1"))
    with pytest.raises(IllegalActionError, match="cannot rush to 5,4: 5 hexes away"):
        st.check(RushUnit("B:TW1", Hex(5, 4)))
    shoot(st, "B:TW1", "LA", "R:PA1", 1, 1)  # 6 hexes, Gauss Gun range 6
    with pytest.raises(IllegalActionError, match="already attacked"):
        st.check(RushUnit("B:TW1", Hex(5, 6)))
    st.apply(MoveUnit("B:TW1", Hex(5, 7)))  # a plain move after an attack is still fine
    base = opt_position({}, [("TW", ("GG", "ML"), (5, 9))], [TARGET])
    base.apply(ActivateUnit("B:TW1"))
    assert not any(isinstance(a, RushUnit) for a in base.legal_actions())
    with pytest.raises(IllegalActionError, match="rushing is not a rule of this game"):
        base.check(RushUnit("B:TW1", Hex(5, 6)))


@pytest.mark.parametrize("bot", ["greedy", "tactician", "search"])
def test_bots_hold_fire_when_the_overheat_risk_outweighs_the_shot(bot: str) -> None:
    import random

    from pmim_analytics.engine.bots import make_bot, parse_bot_spec

    red = [("IN", ("LL",), (5, 3))]  # a 2-point infantry 2 hexes away
    # a Grumbler whose first shot already overheats on any roll (heat 9 above a rating of 0)
    risky = opt_position(heat(0, weapons={"HAC": 9, "HL": 9, "ML": 9}), [GRUMBLER], red)
    safe = opt_position({}, [GRUMBLER], red)
    for st in (risky, safe):
        st.apply(ActivateUnit("B:GR1"))
    chooser = make_bot(parse_bot_spec(bot if bot != "search" else "search:budget=20"), random.Random(1))
    assert isinstance(chooser.choose(safe), FireWeapon | MoveUnit)
    picks = []
    for _ in range(3):  # whatever the bot moves first, it never fires under that risk
        action = chooser.choose(risky)
        picks.append(action)
        if isinstance(action, FireWeapon):
            break
        risky.apply(action)
        if risky.active is None:
            break
    assert not any(isinstance(a, FireWeapon) for a in picks), picks


def test_overheat_risk_is_zero_within_the_rating_and_grows_with_the_excess() -> None:
    from pmim_analytics.engine.bots.tactics import overheat_risk

    st = opt_position(heat(3), [GRUMBLER], [TARGET])
    st.apply(ActivateUnit("B:GR1"))
    gr = st.unit("B:GR1")
    assert overheat_risk(st, gr, 0) == 0.0  # HAC: 3 heat, at the rating
    shoot(st, "B:GR1", "LA", "R:PA1", 1, 1)
    ml, hl = overheat_risk(st, gr, 2), overheat_risk(st, gr, 1)  # excess 2 (1/3) and 3 (1/2)
    assert 0 < ml < hl
    base = opt_position({}, [GRUMBLER], [TARGET])
    base.apply(ActivateUnit("B:GR1"))
    assert overheat_risk(base, base.unit("B:GR1"), 2) == 0.0


@pytest.mark.parametrize("bot", ["greedy", "tactician"])
def test_scripted_bots_rush_toward_their_objective_when_nothing_is_in_reach(bot: str) -> None:
    import random

    from pmim_analytics.engine.bots import make_bot, parse_bot_spec

    far = [("IN", ("LL",), (19, 0))]
    st = opt_position({"rush": {}}, [("TW", ("GG", "ML"), (5, 13))], far)
    chooser = make_bot(parse_bot_spec(bot), random.Random(1))
    st.apply(chooser.choose(st))  # activate
    action = chooser.choose(st)
    assert isinstance(action, RushUnit)
    assert st.grid.dist[st.grid.index(Hex(5, 13))][st.grid.index(action.to)] > 2  # beyond a plain move
    # without the rule the same bot walks
    base = opt_position({}, [("TW", ("GG", "ML"), (5, 13))], far)
    plain = make_bot(parse_bot_spec(bot), random.Random(1))
    base.apply(plain.choose(base))
    assert isinstance(plain.choose(base), MoveUnit)


@pytest.mark.parametrize("budget", [0, 20])
def test_the_search_bot_rushes_into_a_capture_zone_a_plain_move_cannot_reach(budget: int) -> None:
    import random

    from pmim_analytics.engine.bots import make_bot, parse_bot_spec

    # a Timber Wolf (MOV 2) 5 hexes from the objective at 5,6 (capture zone radius 1): a move
    # leaves it 2 hexes short, a rush (up to 4) ends in the zone; the enemy is out of every reach
    far = [("IN", ("LL",), (19, 0))]
    st = opt_position({"rush": {}}, [("TW", ("GG", "ML"), (5, 11))], far)
    chooser = make_bot(parse_bot_spec(f"search:budget={budget}"), random.Random(1))
    st.apply(chooser.choose(st))  # activate
    action = chooser.choose(st)
    assert isinstance(action, RushUnit)
    to = st.grid.index(action.to)
    assert st.grid.dist[st.grid.index(Hex(5, 11))][to] > 2  # beyond a plain move
    assert st.grid.dist[st.grid.index(Hex(5, 6))][to] <= 1  # in the capture zone
    st.apply(action)
    assert st.active is None  # nothing left to do: a rushed unit fires nothing
    # without the rule it walks toward the zone
    base = opt_position({}, [("TW", ("GG", "ML"), (5, 11))], far)
    plain = make_bot(parse_bot_spec(f"search:budget={budget}"), random.Random(1))
    base.apply(plain.choose(base))
    assert isinstance(plain.choose(base), MoveUnit)


def test_the_search_bot_fires_rather_than_rushes_when_a_kill_is_in_reach() -> None:
    import random

    from pmim_analytics.engine.bots import make_bot, parse_bot_spec

    # the same Timber Wolf, with a 2-point infantry 3 hexes away, in its Gauss gun's reach (6):
    # the shot is worth more than a zone one round early, and a rush would give it up
    st = opt_position({"rush": {}}, [("TW", ("GG", "ML"), (5, 11))], [("IN", ("LL",), (8, 11))])
    chooser = make_bot(parse_bot_spec("search:budget=0"), random.Random(1))
    st.apply(chooser.choose(st))
    picks = []
    while st.active is not None and not st.roll_needed():
        action = chooser.choose(st)
        picks.append(action)
        st.apply(action)
    assert not any(isinstance(a, RushUnit) for a in picks), picks
    assert any(isinstance(a, FireWeapon) for a in picks), picks
