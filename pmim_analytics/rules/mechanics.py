"""Rules that read a rules version's data, written once: weapon range and the hit chart.

The engine tabulates these per game (:mod:`pmim_analytics.engine.spec`); the dice maths,
the manual-log reader and the store's checks use the same functions. The arithmetic that
needs no rules data (damage, the attack roll, destruction) is :mod:`pmim_analytics.model.combat`.
"""

from __future__ import annotations

from pmim_analytics.model.vocab import LOCATION_CODES
from pmim_analytics.rules.models import RulesVersion, Weapon


def weapon_range(rules: RulesVersion, unit_code: str, weapon: Weapon) -> int:
    """The range a unit fires ``weapon`` at: its RNG, less the light-weapon penalty for
    infantry and ODA in versions that have that rule (v2, v3). v1 Small Arms keep RNG 1."""
    lw = rules.special_rules.light_weapon_units
    if lw is not None and unit_code in lw.units:
        return max(0, weapon.rng - lw.rng_penalty)
    return weapon.rng


def chart_codes(rules: RulesVersion, body: str) -> tuple[str, ...]:
    """The body's hit-location chart as location codes, one per d6 face (index 0 = a roll of 1)."""
    return tuple(LOCATION_CODES[name] for name in rules.hit_charts[body])


__all__ = ["chart_codes", "weapon_range"]
