"""Each rule is written once; the other forms of it (the dice maths' tables) are derived
from that one and pinned to it here. The store keeps no SQL copy of a rule: the engine judges
every game the ingest does not trust (store/validate.py holds structural checks only)."""

from __future__ import annotations

import pytest

from pmim_analytics.analytics import dice
from pmim_analytics.model import combat
from pmim_analytics.model.vocab import LOCATIONS
from pmim_analytics.rules import load_rules, load_scenario, mechanics


def test_damage_is_never_negative_and_scales_with_rpt() -> None:
    assert combat.attack_damage(3, 2, 5) == 0
    assert combat.attack_damage(6, 3, 4) == 6


@pytest.mark.parametrize(("body", "lost", "dead"), [
    ("humanoid", ("LT",), False), ("humanoid", ("LT", "RT"), True), ("humanoid", ("CT",), False),
    ("avian", ("CT",), True), ("saurian", ("CT",), True), ("saurian", ("LT", "RT"), False),
])
def test_kill_conditions(body: str, lost: tuple[str, ...], dead: bool) -> None:
    hp = [0 if code in lost else 3 for code in LOCATIONS]
    assert combat.is_mech_destroyed(body, hp) is dead


def test_the_dice_maths_read_the_engine_kill_conditions() -> None:
    assert dice.KILL_CONDITIONS["humanoid"] == (("left_torso", "right_torso"),)
    assert dice.KILL_CONDITIONS["avian"] == (("center_torso",),)
    assert dice.p_hit is combat.hit_probability and dice.damage_on_hit is combat.attack_damage


def test_light_weapon_range_is_one_rule_for_the_engine_and_the_dice_table() -> None:
    v3 = load_rules("v3")
    lw = v3.special_rules.light_weapon_units
    assert lw is not None
    for w in v3.weapons:
        if w.ton <= lw.max_ton:
            for unit in lw.units:
                assert mechanics.weapon_range(v3, unit, w) == mechanics.infantry_range(v3, w) == max(0, w.rng - 1)
        else:
            assert mechanics.infantry_range(v3, w) is None


def test_victory_at_a_round_end() -> None:
    victory = load_scenario("take-and-hold").victory
    target = victory.vp_to_win
    assert mechanics.round_end_result(victory, 1, target + 1, target) == ("blue", "vp")
    assert mechanics.round_end_result(victory, 1, target, 0) is None  # more than the target is needed
    assert mechanics.round_end_result(victory, 1, target + 2, target + 2) is None  # and more than the other side
    limit = victory.round_limit
    # by default the rules' only victory is the VP one: reaching the round limit without it is a draw
    assert mechanics.round_end_result(victory, limit, 3, 5) == (None, "round_limit")
    assert mechanics.round_end_result(victory, limit - 1, 3, 5) is None
    by_vp = victory.model_copy(update={"at_round_limit": "vp"})  # the scenario option: the side ahead wins
    assert mechanics.round_end_result(by_vp, limit, 3, 5) == ("red", "round_limit")
    assert mechanics.round_end_result(by_vp, limit, 4, 4) == (None, "round_limit")


def test_deployment_rows_and_attack_limits() -> None:
    scen = load_scenario("take-and-hold")
    for side in ("blue", "red"):
        for kind in ("infantry", "vehicle", "warmech"):
            rows = mechanics.deployment_rows(scen, side, kind)
            assert len(rows) == getattr(scen.deployment.depth, kind)
            assert rows.start == 0 or rows.stop == scen.map.rows
    assert mechanics.deployment_rows(scen, 0, "vehicle") == mechanics.deployment_rows(scen, "blue", "vehicle")
    assert [mechanics.attacks_per_activation(k) for k in ("infantry", "vehicle", "warmech")] == [1, 1, 2]
