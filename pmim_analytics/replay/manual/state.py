"""What a manual log's reader keeps about each unit: where it stands and the lines that said so.

How much a unit has left (HP, lost locations, weapons lost to overheating) is the engine's:
the reader replays the log's events through the engine's ``GameState`` as it reads them
(:class:`~pmim_analytics.engine.verify.LiveJudge`), and each :class:`UnitState` reads the
engine's unit. What a hit, a lost location or an overheated weapon leads to (destroyed,
immobilized, disarmed) is the engine's too: the reader writes the events the engine derives.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pmim_analytics.engine.state import UnitState as EngineUnit
from pmim_analytics.model.combat import hit_result
from pmim_analytics.model.hexes import Hex as GridHex
from pmim_analytics.model.vocab import LOC_INDEX, LOCATION_CODES, LOCATION_WORDS
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
    """One unit during the game, as the log reader sees it (mutable; private to the reader)."""

    id: str
    side: str
    spec: Chassis | Warmech
    weapons: tuple[str, ...]
    mounts: tuple[str, ...]
    engine: EngineUnit  # the engine's unit: what it has left
    codes: tuple[str, ...] = ()  # the body's location codes (Warmechs)
    destroyed_line: int | None = None
    immobilized: bool = False
    disarmed: bool = False
    pos: Hex | None = None
    deploy_line: int | None = None
    heat_lost: dict[str, int] = field(default_factory=dict)  # mount -> line its weapon overheated and was lost

    @classmethod
    def create(cls, uid: str, side: str, spec: Chassis | Warmech, weapons: tuple[str, ...],
               mounts: tuple[str, ...], engine: EngineUnit) -> UnitState:
        """A unit at full strength, following the engine's unit ``engine``."""
        codes = tuple(LOCATION_CODES[k] for k in spec.location_hp()) if isinstance(spec, Warmech) else ()
        return cls(uid, side, spec, weapons, mounts, engine, codes)

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
        return code in self.codes

    def is_lost(self, code: str) -> bool:
        """Whether the location is destroyed (0 HP), by the engine's state."""
        return code not in self.codes or self.engine.loc_hp[LOC_INDEX[code]] <= 0

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
        """Location HP in :data:`~pmim_analytics.model.vocab.LOCATIONS` order, -1 where the body has none
        (the engine's)."""
        return list(self.engine.loc_hp)

    def overkill(self, damage: int, location: str | None) -> int:
        """The damage beyond what the unit (basic) or the location hit has left
        (:func:`~pmim_analytics.model.combat.hit_result`, on the engine's HP)."""
        if not damage:
            return 0
        hp = self.engine.hp if location is None else self.engine.loc_hp[LOC_INDEX[location]]
        return hit_result(hp, damage)[1]

    def location_names(self) -> str:
        """The body's location codes, for messages."""
        return " ".join(self.codes)


def location_name(code: str) -> str:
    """``LA`` -> ``left arm``."""
    return LOCATION_WORDS[code]
