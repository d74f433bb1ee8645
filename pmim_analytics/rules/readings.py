"""Readings in doubt: rules sentences the sources let us read two ways, as named options.

Each reading has a name and a few values; leaving it out (``None``) means what the data
files say (the scenario's objectives and VP target, the hit rule of every version, the
army list's own weapons). ``pmim play`` and ``pmim simulate`` take them as
``--reading name=value``; a game's replay header records the ones that differ from the
data files, and the verifier and the store check the game under them.

- ``objective_rows``: the rows of the six objectives along the centre line, ``A/B`` = row
  of the 1st, 3rd and 5th objective (from the west) / row of the 2nd, 4th and 6th.
  Take and Hold's file says ``7/6``; ``6/7`` is the other parity.
- ``vp_to_win``: the VP a side needs to win (at least this many and more than the
  opponent). The scenario says "more than 10", so ``11``; the designer's post says
  "hit 10VP", so ``10``.
- ``hit``: ``at_least`` (2d6 + ACC reaching DEF hits, v2 and v3) or ``beat`` (it must
  exceed DEF, v1's wording).
- ``weapons``: ``listed`` (the army list's weapons) or ``alt1``, ``alt2``, ...: every
  entry the list marks uncertain (its ``weapon_options``) takes its first, second, ...
  alternative. The header's rosters already name the weapons played, so this one only
  changes which roster a run builds.

docs/rules-notes.md, "Readings in doubt", gives each source sentence and our default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmim_analytics.errors import UnknownNameError
from pmim_analytics.rules.scenario import Scenario

HitReading = Literal["at_least", "beat"]

#: Each reading's values as help text (``vp_to_win`` takes any whole number from 1).
READING_VALUES: dict[str, str] = {
    "objective_rows": "7/6 or 6/7 (the rows of the odd and the even objectives)",
    "vp_to_win": "a whole number, e.g. 11 (more than 10, the scenario) or 10 (the post)",
    "hit": "at_least (roll + ACC >= DEF) or beat (roll + ACC > DEF)",
    "weapons": "listed, or alt1, alt2, ... (the uncertain weapons' alternatives)",
}
READINGS_HELP = ("A reading in doubt as name=value (repeat the option for several): "
                 + "; ".join(f"{k}: {v}" for k, v in READING_VALUES.items())
                 + ". Default: what the data files say (docs/rules-notes.md, 'Readings in doubt').")

_ROWS = re.compile(r"^(\d{1,3})/(\d{1,3})$")
_ALT = re.compile(r"^(listed|alt[1-9]\d?)$")


class Readings(BaseModel):
    """The readings a game is played under; ``None`` = what the data files say."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    objective_rows: str | None = Field(default=None, pattern=r"^\d{1,3}/\d{1,3}$")
    vp_to_win: int | None = Field(default=None, ge=1, le=10_000)
    hit: HitReading | None = None
    weapons: str | None = Field(default=None, pattern=r"^(listed|alt[1-9]\d?)$")

    def settings(self) -> dict[str, Any]:
        """The readings that are set, as plain data (what a replay header records)."""
        return {k: v for k, v in self.model_dump().items() if v is not None}

    def label(self) -> str:
        """``name=value`` of every reading set, comma-separated; ``as written`` when none is."""
        s = self.settings()
        return ", ".join(f"{k}={v}" for k, v in s.items()) if s else "as written"

    def hit_rule(self) -> HitReading:
        """The hit reading in force (``at_least`` when not set)."""
        return self.hit or "at_least"

    def relative_to(self, scenario: Scenario) -> Readings:
        """These readings less those that say what ``scenario`` already says (so a game
        played with ``vp_to_win=11`` on Take and Hold records no reading at all)."""
        drop: dict[str, Any] = {}
        if self.objective_rows is not None and self.objective_rows == objective_rows_of(scenario):
            drop["objective_rows"] = None
        if self.vp_to_win is not None and self.vp_to_win == scenario.victory.vp_to_win + 1:
            drop["vp_to_win"] = None
        if self.hit == "at_least":
            drop["hit"] = None
        if self.weapons == "listed":
            drop["weapons"] = None
        return self.model_copy(update=drop) if drop else self


AS_WRITTEN = Readings()


def parse_readings(items: Iterable[str] | None) -> Readings:
    """``name=value`` texts (``--reading``) into :class:`Readings`.

    Raises :class:`UnknownNameError` (one sentence, exit 2) for an unknown name, a bad
    value or a reading given twice.
    """
    found: dict[str, Any] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or name not in READING_VALUES:
            raise UnknownNameError(f"unknown reading {item!r}; write name=value with a name among "
                                   f"{', '.join(READING_VALUES)}")
        if name in found:
            raise UnknownNameError(f"the reading {name} is given twice; give it once")
        if name == "vp_to_win":
            if not value.isdigit() or not 1 <= int(value) <= 10_000:
                raise UnknownNameError(f"vp_to_win must be a whole number from 1, not {value!r}")
            found[name] = int(value)
        elif name == "objective_rows" and not _ROWS.match(value):
            raise UnknownNameError(f"objective_rows must be two rows as A/B, e.g. 6/7, not {value!r}")
        elif name == "hit" and value not in ("at_least", "beat"):
            raise UnknownNameError(f"hit must be at_least or beat, not {value!r}")
        elif name == "weapons" and not _ALT.match(value):
            raise UnknownNameError(f"weapons must be listed or alt1, alt2, ..., not {value!r}")
        else:
            found[name] = value
    return Readings(**found)


def readings_from_header(data: dict[str, Any] | None) -> Readings:
    """The readings a replay header records (``None`` = none). Raises :class:`UnknownNameError`."""
    try:
        return Readings.model_validate(data or {})
    except ValidationError as e:
        first = e.errors()[0]
        raise UnknownNameError(f"the header's readings cannot be read: {'.'.join(map(str, first['loc']))}: "
                               f"{first['msg']}") from None


def objective_rows_of(scenario: Scenario) -> str | None:
    """The scenario's own objective parity as ``A/B`` (``None`` when its objectives do not
    alternate between two rows)."""
    hexes = scenario.objectives.hexes
    odd = {r for k, (_c, r) in enumerate(hexes) if k % 2 == 0}
    even = {r for k, (_c, r) in enumerate(hexes) if k % 2 == 1}
    if len(odd) != 1 or len(even) > 1:
        return None
    a = next(iter(odd))
    return f"{a}/{next(iter(even)) if even else a}"


def centre_rows(scenario: Scenario) -> tuple[int, ...]:
    """The rows of the map's centre line: the middle two of an even count, the middle one of an odd."""
    rows = scenario.map.rows
    return (rows // 2 - 1, rows // 2) if rows % 2 == 0 else (rows // 2,)


def apply_readings(scenario: Scenario, readings: Readings) -> Scenario:
    """The scenario as ``readings`` read it: objectives on the chosen rows, the VP target.

    Raises :class:`UnknownNameError` when the objective rows are not the centre line's.
    """
    update: dict[str, Any] = {}
    if readings.objective_rows is not None:
        m = _ROWS.match(readings.objective_rows)
        assert m is not None  # the model's pattern
        a, b = int(m.group(1)), int(m.group(2))
        centre = centre_rows(scenario)
        if a not in centre or b not in centre:
            raise UnknownNameError(f"objective_rows {readings.objective_rows} is not on the centre line of "
                                   f"{scenario.id} (rows {' and '.join(map(str, centre))})")
        hexes = tuple((c, a if k % 2 == 0 else b) for k, (c, _r) in enumerate(scenario.objectives.hexes))
        update["objectives"] = scenario.objectives.model_copy(update={"hexes": hexes})
    if readings.vp_to_win is not None:
        # the scenario file keeps "more than N": at least vp_to_win is more than vp_to_win - 1
        update["victory"] = scenario.victory.model_copy(update={"vp_to_win": readings.vp_to_win - 1})
    return scenario.model_copy(update=update) if update else scenario


__all__ = ["AS_WRITTEN", "READINGS_HELP", "READING_VALUES", "HitReading", "Readings", "apply_readings",
           "centre_rows", "objective_rows_of", "parse_readings", "readings_from_header"]
