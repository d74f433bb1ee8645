"""Random legal army lists, for sweeps that must vary what armies field.

A fixed set of lists compares the lists, not the units in them: to estimate what a unit
type is worth (implied point costs) the games must mix unit types in many proportions.
:func:`random_army` draws a legal list for a rules version and scenario: the scenario's
Warmechs with a random legal loadout each, then basic units with a legal weapon until no
further unit fits the points limit.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import product

from pmim_analytics.rules.army import ArmyEntry, ArmyList, unit_points
from pmim_analytics.rules.catalogue import DEFAULT_SCENARIO, load_rules, load_scenario
from pmim_analytics.rules.models import BODY_MOUNTS, Chassis, RulesVersion, Warmech


@cache
def warmech_loadouts(rules_id: str, code: str) -> tuple[tuple[str, ...], ...]:
    """Every legal weapon list (mount order) for a Warmech: the right count, tonnage = SPT."""
    rules = load_rules(rules_id)
    mech = next(m for m in rules.warmechs if m.code == code)
    banned = {rules.special_rules.small_arms.weapon} if rules.special_rules.small_arms else set()
    weapons = [w for w in rules.weapons if w.code not in banned and w.ton <= mech.spt]
    n = len(BODY_MOUNTS[mech.body])
    return tuple(tuple(w.code for w in combo) for combo in product(weapons, repeat=n)
                 if sum(w.ton for w in combo) == mech.spt)


def basic_weapons(rules: RulesVersion, unit: Chassis) -> tuple[str, ...]:
    """The weapons a basic unit may carry under ``rules``."""
    sa, lw = rules.special_rules.small_arms, rules.special_rules.light_weapon_units
    if sa and unit.code in sa.units:
        return (sa.weapon,)
    if lw and unit.code in lw.units:
        return tuple(w.code for w in rules.weapons if w.ton == lw.max_ton)
    banned = {sa.weapon} if sa else set()
    return tuple(w.code for w in rules.weapons if w.ton == unit.spt and w.code not in banned)


def random_army(rules_id: str, rng: random.Random, scenario_id: str = DEFAULT_SCENARIO, name: str | None = None,
                budget: int | None = None, rules: RulesVersion | None = None) -> ArmyList:
    """A random army list that :func:`~pmim_analytics.rules.army.validate_army` accepts.

    It spends up to ``budget`` points (default: the scenario's limit; a smaller budget gives
    a smaller army, still legal since the limit is a maximum). ``rules`` prices the units
    instead of ``rules_id``'s own table (a candidate points table with the same units and
    weapons, as ``pmim balance propose`` tries): the list is legal at those prices. Raises
    ``ValueError`` when the budget cannot buy the scenario's Warmechs.
    """
    scenario = load_scenario(scenario_id)
    rules = load_rules(rules_id) if rules is None else rules
    budget = scenario.points_limit if budget is None else min(budget, scenario.points_limit)
    entries: list[ArmyEntry] = []
    weapons = {w.code: w for w in rules.weapons}

    def loadout_pts(codes: tuple[str, ...]) -> int:
        return sum(weapons[c].pts for c in codes)

    # a Warmech's cheapest price with a legal loadout (its own points when weapons cost nothing)
    lowest = {m.code: m.pts + min(loadout_pts(lo) for lo in warmech_loadouts(rules_id, m.code))
              for m in rules.warmechs if warmech_loadouts(rules_id, m.code)}
    usable = [m for m in rules.warmechs if m.code in lowest]
    cheapest_mech = min(lowest[m.code] for m in usable)
    if cheapest_mech * scenario.warmechs > budget:
        raise ValueError(f"{budget} points cannot buy {scenario.warmechs} Warmechs in {rules_id}")
    mechs: list[Warmech] = []
    for k in range(scenario.warmechs):
        still_to_pick = scenario.warmechs - k - 1
        left = budget - sum(lowest[m.code] for m in mechs) - still_to_pick * cheapest_mech
        mechs.append(rng.choice([m for m in usable if lowest[m.code] <= left]))
    spent = 0
    for k, m in enumerate(mechs):
        room = budget - spent - m.pts - sum(lowest[x.code] for x in mechs[k + 1:])
        loadout = rng.choice([lo for lo in warmech_loadouts(rules_id, m.code) if loadout_pts(lo) <= room])
        spent += m.pts + loadout_pts(loadout)
        entries.append(ArmyEntry(type=m.name, weapons=loadout))
    left = budget - spent
    while True:
        options = [(c, code, unit_points(rules, c, [weapons[code]])) for c in rules.chassis
                   for code in basic_weapons(rules, c)]
        options = [o for o in options if o[2] <= left]
        if not options:
            break
        unit = rng.choice(sorted({c.code: c for c, _, _ in options}.values(), key=lambda c: c.code))
        code, cost = rng.choice([(w, p) for c, w, p in options if c.code == unit.code])
        entries.append(ArmyEntry(type=unit.name, weapons=(code,)))
        left -= cost
    return ArmyList(name=name or f"random {rng.randrange(16**6):06x}", rules=rules_id, units=tuple(entries))
