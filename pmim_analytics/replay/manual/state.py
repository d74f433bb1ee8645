"""What a manual log's reader tracks about each unit: HP, lost locations, position.

Damage follows the rules: a basic unit loses HP; a Warmech loses HP at one hit location,
and a location at 0 HP is destroyed (with the weapon mounted there). Under the optional heat
rule a weapon can also be lost to overheating. A humanoid with
both side torsos destroyed, or an avian or saurian with its center torso destroyed, is
destroyed; both legs lost immobilise; all weapon mounts lost disarm. Damage beyond
what the location or unit had left is overkill.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pmim_analytics.model.combat import hit_result, location_loss_follows
from pmim_analytics.model.hexes import Hex as GridHex
from pmim_analytics.model.vocab import LOCATION_CODES, LOCATION_WORDS, LOCATIONS
from pmim_analytics.rules.mechanics import chart_codes, deployment_rows, heat_rating, weapon_range
from pmim_analytics.rules.models import Chassis, RulesVersion, Warmech, Weapon
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
    return h[1] in deployment_rows(scenario, side, kind)


@dataclass
class UnitState:
    """One unit during the game (mutable; private to the log reader)."""

    id: str
    side: str
    spec: Chassis | Warmech
    weapons: tuple[str, ...]
    mounts: tuple[str, ...]
    hp: int = 0
    loc_hp: dict[str, int] = field(default_factory=dict)  # location code -> HP left (Warmechs)
    destroyed_line: int | None = None
    immobilized: bool = False
    disarmed: bool = False
    pos: Hex | None = None
    deploy_line: int | None = None
    heat_lost: dict[str, int] = field(default_factory=dict)  # mount -> line its weapon overheated and was lost

    @classmethod
    def create(cls, uid: str, side: str, spec: Chassis | Warmech, weapons: tuple[str, ...],
               mounts: tuple[str, ...]) -> UnitState:
        """A unit at full strength."""
        u = cls(uid, side, spec, weapons, mounts)
        if isinstance(spec, Warmech):
            u.loc_hp = {LOCATION_CODES[k]: v for k, v in spec.location_hp().items()}
        else:
            u.hp = spec.hp
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
        return weapon_range(rules, self.spec.code, weapon)

    def heat_rating(self, rules: RulesVersion) -> int | None:
        """The Warmech's heat rating under the optional heat rule (``None``: no heat, or not a Warmech)."""
        return heat_rating(rules, self.spec.code) if self.is_warmech else None

    @property
    def body(self) -> str:
        """The Warmech's body type (``""`` for a basic unit, which has no hit locations)."""
        return self.spec.body if isinstance(self.spec, Warmech) else ""

    def chart_location(self, die: int, rules: RulesVersion) -> str:
        """The location code the hit chart gives for a d6 result (possibly absent on the body)."""
        assert isinstance(self.spec, Warmech)  # only a Warmech has a hit chart
        return chart_codes(rules, self.spec.body)[die - 1]

    def location_hps(self) -> list[int]:
        """Location HP in :data:`~pmim_analytics.model.vocab.LOCATIONS` order, -1 where the body has none."""
        return [self.loc_hp.get(code, -1) for code in LOCATIONS]

    def take_damage(self, damage: int, location: str | None) -> tuple[int, list[tuple[str, str | None]]]:
        """Apply damage; return the overkill and what follows, in order.

        The consequences are ``(kind, location)`` with kind ``location_destroyed``,
        ``unit_destroyed``, ``immobilized`` or ``disarmed``.
        """
        if not self.is_warmech:
            self.hp, overkill, lost = hit_result(self.hp, damage)
            return overkill, [("unit_destroyed", None)] if lost else []
        assert location is not None
        self.loc_hp[location], overkill, lost = hit_result(self.loc_hp[location], damage)
        return overkill, self.lose_location(location, already_zero=True) if lost else []

    def lose_location(self, location: str, already_zero: bool = False) -> list[tuple[str, str | None]]:
        """Destroy a location; return it and its consequences (destroyed, immobilised, disarmed)."""
        if not already_zero:
            self.loc_hp[location] = 0
        return [("location_destroyed", location), *self.loss_follows()]

    def loss_follows(self) -> list[tuple[str, str | None]]:
        """What the unit's losses so far newly lead to (destroyed, immobilized, disarmed), by the
        engine's rule :func:`~pmim_analytics.model.combat.location_loss_follows`."""
        lost = [self.is_lost(m) or m in self.heat_lost for m in self.mounts]
        follows = location_loss_follows(self.body, self.location_hps(), self.immobilized, self.disarmed, lost)
        return [(what, None) for what in follows]

    def location_names(self) -> str:
        """The body's location codes, for messages."""
        return " ".join(self.loc_hp)


def location_name(code: str) -> str:
    """``LA`` -> ``left arm``."""
    return LOCATION_WORDS[code]
