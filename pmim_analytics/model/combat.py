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
    return die1 + die2 + acc >= defence


def attack_damage(strength: int, rpt: int, arm: int) -> int:
    """Damage of one hit: (STR - ARM) x RPT, never negative."""
    per_shot = strength - arm
    return per_shot * rpt if per_shot > 0 else 0


def location_is_hittable(loc_hp: list[int], code: str) -> bool:
    """A chart entry can take the hit when the body has that location and it still has HP.

    ``loc_hp`` holds -1 for a location the body does not have (a v1 avian's arms).
    """
    return loc_hp[LOC_INDEX[code]] > 0


def is_mech_destroyed(body: str, loc_hp: list[int]) -> bool:
    """Humanoids die with both side torsos; avians and saurians with the center torso."""
    if body == "humanoid":
        return loc_hp[LT] == 0 and loc_hp[RT] == 0
    return loc_hp[CT] == 0


def is_mech_immobilized(loc_hp: list[int]) -> bool:
    """Both legs destroyed (a body whose legs are never hit simply never gets here)."""
    return loc_hp[LL] == 0 and loc_hp[RL] == 0


__all__ = ["CT", "LA", "LL", "LOCATIONS", "LOC_INDEX", "LT", "RA", "RL", "RT", "attack_damage", "hit_probability",
           "is_hit", "is_mech_destroyed", "is_mech_immobilized", "location_is_hittable", "two_d6_at_least"]
