"""What a manual log's reader tracks about each unit: HP, lost locations, position.

Damage follows the rules: a basic unit loses HP; a Warmech loses HP at one hit location,
and a location at 0 HP is destroyed (with the weapon mounted there). A humanoid with
both side torsos destroyed, or an avian or saurian with its center torso destroyed, is
destroyed; both legs lost immobilise; all weapon mounts lost disarm. Damage beyond
what the location or unit had left is overkill.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pmim_analytics.model.hexes import Hex as GridHex
from pmim_analytics.model.vocab import LOCATION_BY_CODE, LOCATION_CODES
from pmim_analytics.rules.models import RulesVersion, Warmech, Weapon
from pmim_analytics.rules.scenario import Scenario

Hex = tuple[int, int]


def hex_distance(a: Hex, b: Hex) -> int:
    """Hexes between two (column, row) offset coordinates of an odd-q map (the engine's grid maths)."""
    return GridHex(*a).distance(b)


def on_map(h: Hex, scenario: Scenario) -> bool:
    """Whether the hex lies on the scenario's map."""
    return 0 <= h[0] < scenario.map.columns and 0 <= h[1] < scenario.map.rows


def in_deployment_zone(h: Hex, side: str, kind: str, scenario: Scenario) -> bool:
    """Whether a unit of ``kind`` may deploy at ``h``: within its depth of its side's edge."""
    depth = getattr(scenario.deployment.depth, kind)
    edge = getattr(scenario.deployment, side).edge
    return h[1] >= scenario.map.rows - depth if edge == "south" else h[1] < depth


@dataclass
class UnitState:
    """One unit during the game (mutable; private to the log reader)."""

    id: str
    side: str
    spec: object  # Chassis | Warmech
    weapons: tuple[str, ...]
    mounts: tuple[str, ...]
    hp: int = 0
    loc_hp: dict[str, int] = field(default_factory=dict)  # location code -> HP left (Warmechs)
    destroyed_line: int | None = None
    immobilized: bool = False
    disarmed: bool = False
    pos: Hex | None = None
    deploy_line: int | None = None

    @classmethod
    def create(cls, uid: str, side: str, spec: object, weapons: tuple[str, ...], mounts: tuple[str, ...]) -> UnitState:
        """A unit at full strength."""
        u = cls(uid, side, spec, weapons, mounts)
        if isinstance(spec, Warmech):
            u.loc_hp = {LOCATION_CODES[k]: v for k, v in spec.location_hp().items()}
        else:
            u.hp = spec.hp  # type: ignore[attr-defined]
        return u

    @property
    def is_warmech(self) -> bool:
        """Whether the unit is a Warmech."""
        return isinstance(self.spec, Warmech)

    @property
    def is_destroyed(self) -> bool:
        """Whether the log has destroyed the unit."""
        return self.destroyed_line is not None

    def has_location(self, code: str) -> bool:
        """Whether the unit's body has this hit location."""
        return code in self.loc_hp

    def is_lost(self, code: str) -> bool:
        """Whether the location is destroyed (0 HP)."""
        return self.loc_hp.get(code, 0) <= 0

    def weapon_range(self, weapon: Weapon, rules: RulesVersion) -> int:
        """The weapon's RNG on this unit (infantry and ODA take light weapons at a penalty)."""
        lw = rules.special_rules.light_weapon_units
        code = self.spec.code  # type: ignore[attr-defined]
        if lw and code in lw.units and weapon.ton <= lw.max_ton:
            return max(0, weapon.rng - lw.rng_penalty)
        return weapon.rng

    def chart_location(self, die: int, rules: RulesVersion) -> str:
        """The location code the hit chart gives for a d6 result (possibly absent on the body)."""
        return LOCATION_CODES[rules.hit_charts[self.spec.body][die - 1]]  # type: ignore[attr-defined]

    def take_damage(self, damage: int, location: str | None) -> tuple[int, list[tuple[str, str | None]]]:
        """Apply damage; return the overkill and what follows, in order.

        The consequences are ``(kind, location)`` with kind ``location_destroyed``,
        ``unit_destroyed``, ``immobilized`` or ``disarmed``.
        """
        if not self.is_warmech:
            left = self.hp
            self.hp = max(0, left - damage)
            if damage >= left > 0:
                return damage - left, [("unit_destroyed", None)]
            return 0, []
        assert location is not None
        left = self.loc_hp[location]
        self.loc_hp[location] = max(0, left - damage)
        if damage >= left > 0:
            return damage - left, self.lose_location(location, already_zero=True)
        return 0, []

    def lose_location(self, location: str, already_zero: bool = False) -> list[tuple[str, str | None]]:
        """Destroy a location; return it and its consequences (destroyed, immobilised, disarmed)."""
        if not already_zero:
            self.loc_hp[location] = 0
        out: list[tuple[str, str | None]] = [("location_destroyed", location)]
        body = self.spec.body  # type: ignore[attr-defined]
        vital = ("LT", "RT") if body == "humanoid" else ("CT",)
        if location in vital and all(self.is_lost(v) for v in vital):
            out.append(("unit_destroyed", None))
            return out
        if location in ("LL", "RL") and self.is_lost("LL") and self.is_lost("RL") and not self.immobilized:
            out.append(("immobilized", None))
        if location in self.mounts and all(self.is_lost(m) for m in self.mounts) and not self.disarmed:
            out.append(("disarmed", None))
        return out

    def location_names(self) -> str:
        """The body's location codes, for messages."""
        return " ".join(self.loc_hp)


def location_name(code: str) -> str:
    """``LA`` -> ``left arm``."""
    return LOCATION_BY_CODE[code].replace("_", " ")
