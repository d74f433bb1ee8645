"""Army lists: the YAML file, its expansion into a roster, and validation.

An army list names a rules version and a list of entries (unit type, weapons in mount
order, optional count). :func:`build_roster` resolves it against a rules version into
concrete units with ids (``TW1``, ``TY2``); :func:`validate_army` checks it against the
rules and a scenario and reports every violation with the unit at fault.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pmim_analytics.errors import (
    DataFileError,
    InvalidArmyError,
    Location,
    PmimError,
    UnknownNameError,
    display_path,
)
from pmim_analytics.limits import (
    MAX_ARMY_BYTES,
    MAX_COUNT_PER_ENTRY,
    MAX_NAME_CHARS,
    MAX_UNITS_PER_ARMY,
    LimitError,
    check_regular_file,
)
from pmim_analytics.model.vocab import LOCATION_CODES
from pmim_analytics.rules.catalogue import (
    DEFAULT_SCENARIO,
    find_unit,
    find_weapon,
    load_rules,
    load_scenario,
    read_yaml,
    validation_message,
)
from pmim_analytics.rules.models import BODY_MOUNTS, Chassis, RulesVersion, Warmech, Weapon
from pmim_analytics.rules.scenario import Scenario


class ArmyEntry(BaseModel):
    """One line of an army list: a unit type, its weapons and how many."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str = Field(max_length=MAX_NAME_CHARS)
    weapons: tuple[str, ...] = Field(default=(), max_length=MAX_UNITS_PER_ARMY)
    count: int = Field(default=1, ge=1)
    #: Uncertain weapons: the alternatives to ``weapons`` the sources allow (each a full
    #: weapon list in mount order). Empty = the weapons are not in doubt. The ``weapons``
    #: reading (rules.readings) picks one: ``alt1`` the first, ``alt2`` the second.
    weapon_options: tuple[tuple[str, ...], ...] = Field(default=(), max_length=8)

    @field_validator("count")
    @classmethod
    def _count_limit(cls, v: int) -> int:
        if v > MAX_COUNT_PER_ENTRY:
            raise ValueError(f"count {v} is over the limit of {MAX_COUNT_PER_ENTRY} units per entry "
                             "(pmim_analytics.limits.MAX_COUNT_PER_ENTRY)")
        return v


class TranslatedFrom(BaseModel):
    """Where a translated list came from (``pmim army translate``): the same list under other rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rules: str
    name: str
    file: str | None = None
    army_hash: str
    list_key: str


class ArmyList(BaseModel):
    """An army list as written in its YAML file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(max_length=MAX_NAME_CHARS)
    rules: str = Field(max_length=MAX_NAME_CHARS)
    units: tuple[ArmyEntry, ...] = Field(min_length=1, max_length=MAX_UNITS_PER_ARMY)
    notes: str | None = Field(default=None, max_length=10_000)
    translated_from: TranslatedFrom | None = None

    @model_validator(mode="after")
    def _units_limit(self) -> ArmyList:
        total = sum(e.count for e in self.units)
        if total > MAX_UNITS_PER_ARMY:
            raise ValueError(f"the army has {total} units, over the limit of {MAX_UNITS_PER_ARMY} "
                             "(pmim_analytics.limits.MAX_UNITS_PER_ARMY)")
        return self


@dataclass(frozen=True)
class RosterUnit:
    """One concrete unit of an army: id, type, weapons (mount order) and point cost."""

    id: str
    code: str
    type: str
    kind: str
    weapons: tuple[str, ...]
    mounts: tuple[str, ...]
    pts: int
    entry: int

    def as_dict(self) -> dict[str, object]:
        """Plain data, as stored in replay headers."""
        return {"id": self.id, "type": self.type, "code": self.code, "kind": self.kind,
                "weapons": list(self.weapons), "mounts": list(self.mounts), "pts": self.pts}


@dataclass(frozen=True)
class Roster:
    """An army resolved against a rules version."""

    name: str
    rules_id: str
    units: tuple[RosterUnit, ...]
    violations: tuple[str, ...] = field(default=())

    @property
    def points(self) -> int:
        """Total points, weapons included."""
        return sum(u.pts for u in self.units)

    @property
    def warmech_count(self) -> int:
        """How many Warmechs the roster fields."""
        return sum(1 for u in self.units if u.kind == "warmech")

    def content_hash(self) -> str:
        """A short hash of what the army fields (not its name): same units, same hash."""
        payload = sorted((u.type, u.weapons) for u in self.units)
        return hashlib.sha256(json.dumps([self.rules_id, payload]).encode()).hexdigest()[:16]

    def list_key(self) -> str:
        """The list's identity across rules ids: its units' codes and weapons (:func:`list_key_of`)."""
        return list_key_of([(u.code, " ".join(u.weapons)) for u in self.units])


def with_weapon_option(army: ArmyList, choice: str | None) -> ArmyList:
    """The army with its uncertain weapons read as ``choice`` (the ``weapons`` reading):
    ``None`` or ``listed`` keeps the list; ``altN`` gives every entry that has weapon
    options its N-th (an entry with fewer options keeps its listed weapons)."""
    if choice is None or choice == "listed":
        return army
    n = int(choice.removeprefix("alt"))
    units = tuple(e.model_copy(update={"weapons": e.weapon_options[n - 1]}) if len(e.weapon_options) >= n else e
                  for e in army.units)
    return army.model_copy(update={"units": units})


def list_key_of(units: list[tuple[str, str]]) -> str:
    """The list key of an army from its units' ``(code, weapons)`` (weapon codes, space-separated).

    Codes survive renames (Mastodon and Tyrant are both ``TY``), so a list and its translation
    to another rules version share the key; order does not matter. Example:
    ``list_key_of([("TY", "HAC"), ("IN", "LL")]) == list_key_of([("IN", "LL"), ("TY", "HAC")])``.
    """
    text = "\n".join(sorted(f"{c}:{w}" for c, w in units))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def load_army(path: str | Path) -> ArmyList:
    """Read and parse an army list file.

    Raises :class:`DataFileError` with file, line or field and the reason.
    """
    p = Path(path)
    try:
        check_regular_file(p, MAX_ARMY_BYTES, "army list")
    except LimitError as e:
        raise DataFileError(e.message, e.where) from None
    except PmimError:
        pass  # read_yaml names a missing or unreadable file
    raw = read_yaml(p)
    return parse_army(raw, display_path(p))


def parse_army(raw: object, source: str = "<army>") -> ArmyList:
    """Validate already-loaded army data (a dict) into an :class:`ArmyList`."""
    if not isinstance(raw, dict):
        raise DataFileError("an army list must be a mapping with name, rules and units", Location(source))
    try:
        return ArmyList.model_validate(raw)
    except ValidationError as e:
        loc, reason = validation_message(e)
        raise DataFileError(reason, Location(source, field=loc)) from None


def _unit_label(entry_index: int, entry: ArmyEntry) -> str:
    return f"unit {entry_index + 1} ({entry.type})"


def _weapon_problems(
    rules: RulesVersion, unit: Chassis | Warmech, weapons: list[Weapon], label: str
) -> list[str]:
    """Every way the weapons break the unit's mounting rules."""
    problems: list[str] = []
    names = ", ".join(w.code for w in weapons) or "none"
    if isinstance(unit, Warmech):
        mounts = BODY_MOUNTS[unit.body]
        if len(weapons) != len(mounts):
            problems.append(
                f"{label}: {'an' if unit.body[0] in 'aeiou' else 'a'} {unit.body} Warmech mounts exactly "
                f"{len(mounts)} weapon"
                f"{'s' if len(mounts) > 1 else ''} ({', '.join(m.replace('_', ' ') for m in mounts)}), "
                f"got {len(weapons)} ({names})"
            )
        tons = sum(w.ton for w in weapons)
        if weapons and tons != unit.spt:
            problems.append(f"{label}: weapon tonnage {tons} ({names}) must equal its SPT {unit.spt}")
        sa = rules.special_rules.small_arms
        if sa and any(w.code == sa.weapon for w in weapons):
            problems.append(f"{label}: Small Arms are for infantry and ODA only")
        return problems
    if len(weapons) != 1:
        return [f"{label}: a basic unit takes exactly one weapon, got {len(weapons)} ({names})"]
    w = weapons[0]
    sa = rules.special_rules.small_arms
    lw = rules.special_rules.light_weapon_units
    if sa and unit.code in sa.units:
        if w.code != sa.weapon:
            problems.append(f"{label}: in {rules.id} {unit.name} carries Small Arms only, not {w.name}")
        return problems
    if sa and w.code == sa.weapon:
        return [f"{label}: Small Arms are for infantry and ODA only"]
    if lw and unit.code in lw.units:
        if w.ton != lw.max_ton:
            problems.append(
                f"{label}: {unit.name} takes a {lw.max_ton}-ton weapon, but {w.name} ({w.code}) weighs {w.ton} tons"
            )
        return problems
    if w.ton != unit.spt:
        problems.append(f"{label}: weapon {w.name} ({w.code}) weighs {w.ton} tons; it must equal the SPT {unit.spt}")
    return problems


def unit_points(rules: RulesVersion, unit: Chassis | Warmech, weapons: list[Weapon]) -> int:
    """A unit's point cost with its weapons: the unit's own points plus each weapon's (0 in every
    printed version; a variant may price weapons). v1's Black Powder Mammoth is cheaper."""
    cm = rules.special_rules.cheap_mammoth
    if cm and unit.code == cm.unit and [w.code for w in weapons] == [cm.weapon]:
        return cm.pts
    return unit.pts + sum(w.pts for w in weapons)


def build_roster(army: ArmyList, rules_id: str | None = None) -> Roster:
    """Resolve an army list against a rules version into a roster with unit ids.

    Unknown units or weapons and mounting problems are collected in
    ``Roster.violations`` (the units at fault are left out of the roster). Raises
    :class:`UnknownNameError` only for an unknown rules id.
    """
    rules = load_rules(rules_id or army.rules)
    violations: list[str] = []
    units: list[RosterUnit] = []
    counters: dict[str, int] = {}
    for i, entry in enumerate(army.units):
        label = _unit_label(i, entry)
        try:
            unit = find_unit(rules, entry.type)
        except UnknownNameError as e:
            violations.append(f"{label}: {e.message}")
            continue
        weapon_names = list(entry.weapons)
        sa = rules.special_rules.small_arms
        if not weapon_names and sa and unit.code in sa.units:
            weapon_names = [sa.weapon]
        weapons: list[Weapon] = []
        missing = False
        for wname in weapon_names:
            try:
                weapons.append(find_weapon(rules, wname))
            except UnknownNameError as e:
                violations.append(f"{label}: {e.message}")
                missing = True
        if missing:
            continue
        problems = _weapon_problems(rules, unit, weapons, label)
        violations.extend(problems)
        if problems:
            continue
        mounts = (
            tuple(LOCATION_CODES[m] for m in BODY_MOUNTS[unit.body]) if isinstance(unit, Warmech) else ("HULL",)
        )
        pts = unit_points(rules, unit, weapons)
        for _ in range(entry.count):
            counters[unit.code] = counters.get(unit.code, 0) + 1
            units.append(
                RosterUnit(
                    id=f"{unit.code}{counters[unit.code]}",
                    code=unit.code,
                    type=unit.name,
                    kind=unit.kind,
                    weapons=tuple(w.code for w in weapons),
                    mounts=tuple(mounts),
                    pts=pts,
                    entry=i,
                )
            )
    return Roster(army.name, rules.id, tuple(units), tuple(violations))


def army_violations(
    army: ArmyList, rules_id: str | None = None, scenario: Scenario | None = None
) -> tuple[Roster, list[str]]:
    """Return the roster and every rule the army breaks (empty when it is legal)."""
    roster = build_roster(army, rules_id)
    violations = list(roster.violations)
    most = max((len(e.weapon_options) for e in army.units), default=0)
    for n in range(1, most + 1):  # every alternative of the uncertain weapons must be legal too
        alt = build_roster(with_weapon_option(army, f"alt{n}"), rules_id)
        violations.extend(f"{v} (weapons=alt{n})" for v in alt.violations if v not in roster.violations)
    if scenario is not None:
        # Units with bad weapons are left out of the roster; count them for points and Warmechs.
        rules = load_rules(roster.rules_id)
        points, mechs = roster.points, roster.warmech_count
        built = {u.entry for u in roster.units}
        for i, entry in enumerate(army.units):
            if i in built:
                continue
            try:
                unit = find_unit(rules, entry.type)
            except UnknownNameError:
                continue
            points += unit.pts * entry.count
            mechs += entry.count if isinstance(unit, Warmech) else 0
        if points > scenario.points_limit:
            violations.append(
                f"army: {points} points is over the {scenario.name} limit of {scenario.points_limit}"
            )
        if mechs != scenario.warmechs:
            violations.append(
                f"army: {scenario.name} requires exactly {scenario.warmechs} Warmechs, the list has {mechs}"
            )
    return roster, violations


def validate_army(
    army: ArmyList, rules_id: str | None = None, scenario_id: str | None = DEFAULT_SCENARIO, source: str | None = None
) -> Roster:
    """Return the roster of a legal army; raise :class:`InvalidArmyError` listing every violation."""
    scenario = load_scenario(scenario_id) if scenario_id else None
    roster, violations = army_violations(army, rules_id, scenario)
    if violations:
        raise InvalidArmyError(violations, Location(source) if source else None)
    return roster
