"""The arithmetic of an attack, as pure functions on numbers: the one home of these rules.

Nothing here keeps state or reads a rules version: the engine resolves attacks with these
functions, ``pmim replay verify`` checks recorded attacks against the very same ones, and
the dice maths of the analytics derive their exact probabilities from them. What depends on
a rules version's data (weapon ranges, hit charts) is :mod:`pmim_analytics.rules.mechanics`.
"""

from __future__ import annotations

from fractions import Fraction

from pmim_analytics.model.vocab import LOC_INDEX, LOCATIONS

LA, RA, LL, RL, LT, RT, CT = range(7)
assert LOCATIONS[CT] == "CT" and LOCATIONS[LT] == "LT"

#: Number of ways two d6 sum to at least n, for n = 0..14 (out of 36).
_WAYS_AT_LEAST: tuple[int, ...] = tuple(
    sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= n) for n in range(15)
)


def two_d6_at_least(n: int) -> Fraction:
    """Exact probability that 2d6 rolls ``n`` or more."""
    if n <= 2:
        return Fraction(1)
    if n > 12:
        return Fraction(0)
    return Fraction(_WAYS_AT_LEAST[n], 36)


def hit_probability(acc: int, defence: int) -> Fraction:
    """Exact chance that ``2d6 + acc >= defence``."""
    return two_d6_at_least(defence - acc)


def is_hit(die1: int, die2: int, acc: int, defence: int) -> bool:
    """The attack roll: two d6 plus the weapon's ACC hit when they reach the target's DEF."""
    return roll_hits(die1 + die2, acc, defence)


def roll_hits(total: int, acc: int, defence: int) -> bool:
    """:func:`is_hit` from the total of the two dice (what a player may write down)."""
    return total + acc >= defence


def attack_damage(strength: int, rpt: int, arm: int) -> int:
    """Damage of one hit: (STR - ARM) x RPT, never negative."""
    per_shot = strength - arm
    return per_shot * rpt if per_shot > 0 else 0


def absorb(left: int, damage: int) -> tuple[int, int]:
    """Damage taken by a unit's (or a location's) ``left`` HP: ``(HP left after, overkill)``.
    HP never go below 0; the damage beyond what was left is overkill, and is lost."""
    return (left - damage if damage < left else 0), (damage - left if damage > left else 0)


def hit_result(left: int, damage: int) -> tuple[int, int, bool]:
    """A hit of ``damage`` on a unit's (or a location's) ``left`` HP: the HP left, the overkill
    (:func:`absorb`), and whether the hit took the last of them, which destroys the unit (a basic
    unit) or the location (a Warmech's; :func:`location_loss_follows` says what that leads to)."""
    after, overkill = absorb(left, damage)
    return after, overkill, left > 0 and after == 0


def location_is_hittable(loc_hp: list[int], code: str) -> bool:
    """A chart entry can take the hit when the body has that location and it still has HP.

    ``loc_hp`` holds -1 for a location the body does not have (a v1 avian's arms).
    """
    return loc_hp[LOC_INDEX[code]] > 0


#: How each body type dies: the Warmech is destroyed when every location of any one set
#: is. A humanoid needs both side torsos; avians and saurians their center torso.
KILL_CONDITIONS: dict[str, tuple[tuple[str, ...], ...]] = {
    "humanoid": (("LT", "RT"),),
    "avian": (("CT",),),
    "saurian": (("CT",),),
}
#: The locations whose loss immobilizes a Warmech: both legs.
IMMOBILIZING: tuple[str, ...] = ("LL", "RL")
_KILL_INDEX: dict[str, tuple[tuple[int, ...], ...]] = {
    body: tuple(tuple(LOC_INDEX[c] for c in cond) for cond in conds) for body, conds in KILL_CONDITIONS.items()
}
_IMMOBILIZING_INDEX: tuple[int, ...] = tuple(LOC_INDEX[c] for c in IMMOBILIZING)


def is_mech_destroyed(body: str, loc_hp: list[int] | tuple[int, ...]) -> bool:
    """Whether a Warmech of ``body`` with these location HP (in :data:`LOCATIONS` order) is destroyed."""
    return any(all(loc_hp[i] == 0 for i in cond) for cond in _KILL_INDEX[body])


def is_mech_immobilized(loc_hp: list[int] | tuple[int, ...]) -> bool:
    """Both legs destroyed (a body whose legs are never hit simply never gets here)."""
    return all(loc_hp[i] == 0 for i in _IMMOBILIZING_INDEX)


def is_disarmed(mount_lost: list[bool] | tuple[bool, ...]) -> bool:
    """A Warmech is disarmed when every one of its weapon mounts is lost (``mount_lost[m]``
    for each mount; one carrying no weapon at all counts as disarmed)."""
    return all(mount_lost)


def location_loss_follows(body: str, loc_hp: list[int] | tuple[int, ...], immobilized: bool, disarmed: bool,
                          mount_lost: list[bool] | tuple[bool, ...]) -> tuple[str, ...]:
    """What a Warmech's loss (a location destroyed, or a weapon lost to overheating) leads to, in
    the order the events come: ``("unit_destroyed",)`` when the body is destroyed; otherwise
    ``"immobilized"`` and then ``"disarmed"``, each when it newly holds (``immobilized`` and
    ``disarmed`` say what held before). ``loc_hp`` in :data:`LOCATIONS` order; ``mount_lost[m]``
    for each weapon mount."""
    if is_mech_destroyed(body, loc_hp):
        return ("unit_destroyed",)
    out: tuple[str, ...] = ()
    if not immobilized and is_mech_immobilized(loc_hp):
        out += ("immobilized",)
    if not disarmed and is_disarmed(mount_lost):
        out += ("disarmed",)
    return out


__all__ = ["CT", "IMMOBILIZING", "KILL_CONDITIONS", "LA", "LL", "LOCATIONS", "LOC_INDEX", "LT", "RA", "RL", "RT",
           "absorb", "attack_damage", "hit_result", "hit_probability", "is_disarmed", "is_hit", "is_mech_destroyed",
           "is_mech_immobilized", "location_is_hittable", "location_loss_follows", "roll_hits", "two_d6_at_least"]
