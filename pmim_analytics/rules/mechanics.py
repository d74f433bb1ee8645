"""The rules that read a rules version's or a scenario's data, each written once.

Weapon range (with the light-weapon rule for infantry and ODA), the hit chart, deployment
zones, attacks per activation, objective scoring and the victory decision. The engine
tabulates them per game (:mod:`pmim_analytics.engine.spec`) and applies them
(:mod:`pmim_analytics.engine.state`); the dice maths (:mod:`pmim_analytics.analytics.dice`)
and the manual-log reader call the same functions. The arithmetic that needs no rules
data (damage, the attack roll, when a Warmech is destroyed) is
:mod:`pmim_analytics.model.combat`.
"""

from __future__ import annotations

from pmim_analytics.model.vocab import BLUE, LOCATION_CODES, RED, SIDES
from pmim_analytics.rules.models import LightWeaponRule, RulesVersion, Weapon
from pmim_analytics.rules.scenario import Scenario, Victory

#: Attacks a unit may make in one activation, by kind (each with a different weapon).
ATTACKS_PER_ACTIVATION: dict[str, int] = {"warmech": 2, "vehicle": 1, "infantry": 1}


def _light_range(weapon: Weapon, rule: LightWeaponRule) -> int:
    return max(0, weapon.rng - rule.rng_penalty)


def weapon_range(rules: RulesVersion, unit_code: str, weapon: Weapon) -> int:
    """The range a unit fires ``weapon`` at: its RNG, less the light-weapon penalty for
    infantry and ODA in versions that have that rule (v2, v3). v1 Small Arms keep RNG 1."""
    lw = rules.special_rules.light_weapon_units
    if lw is not None and unit_code in lw.units:
        return _light_range(weapon, lw)
    return weapon.rng


def infantry_range(rules: RulesVersion, weapon: Weapon) -> int | None:
    """The weapon's range when infantry or ODA carry it, ``None`` when they cannot carry it.

    v2/v3: weapons up to the light-weapon rule's tonnage, at its RNG penalty; v1: Small Arms only.
    """
    lw = rules.special_rules.light_weapon_units
    if lw is not None:
        return _light_range(weapon, lw) if weapon.ton <= lw.max_ton else None
    small = rules.special_rules.small_arms
    if small is not None and weapon.code == small.weapon:
        return weapon.rng
    return None


def chart_codes(rules: RulesVersion, body: str) -> tuple[str, ...]:
    """The body's hit-location chart as location codes, one per d6 face (index 0 = a roll of 1)."""
    return tuple(LOCATION_CODES[name] for name in rules.hit_charts[body])  # type: ignore[index]


def attacks_per_activation(kind: str) -> int:
    """How many attacks a unit of ``kind`` (infantry, vehicle, warmech) makes in one activation."""
    return ATTACKS_PER_ACTIVATION[kind]


def deployment_rows(scenario: Scenario, side: int | str, kind: str) -> range:
    """The rows a unit kind of a side (index or name) deploys in: the ``depth`` rows nearest its edge."""
    name = SIDES[side] if isinstance(side, int) else side
    rows = scenario.map.rows
    edge = getattr(scenario.deployment, name).edge
    depth = getattr(scenario.deployment.depth, kind)
    return range(rows - depth, rows) if edge == "south" else range(0, depth)


def in_capture_zone(scenario: Scenario, distance: int) -> bool:
    """A unit counts for an objective when it stands within the capture radius (the objective hex included)."""
    return distance <= scenario.objectives.radius


def objective_scorer(blue_holders: int, red_holders: int) -> int | None:
    """The side (index) that scores an objective at a round's end: the one with more units in its zone."""
    if blue_holders == red_holders:
        return None
    return BLUE if blue_holders > red_holders else RED


def vp_winner(victory: Victory, blue_vp: int, red_vp: int) -> str | None:
    """The side that has won on VP at a round's end: more than the VP target and more than the other side."""
    if blue_vp > victory.vp_to_win and blue_vp > red_vp:
        return "blue"
    if red_vp > victory.vp_to_win and red_vp > blue_vp:
        return "red"
    return None


def round_limit_winner(victory: Victory, blue_vp: int, red_vp: int) -> str | None:
    """Who wins a game stopped at the round limit without a VP win: nobody (a draw) by default,
    since the rules only know the VP victory; under ``at_round_limit: vp`` the side ahead on VP
    (still a draw when level)."""
    if victory.at_round_limit == "draw":
        return None
    return "blue" if blue_vp > red_vp else "red" if red_vp > blue_vp else None


def round_end_result(victory: Victory, round_no: int, blue_vp: int, red_vp: int) -> tuple[str | None, str] | None:
    """How the game stands after round ``round_no`` is scored: ``(winner, reason)`` if it is over, else ``None``."""
    winner = vp_winner(victory, blue_vp, red_vp)
    if winner is not None:
        return winner, "vp"
    if round_no >= victory.round_limit:
        return round_limit_winner(victory, blue_vp, red_vp), "round_limit"
    return None


__all__ = ["ATTACKS_PER_ACTIVATION", "attacks_per_activation", "chart_codes", "deployment_rows", "in_capture_zone",
           "infantry_range", "objective_scorer", "round_end_result", "round_limit_winner", "vp_winner",
           "weapon_range"]
