"""Sweep files: a round-robin of compositions under rules versions, as YAML, and its plan.

A sweep file names rules ids (versions or variants), compositions (army files), bots, the
number of games per pairing and a seed::

    name: v3-roundrobin
    seed: 2026
    rules: [v3, v3-llaser-rpt4]
    compositions: [v3-balanced, v3-tank-heavy, ../armies/v3-fast-gev.yaml]
    bots: [greedy]
    games_per_pairing: 1000
    first_player: random   # optional: overrides the scenario's setting for every pairing

A composition is a bare name (``v3-balanced``: ``data/armies/v3-balanced.yaml``) or a path
relative to the sweep file. The plan has one pairing for every pair of compositions
(``mirrors: true`` adds each against itself) under every rules id and every bot pairing
(each bot against itself; ``cross_bots: true`` adds every ordered pair of different bots).
A pairing is a batch whose seed is derived from the sweep seed and the pairing's identity
(rules, compositions, bots) -- not its position -- so adding a composition or a rules id
leaves every other pairing's games unchanged.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pmim_analytics.errors import DataFileError, InvalidArmyError, Location, PmimError, display_path
from pmim_analytics.limits import MAX_GAMES
from pmim_analytics.rules import load_army, load_rules, validate_army
from pmim_analytics.rules.army import Roster
from pmim_analytics.rules.catalogue import DEFAULT_SCENARIO, data_dir, load_scenario, read_yaml, validation_message
from pmim_analytics.sim.parts import PART_SIZE

if TYPE_CHECKING:  # the engine loads once the file is read and its counts checked
    from pmim_analytics.sim.batch import BatchSpec

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


def _unique(values: tuple[str, ...]) -> tuple[str, ...]:
    seen = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{v!r} is listed twice")
        seen.add(v)
    return values


class SweepFile(BaseModel):
    """A sweep file as written."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    seed: int = Field(ge=0)
    scenario: str = DEFAULT_SCENARIO
    rules: tuple[str, ...] = Field(min_length=1)
    compositions: tuple[str, ...] = Field(min_length=1)
    bots: tuple[str, ...] = Field(default=("greedy",), min_length=1)
    cross_bots: bool = False
    mirrors: bool = False
    games_per_pairing: int = Field(ge=1, le=MAX_GAMES)
    part_size: int = Field(default=PART_SIZE, ge=1, le=100_000)
    #: who activates first, for every pairing (default: the scenario's own setting)
    first_player: Literal["alternate", "blue", "red", "random"] | None = None
    notes: str | None = None

    _no_repeats = field_validator("rules", "compositions", "bots")(_unique)


@dataclass(frozen=True)
class Pairing:
    """One batch of a sweep: composition A against B under one rules id, with their bots."""

    rules_id: str
    key_a: str
    key_b: str
    bot_a: str
    bot_b: str
    seed: int
    games: int
    army_a: Roster
    army_b: Roster

    @property
    def id(self) -> str:
        """``v3/v3-balanced--v3-tank-heavy--greedy-greedy``: also its folder below the sweep's."""
        return f"{self.rules_id}/{self.key_a}--{self.key_b}--{self.bot_a}-{self.bot_b}"

    def batch(self, sweep_name: str, scenario: str, played: str | None,
              first_player: str | None = None) -> BatchSpec:
        """The pairing as a batch; its name (in every game header) is ``<sweep>/<pairing id>``."""
        from pmim_analytics.sim.batch import BatchSpec

        return BatchSpec(self.rules_id, scenario, self.army_a, self.army_b, self.bot_a, self.bot_b,
                         self.seed, self.games, name=f"{sweep_name}/{self.id}", played=played,
                         first_player=first_player)

    def identity(self) -> dict[str, object]:
        """What makes the pairing's games: recorded in a sweep's manifest and compared on resume."""
        return {"id": self.id, "rules": self.rules_id, "a": self.key_a, "b": self.key_b,
                "army_a": self.army_a.content_hash(), "army_b": self.army_b.content_hash(),
                "bot_a": self.bot_a, "bot_b": self.bot_b, "seed": self.seed, "games": self.games}


@dataclass(frozen=True)
class Sweep:
    """A sweep file with its compositions loaded and its pairings planned."""

    spec: SweepFile
    source: str
    pairings: tuple[Pairing, ...]

    @property
    def games(self) -> int:
        """Games in the whole sweep."""
        return sum(p.games for p in self.pairings)


def pairing_seed(sweep_seed: int, rules_id: str, key_a: str, key_b: str, bot_a: str, bot_b: str) -> int:
    """The batch seed of a pairing: a 63-bit number hashed from the sweep seed and the pairing."""
    text = json.dumps([sweep_seed, rules_id, key_a, key_b, bot_a, bot_b])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def composition_path(entry: str, sweep_dir: Path) -> Path:
    """A bare name means ``data/armies/<name>.yaml``; anything else is a path from the sweep file."""
    if "/" not in entry and "\\" not in entry and not entry.endswith((".yaml", ".yml")):
        return data_dir() / "armies" / f"{entry}.yaml"
    return sweep_dir / entry


def parse_sweep_file(path: str | Path) -> SweepFile:
    """Read and check a sweep file's fields.

    Raises :class:`DataFileError` naming the file and the field (and the line of a YAML error).
    """
    p = Path(path)
    raw = read_yaml(p)
    if not isinstance(raw, dict):
        raise DataFileError("a sweep file must be a mapping with name, seed, rules, compositions and "
                            "games_per_pairing", Location(display_path(p)))
    try:
        return SweepFile.model_validate(raw)
    except ValidationError as e:
        loc, reason = validation_message(e)
        raise DataFileError(reason, Location(display_path(p), field=loc)) from None


def _bot_pairs(spec: SweepFile) -> list[tuple[str, str]]:
    if spec.cross_bots:
        return [(a, b) for a in spec.bots for b in spec.bots]
    return [(b, b) for b in spec.bots]


def _composition_pairs(keys: list[str], mirrors: bool) -> list[tuple[str, str]]:
    if mirrors:
        return list(itertools.combinations_with_replacement(keys, 2))
    return list(itertools.combinations(keys, 2))


def load_sweep(path: str | Path) -> Sweep:
    """Read a sweep file, load and validate every composition under every rules id, plan the pairings.

    Raises :class:`DataFileError` / :class:`PmimError` naming the sweep file and the field for
    a bad field, an unknown rules id, scenario or bot, a missing army file, an army that is not
    legal under one of the rules ids, or a plan without a single pairing.
    """
    p = Path(path)
    spec = parse_sweep_file(p)
    source = display_path(p)

    def where(field: str) -> Location:
        return Location(source, field=field)

    try:
        load_scenario(spec.scenario)
    except PmimError as e:
        raise PmimError(e.message, where("scenario")) from None
    for n, rules_id in enumerate(spec.rules):
        try:
            load_rules(rules_id)
        except PmimError as e:
            raise PmimError(e.message, where(f"rules.{n}")) from None
    from pmim_analytics.engine.bots import check_bot_name

    labels = []
    for n, bot in enumerate(spec.bots):
        try:
            labels.append(check_bot_name(bot))
        except PmimError as e:
            raise PmimError(e.message, e.where if e.where and e.where.file else where(f"bots.{n}")) from None
    if len(set(labels)) != len(labels):
        raise PmimError("two entries name the same bot and settings; list each once", where("bots"))
    spec = spec.model_copy(update={"bots": tuple(labels)})  # canonical specs: search == search:budget=<default>
    keys = [Path(entry).stem for entry in spec.compositions]
    if len(set(keys)) != len(keys):
        raise PmimError("two compositions have the same file name; rename one", where("compositions"))
    rosters: dict[tuple[str, str], Roster] = {}
    for n, entry in enumerate(spec.compositions):
        army_path = composition_path(entry, p.parent)
        try:
            army = load_army(army_path)
        except PmimError as e:
            raise PmimError(f"{e.render()}", where(f"compositions.{n}")) from None
        for rules_id in spec.rules:
            try:
                rosters[keys[n], rules_id] = validate_army(army, rules_id, spec.scenario)
            except InvalidArmyError as e:
                raise PmimError(f"{display_path(army_path)} is not legal under {rules_id}: "
                                + "; ".join(e.violations), where(f"compositions.{n}")) from None
    pairs = _composition_pairs(keys, spec.mirrors)
    if not pairs:
        raise PmimError("one composition and mirrors off: nothing to play", where("compositions"))
    pairings = tuple(
        Pairing(rules_id, a, b, bot_a, bot_b, pairing_seed(spec.seed, rules_id, a, b, bot_a, bot_b),
                spec.games_per_pairing, rosters[a, rules_id], rosters[b, rules_id])
        for rules_id in spec.rules for a, b in pairs for bot_a, bot_b in _bot_pairs(spec))
    return Sweep(spec, source, pairings)
