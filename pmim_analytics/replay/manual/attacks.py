"""The checks of an attack line (and an overheat line): weapon and mount, roll, damage and hit location.

Each function raises :class:`Reject` at the token at fault and changes nothing.
"""

from __future__ import annotations

from pmim_analytics.errors import UnknownNameError
from pmim_analytics.model.combat import attack_damage, location_is_hittable, roll_hits
from pmim_analytics.replay.manual.notation import AttackStmt, OverheatStmt, Reject, Token
from pmim_analytics.replay.manual.state import UnitState, location_name
from pmim_analytics.rules import find_weapon
from pmim_analytics.rules.models import RulesVersion, Weapon


def resolve_weapon(unit: UnitState, s: AttackStmt | OverheatStmt, rules: RulesVersion) -> tuple[Weapon, str]:
    """The weapon and mount an attack (or overheat) line names; it must be on the unit (whether it
    may fire is :func:`~pmim_analytics.engine.rulings.fire_refusal`'s to say)."""
    try:
        weapon: Weapon | None = find_weapon(rules, s.weapon.text)
    except UnknownNameError:
        weapon = None
    carried = ", ".join(f"{w} ({m})" for w, m in zip(unit.weapons, unit.mounts, strict=True))
    if weapon is None or weapon.code not in unit.weapons:
        raise Reject(s.weapon, f"{s.unit.text!r} has no weapon {s.weapon.text!r}; it carries {carried}")
    mounts = [m for w, m in zip(unit.weapons, unit.mounts, strict=True) if w == weapon.code]
    if s.mount is not None:
        if s.mount not in mounts:
            raise Reject(s.weapon, f"{s.unit.text!r} has no {weapon.code} on {s.mount!r}; it carries {carried}")
        mount = s.mount
    elif len(mounts) > 1:
        raise Reject(s.weapon, f"{s.unit.text!r} carries {weapon.code} on {' and '.join(mounts)}; write "
                     f"{weapon.code}/{mounts[0]} to say which fired")
    else:
        mount = mounts[0]
    return weapon, mount



def check_roll(s: AttackStmt, weapon: Weapon, needed: int) -> None:
    """A written roll must agree with hit or miss: 2d6 + ACC >= DEF hits."""
    if s.total is None or s.roll_tok is None:
        return
    hits = roll_hits(s.total, weapon.acc, needed)
    if hits != s.hit:
        verdict = "hits" if hits else "cannot hit"
        raise Reject(s.roll_tok, f"roll {s.roll_tok.text!r} {verdict}: {s.total} + ACC {weapon.acc} "
                     f"{'>=' if hits else '<'} DEF {needed}, but the line says {s.hit_tok.text!r}")


def check_damage(s: AttackStmt, weapon: Weapon, target: UnitState) -> int:
    """The damage the rules give, (STR - ARM) x RPT on a hit, never negative; a written one must match."""
    arm = target.spec.arm
    damage = attack_damage(weapon.strength, weapon.rpt, arm) if s.hit else 0
    if s.damage is not None and s.damage != damage:
        why = f"(STR {weapon.strength} - ARM {arm}) x RPT {weapon.rpt} = {damage}" if s.hit else "a miss deals 0"
        tok = s.damage_tok
        assert tok is not None  # a damage is always read with its token
        raise Reject(tok, f"damage {tok.text!r} does not match the rules: {why}")
    return damage


def check_location(s: AttackStmt, target: UnitState, damage: int, rules: RulesVersion) -> str | None:
    """The hit location of an attack line, checked against the body, its state and the chart."""
    tok = s.location_tok
    if s.location is None:
        if s.hit and target.is_warmech and damage > 0:
            raise Reject(s.hit_tok, f"a hit on the Warmech {s.target.text!r} needs its hit location "
                         f"after {s.hit_tok.text!r} ({target.location_names()})")
        return None
    assert tok is not None  # a location is always read with its token
    if not s.hit:
        raise Reject(tok, f"a miss has no hit location, but the line gives {tok.text!r}")
    if not target.is_warmech:
        raise Reject(tok, f"{s.target.text!r} is not a Warmech and has no hit location {tok.text!r}")
    return check_chart_location(tok, s.location, s.location_rolls, target, s.target.text, rules)


def check_chart_location(tok: Token, loc: str, rolls: tuple[int, ...], target: UnitState, name: str,
                         rules: RulesVersion) -> str:
    """A hit location on the Warmech ``target`` (``name`` as the log wrote it): on its body, not
    destroyed (the rules re-roll those), and given by the last of ``rolls``, the earlier ones
    re-rolled because they gave destroyed locations."""
    if not target.has_location(loc):
        raise Reject(tok, f"a {target.body} Warmech has no {location_name(loc)} {tok.text!r}; "
                     f"its locations are {target.location_names()}")
    if target.is_lost(loc):
        raise Reject(tok, f"{name!r}'s {location_name(loc)} {tok.text!r} is already destroyed; "
                     f"the rules re-roll a hit there")
    if rolls:
        *rerolled, last = rolls
        if target.chart_location(last, rules) != loc:
            raise Reject(tok, f"hit-location die {last} gives {target.chart_location(last, rules)} on the "
                         f"{target.body} chart, not {loc} as {tok.text!r} says")
        for d in rerolled:
            where = target.chart_location(d, rules)
            if location_is_hittable(target.location_hps(), where):
                raise Reject(tok, f"hit-location die {d} gives {where}, which is not destroyed, so it is not "
                             f"re-rolled ({tok.text!r})")
    return loc
