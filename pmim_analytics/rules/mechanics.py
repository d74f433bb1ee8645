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

from fractions import Fraction

from pmim_analytics.model.vocab import BLUE, LOCATION_CODES, RED, SIDES
from pmim_analytics.rules.models import BodyType, LightWeaponRule, RulesVersion, Weapon
from pmim_analytics.rules.optional import CatchUpRule, RushRule
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


def chart_codes(rules: RulesVersion, body: BodyType) -> tuple[str, ...]:
    """The body's hit-location chart as location codes, one per d6 face (index 0 = a roll of 1)."""
    return tuple(LOCATION_CODES[name] for name in rules.hit_charts[body])


def attacks_per_activation(kind: str) -> int:
    """How many attacks a unit of ``kind`` (infantry, vehicle, warmech) makes in one activation."""
    return ATTACKS_PER_ACTIVATION[kind]


def attacks_left(max_attacks: int, made: int, rushed: bool) -> int:
    """The attacks a unit may still make this activation: its number per activation less those
    made, and none after a rush (a rush gives up the activation's attacks; see :func:`may_rush`)."""
    if rushed or made >= max_attacks:
        return 0
    return max_attacks - made


def may_rush(attacks_made: int) -> bool:
    """A rush gives up the activation's attacks, so a unit that has attacked may not rush."""
    return attacks_made == 0


def deployment_rows(scenario: Scenario, side: int | str, kind: str) -> range:
    """The rows a unit kind of a side (index or name) deploys in: the ``depth`` rows nearest its edge."""
    name = SIDES[side] if isinstance(side, int) else side
    rows = scenario.map.rows
    edge = getattr(scenario.deployment, name).edge
    depth = getattr(scenario.deployment.depth, kind)
    return range(rows - depth, rows) if edge == "south" else range(0, depth)


def hit_needed(defence: int, hit: str = "at_least") -> int:
    """The number 2d6 + ACC must reach to hit a unit of DEF ``defence`` under the ``hit``
    reading (docs/rules-notes.md, "Readings in doubt"): DEF itself under ``at_least`` (v2
    and v3 say a roll equal to DEF hits), one more under ``beat`` (v1's wording, the roll
    must exceed DEF). Attack events record this number as ``needed``."""
    if hit == "at_least":
        return defence
    if hit == "beat":
        return defence + 1
    raise ValueError(f"unknown hit reading {hit!r}")


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


def rounds_left(victory: Victory, round_no: int) -> int:
    """The rounds the scenario's round limit leaves after round ``round_no``: 0 in the last round,
    negative past it (a round the game never reaches)."""
    return victory.round_limit - round_no


def is_wiped_out(living: int) -> bool:
    """A side with no unit left has lost at once (a wipeout)."""
    return living <= 0


def round_end_result(victory: Victory, round_no: int, blue_vp: int, red_vp: int) -> tuple[str | None, str] | None:
    """How the game stands after round ``round_no`` is scored: ``(winner, reason)`` if it is over, else ``None``."""
    winner = vp_winner(victory, blue_vp, red_vp)
    if winner is not None:
        return winner, "vp"
    if rounds_left(victory, round_no) <= 0:
        return round_limit_winner(victory, blue_vp, red_vp), "round_limit"
    return None


# ----------------------------------------------------------------- optional rules
# Each optional rule of a variant (pmim_analytics.rules.optional) is decided here, once; the
# engine applies these, the verifier replays them, the dice maths counts with them.
# docs/rules-notes.md, "Optional rules", says what each source says and what PMIM adapts.

#: The die of the overheat roll.
OVERHEAT_DIE = 6


def heat_rating(rules: RulesVersion, warmech_code: str) -> int | None:
    """A Warmech's heat rating under ``rules`` (``None`` when heat is off)."""
    heat = rules.optional.heat
    return None if heat is None else heat.rating_of(rules, warmech_code)


def weapon_heat(rules: RulesVersion, weapon_code: str) -> int:
    """The heat one attack with ``weapon_code`` adds to its Warmech's activation (0 when heat is off)."""
    heat = rules.optional.heat
    return 0 if heat is None else heat.heat_of(rules, weapon_code)


def activation_heat(heat_so_far: int, attack_heat: int, rating: int) -> tuple[int, int]:
    """Heat per activation: an attack adds its weapon's heat to what the Warmech's activation
    has made so far. Returns the new total and its excess over the rating (the overheat roll's
    target; 0 at or within the rating, when no roll is made)."""
    heat = heat_so_far + attack_heat
    return heat, overheat_excess(heat, rating)


def overheat_excess(heat: int, rating: int) -> int:
    """How far an activation's heat so far stands above the rating (0 at or below it): the
    overheat roll's target. It is cumulative: it counts all the heat of the activation."""
    return max(0, heat - rating)


def is_overheated(roll: int, excess: int) -> bool:
    """An attack that leaves the Warmech ``excess`` above its rating overheats its weapon on a
    d6 roll at or below ``excess`` (no roll, no overheat, at or below the rating)."""
    return excess > 0 and roll <= excess


def overheat_chance(excess: int) -> Fraction:
    """The exact chance that the overheat roll at ``excess`` overheats the weapon."""
    return Fraction(min(max(excess, 0), OVERHEAT_DIE), OVERHEAT_DIE)


def overheat_damage(strength: int, rpt: int) -> int:
    """The damage an overheated weapon does to its own Warmech: a hit that ignores ARM, STR x RPT."""
    return max(0, strength) * rpt


def firing_sequence_overheat(rating: int, heats: list[int] | tuple[int, ...]) -> list[tuple[int, Fraction]]:
    """For weapons fired in order in one activation (their heat costs), the excess after each
    and the exact chance its overheat roll overheats (0 where no roll is made).

    The rolls are independent; the excess keeps growing whether or not an earlier weapon
    overheated (heat already made stays made).
    """
    out: list[tuple[int, Fraction]] = []
    total = 0
    for h in heats:
        total, excess = activation_heat(total, h, rating)
        out.append((excess, overheat_chance(excess)))
    return out


def initiative_first(blue_roll: int, red_roll: int) -> int | None:
    """Rolled initiative: the side (index) with the higher roll goes first; ``None`` on a tie (roll again)."""
    if blue_roll == red_roll:
        return None
    return BLUE if blue_roll > red_roll else RED


def activations_per_turn(rule: CatchUpRule | None, own_living: int, other_living: int) -> int:
    """Catch-up activations: how many units a side activates in the turn it is starting.

    With the rule on, a side with at least ``ratio`` times as many living units as the other
    activates ``activations`` units; otherwise one. Counted when the side's turn begins.
    """
    if rule is None or other_living <= 0 or own_living < rule.ratio * other_living:
        return 1
    return rule.activations


def first_side(first_player: str, round_no: int, first_in_round_1: int | None = None) -> int | None:
    """Who activates first in a round under a scenario's ``first_player`` setting.

    ``alternate``: blue in odd rounds, red in even ones; ``blue``/``red``: that side in every
    round; ``random``: ``first_in_round_1`` (the side a die drew) in odd rounds, the other
    side in even ones, ``None`` before the draw.
    """
    if first_player == "alternate":
        return BLUE if round_no % 2 == 1 else RED
    if first_player == "random":
        if first_in_round_1 is None:
            return None
        return first_in_round_1 if round_no % 2 == 1 else 1 - first_in_round_1
    return BLUE if first_player == "blue" else RED


def next_turn(rule: CatchUpRule | None, side: int, turn_left: int, waiting: list[int] | tuple[int, ...],
              living: list[int] | tuple[int, ...]) -> tuple[int, int] | None:
    """Whose turn it is once ``side`` ends an activation, with ``turn_left`` activations left
    in its turn (counting that one): the same side while its catch-up turn goes on, else the
    other side, else (the other has no unit left to activate: it passes) the same side again;
    ``None`` when no unit of either side is left to activate (the round ends). ``waiting``:
    each side's living units not yet activated this round; ``living``: each side's living
    units (for the catch-up count of the turn that begins). Returns the side and the
    activations in its turn."""
    if turn_left > 1 and waiting[side] > 0:  # catch-up: the turn's next activation
        return side, turn_left - 1
    for nxt in (1 - side, side):
        if waiting[nxt] > 0:
            return nxt, activations_per_turn(rule, living[nxt], living[1 - nxt])
    return None


def rush_distance(rule: RushRule | None, mov: int) -> int:
    """How far a unit may rush: ``factor`` x MOV (0, no rushing, when the rule is off)."""
    return 0 if rule is None else rule.factor * mov


__all__ = ["ATTACKS_PER_ACTIVATION", "OVERHEAT_DIE", "activation_heat", "activations_per_turn", "attacks_left",
           "may_rush", "firing_sequence_overheat",
           "heat_rating", "initiative_first", "is_overheated", "overheat_chance", "overheat_damage",
           "overheat_excess", "rush_distance", "weapon_heat", "attacks_per_activation", "chart_codes",
           "deployment_rows", "hit_needed", "in_capture_zone",
           "infantry_range", "is_wiped_out", "first_side", "next_turn", "objective_scorer", "rounds_left",
           "round_end_result",
           "round_limit_winner", "vp_winner", "weapon_range"]
