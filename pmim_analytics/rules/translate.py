"""Carry an army list to another rules version: the same units and weapons under their new names.

Unit and weapon codes are stable across versions (the rules files record renames such as
Mastodon -> Tyrant under one code), so a list translates entry by entry: the unit and each
weapon are looked up in the list's own rules, then by code in the target rules. What the
target lacks is a finding and the entry is left out; renames and new point costs are
changes. The translated list is then checked against the target rules and scenario
(tonnage, weapons per body type, points limit, Warmech count): every violation is a finding
too, since the same list may no longer fit.

The result records where it came from (``translated_from``: rules, name, file, army hash,
list key). A translation without findings fields exactly the same units and weapons, so its
list key equals the original's and reports pair the two (:mod:`pmim_analytics.analytics.lineups`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from pmim_analytics.errors import UnknownNameError
from pmim_analytics.rules.army import (
    ArmyEntry,
    ArmyList,
    TranslatedFrom,
    army_violations,
    build_roster,
    unit_points,
)
from pmim_analytics.rules.catalogue import DEFAULT_SCENARIO, find_unit, find_weapon, load_rules, load_scenario
from pmim_analytics.rules.models import Chassis, RulesVersion, Warmech, Weapon


@dataclass(frozen=True)
class Translation:
    """A translated list, what changed on the way and what does not carry over or fit."""

    army: ArmyList
    changes: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    points_before: int = 0
    points_after: int = 0

    @property
    def is_exact(self) -> bool:
        """Every unit and weapon carried over and the list fits the target rules."""
        return not self.findings


def _unit_by_code(rules: RulesVersion, code: str) -> Chassis | Warmech | None:
    """The unit type with this code in ``rules``, or ``None``."""
    return next((x for x in rules.iter_units() if x.code == code), None)


def _weapon_by_code(rules: RulesVersion, code: str) -> Weapon | None:
    """The weapon with this code in ``rules``, or ``None``."""
    return next((x for x in rules.weapons if x.code == code), None)


def _implied_weapons(rules: RulesVersion, unit_code: str, entry: ArmyEntry) -> list[str]:
    sa = rules.special_rules.small_arms
    if not entry.weapons and sa and unit_code in sa.units:
        return [sa.weapon]
    return list(entry.weapons)


def translate_army(army: ArmyList, to_rules: str, scenario_id: str | None = DEFAULT_SCENARIO,
                   file: str | None = None) -> Translation:
    """Translate ``army`` (written for its own rules id) to ``to_rules``.

    Raises :class:`UnknownNameError` for an unknown rules id or scenario. Units or weapons
    that do not exist in the list's own rules are findings too (the list was not valid).
    """
    src, dst = load_rules(army.rules), load_rules(to_rules)
    scenario = load_scenario(scenario_id) if scenario_id else None
    changes: list[str] = []
    findings: list[str] = []
    entries: list[ArmyEntry] = []
    for i, entry in enumerate(army.units):
        label = f"unit {i + 1} ({entry.type})"
        try:
            unit = find_unit(src, entry.type)
        except UnknownNameError as e:
            findings.append(f"{label}: {e.message}; left out")
            continue
        new_unit = _unit_by_code(dst, unit.code)
        if new_unit is None:
            findings.append(f"{label}: {dst.id} has no {unit.name} (code {unit.code}); left out")
            continue
        old_weapons: list[Weapon] = []
        new_weapons: list[Weapon] = []
        ok = True
        for wname in _implied_weapons(src, unit.code, entry):
            try:
                w = find_weapon(src, wname)
            except UnknownNameError as e:
                findings.append(f"{label}: {e.message}; unit left out")
                ok = False
                continue
            nw = _weapon_by_code(dst, w.code)
            if nw is None:
                findings.append(f"{label}: {dst.id} has no {w.name} ({w.code}); unit left out")
                ok = False
                continue
            old_weapons.append(w)
            new_weapons.append(nw)
            if nw.name != w.name:
                changes.append(f"{label}: weapon {w.name} is now {nw.name}")
        if not ok:
            continue
        old_pts = unit_points(src, unit, old_weapons)
        new_pts = unit_points(dst, new_unit, new_weapons)
        if new_unit.name != unit.name:
            changes.append(f"{label}: {unit.name} is now {new_unit.name}")
        if new_pts != old_pts:
            changes.append(f"{label}: {old_pts} -> {new_pts} points each"
                           + (f" (x{entry.count})" if entry.count > 1 else ""))
        sa = dst.special_rules.small_arms
        keep_weapons = () if (sa and unit.code in sa.units and [w.code for w in new_weapons] == [sa.weapon]
                              and not entry.weapons) else tuple(w.code for w in new_weapons)
        entries.append(ArmyEntry(type=new_unit.name, weapons=keep_weapons, count=entry.count))
    src_roster = build_roster(army)
    origin = TranslatedFrom(rules=army.rules, name=army.name, file=file, army_hash=src_roster.content_hash(),
                            list_key=src_roster.list_key())
    if not entries:
        findings.append(f"nothing of {army.name!r} exists in {dst.id}")
        return Translation(army, changes, findings, src_roster.points, 0)
    notes = f"Translated from {army.rules} by pmim army translate." + (f" {army.notes}" if army.notes else "")
    new = ArmyList(name=army.name, rules=dst.id, units=tuple(entries), notes=notes.strip(), translated_from=origin)
    roster, violations = army_violations(new, None, scenario)
    findings += [f"the translated list no longer fits {dst.id}: {v}" for v in violations]
    return Translation(new, changes, findings, src_roster.points, roster.points)


def format_army_yaml(army: ArmyList) -> str:
    """The army as YAML in the layout of ``data/armies/`` (one flow mapping per entry)."""
    head: dict[str, object] = {"name": army.name, "rules": army.rules}
    if army.notes:
        head["notes"] = army.notes
    text: str = yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=100)
    if army.translated_from is not None:
        origin = army.translated_from.model_dump(exclude_none=True)
        text += yaml.safe_dump({"translated_from": origin}, sort_keys=False, allow_unicode=True, width=100)
    lines = ["units:"]
    for e in army.units:
        parts = [f"type: {yaml.safe_dump(e.type, default_style=None).strip().removesuffix('...').strip()}"]
        parts.append(f"weapons: [{', '.join(e.weapons)}]")
        if e.count > 1:
            parts.append(f"count: {e.count}")
        lines.append("  - {" + ", ".join(parts) + "}")
    return text + "\n".join(lines) + "\n"


def default_output(path: Path, from_rules: str, to_rules: str) -> Path:
    """``v2-balanced.yaml`` -> ``v3-balanced.yaml`` beside it; otherwise ``<stem>-<to>.yaml``."""
    stem = path.stem
    if stem.startswith(f"{from_rules}-"):
        return path.with_name(f"{to_rules}-{stem.removeprefix(from_rules + '-')}.yaml")
    return path.with_name(f"{stem}-{to_rules}.yaml")
