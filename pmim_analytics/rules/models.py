"""Pydantic models of a rules version: chassis, weapons, Warmechs, charts, special rules.

A rules file (``data/rules/*.yaml``) validates into :class:`RulesVersion`. Stats use one
internal name whatever the version calls them (``hp`` for WND/HP, ``str`` for STR/DAM);
``labels`` keeps the version's own column names for display.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pmim_analytics.limits import MAX_STAT
from pmim_analytics.model.vocab import LocationName
from pmim_analytics.rules.optional import OptionalRules

BodyType = Literal["humanoid", "avian", "saurian"]
UnitKind = Literal["infantry", "vehicle", "warmech"]

#: The hit locations each body type really has (the v1 avian chart names arms it lacks).
BODY_LOCATIONS: dict[str, tuple[str, ...]] = {
    "humanoid": ("left_arm", "right_arm", "left_leg", "right_leg", "left_torso", "right_torso"),
    "avian": ("left_leg", "right_leg", "left_torso", "right_torso", "center_torso"),
    "saurian": ("left_arm", "right_arm", "left_leg", "right_leg", "center_torso"),
}
#: Where a Warmech's weapons go, in the order an army list gives them.
BODY_MOUNTS: dict[str, tuple[str, ...]] = {
    "humanoid": ("left_arm", "right_arm"),
    "avian": ("center_torso",),
    "saurian": ("left_arm", "right_arm", "center_torso"),
}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


@lru_cache(maxsize=4096)  # names repeat: every line of a log looks its weapon up by name
def normalize_name(text: str) -> str:
    """Fold a unit or weapon name for lookup: case, dots and spacing do not matter."""
    return re.sub(r"[\s.\-_]+", "", text).lower()


class Weapon(_Frozen):
    """One weapon's statline. ``code`` is the stable acronym (LL, HPB, GG, ...)."""

    code: str
    name: str
    aliases: tuple[str, ...] = ()
    rng: int = Field(ge=0, le=MAX_STAT)
    acc: int = Field(ge=-MAX_STAT, le=MAX_STAT)
    rpt: int = Field(ge=1, le=MAX_STAT)
    strength: int = Field(alias="str", ge=0, le=MAX_STAT)
    ton: int = Field(ge=0, le=MAX_STAT)
    #: Points the weapon adds to the unit that carries it. No printed version prices weapons
    #: (0); a variant may (``pmim balance propose`` reprices them).
    pts: int = Field(default=0, ge=0, le=MAX_STAT)

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Chassis(_Frozen):
    """A basic (non-mech) unit: infantry, ODA or a vehicle."""

    code: str
    name: str
    kind: Literal["infantry", "vehicle"]
    hp: int = Field(ge=1, le=MAX_STAT)
    mov: int = Field(ge=0, le=MAX_STAT)
    def_: int = Field(alias="def", ge=0, le=MAX_STAT)
    arm: int = Field(ge=0, le=MAX_STAT)
    spt: int = Field(ge=0, le=MAX_STAT)
    pts: int = Field(ge=0, le=MAX_STAT)

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @property
    def is_warmech(self) -> bool:
        """Basic units are never Warmechs."""
        return False


class WarmechHP(_Frozen):
    """HP per location group: each arm, each leg, each side torso, the center torso."""

    arm: int | None = Field(default=None, ge=1, le=MAX_STAT)
    leg: int | None = Field(default=None, ge=1, le=MAX_STAT)
    torso: int | None = Field(default=None, ge=1, le=MAX_STAT)
    center: int | None = Field(default=None, ge=1, le=MAX_STAT)


class Warmech(_Frozen):
    """A Warmech: body type, tonnage, stats and HP per hit location."""

    code: str
    name: str
    body: BodyType
    tons: int = Field(ge=1, le=MAX_STAT)
    spt: int = Field(ge=0, le=MAX_STAT)
    mov: int = Field(ge=0, le=MAX_STAT)
    def_: int = Field(alias="def", ge=0, le=MAX_STAT)
    arm: int = Field(ge=0, le=MAX_STAT)
    hp: WarmechHP
    pts: int = Field(ge=0, le=MAX_STAT)

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @property
    def is_warmech(self) -> bool:
        """Always true: lets callers treat chassis and Warmechs alike."""
        return True

    @property
    def kind(self) -> UnitKind:
        """The unit kind, ``warmech``."""
        return "warmech"

    @model_validator(mode="after")
    def _hp_matches_body(self) -> Warmech:
        needed = {
            "humanoid": ("arm", "leg", "torso"),
            "avian": ("torso", "leg", "center"),
            "saurian": ("arm", "leg", "center"),
        }[self.body]
        missing = [k for k in needed if getattr(self.hp, k) is None]
        extra = [k for k in ("arm", "leg", "torso", "center") if k not in needed and getattr(self.hp, k) is not None]
        if missing:
            raise ValueError(f"a {self.body} Warmech needs HP for {', '.join(missing)}")
        if extra:
            raise ValueError(f"a {self.body} Warmech has no {', '.join(extra)} location")
        return self

    def location_hp(self) -> dict[str, int]:
        """Return the starting HP of every location this body type really has."""
        group = {"left_arm": "arm", "right_arm": "arm", "left_leg": "leg", "right_leg": "leg",
                 "left_torso": "torso", "right_torso": "torso", "center_torso": "center"}
        out: dict[str, int] = {}
        for loc in BODY_LOCATIONS[self.body]:
            out[loc] = int(getattr(self.hp, group[loc]))
        return out


class WeightClass(_Frozen):
    """A tonnage band (heavy 100-120, ...) as the version prints it."""

    name: str
    min_tons: int
    max_tons: int


class SmallArmsRule(_Frozen):
    """v1: infantry and ODA carry Small Arms, which cost no tonnage."""

    units: tuple[str, ...]
    weapon: str


class CheapMammothRule(_Frozen):
    """v1: a Mammoth armed with the Black Powder cannon costs fewer points."""

    unit: str
    weapon: str
    pts: int


class LightWeaponRule(_Frozen):
    """v2/v3: infantry and ODA take 5-ton weapons at a range penalty."""

    units: tuple[str, ...]
    max_ton: int
    rng_penalty: int


class SpecialRules(_Frozen):
    """The version's special rules; ``None`` where the version has none of that kind."""

    small_arms: SmallArmsRule | None = None
    cheap_mammoth: CheapMammothRule | None = None
    light_weapon_units: LightWeaponRule | None = None


class Labels(_Frozen):
    """The version's own names for the stats (WND or HP, STR or DAM, ...)."""

    hp: str
    strength: str = Field(alias="str")
    warmech_hp: tuple[str, ...]

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Rename(_Frozen):
    """A rename this version made relative to its parent."""

    kind: Literal["unit", "weapon", "stat"]
    code: str
    old: str
    new: str


class RulesVersion(_Frozen):
    """One complete rules version (or a variant once its overrides are applied)."""

    id: str
    name: str
    parent: str | None = None
    base: str | None = None
    description: str | None = None
    labels: Labels
    weight_classes: tuple[WeightClass, ...]
    special_rules: SpecialRules
    chassis: tuple[Chassis, ...]
    weapons: tuple[Weapon, ...]
    warmechs: tuple[Warmech, ...]
    hit_charts: dict[BodyType, tuple[LocationName, ...]]
    renames: tuple[Rename, ...] = ()
    optional_rules: OptionalRules | None = None

    @model_validator(mode="after")
    def _consistent(self) -> RulesVersion:
        codes = [u.code for u in self.chassis] + [m.code for m in self.warmechs]
        dup = sorted({c for c in codes if codes.count(c) > 1})
        if dup:
            raise ValueError(f"unit codes used twice: {', '.join(dup)}")
        wcodes = [w.code for w in self.weapons]
        dup = sorted({c for c in wcodes if wcodes.count(c) > 1})
        if dup:
            raise ValueError(f"weapon codes used twice: {', '.join(dup)}")
        for body, chart in self.hit_charts.items():
            if len(chart) != 6:
                raise ValueError(f"the {body} hit chart must have 6 entries (one per d6 face), not {len(chart)}")
        for mech in self.warmechs:
            if mech.body not in self.hit_charts:
                raise ValueError(f"{mech.name} is {mech.body} but the version has no {mech.body} hit chart")
        return self

    @property
    def optional(self) -> OptionalRules:
        """The optional rules switched on (an empty set for the base rules)."""
        return self.optional_rules if self.optional_rules is not None else _NO_OPTIONAL_RULES

    @property
    def is_variant(self) -> bool:
        """True for a variant (it names a base version)."""
        return self.base is not None

    def iter_units(self) -> list[Chassis | Warmech]:
        """Every unit type, basic units first, then Warmechs in table order."""
        return [*self.chassis, *self.warmechs]

    def weight_class(self, mech: Warmech) -> str:
        """The tonnage band a Warmech falls in, by this version's bands."""
        for wc in self.weight_classes:
            if wc.min_tons <= mech.tons <= wc.max_tons:
                return wc.name
        return "unclassed"


_NO_OPTIONAL_RULES = OptionalRules()
