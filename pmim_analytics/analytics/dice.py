"""Exact dice maths ("mathhammer") for a rules version: 2d6 to hit, damage, attacks to kill.

Everything is a :class:`fractions.Fraction`; nothing is simulated. The rules themselves
(the attack roll, damage, kill conditions, ranges) are the engine's:
:mod:`pmim_analytics.model.combat` and :mod:`pmim_analytics.rules.mechanics`; this module
only adds up their consequences.

* An attack hits when ``2d6 + ACC >= DEF``; ``P(hit)`` counts the 36 equally likely rolls.
* A hit deals ``max(0, STR - ARM) * RPT`` damage.
* A basic unit with ``HP`` dies after ``ceil(HP / damage)`` hits.
* A Warmech's hits land on the location its body's d6 chart names; a face naming a
  destroyed or absent location is re-rolled, so each hit lands uniformly on the faces
  still live. It is destroyed when its kill condition holds: both side torsos gone
  (humanoid) or the center torso gone (avian, saurian). The expected number of hits to
  destroy it is computed exactly over the Markov chain of hits still needed per location
  (damage beyond a location's HP is lost, as the rules say). ``min_hits_to_kill`` is the
  cheapest kill condition when every hit lands where it is needed.
* Attacks to kill = hits to kill / P(hit): every attack hits independently, so the number
  of attacks per hit is geometric with mean ``1 / P(hit)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import ceil

import polars as pl

from pmim_analytics.model.combat import KILL_CONDITIONS as KILL_CODES
from pmim_analytics.model.combat import attack_damage, hit_probability, two_d6_at_least
from pmim_analytics.model.vocab import LOCATION_BY_CODE
from pmim_analytics.rules.mechanics import firing_sequence_overheat, infantry_range
from pmim_analytics.rules.models import BODY_LOCATIONS, Chassis, RulesVersion, Warmech

#: Each body's kill conditions (:data:`pmim_analytics.model.combat.KILL_CONDITIONS`) in the
#: rules files' location names: the Warmech is destroyed when every location of any one set is.
KILL_CONDITIONS: dict[str, tuple[tuple[str, ...], ...]] = {
    body: tuple(tuple(LOCATION_BY_CODE[c] for c in cond) for cond in conds) for body, conds in KILL_CODES.items()
}
#: The engine's functions under the names this module has always offered.
p_at_least = two_d6_at_least
p_hit = hit_probability
damage_on_hit = attack_damage


def min_hits_to_kill(target: Chassis | Warmech, damage: int) -> int | None:
    """Fewest hits that can destroy ``target`` (``None`` when a hit does no damage)."""
    if damage <= 0:
        return None
    if isinstance(target, Chassis):
        return ceil(target.hp / damage)
    hp = target.location_hp()
    return min(sum(ceil(hp[loc] / damage) for loc in cond) for cond in KILL_CONDITIONS[target.body])


def hit_chain(target: Warmech, damage: int, chart: tuple[str, ...] | None) -> tuple[
        tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The Warmech's hits-to-kill chain: (location index of each chart face, -1 for a face the
    body lacks; the kill conditions as location indexes; hits each location takes to destroy).

    Raises ``ValueError`` without a chart.
    """
    if chart is None:
        raise ValueError(f"{target.name} is a Warmech: pass its body's hit chart")
    locs = BODY_LOCATIONS[target.body]
    hp = target.location_hp()
    start = tuple(ceil(hp[loc] / damage) for loc in locs)
    faces = tuple(locs.index(loc) if loc in locs else -1 for loc in chart)
    kills = tuple(tuple(locs.index(loc) for loc in cond) for cond in KILL_CONDITIONS[target.body])
    return faces, kills, start


def expected_hits_to_kill(target: Chassis | Warmech, damage: int, chart: tuple[str, ...] | None = None) -> (
        Fraction | None):
    """Exact expected number of hits to destroy ``target`` (``None`` when a hit does no damage).

    ``chart`` is the body's six-face hit-location chart (required for a Warmech).
    """
    if damage <= 0:
        return None
    if isinstance(target, Chassis):
        return Fraction(ceil(target.hp / damage))
    return _markov_hits(*hit_chain(target, damage, chart))


@cache
def _markov_hits(faces: tuple[int, ...], kills: tuple[tuple[int, ...], ...], start: tuple[int, ...]) -> Fraction:
    """E[hits until a kill set is all zero], each hit removing one from a live face's location."""
    memo: dict[tuple[int, ...], Fraction] = {}

    def expect(state: tuple[int, ...]) -> Fraction:
        if any(all(state[i] == 0 for i in cond) for cond in kills):
            return Fraction(0)
        if state in memo:
            return memo[state]
        live = [i for i in faces if i >= 0 and state[i] > 0]
        if not live:
            raise ValueError("no live hit location left on a Warmech that is not destroyed")
        total = Fraction(0)
        for i in live:
            nxt = state[:i] + (state[i] - 1,) + state[i + 1:]
            total += expect(nxt)
        memo[state] = 1 + total / len(live)
        return memo[state]

    return expect(start)


@dataclass(frozen=True)
class DiceRow:
    """One weapon against one target type, exactly."""

    rules_id: str
    weapon: str
    weapon_name: str
    rng: int
    rng_infantry: int | None
    acc: int
    rpt: int
    strength: int
    target_code: str
    target: str
    target_kind: str
    defense: int
    arm: int
    target_hp: int
    roll_needed: int  # the 2d6 total needed: DEF - ACC
    p_hit: Fraction
    damage_on_hit: int
    expected_damage: Fraction  # per attack
    min_hits_to_kill: int | None
    expected_hits_to_kill: Fraction | None
    expected_attacks_to_kill: Fraction | None


def dice_rows(rules: RulesVersion, target: str | None = None, weapon: str | None = None) -> list[DiceRow]:
    """Every weapon against every unit type of ``rules`` (or only ``target`` / ``weapon``, by code)."""
    rows = []
    for w in rules.weapons:
        if weapon is not None and w.code != weapon:
            continue
        for u in rules.iter_units():
            if target is not None and u.code != target:
                continue
            p = p_hit(w.acc, u.def_)
            dmg = damage_on_hit(w.strength, w.rpt, u.arm)
            chart = rules.hit_charts[u.body] if isinstance(u, Warmech) else None
            hits = expected_hits_to_kill(u, dmg, chart)
            hp = sum(u.location_hp().values()) if isinstance(u, Warmech) else u.hp
            rows.append(DiceRow(
                rules_id=rules.id, weapon=w.code, weapon_name=w.name, rng=w.rng,
                rng_infantry=infantry_range(rules, w), acc=w.acc, rpt=w.rpt, strength=w.strength,
                target_code=u.code, target=u.name, target_kind=u.kind, defense=u.def_, arm=u.arm,
                target_hp=hp, roll_needed=u.def_ - w.acc, p_hit=p, damage_on_hit=dmg,
                expected_damage=p * dmg, min_hits_to_kill=min_hits_to_kill(u, dmg),
                expected_hits_to_kill=hits,
                expected_attacks_to_kill=None if hits is None or p == 0 else hits / p,
            ))
    return rows


def _fmt(f: Fraction | None) -> str | None:
    return None if f is None else (str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}")


def dice_table(rules: RulesVersion, target: str | None = None, weapon: str | None = None) -> pl.DataFrame:
    """The dice-maths table as a frame: floats for sorting and charts, exact fractions as text.

    Columns: rules_id, weapon, weapon_name, rng, rng_infantry, acc, rpt, strength, target_code,
    target, target_kind, def, arm, target_hp, roll_needed, p_hit, p_hit_exact, damage_on_hit,
    expected_damage, expected_damage_exact, min_hits_to_kill, expected_hits_to_kill,
    expected_attacks_to_kill, expected_attacks_to_kill_exact.
    """
    recs = []
    for r in dice_rows(rules, target, weapon):
        recs.append({
            "rules_id": r.rules_id, "weapon": r.weapon, "weapon_name": r.weapon_name, "rng": r.rng,
            "rng_infantry": r.rng_infantry, "acc": r.acc, "rpt": r.rpt, "strength": r.strength,
            "target_code": r.target_code, "target": r.target, "target_kind": r.target_kind, "def": r.defense,
            "arm": r.arm, "target_hp": r.target_hp, "roll_needed": r.roll_needed,
            "p_hit": float(r.p_hit), "p_hit_exact": _fmt(r.p_hit), "damage_on_hit": r.damage_on_hit,
            "expected_damage": float(r.expected_damage), "expected_damage_exact": _fmt(r.expected_damage),
            "min_hits_to_kill": r.min_hits_to_kill,
            "expected_hits_to_kill": None if r.expected_hits_to_kill is None else float(r.expected_hits_to_kill),
            "expected_attacks_to_kill": (None if r.expected_attacks_to_kill is None
                                         else float(r.expected_attacks_to_kill)),
            "expected_attacks_to_kill_exact": _fmt(r.expected_attacks_to_kill),
        })
    schema = {"rng_infantry": pl.Int64, "min_hits_to_kill": pl.Int64, "expected_hits_to_kill": pl.Float64,
              "expected_attacks_to_kill": pl.Float64, "expected_attacks_to_kill_exact": pl.Utf8}
    return pl.DataFrame(recs, schema_overrides=schema, infer_schema_length=None)


def hit_probability_table() -> pl.DataFrame:
    """P(2d6 >= t) for every threshold t from 2 to 12, as float and exact text."""
    return pl.DataFrame({
        "threshold": list(range(2, 13)),
        "p": [float(p_at_least(t)) for t in range(2, 13)],
        "p_exact": [_fmt(p_at_least(t)) for t in range(2, 13)],
    })


def overheat_sequence_table(rating: int, heats: list[int] | tuple[int, ...],
                            weapons: list[str] | tuple[str, ...] | None = None) -> pl.DataFrame:
    """Exact overheat odds of a firing sequence (heat rule): one row per weapon fired, in order.

    Columns: shot (1, 2, ...), weapon, heat, total_heat, excess (the overheat roll's target,
    0 = no roll), p_overheat / p_overheat_exact (that roll overheats the weapon),
    p_any_overheat / p_any_overheat_exact (at least one weapon has overheated so far). The
    rolls are independent d6 (:func:`pmim_analytics.rules.mechanics.firing_sequence_overheat`).
    """
    names = list(weapons) if weapons is not None else [f"weapon {i + 1}" for i in range(len(heats))]
    recs = []
    total = 0
    none_yet = Fraction(1)
    for i, (h, (excess, p)) in enumerate(zip(heats, firing_sequence_overheat(rating, heats), strict=True)):
        total += h
        none_yet *= 1 - p
        recs.append({"shot": i + 1, "weapon": names[i], "heat": h, "total_heat": total, "excess": excess,
                     "p_overheat": float(p), "p_overheat_exact": _fmt(p), "p_any_overheat": float(1 - none_yet),
                     "p_any_overheat_exact": _fmt(1 - none_yet)})
    schema = {"shot": pl.Int64, "weapon": pl.Utf8, "heat": pl.Int64, "total_heat": pl.Int64, "excess": pl.Int64,
              "p_overheat": pl.Float64, "p_overheat_exact": pl.Utf8, "p_any_overheat": pl.Float64,
              "p_any_overheat_exact": pl.Utf8}
    return pl.DataFrame(recs, schema=schema)


def warmech_overheat_table(rules: RulesVersion, warmech: str, weapons: list[str] | tuple[str, ...]) -> pl.DataFrame:
    """:func:`overheat_sequence_table` for a Warmech of ``rules`` firing ``weapons`` (codes) in
    order, with its heat rating and the weapons' heat costs under the version's heat rule.

    Raises ``ValueError`` when the version has no heat rule.
    """
    heat = rules.optional.heat
    if heat is None:
        raise ValueError(f"rules {rules.id} has no heat rule; try a variant such as v3-heat")
    rating = heat.rating_of(rules, warmech)
    return overheat_sequence_table(rating, [heat.heat_of(rules, w) for w in weapons], list(weapons))
