"""The fixed description of a game: rules, scenario board, and both armies as unit profiles.

A :class:`GameSpec` never changes during a game; :class:`~pmim_analytics.engine.state.GameState`
is built from it. Everything the engine looks up over and over (effective weapon ranges,
deployment zones, which objectives a hex counts for, distances to each objective) is
computed here once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property

from pmim_analytics.errors import DataFileError, IllegalActionError, Location, UnknownNameError
from pmim_analytics.model.combat import attack_damage, hit_probability
from pmim_analytics.model.events import FIRST_PLAYER_SETTINGS
from pmim_analytics.model.hexes import HexGrid, grid_for
from pmim_analytics.model.vocab import BLUE, LOC_INDEX, LOCATION_CODES, LOCATIONS, RED, SIDE_PREFIX, SIDES, game_unit_id
from pmim_analytics.rules.army import Roster
from pmim_analytics.rules.catalogue import find_unit, find_weapon, load_rules, load_scenario
from pmim_analytics.rules.mechanics import (
    attacks_per_activation,
    chart_codes,
    deployment_rows,
    first_side,
    heat_rating,
    hit_needed,
    in_capture_zone,
    weapon_heat,
    weapon_range,
)
from pmim_analytics.rules.models import RulesVersion, Warmech
from pmim_analytics.rules.optional import OptionalRules, check_optional_rules
from pmim_analytics.rules.readings import AS_WRITTEN, Readings, apply_readings
from pmim_analytics.rules.scenario import Scenario

__all__ = ["BLUE", "RED", "SIDES", "SIDE_PREFIX", "Board", "GameSpec", "UnitProfile", "WeaponMount", "build_board",
           "build_profiles", "deployment_rows", "game_unit_id"]


@dataclass(frozen=True, slots=True)
class WeaponMount:
    """A weapon where it sits: ``mount`` is LA/RA/CT or HULL; ``loc`` its location index (-1 = hull)."""

    mount: str
    loc: int
    weapon: str
    rng: int  # effective range for this unit (light-weapon penalty applied)
    acc: int
    rpt: int
    strength: int
    heat: int = 0  # heat one attack with it makes (optional heat rule; 0 when off)


@dataclass(frozen=True, slots=True)
class UnitProfile:
    """A unit's fixed stats in one game. ``loc_hp`` follows ``combat.LOCATIONS``; -1 = absent."""

    index: int
    id: str
    side: int
    roster_id: str
    code: str
    type: str
    kind: str
    body: str | None
    mov: int
    def_: int
    arm: int
    pts: int
    hp: int
    loc_hp: tuple[int, ...]
    chart: tuple[str, ...]
    mounts: tuple[WeaponMount, ...]
    heat_rating: int = -1  # the optional heat rule's rating; -1 = the unit makes no heat
    #: What 2d6 + ACC must reach to hit this unit: its DEF under the ``hit`` reading
    #: (mechanics.hit_needed); -1 = DEF itself (set in ``__post_init__``).
    needed: int = -1
    #: Attacks per activation: two for a Warmech (different mounts), one otherwise (from
    #: ``kind``; a slot, as the engine reads it after every action).
    max_attacks: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_attacks", attacks_per_activation(self.kind))
        if self.needed < 0:
            object.__setattr__(self, "needed", self.def_)

    @property
    def is_mech(self) -> bool:
        """True for a Warmech."""
        return self.body is not None


@dataclass(frozen=True)
class Board:
    """The scenario's map as lookup tables over hex indices."""

    grid: HexGrid
    objectives: tuple[int, ...]
    zones_of: tuple[tuple[int, ...], ...]  # hex -> objectives whose capture zone holds it
    objective_dist: tuple[tuple[int, ...], ...]  # objective -> distance from each hex
    deploy_zone: tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]  # side -> kind -> hexes
    impassable: bytes  # 1 where a hex cannot be entered
    has_impassable: bool


@cache
def build_board(scenario: Scenario) -> Board:
    """Tabulate a scenario's map: objectives, capture zones, deployment zones, terrain."""
    grid = grid_for(scenario.map.columns, scenario.map.rows)
    objectives = tuple(grid.index(h) for h in scenario.objectives.hexes)
    zones_of = tuple(
        tuple(k for k, o in enumerate(objectives) if in_capture_zone(scenario, grid.dist[h][o]))
        for h in range(grid.size)
    )
    objective_dist = tuple(grid.dist[o] for o in objectives)
    impassable = bytearray(grid.size)
    for h in scenario.map.impassable:
        impassable[grid.index(h)] = 1
    zones = []
    for side in (BLUE, RED):
        per_kind = {}
        for kind in ("infantry", "vehicle", "warmech"):
            rows = deployment_rows(scenario, side, kind)
            per_kind[kind] = tuple(
                i for i in range(grid.size) if grid.hexes[i].row in rows and not impassable[i]
            )
        zones.append(per_kind)
    return Board(grid, objectives, zones_of, objective_dist, (zones[0], zones[1]), bytes(impassable),
                 any(impassable))


def build_profiles(rules: RulesVersion, side: int, roster: Roster, first_index: int,
                   hit: str = "at_least") -> list[UnitProfile]:
    """Resolve a roster's units against ``rules`` into profiles with game ids; ``hit`` is
    the hit reading (what an attack must reach to hit each unit).

    Raises :class:`UnknownNameError` for a unit or weapon code the rules do not have.
    """
    out: list[UnitProfile] = []
    for n, ru in enumerate(roster.units):
        spec = find_unit(rules, ru.code)
        if len(ru.weapons) != len(ru.mounts):
            raise UnknownNameError(f"unit {ru.id}: {len(ru.weapons)} weapons on {len(ru.mounts)} mounts")
        mounts = []
        is_mech = isinstance(spec, Warmech)
        for code, mount in zip(ru.weapons, ru.mounts, strict=True):
            w = find_weapon(rules, code)
            loc = LOC_INDEX[mount] if mount in LOC_INDEX else -1
            mounts.append(WeaponMount(mount, loc, w.code, weapon_range(rules, spec.code, w), w.acc, w.rpt, w.strength,
                                      weapon_heat(rules, w.code) if is_mech else 0))
        rating = heat_rating(rules, spec.code) if is_mech else None
        if isinstance(spec, Warmech):
            hp_by_code = {LOCATION_CODES[k]: v for k, v in spec.location_hp().items()}
            loc_hp = tuple(hp_by_code.get(code, -1) for code in LOCATIONS)
            body, chart, hp = spec.body, chart_codes(rules, spec.body), sum(hp_by_code.values())
        else:
            loc_hp, body, chart, hp = (), None, (), spec.hp
        out.append(UnitProfile(
            index=first_index + n, id=game_unit_id(side, ru.id), side=side, roster_id=ru.id, code=spec.code,
            type=spec.name, kind=spec.kind, body=body, mov=spec.mov, def_=spec.def_, arm=spec.arm, pts=ru.pts,
            hp=hp, loc_hp=loc_hp, chart=chart, mounts=tuple(mounts), heat_rating=-1 if rating is None else rating,
            needed=hit_needed(spec.def_, hit),
        ))
    return out


def with_first_player(scenario: Scenario, first_player: str | None) -> Scenario:
    """The scenario with its ``first_player`` setting replaced (``None`` keeps it).

    Raises :class:`UnknownNameError` for a setting that is not one of alternate, blue, red, random.
    """
    if first_player is None or first_player == scenario.first_player:
        return scenario
    if first_player not in FIRST_PLAYER_SETTINGS:
        raise UnknownNameError(f"unknown first-player setting {first_player!r}; choose one of "
                               f"{', '.join(FIRST_PLAYER_SETTINGS)}")
    return scenario.model_copy(update={"first_player": first_player})


@dataclass(frozen=True)
class GameSpec:
    """Rules, scenario and the two armies of one game (blue first)."""

    rules: RulesVersion
    scenario: Scenario
    blue: Roster
    red: Roster
    board: Board
    profiles: tuple[UnitProfile, ...]
    #: The readings in doubt the game is played under, less those the data files already
    #: say (rules.readings); the scenario above is already read by them.
    readings: Readings = AS_WRITTEN

    @classmethod
    def create(cls, rules_id: str, scenario_id: str, blue: Roster, red: Roster,
               first_player: str | None = None, optional_rules: OptionalRules | None = None,
               readings: Readings | None = None, rules: RulesVersion | None = None) -> GameSpec:
        """Build a spec from ids and rosters; ``first_player`` overrides the scenario's setting,
        ``optional_rules`` the rules version's own (the verifier replays a game with the
        optional rules its header records), ``readings`` the readings in doubt (its
        ``weapons`` reading is the rosters' business and is only recorded here); ``rules``, when
        given, is played instead of the rules id's own table (``pmim balance propose`` plays
        candidate stats this way: :func:`pmim_analytics.rules.catalogue.rules_with_stats`).

        Raises :class:`UnknownNameError` for an unknown rules id, scenario, unit, weapon or
        first-player setting and :class:`DataFileError` for optional rules that leave
        something undefined.
        """
        rules = load_rules(rules_id) if rules is None else rules
        if optional_rules is not None and optional_rules != rules.optional:
            rules = rules.model_copy(update={"optional_rules": optional_rules})
            problems = check_optional_rules(rules)
            if problems:
                raise DataFileError(f"the optional rules cannot be used with {rules_id}: {problems[0][1]}",
                                    Location(field=".".join(str(p) for p in problems[0][0])))
        scenario = with_first_player(load_scenario(scenario_id), first_player)
        readings = (readings or AS_WRITTEN).relative_to(scenario)
        scenario = apply_readings(scenario, readings)
        hit = readings.hit_rule()
        blue_units = build_profiles(rules, BLUE, blue, 0, hit)
        red_units = build_profiles(rules, RED, red, len(blue_units), hit)
        return cls(rules, scenario, blue, red, build_board(scenario), tuple(blue_units + red_units), readings)

    @cached_property
    def shot_table(self) -> tuple[tuple[tuple[tuple[float, int], ...], ...], ...]:
        """``shot_table[attacker][mount][target]`` = (chance to hit, damage of a hit) for every
        pair of units, indexed by unit index (computed once per spec; bots read it)."""
        return tuple(
            tuple(tuple((float(hit_probability(wm.acc, t.needed)), attack_damage(wm.strength, wm.rpt, t.arm))
                        for t in self.profiles) for wm in a.mounts)
            for a in self.profiles)

    def roster(self, side: int) -> Roster:
        """The roster of side 0 (blue) or 1 (red)."""
        return self.blue if side == BLUE else self.red

    def first_side(self, round_no: int, first_in_round_1: int | None = None) -> int:
        """Who activates first in a round under the scenario's ``first_player`` setting.

        ``alternate``: blue in odd rounds, red in even ones; ``blue``/``red``: that side in
        every round; ``random``: ``first_in_round_1`` (the side the driver's die drew) in
        odd rounds, the other side in even ones. Raises :class:`IllegalActionError` for
        ``random`` before the draw.
        """
        side = first_side(self.scenario.first_player, round_no, first_in_round_1)
        if side is None:
            raise IllegalActionError("the first player has not been drawn yet")
        return side
