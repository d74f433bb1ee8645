"""Optional rules a variant may switch on: typed settings of the ``optional_rules:`` block.

A variant file (``data/rules/variants/*.yaml``) may carry::

    optional_rules:
      heat:                   # heat and overheating (StarMarines battle-mech supplement)
        ratings: {heavy: 6, medium: 5, light: 4, ultralight: 3}
        warmechs: {PA: 7}     # optional: a rating for one Warmech, over its class's
        weapons: {GG: 5}      # optional: a heat cost for one weapon, over its tonnage's
      rolled_initiative: {die: 6}          # Armor Grid: Mech Attack
      catch_up: {ratio: 2, activations: 2} # Armor Grid: Mech Attack
      rush: {factor: 2}                    # Armor Grid: Mech Attack

A rule that is absent (or ``null``) is off. Every key is checked: an unknown rule or
setting, or a bad value, is one error naming the file, the line and the key (see
:func:`pmim_analytics.rules.catalogue.load_rules`). What each rule does is written once in
:mod:`pmim_analytics.rules.mechanics` and explained in docs/rules-notes.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from pmim_analytics.limits import MAX_HEAT, MAX_OPTIONAL_FACTOR, MAX_STAT

#: A weapon's heat cost by its tonnage, unless the variant says otherwise (one heat per 5 tons).
DEFAULT_TONNAGE_HEAT: dict[int, int] = {5: 1, 10: 2, 15: 3, 20: 4}


#: A heat rating or cost: a whole number, never negative.
HeatValue = Annotated[int, Field(ge=0, le=MAX_HEAT)]
#: A weapon tonnage as a key of ``tonnage_heat``.
Tonnage = Annotated[int, Field(ge=0, le=MAX_STAT)]


class _Coded(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...


class _Weapon(_Coded, Protocol):
    @property
    def ton(self) -> int: ...


class _WeightClass(Protocol):
    @property
    def name(self) -> str: ...


M = TypeVar("M", bound=_Coded)


class RulesView(Protocol[M]):
    """What the optional rules read of a rules version (``rules.models.RulesVersion`` is one,
    ``M`` its Warmech type); a protocol, so this module needs nothing from the models module."""

    @property
    def id(self) -> str: ...
    @property
    def warmechs(self) -> Sequence[M]: ...
    @property
    def weapons(self) -> Sequence[_Weapon]: ...
    @property
    def weight_classes(self) -> Sequence[_WeightClass]: ...
    @property
    def optional_rules(self) -> OptionalRules | None: ...
    def weight_class(self, mech: M) -> str: ...


class _Setting(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HeatRule(_Setting):
    """Heat and overheating: each Warmech has a heat rating, each weapon a heat cost.

    ``ratings`` gives a rating per weight class (``heavy``, ``medium``, ...), ``warmechs`` one
    per Warmech code (it wins over the class); ``tonnage_heat`` is a weapon's cost by its
    tonnage and ``weapons`` one per weapon code (it wins over the tonnage).
    """

    ratings: dict[str, HeatValue] = Field(default_factory=dict)
    warmechs: dict[str, HeatValue] = Field(default_factory=dict)
    tonnage_heat: dict[Tonnage, HeatValue] = Field(default_factory=lambda: dict(DEFAULT_TONNAGE_HEAT))
    weapons: dict[str, HeatValue] = Field(default_factory=dict)

    def rating_of(self, rules: RulesView[M], code: str) -> int:
        """The heat rating of the Warmech ``code`` (its own, else its weight class's).

        Raises ``KeyError`` when neither is set (:func:`check_optional_rules` reports it first).
        """
        if code in self.warmechs:
            return self.warmechs[code]
        mech = next(m for m in rules.warmechs if m.code == code)
        return self.ratings[rules.weight_class(mech)]

    def heat_of(self, rules: RulesView[M], weapon_code: str) -> int:
        """The heat cost of firing the weapon ``weapon_code`` once.

        Raises ``KeyError`` when neither the weapon nor its tonnage has a cost.
        """
        if weapon_code in self.weapons:
            return self.weapons[weapon_code]
        weapon = next(w for w in rules.weapons if w.code == weapon_code)
        return self.tonnage_heat[weapon.ton]


class RolledInitiativeRule(_Setting):
    """Rolled initiative: each round both sides roll a ``die``-sided die; the higher goes first."""

    die: int = Field(default=6, ge=2, le=100)


class CatchUpRule(_Setting):
    """Catch-up activations: a side with at least ``ratio`` times the other's living units
    activates ``activations`` units at each of its turns."""

    # A ratio only compares two counts, so a large one (a way to say 'never') costs nothing.
    ratio: int = Field(default=2, ge=2, le=MAX_STAT)
    activations: int = Field(default=2, ge=2, le=MAX_OPTIONAL_FACTOR)


class RushRule(_Setting):
    """Rushing: a unit may move up to ``factor`` times its MOV and then may not attack."""

    factor: int = Field(default=2, ge=2, le=MAX_OPTIONAL_FACTOR)


class OptionalRules(_Setting):
    """The optional rules a variant switches on; ``None`` = off."""

    heat: HeatRule | None = None
    rolled_initiative: RolledInitiativeRule | None = None
    catch_up: CatchUpRule | None = None
    rush: RushRule | None = None

    def is_empty(self) -> bool:
        """True when no optional rule is on."""
        return all(getattr(self, name) is None for name in OPTIONAL_RULE_NAMES)

    def names(self) -> list[str]:
        """The names of the rules that are on, in catalogue order."""
        return [name for name in OPTIONAL_RULE_NAMES if getattr(self, name) is not None]

    def settings(self) -> dict[str, dict[str, object]]:
        """The rules that are on with their settings, as plain JSON-able data (the replay header's form)."""
        out: dict[str, dict[str, object]] = {}
        for name in self.names():
            out[name] = getattr(self, name).model_dump(mode="json")
        return out


OPTIONAL_RULE_NAMES: tuple[str, ...] = ("heat", "rolled_initiative", "catch_up", "rush")
SETTING_MODELS: dict[str, type[_Setting]] = {
    "heat": HeatRule, "rolled_initiative": RolledInitiativeRule, "catch_up": CatchUpRule, "rush": RushRule,
}


def check_optional_rules(rules: RulesView[M]) -> list[tuple[tuple[str | int, ...], str]]:
    """What a version's optional rules leave undefined: ``(key path, problem)`` pairs.

    Heat needs a rating for every Warmech (by code or by its weight class) and a heat cost
    for every weapon a Warmech can carry (by code or by its tonnage), and may only name
    Warmechs, weapons and weight classes the version has.
    """
    heat = rules.optional_rules.heat if rules.optional_rules else None
    if heat is None:
        return []
    base: tuple[str | int, ...] = ("optional_rules", "heat")
    problems: list[tuple[tuple[str | int, ...], str]] = []
    classes = [wc.name for wc in rules.weight_classes]
    mechs = [m.code for m in rules.warmechs]
    weapons = [w.code for w in rules.weapons]
    for key, known, what in ((heat.ratings, classes, "weight class"), (heat.warmechs, mechs, "Warmech code"),
                             (heat.weapons, weapons, "weapon code")):
        table = {"weight class": "ratings", "Warmech code": "warmechs", "weapon code": "weapons"}[what]
        for name in key:
            if name not in known:
                problems.append(((*base, table, name), f"{name!r} is not a {what} of {rules.id}; known: "
                                 f"{', '.join(known)}"))
    for mech in rules.warmechs:
        if mech.code not in heat.warmechs and rules.weight_class(mech) not in heat.ratings:
            problems.append(((*base, "ratings"), f"no heat rating for {mech.name} ({mech.code}, "
                             f"{rules.weight_class(mech)}): give its class under ratings or the Warmech "
                             "under warmechs"))
    for w in rules.weapons:
        if w.ton > 0 and w.code not in heat.weapons and w.ton not in heat.tonnage_heat:
            problems.append(((*base, "tonnage_heat"), f"no heat cost for {w.name} ({w.code}, {w.ton} tons): "
                             f"give its tonnage under tonnage_heat or the weapon under weapons"))
    return problems
