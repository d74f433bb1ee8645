"""Attacks, pinned on hand-built positions: the roll, damage, hit locations and their effects."""

from __future__ import annotations

import pytest

from pmim_analytics.engine.actions import FireWeapon, MoveUnit
from pmim_analytics.errors import IllegalActionError
from pmim_analytics.model.events import Disarmed, Immobilized, LocationDestroyed, UnitDestroyed
from pmim_analytics.model.hexes import Hex
from pmim_analytics.rules import load_rules
from tests.support.positions import activate, fire, position, types_after

# Same column, so the distance between (5, r1) and (5, r2) is |r1 - r2|.
A, B3, B4, B5 = (5, 5), (5, 8), (5, 9), (5, 10)


@pytest.mark.parametrize(("dice", "hit"), [((3, 4), True), ((3, 3), False), ((1, 6), True), ((6, 6), True)])
def test_hit_when_2d6_plus_acc_reaches_def(dice: tuple[int, int], hit: bool) -> None:
    # HPB: ACC 1, STR 4, RPT 1; a Beetle: DEF 8, ARM 1, HP 2. 7 + 1 = 8 hits, 6 + 1 = 7 misses.
    st = position("v3", [("TY", ("HPB",), A)], [("BE", ("LAC",), B3)])
    activate(st, "B:TY1")
    ev = fire(st, "B:TY1", "HULL", "R:BE1", *dice)
    assert (ev.roll, ev.acc, ev.needed, ev.distance) == (dice, 1, 8, 3)
    assert ev.hit is hit
    if hit:
        assert (ev.damage, ev.overkill) == (3, 1)  # (4 - 1) x 1 against 2 HP left
        assert types_after(st, ev)[0] == "unit_destroyed"
        assert not st.unit("R:BE1").alive
    else:
        assert (ev.damage, ev.overkill) == (0, 0)
        assert st.unit("R:BE1").hp == 2


def test_damage_is_strength_minus_armour_times_repetitions() -> None:
    st = position("v3", [("TY", ("HAC",), A)], [("TY", ("HAC",), B4)])
    activate(st, "B:TY1")
    ev = fire(st, "B:TY1", "HULL", "R:TY1", 6, 6)
    assert (ev.damage, ev.overkill) == ((3 - 2) * 3, 0)
    assert st.unit("R:TY1").hp == 5 - 3


def test_armour_above_strength_deals_no_damage_never_negative() -> None:
    # L. Laser STR 1 against a Tyrant's ARM 2 would be (1 - 2) x 3 = -3: it is 0.
    st = position("v3", [("BE", ("LL",), A)], [("TY", ("HAC",), B4)])
    activate(st, "B:BE1")
    ev = fire(st, "B:BE1", "HULL", "R:TY1", 6, 6)
    assert ev.hit and (ev.damage, ev.overkill) == (0, 0)
    assert st.unit("R:TY1").hp == 5


def test_a_warmech_hit_rolls_a_location_even_for_no_damage() -> None:
    st = position("v3", [("BE", ("LAC",), A)], [("TW", ("GG", "ML"), B4)])
    activate(st, "B:BE1")
    ev = fire(st, "B:BE1", "HULL", "R:TW1", 6, 6, 3)  # LAC STR 2 vs ARM 2
    assert ev.hit and ev.location == "LL" and ev.location_rolls == (3,) and ev.damage == 0
    assert types_after(st, ev) == []  # no location lost
    assert st.unit("R:TW1").loc_hp[2] == 3


def test_no_location_roll_on_a_miss() -> None:
    st = position("v3", [("TY", ("HPB",), A)], [("TW", ("GG", "ML"), B4)])
    activate(st, "B:TY1")
    assert st.is_chance_node() is False
    st.apply(FireWeapon("B:TY1", "HULL", "R:TW1"))
    assert st.is_chance_node() and st.roll_needed() == 2 and st.legal_actions() == [] and st.current_side() is None
    st.apply_roll((1, 1))
    assert not st.is_chance_node()
    assert st.events[-1].location is None and st.events[-1].location_rolls == ()


def test_the_state_refuses_the_wrong_number_of_dice() -> None:
    st = position("v3", [("TY", ("HPB",), A)], [("TW", ("GG", "ML"), B4)])
    activate(st, "B:TY1")
    with pytest.raises(IllegalActionError, match="no roll"):
        st.apply_roll((3, 3))
    st.apply(FireWeapon("B:TY1", "HULL", "R:TW1"))
    with pytest.raises(IllegalActionError, match="expected 2"):
        st.apply_roll((3,))
    with pytest.raises(IllegalActionError, match="expected 2"):
        st.apply_roll((3, 7))


def test_destroyed_location_is_rerolled_and_excess_damage_is_lost() -> None:
    # GG: STR 5 - ARM 2 = 3 against a Timber Wolf arm of 2 HP: 1 overkill, nothing passes on.
    st = position("v3", [("TW", ("GG", "ML"), A)], [("TW", ("GG", "ML"), B4)])
    activate(st, "B:TW1")
    ev = fire(st, "B:TW1", "LA", "R:TW1", 6, 6, 1)
    assert (ev.location, ev.damage, ev.overkill) == ("LA", 3, 1)
    red = st.unit("R:TW1")
    assert red.loc_hp == [0, 2, 3, 3, 3, 3, -1]
    assert types_after(st, ev) == ["location_destroyed"]
    ev2 = fire(st, "B:TW1", "RA", "R:TW1", 6, 6, 1, 1, 5)  # two rolls on the lost arm, then left torso
    assert ev2.location_rolls == (1, 1, 5) and ev2.location == "LT" and ev2.damage == 0  # ML STR 2 vs ARM 2


def test_v1_and_v2_avian_arm_rolls_are_rerolled_and_legs_never_hit() -> None:
    for rules in ("v1", "v2"):
        chart = load_rules(rules).hit_charts["avian"]
        assert "left_arm" in chart and "left_leg" not in chart and "right_leg" not in chart
    # v1 Mastodon with H. Autocannon (ACC 2, STR 3, RPT 2) on a Corvus (ARM 1): 4 damage.
    st = position("v1", [("TY", ("HAC",), A)], [("CO", ("SC",), B3)])
    activate(st, "B:TY1")
    ev = fire(st, "B:TY1", "HULL", "R:CO1", 6, 6, 1, 2, 4)
    assert ev.location_rolls == (1, 2, 4) and ev.location == "RT"
    assert (ev.damage, ev.overkill) == (4, 2)


def test_v3_avian_chart_hits_legs() -> None:
    st = position("v3", [("TY", ("HAC",), A)], [("CO", ("SC",), B3)])
    activate(st, "B:TY1")
    ev = fire(st, "B:TY1", "HULL", "R:CO1", 6, 6, 1)
    assert ev.location == "LL" and ev.location_rolls == (1,)


def _two_hits(rules: str, target: tuple, first: int, second: int) -> tuple:
    """A Mjolnir (GG + HPB) hits ``target`` on the two given chart faces."""
    st = position(rules, [("MJ", ("GG", "HPB"), A)], [target])
    activate(st, "B:MJ1")
    tid = st.units[1].id
    a = fire(st, "B:MJ1", "LA", tid, 6, 6, first)
    b = fire(st, "B:MJ1", "RA", tid, 6, 6, second)
    return st, a, b


def test_both_legs_destroyed_immobilize() -> None:
    st, _, b = _two_hits("v3", ("VI", ("MPC", "MAC"), B4), 3, 4)  # Vinge legs: 2 HP each
    red = st.unit("R:VI1")
    assert red.alive and red.immobilized
    assert types_after(st, b) == ["location_destroyed", "immobilized"]
    assert st.events[-1] == Immobilized(seq=st.events[-1].seq, round=1, unit="R:VI1", by="B:MJ1")
    st.to_act = 1
    activate(st, "R:VI1")
    assert not any(isinstance(a, MoveUnit) for a in st.legal_actions())
    with pytest.raises(IllegalActionError, match="immobilized"):
        st.check(MoveUnit("R:VI1", Hex(5, 10)))


def test_both_side_torsos_destroy_a_humanoid() -> None:
    st, a, b = _two_hits("v3", ("VI", ("MPC", "MAC"), B4), 5, 6)
    assert types_after(st, a)[0] == "location_destroyed"
    assert types_after(st, b)[:2] == ["location_destroyed", "unit_destroyed"]
    assert not st.unit("R:VI1").alive
    assert st.occ[st.grid.index(B4)] == -1


def test_one_side_torso_is_not_enough() -> None:
    st, _, _ = _two_hits("v3", ("VI", ("MPC", "MAC"), B4), 5, 1)
    assert st.unit("R:VI1").alive


def test_center_torso_destroys_avians_and_saurians() -> None:
    # Corvus CT 6: two Mjolnir hits of 4 and 3 on ARM 1.
    st, a, b = _two_hits("v3", ("CO", ("SC",), B4), 5, 6)
    assert types_after(st, a)[0] == "attack"  # 4 damage: the center torso stands
    assert types_after(st, b) == ["location_destroyed", "unit_destroyed", "game_end"]  # the last red unit
    assert st.events[-2] == UnitDestroyed(seq=st.events[-2].seq, round=1, unit="R:CO1", by="B:MJ1")
    # a Terrier (saurian, CT 4, ARM 1): one GG hit of 4 on the center torso.
    st = position("v3", [("MJ", ("GG", "HPB"), A)], [("TE", ("LAC", "LAC", "LAC"), B4)])
    activate(st, "B:MJ1")
    ev = fire(st, "B:MJ1", "LA", "R:TE1", 6, 6, 6)
    assert types_after(st, ev) == ["location_destroyed", "unit_destroyed", "game_end"]


def test_both_arms_destroyed_disarm_a_humanoid_that_still_holds_ground() -> None:
    st, _, b = _two_hits("v3", ("VI", ("MPC", "MAC"), (2, 7)), 1, 2)  # on objective 0
    red = st.unit("R:VI1")
    assert red.alive and red.disarmed and not red.immobilized
    assert isinstance(st.events[-1], Disarmed)
    assert st.objective_holders()[0] == ([], ["R:VI1"])
    st.to_act = 1
    activate(st, "R:VI1")
    assert st.fireable_mounts(red) == []
    assert not any(isinstance(a, FireWeapon) for a in st.legal_actions())


def test_a_saurian_without_arms_keeps_its_torso_gun() -> None:
    st = position("v3", [("MJ", ("GG", "HPB"), A)], [("GN", ("MAC", "MAC", "ML"), B4)])
    activate(st, "B:MJ1")
    fire(st, "B:MJ1", "LA", "R:GN1", 6, 6, 1)
    fire(st, "B:MJ1", "RA", "R:GN1", 6, 6, 2)
    red = st.unit("R:GN1")
    assert red.loc_hp[0] == red.loc_hp[1] == 0 and not red.disarmed
    assert not any(isinstance(e, Disarmed) for e in st.events)


def test_a_weapon_is_lost_with_its_location() -> None:
    st = position("v3", [("TY", ("HPB",), A), ("TY", ("HPB",), (6, 5))], [("TW", ("GG", "ML"), B4)])
    activate(st, "B:TY1")
    fire(st, "B:TY1", "HULL", "R:TW1", 6, 6, 1)
    assert isinstance(st.events[-1], LocationDestroyed) and st.events[-1].location == "LA"
    st.to_act = 1
    activate(st, "R:TW1")
    with pytest.raises(IllegalActionError, match="LA weapon: that location is destroyed"):
        st.check(FireWeapon("R:TW1", "LA", "B:TY1"))
    st.check(FireWeapon("R:TW1", "RA", "B:TY1"))


def test_warmech_attacks_twice_with_different_weapons_in_any_order() -> None:
    st = position("v3", [("VI", ("MAC", "MAC"), A)], [("TY", ("HAC",), B3), ("TY", ("HAC",), (6, 8))])
    activate(st, "B:VI1")
    fire(st, "B:VI1", "LA", "R:TY1", 1, 1)
    with pytest.raises(IllegalActionError, match="already fired its LA"):
        st.check(FireWeapon("B:VI1", "LA", "R:TY2"))
    st.apply(MoveUnit("B:VI1", Hex(5, 6)))  # attack, move, attack
    fire(st, "B:VI1", "RA", "R:TY2", 1, 1)  # the same gun type on the other arm is another weapon
    assert st.active is None  # moved and fired twice: nothing left, the activation is over
    kinds = [e.type for e in st.events if e.round == 1 and e.type != "round_start"]
    assert kinds == ["activate", "attack", "move", "attack"]


def test_a_warmech_may_not_attack_a_third_time() -> None:
    st = position("v3", [("GN", ("MAC", "MAC", "ML"), A)], [("TY", ("HAC",), B3)])
    activate(st, "B:GN1")
    fire(st, "B:GN1", "LA", "R:TY1", 1, 1)
    fire(st, "B:GN1", "RA", "R:TY1", 1, 1)
    with pytest.raises(IllegalActionError, match="already made 2 attack"):
        st.check(FireWeapon("B:GN1", "CT", "R:TY1"))


def test_a_basic_unit_attacks_once_and_moves_once_in_either_order() -> None:
    st = position("v3", [("TY", ("HAC",), A)], [("TY", ("HAC",), B3)])
    activate(st, "B:TY1")
    fire(st, "B:TY1", "HULL", "R:TY1", 1, 1)
    with pytest.raises(IllegalActionError, match="already made 1 attack"):
        st.check(FireWeapon("B:TY1", "HULL", "R:TY1"))
    assert st.active is not None  # it may still move
    st.apply(MoveUnit("B:TY1", Hex(5, 4)))
    assert st.active is None


def test_range_is_counted_in_hexes_up_to_rng() -> None:
    st = position("v3", [("BE", ("LAC",), A)], [("TY", ("HAC",), B4), ("TY", ("HAC",), (5, 10))])
    activate(st, "B:BE1")
    st.check(FireWeapon("B:BE1", "HULL", "R:TY1"))  # 4 hexes, LAC RNG 4
    with pytest.raises(IllegalActionError, match="5 hexes away, LAC range 4"):
        st.check(FireWeapon("B:BE1", "HULL", "R:TY2"))


@pytest.mark.parametrize("rules", ["v2", "v3"])
def test_infantry_and_oda_fire_at_rng_minus_one_from_v2(rules: str) -> None:
    st = position(rules, [("IN", ("LAC",), A), ("OD", ("LAC",), (6, 5))],
                  [("TY", ("HAC",), (5, 8)), ("TY", ("HAC",), (6, 9))])
    assert st.unit("B:IN1").p.mounts[0].rng == 3 and st.unit("B:OD1").p.mounts[0].rng == 3
    activate(st, "B:IN1")
    st.check(FireWeapon("B:IN1", "HULL", "R:TY1"))  # 3 hexes
    with pytest.raises(IllegalActionError, match="4 hexes away, LAC range 3"):
        st.check(FireWeapon("B:IN1", "HULL", "R:TY2"))


def test_v1_infantry_small_arms_keep_rng_one() -> None:
    st = position("v1", [("IN", ("SA",), A)], [("IN", ("SA",), (5, 6)), ("IN", ("SA",), (5, 7))])
    assert st.unit("B:IN1").p.mounts[0].rng == 1
    activate(st, "B:IN1")
    ev = fire(st, "B:IN1", "HULL", "R:IN1", 3, 3)  # SA: ACC 2, STR 2 vs infantry DEF 8, ARM 0
    assert ev.hit and ev.damage == 2
    with pytest.raises(IllegalActionError, match="already made"):
        st.check(FireWeapon("B:IN1", "HULL", "R:IN2"))
    st2 = position("v1", [("IN", ("SA",), A)], [("IN", ("SA",), (5, 7))])
    activate(st2, "B:IN1")
    with pytest.raises(IllegalActionError, match="2 hexes away, SA range 1"):
        st2.check(FireWeapon("B:IN1", "HULL", "R:IN1"))


@pytest.mark.parametrize(("rules", "rng", "hit"), [("v1", 4, True), ("v2", 5, False), ("v3", 5, False)])
def test_versions_differ_in_the_light_laser(rules: str, rng: int, hit: bool) -> None:
    # v1: L. Laser RNG 4 ACC 4; v2/v3: RNG 5 ACC 2. A roll of 2+2 hits DEF 8 only in v1.
    st = position(rules, [("BE", ("LL",), A)], [("IN", (("SA",) if rules == "v1" else ("LAC",)), (5, 5 + rng))])
    activate(st, "B:BE1")
    ev = fire(st, "B:BE1", "HULL", "R:IN1", 2, 2)
    assert ev.distance == rng and ev.hit is hit
    if hit:
        assert ev.damage == 3  # (1 - 0) x 3


@pytest.mark.parametrize(("rules", "survives"), [("v2", True), ("v3", False)])
def test_v3_beetle_has_two_hp_where_v2_had_three(rules: str, survives: bool) -> None:
    st = position(rules, [("MA", ("LPB",), A)], [("BE", ("LAC",), B3)])
    activate(st, "B:MA1")
    ev = fire(st, "B:MA1", "HULL", "R:BE1", 6, 6)  # L. Particle: (3 - 1) x 1 = 2
    assert ev.damage == 2
    assert st.unit("R:BE1").alive is survives
    assert st.unit("R:BE1").hp == (1 if survives else 0)


@pytest.mark.parametrize(("rules", "defence"), [("v1", 9), ("v2", 8), ("v3", 8)])
def test_gev_defence_by_version(rules: str, defence: int) -> None:
    gev_weapon = "SC"
    st = position(rules, [("TY", ("HAC",), A)], [("GE", (gev_weapon,), B3)])
    activate(st, "B:TY1")
    ev = fire(st, "B:TY1", "HULL", "R:GE1", 1, 1)
    assert ev.needed == defence


@pytest.mark.parametrize(("dice", "hit"), [((3, 5), True), ((2, 5), False), ((6, 6), True), ((1, 1), False)])
@pytest.mark.parametrize(("target", "damage", "overkill"), [("IN", 6, 2), ("OD", 5, 1)])
def test_heavy_plasma_cannon_against_infantry_needs_8_on_2d6(dice: tuple[int, int], hit: bool, target: str,
                                                              damage: int, overkill: int) -> None:
    # HPC: RNG 2, ACC 0, RPT 1, STR 6; Infantry DEF 8 ARM 0 HP 4, ODA DEF 8 ARM 1 HP 4. No modifier
    # of any kind: 8 or more hits (15 of the 36 rolls), and a hit destroys either.
    st = position("v3", [("TY", ("HPC",), A)], [(target, ("LAC",), (5, 7))])
    activate(st, "B:TY1")
    ev = fire(st, "B:TY1", "HULL", f"R:{target}1", *dice)
    assert (ev.weapon, ev.roll, ev.acc, ev.needed, ev.distance, ev.hit) == ("HPC", dice, 0, 8, 2, hit)
    assert (ev.damage, ev.overkill) == ((damage, overkill) if hit else (0, 0))
    assert st.unit(f"R:{target}1").alive is not hit
