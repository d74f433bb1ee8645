"""Stat knobs: the unit and weapon statistics ``pmim balance propose --knobs`` may change.

A knob is ``table.CODE.stat`` with the stat's name as rules files write it (``weapons.LL.rpt``,
``chassis.TY.hp``, ``warmechs.PA.arm``), optionally with bounds (``weapons.LL.rpt=2..5``). Only
numeric stats that change how a unit fights are knobs:

- weapons: ``rng``, ``acc``, ``rpt``, ``str``;
- basic units (``chassis``): ``hp``, ``mov``, ``def``, ``arm``;
- Warmechs: ``mov``, ``def``, ``arm``.

Every one of them is better for its owner when higher (a 2d6 roll plus ACC hits when it reaches
DEF; damage is (STR - ARM) x RPT). Not knobs: ``pts`` (that is the price knob), weapon ``ton``,
support ``spt`` and Warmech ``tons`` (they decide which loadouts are legal, so a change would make
the search's armies illegal, not weaker or stronger), a Warmech's ``hp`` (one value per hit
location, not one number) and names, kinds and body types (not numbers).

A stat's valid range is the rules model's (:mod:`pmim_analytics.rules.models`: RPT at least 1,
HP at least 1, ...); a table with changed stats is validated by the models again
(:func:`with_stats`), so an invalid value is never played or proposed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from pmim_analytics.errors import PmimError
from pmim_analytics.rules.models import Chassis, RulesVersion, Warmech, Weapon

#: The stats each table lets ``--knobs`` change (the rules files' names).
STAT_KNOBS: dict[str, tuple[str, ...]] = {
    "weapons": ("rng", "acc", "rpt", "str"),
    "chassis": ("hp", "mov", "def", "arm"),
    "warmechs": ("mov", "def", "arm"),
}
#: Each table's model, whose field bounds are the stat's valid range.
MODELS: dict[str, type[BaseModel]] = {"weapons": Weapon, "chassis": Chassis, "warmechs": Warmech}
#: How far from its listed value a knob without bounds may go (clipped to the model's range).
DEFAULT_REACH = 2
#: Why a stat the rules do have is not a knob.
NOT_A_KNOB = {
    "ton": "a weapon's tonnage decides which units may mount it, so changing it makes lists illegal",
    "spt": "support tonnage decides which loadouts are legal, so changing it makes lists illegal",
    "tons": "a Warmech's tonnage sets its weight class and loadouts, so changing it makes lists illegal",
    "hp": "a Warmech's HP are one number per hit location, not one stat",
}


@dataclass(frozen=True)
class StatKnob:
    """A stat the search may change, and the bounds it stays within (both included)."""

    item: str  # chassis.TY, weapons.LL
    stat: str  # rpt, hp, def, ... (the rules files' name)
    low: int
    high: int

    @property
    def name(self) -> str:
        """``weapons.LL.rpt``: the knob as ``--knobs`` names it (and the variant's override key)."""
        return f"{self.item}.{self.stat}"


def _field(table: str, stat: str) -> tuple[str, Any]:
    """(attribute, field info) of a stat given by its rules-file name (``str`` -> ``strength``)."""
    model = MODELS[table]
    for attr, info in model.model_fields.items():
        if (info.alias or attr) == stat:
            return attr, info
    raise KeyError(stat)


def stat_range(table: str, stat: str) -> tuple[int, int]:
    """The valid range of a stat, from its model's field bounds (``ge``/``le``)."""
    _, info = _field(table, stat)
    low, high = -(10**9), 10**9
    for m in info.metadata:
        low = getattr(m, "ge", low)
        high = getattr(m, "le", high)
    return int(low), int(high)


def stat_value(rules: RulesVersion, item: str, stat: str) -> int:
    """The listed value of ``stat`` of ``item`` (``chassis.TY``, ``hp``)."""
    table, code = item.split(".", 1)
    attr, _ = _field(table, stat)
    row = next(r for r in getattr(rules, table) if r.code == code)
    return int(getattr(row, attr))


def parse_stat_knob(rules: RulesVersion, knob: str) -> StatKnob:
    """``weapons.LL.rpt`` or ``weapons.LL.rpt=2..5`` -> :class:`StatKnob` for ``rules``.

    Raises :class:`PmimError` (exit 2), one sentence: an unknown item or stat, a stat that is not
    a number or not a knob, bounds that are not ``LOW..HIGH``, outside the stat's valid range, or
    that leave out its listed value.
    """
    name, _, bounds = knob.partition("=")
    parts = name.split(".")
    table = parts[0]
    rows: tuple[Any, ...] = getattr(rules, table, ()) if table in STAT_KNOBS else ()
    if len(parts) != 3 or not any(r.code == parts[1] for r in rows):
        raise PmimError(f"unknown knob {knob!r}: write table.CODE.stat with a table of chassis, warmechs or weapons "
                        f"and a code of {rules.id}, e.g. chassis.TY.pts or weapons.LL.rpt")
    item, stat = f"{table}.{parts[1]}", parts[2]
    if stat not in STAT_KNOBS[table]:
        row = next(r for r in rows if r.code == parts[1]).model_dump(by_alias=True)
        if stat in NOT_A_KNOB and stat in row:
            raise PmimError(f"knob {knob!r} cannot be searched: {NOT_A_KNOB[stat]}; the stats of {table} the search "
                            f"may change are {', '.join(STAT_KNOBS[table])}")
        if stat in row:
            raise PmimError(f"knob {knob!r} is not a numeric stat; the stats of {table} the search may change are "
                            f"{', '.join(STAT_KNOBS[table])}")
        raise PmimError(f"unknown knob {knob!r}: {table} have no stat {stat!r}; the stats the search may change "
                        f"are {', '.join(STAT_KNOBS[table])} (and pts, the price)")
    valid_lo, valid_hi = stat_range(table, stat)
    listed = stat_value(rules, item, stat)
    if not bounds:
        return StatKnob(item, stat, max(valid_lo, listed - DEFAULT_REACH), min(valid_hi, listed + DEFAULT_REACH))
    lo_text, sep, hi_text = bounds.partition("..")
    try:
        lo, hi = int(lo_text), int(hi_text)
    except ValueError:
        lo, hi = 1, 0  # not whole numbers: refused below
    if not sep or lo > hi:
        raise PmimError(f"knob {knob!r}: write bounds as LOW..HIGH with whole numbers, e.g. {name}={listed - 1}.."
                        f"{listed + 1}")
    if lo < valid_lo or hi > valid_hi:
        raise PmimError(f"knob {knob!r}: the bounds lie outside the valid range of {stat} ({valid_lo} to {valid_hi}, "
                        "as the rules models allow); give bounds inside it")
    if not lo <= listed <= hi:
        raise PmimError(f"knob {knob!r}: the bounds leave out {item}'s listed {stat} of {listed}, where the search "
                        "starts; give bounds that include it")
    return StatKnob(item, stat, lo, hi)


def with_stats(rules: RulesVersion, stats: Mapping[str, int]) -> RulesVersion:
    """``rules`` with the stats of ``stats`` (``{"weapons.LL.rpt": 4}``), validated again by the rules models.

    Raises :class:`PmimError` when a value is not valid for its stat.
    """
    if not stats:
        return rules
    raw = rules.model_dump(by_alias=True, exclude_none=True)
    for knob, value in stats.items():
        table, code, stat = knob.split(".")
        row = next(r for r in raw[table] if r["code"] == code)
        row[stat] = value
    try:
        return RulesVersion.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise PmimError(f"the stats {dict(stats)} make {rules.id} invalid at {where}: {first['msg']}") from None
