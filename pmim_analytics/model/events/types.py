"""The event types of a PMIM game: what the engine emits and replays store.

A game is a header (see :mod:`pmim_analytics.model.record`) and an ordered stream of
events. Every event has ``seq`` (1, 2, ... in order), ``round`` (0 for deployment; ``None``
where a manual summary log does not know it) and a stable ``type``. Events are frozen: no
field is filled in later.

Unit ids are game-wide: the side letter, a colon and the roster id (``B:TW1``, ``R:TY3``).
Hexes are ``(column, row)`` offset coordinates of the scenario map (odd-q layout).
Hit locations are written with their codes ``LA RA LL RL LT RT CT``.

Each field of each event is declared once, with :func:`column`: its kind (how it is typed
in JSON) and the wide-row columns it fills. The wide row itself (its columns, their SQL
types, the DDL) is :mod:`.schema`; the generic conversions (JSON form, wide rows, columns)
are :mod:`.codecs`. Adding an event type is one class here plus its handlers (see
docs/replay-format.md).

Events are keyword-only: ``Move(seq=7, round=1, unit="B:TW1", from_hex=(5, 12), to_hex=(5, 10), path=2)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from pmim_analytics.model.vocab import END_REASONS

Coords = tuple[int, int]

@dataclass(frozen=True)
class Kind:
    """How a field is typed: its name, the wide-row columns it spreads over, whether its JSON
    value is a list, and the type DuckDB parses that JSON value as."""

    name: str
    width: int
    sequence: bool
    json_sql: str


#: Every field kind: ``int``, ``str``, ``bool`` (one column each); ``hex`` (a [column, row]
#: pair, two columns); ``dice`` (two d6, two columns); ``d6_list`` (d6 results, one column
#: joined by commas); ``ids`` (unit ids, one column joined by spaces).
KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("int", 1, False, "BIGINT"), Kind("str", 1, False, "VARCHAR"), Kind("bool", 1, False, "BOOLEAN"),
    Kind("hex", 2, True, "BIGINT[]"), Kind("dice", 2, True, "BIGINT[]"), Kind("d6_list", 1, True, "BIGINT[]"),
    Kind("ids", 1, True, "VARCHAR[]"),
)}


@dataclass(frozen=True)
class EventField:
    """One field of an event type as declared: name, kind, wide columns, whether it may be null."""

    name: str
    kind: str
    columns: tuple[str, ...]
    nullable: bool


def column(kind: str, *columns: str, nullable: bool = False) -> Any:
    """Declare an event field: its kind (:data:`KINDS`), the wide columns it fills (default: a
    column named like the field) and whether it may be null (what a manual log may not know)."""
    if kind not in KINDS:
        raise ValueError(f"unknown field kind {kind!r}")
    return field(metadata={"kind": kind, "columns": columns, "nullable": nullable})


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event: position in the stream and round."""

    seq: int = column("int")
    round: int | None = column("int", nullable=True)
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The JSON Lines form: ``seq``, ``round``, ``type`` then the event's own fields."""
        d: dict[str, Any] = {"seq": self.seq, "round": self.round, "type": self.type}
        for name in _OWN_NAMES[self.type]:
            v = getattr(self, name)
            d[name] = list(v) if isinstance(v, tuple) else v
        return d


@dataclass(frozen=True, slots=True, kw_only=True)
class Deploy(Event):
    """A unit is placed on the map before round 1."""

    unit: str = column("str")
    hex: Coords = column("hex", "to_col", "to_row")
    type: ClassVar[str] = "deploy"


FIRST_PLAYER_SETTINGS = ("alternate", "blue", "red", "random")


def first_side_of_die(die: int) -> str:
    """The side a ``random`` first-player draw gives: 1-3 blue, 4-6 red."""
    return "blue" if die <= 3 else "red"


@dataclass(frozen=True, slots=True, kw_only=True)
class FirstPlayer(Event):
    """Who deploys and activates first in round 1, under the ``first_player`` setting in force.

    Emitted before deployment (round 0) whenever the setting is not ``alternate`` (the
    default, which a replay without this event was played under). ``die`` is the d6 the
    driver rolled for ``random`` (1-3 blue, 4-6 red), ``None`` for ``blue`` or ``red``.
    """

    setting: str = column("str", "reason")
    die: int | None = column("int", "die1", nullable=True)
    side: str = column("str")
    type: ClassVar[str] = "first_player"


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStart(Event):
    """A round begins; ``first`` is the side that activates first."""

    first: str = column("str", "side")
    type: ClassVar[str] = "round_start"


@dataclass(frozen=True, slots=True, kw_only=True)
class Activate(Event):
    """A unit begins its activation."""

    unit: str = column("str")
    type: ClassVar[str] = "activate"


@dataclass(frozen=True, slots=True, kw_only=True)
class Move(Event):
    """A unit moves; ``path`` is the number of hexes walked (at most its MOV)."""

    unit: str = column("str")
    from_hex: Coords = column("hex", "from_col", "from_row")
    to_hex: Coords = column("hex", "to_col", "to_row")
    path: int = column("int")
    type: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True, kw_only=True)
class Attack(Event):
    """One attack and everything rolled for it.

    ``roll`` is the two d6 of the attack roll; the attack hits when
    ``sum(roll) + acc >= needed`` (the target's DEF). On a hit against a Warmech,
    ``location_rolls`` are the d6 rolled on the hit-location chart in order (every roll
    but the last landed on a destroyed or absent location) and ``location`` is where the
    damage went. ``damage`` is (STR - ARM) x RPT, never negative; ``overkill`` is the part
    of it beyond what the location or unit had left.
    """

    unit: str = column("str")
    weapon: str = column("str")
    mount: str = column("str")  # where the weapon sits: a location code (LA, RA, CT) or HULL for basic units
    target: str = column("str")
    distance: int | None = column("int", nullable=True)
    roll: tuple[int, int] | None = column("dice", "die1", "die2", nullable=True)
    acc: int = column("int")
    needed: int = column("int")
    hit: bool = column("bool")
    location: str | None = column("str", nullable=True)
    location_rolls: tuple[int, ...] = column("d6_list")
    damage: int = column("int")
    overkill: int = column("int")
    type: ClassVar[str] = "attack"


@dataclass(frozen=True, slots=True, kw_only=True)
class LocationDestroyed(Event):
    """A Warmech's hit location reaches 0 HP; weapons mounted there are lost."""

    unit: str = column("str")
    location: str = column("str", nullable=True)  # readers have always let it be null; writers never do
    by: str | None = column("str", nullable=True)
    type: ClassVar[str] = "location_destroyed"


@dataclass(frozen=True, slots=True, kw_only=True)
class Immobilized(Event):
    """A Warmech has lost both legs and can no longer move."""

    unit: str = column("str")
    by: str | None = column("str", nullable=True)
    type: ClassVar[str] = "immobilized"


@dataclass(frozen=True, slots=True, kw_only=True)
class Disarmed(Event):
    """A Warmech has no usable weapon left (a humanoid that lost both arms)."""

    unit: str = column("str")
    by: str | None = column("str", nullable=True)
    type: ClassVar[str] = "disarmed"


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitDestroyed(Event):
    """A unit is destroyed; ``by`` is the attacker (``None`` if not known)."""

    unit: str = column("str")
    by: str | None = column("str", nullable=True)
    type: ClassVar[str] = "unit_destroyed"


@dataclass(frozen=True, slots=True, kw_only=True)
class VP(Event):
    """A side scores one VP for an objective at a round's end.

    ``objective`` is the objective's index in the scenario (0-5 for Take and Hold);
    ``blue``/``red`` are the ids of each side's units within its capture zone (the
    scoring side has more of them). The VP is shared among the scoring side's holders.
    """

    objective: int = column("int")
    side: str = column("str")
    blue: tuple[str, ...] = column("ids", "blue_holders")
    red: tuple[str, ...] = column("ids", "red_holders")
    type: ClassVar[str] = "vp"


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEnd(Event):
    """A round ends; VP totals after scoring."""

    blue_vp: int = column("int")
    red_vp: int = column("int")
    type: ClassVar[str] = "round_end"


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnd(Event):
    """The game ends. ``winner`` is ``blue``, ``red`` or ``None`` for a draw.

    ``reason`` is one of ``vp`` (more than the VP target and ahead at a round's end),
    ``wipeout`` (the other side has no units left), ``round_limit`` (the scenario's limit
    was reached with no winner under the victory rule: a draw, or with the scenario option
    ``at_round_limit: vp`` the side ahead on VP wins), or ``manual`` (a logged result).
    ``rounds`` and the VP totals are ``None`` only when a manual log does not know them.
    """

    winner: str | None = column("str", "side", nullable=True)
    reason: str = column("str")
    rounds: int | None = column("int", nullable=True)
    blue_vp: int | None = column("int", nullable=True)
    red_vp: int | None = column("int", nullable=True)
    type: ClassVar[str] = "game_end"


@dataclass(frozen=True, slots=True, kw_only=True)
class InitiativeRoll(Event):
    """Rolled initiative (optional rule): each side's die at a round's start, before ``round_start``.

    ``first`` is the side with the higher roll, ``None`` on a tie (then both roll again, in
    another ``initiative_roll``). The die is the variant's (``rolled_initiative.die``, d6 by default).
    """

    blue_roll: int = column("int", "die1")
    red_roll: int = column("int", "die2")
    first: str | None = column("str", "side", nullable=True)
    type: ClassVar[str] = "initiative_roll"


@dataclass(frozen=True, slots=True, kw_only=True)
class OverheatRoll(Event):
    """Heat (optional rule): the d6 rolled after an attack that took a Warmech above its heat rating.

    ``excess`` is the activation's heat above the rating so far (cumulative); the weapon
    overheats when ``result`` (the d6) is at most ``excess`` (``overheated``). An overheat is followed by
    ``weapon_lost``.
    """

    unit: str = column("str")
    weapon: str = column("str")
    mount: str = column("str")
    excess: int = column("int", "needed")
    result: int = column("int", "die1")
    overheated: bool = column("bool", "hit")
    type: ClassVar[str] = "overheat_roll"


@dataclass(frozen=True, slots=True, kw_only=True)
class WeaponLost(Event):
    """Heat (optional rule): an overheated weapon is destroyed and hits its own Warmech, ignoring ARM.

    ``location_rolls`` are the d6 rolled on the Warmech's hit chart (destroyed locations
    re-roll), ``location`` where the damage went; ``damage`` is STR x RPT, ``overkill`` the part
    beyond what the location had left.
    """

    unit: str = column("str")
    weapon: str = column("str")
    mount: str = column("str")
    location: str = column("str")
    location_rolls: tuple[int, ...] = column("d6_list")
    damage: int = column("int")
    overkill: int = column("int")
    type: ClassVar[str] = "weapon_lost"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rush(Event):
    """Rushing (optional rule): a unit moves up to its rush distance and may not attack this activation."""

    unit: str = column("str")
    from_hex: Coords = column("hex", "from_col", "from_row")
    to_hex: Coords = column("hex", "to_col", "to_row")
    path: int = column("int")
    type: ClassVar[str] = "rush"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (FirstPlayer, Deploy, RoundStart, Activate, Move, Attack, LocationDestroyed, Immobilized,
                Disarmed, UnitDestroyed, VP, RoundEnd, GameEnd, InitiativeRoll, OverheatRoll, WeaponLost, Rush)
}


def _slot_setting_init(cls: type[Event]) -> Callable[..., None]:
    """An ``__init__`` for the frozen event class ``cls`` with the signature of the one
    ``dataclass`` wrote (every field keyword-only and required, so the same ``TypeError`` for
    a missing or unknown field) that fills each slot through its descriptor instead of
    ``object.__setattr__`` by name: the same event, built in about half the time (the engine
    builds one for everything that happens, and a replay's rules check replays every game)."""
    names = [f.name for f in fields(cls)]
    if any(not n.isidentifier() or f.default is not MISSING or f.default_factory is not MISSING
           for n, f in zip(names, fields(cls), strict=True)):
        raise RuntimeError(f"{cls.__name__}: every event field must be required")
    setters = {f"_set_{n}": getattr(cls, n).__set__ for n in names}
    source = (f"def __init__(self, *, {', '.join(names)}):\n"
              + "".join(f"    _set_{n}(self, {n})\n" for n in names))
    exec(source, setters)  # noqa: S102 -- generated from the field names, as dataclass does
    init: Callable[..., None] = setters["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


for _cls in EVENT_TYPES.values():
    # why the ignore below: the generated __init__ replaces the dataclass's on purpose (it sets the slots directly)
    _cls.__init__ = _slot_setting_init(_cls)  # type: ignore[method-assign]

#: The event types only the optional rules produce (replay format version 2).
OPTIONAL_RULE_EVENT_TYPES = frozenset({"initiative_roll", "overheat_roll", "weapon_lost", "rush"})

GAME_END_REASONS = END_REASONS


def _declared(f: Any) -> EventField:
    meta = f.metadata
    return EventField(f.name, meta["kind"], meta["columns"] or (f.name,), meta["nullable"])


#: Every event type's own fields (``seq`` and ``round`` aside), in declaration order.
EVENT_FIELDS: dict[str, tuple[EventField, ...]] = {
    t: tuple(_declared(f) for f in fields(cls) if f.name not in ("seq", "round")) for t, cls in EVENT_TYPES.items()
}
#: The fields every event has.
COMMON_FIELDS: tuple[EventField, ...] = tuple(_declared(f) for f in fields(Event))
_OWN_NAMES: dict[str, tuple[str, ...]] = {t: tuple(f.name for f in fs) for t, fs in EVENT_FIELDS.items()}

R = TypeVar("R")


def dispatch(handlers: Mapping[str, Callable[[Any], R]], ev: Event, default: Callable[[Event], R] | None = None) -> R:
    """Call the handler registered for ``ev.type`` (the one place events are told apart by type).

    ``handlers`` maps event types to functions of the event; ``default`` handles the types it
    leaves out. Raises ``KeyError`` for a type with neither.
    """
    handler = handlers.get(ev.type)
    if handler is not None:
        return handler(ev)
    if default is None:
        raise KeyError(ev.type)
    return default(ev)
