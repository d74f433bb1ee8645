"""The event vocabulary of a PMIM game: what the engine emits and replays store.

A game is a header (see :mod:`pmim_analytics.model.record`) and an ordered stream of
events. Every event has ``seq`` (1, 2, ... in order), ``round`` (0 for deployment; ``None``
where a manual summary log does not know it) and a stable ``type``. Events are frozen: no
field is filled in later.

Unit ids are game-wide: the side letter, a colon and the roster id (``B:TW1``, ``R:TY3``).
Hexes are ``(column, row)`` offset coordinates of the scenario map (odd-q layout).
Hit locations are written with their codes ``LA RA LL RL LT RT CT``.

The same events flatten into one wide row shape (:data:`EVENT_COLUMNS`), used by the
Parquet batch format and by the database's ``events`` table, so both ingest alike.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from pmim_analytics.model.vocab import END_REASONS

Hex = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event: position in the stream and round."""

    seq: int
    round: int | None
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The JSON Lines form: ``seq``, ``round``, ``type`` then the event's own fields."""
        d: dict[str, Any] = {"seq": self.seq, "round": self.round, "type": self.type}
        names = _OWN_FIELDS.get(type(self))
        if names is None:
            names = _OWN_FIELDS[type(self)] = tuple(f.name for f in fields(self) if f.name not in ("seq", "round"))
        for name in names:
            v = getattr(self, name)
            d[name] = list(v) if isinstance(v, tuple) else v
        return d


#: Each event class's own field names in order (filled on first use; ``fields()`` is slow).
_OWN_FIELDS: dict[type, tuple[str, ...]] = {}


@dataclass(frozen=True, slots=True)
class Deploy(Event):
    """A unit is placed on the map before round 1."""

    unit: str
    hex: Hex
    type: ClassVar[str] = "deploy"


@dataclass(frozen=True, slots=True)
class RoundStart(Event):
    """A round begins; ``first`` is the side that activates first."""

    first: str
    type: ClassVar[str] = "round_start"


@dataclass(frozen=True, slots=True)
class Activate(Event):
    """A unit begins its activation."""

    unit: str
    type: ClassVar[str] = "activate"


@dataclass(frozen=True, slots=True)
class Move(Event):
    """A unit moves; ``path`` is the number of hexes walked (at most its MOV)."""

    unit: str
    from_hex: Hex
    to_hex: Hex
    path: int
    type: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class Attack(Event):
    """One attack and everything rolled for it.

    ``roll`` is the two d6 of the attack roll; the attack hits when
    ``sum(roll) + acc >= needed`` (the target's DEF). On a hit against a Warmech,
    ``location_rolls`` are the d6 rolled on the hit-location chart in order (every roll
    but the last landed on a destroyed or absent location) and ``location`` is where the
    damage went. ``damage`` is (STR - ARM) x RPT, never negative; ``overkill`` is the part
    of it beyond what the location or unit had left.
    """

    unit: str
    weapon: str
    mount: str  # where the weapon sits: a location code (LA, RA, CT) or HULL for basic units
    target: str
    distance: int | None
    roll: tuple[int, int] | None
    acc: int
    needed: int
    hit: bool
    location: str | None
    location_rolls: tuple[int, ...]
    damage: int
    overkill: int
    type: ClassVar[str] = "attack"


@dataclass(frozen=True, slots=True)
class LocationDestroyed(Event):
    """A Warmech's hit location reaches 0 HP; weapons mounted there are lost."""

    unit: str
    location: str
    by: str | None
    type: ClassVar[str] = "location_destroyed"


@dataclass(frozen=True, slots=True)
class Immobilized(Event):
    """A Warmech has lost both legs and can no longer move."""

    unit: str
    by: str | None
    type: ClassVar[str] = "immobilized"


@dataclass(frozen=True, slots=True)
class Disarmed(Event):
    """A Warmech has no usable weapon left (a humanoid that lost both arms)."""

    unit: str
    by: str | None
    type: ClassVar[str] = "disarmed"


@dataclass(frozen=True, slots=True)
class UnitDestroyed(Event):
    """A unit is destroyed; ``by`` is the attacker (``None`` if not known)."""

    unit: str
    by: str | None
    type: ClassVar[str] = "unit_destroyed"


@dataclass(frozen=True, slots=True)
class VP(Event):
    """A side scores one VP for an objective at a round's end.

    ``objective`` is the objective's index in the scenario (0-5 for Take and Hold);
    ``blue``/``red`` are the ids of each side's units within its capture zone (the
    scoring side has more of them). The VP is shared among the scoring side's holders.
    """

    objective: int
    side: str
    blue: tuple[str, ...]
    red: tuple[str, ...]
    type: ClassVar[str] = "vp"


@dataclass(frozen=True, slots=True)
class RoundEnd(Event):
    """A round ends; VP totals after scoring."""

    blue_vp: int
    red_vp: int
    type: ClassVar[str] = "round_end"


@dataclass(frozen=True, slots=True)
class GameEnd(Event):
    """The game ends. ``winner`` is ``blue``, ``red`` or ``None`` for a draw.

    ``reason`` is one of ``vp`` (more than the VP target and ahead at a round's end),
    ``wipeout`` (the other side has no units left), ``round_limit`` (the scenario's limit
    was reached; the side ahead on VP wins), or ``manual`` (a logged result).
    ``rounds`` and the VP totals are ``None`` only when a manual log does not know them.
    """

    winner: str | None
    reason: str
    rounds: int | None
    blue_vp: int | None
    red_vp: int | None
    type: ClassVar[str] = "game_end"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (Deploy, RoundStart, Activate, Move, Attack, LocationDestroyed, Immobilized,
                Disarmed, UnitDestroyed, VP, RoundEnd, GameEnd)
}

GAME_END_REASONS = END_REASONS

#: The wide row shape of an event: (column, arrow/duckdb type). One row per event; a
#: column an event type does not use is null. ``game_id`` leads every row.
EVENT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("game_id", "VARCHAR"),
    ("seq", "INTEGER"),
    ("round", "INTEGER"),
    ("type", "VARCHAR"),
    ("unit", "VARCHAR"),
    ("target", "VARCHAR"),
    ("weapon", "VARCHAR"),
    ("mount", "VARCHAR"),
    ("from_col", "SMALLINT"),
    ("from_row", "SMALLINT"),
    ("to_col", "SMALLINT"),
    ("to_row", "SMALLINT"),
    ("path", "SMALLINT"),
    ("distance", "SMALLINT"),
    ("die1", "TINYINT"),
    ("die2", "TINYINT"),
    ("acc", "TINYINT"),
    ("needed", "TINYINT"),
    ("hit", "BOOLEAN"),
    ("location", "VARCHAR"),
    ("location_rolls", "VARCHAR"),  # the d6 results joined by commas, e.g. "1,5"
    ("damage", "SMALLINT"),
    ("overkill", "SMALLINT"),
    ("by", "VARCHAR"),
    ("objective", "SMALLINT"),
    ("side", "VARCHAR"),  # scoring side (vp), first side (round_start), winner (game_end)
    ("blue_holders", "VARCHAR"),  # vp: ids of blue units in the zone, space-separated
    ("red_holders", "VARCHAR"),
    ("blue_vp", "SMALLINT"),
    ("red_vp", "SMALLINT"),
    ("reason", "VARCHAR"),
    ("rounds", "SMALLINT"),
)
EVENT_COLUMN_NAMES = tuple(name for name, _ in EVENT_COLUMNS)


def event_to_row(game_id: str, ev: Event) -> dict[str, Any]:
    """Flatten one event into the wide row shape (missing columns are left out = null)."""
    row: dict[str, Any] = {"game_id": game_id, "seq": ev.seq, "round": ev.round, "type": ev.type}
    if isinstance(ev, Deploy):
        row.update(unit=ev.unit, to_col=ev.hex[0], to_row=ev.hex[1])
    elif isinstance(ev, RoundStart):
        row.update(side=ev.first)
    elif isinstance(ev, Activate):
        row.update(unit=ev.unit)
    elif isinstance(ev, Move):
        row.update(unit=ev.unit, from_col=ev.from_hex[0], from_row=ev.from_hex[1],
                   to_col=ev.to_hex[0], to_row=ev.to_hex[1], path=ev.path)
    elif isinstance(ev, Attack):
        row.update(unit=ev.unit, weapon=ev.weapon, mount=ev.mount, target=ev.target,
                   distance=ev.distance, die1=ev.roll[0] if ev.roll else None,
                   die2=ev.roll[1] if ev.roll else None, acc=ev.acc,
                   needed=ev.needed, hit=ev.hit, location=ev.location,
                   location_rolls=",".join(map(str, ev.location_rolls)),
                   damage=ev.damage, overkill=ev.overkill)
    elif isinstance(ev, LocationDestroyed):
        row.update(unit=ev.unit, location=ev.location, by=ev.by)
    elif isinstance(ev, (Immobilized, Disarmed, UnitDestroyed)):
        row.update(unit=ev.unit, by=ev.by)
    elif isinstance(ev, VP):
        row.update(objective=ev.objective, side=ev.side, blue_holders=" ".join(ev.blue),
                   red_holders=" ".join(ev.red))
    elif isinstance(ev, RoundEnd):
        row.update(blue_vp=ev.blue_vp, red_vp=ev.red_vp)
    elif isinstance(ev, GameEnd):
        row.update(side=ev.winner, reason=ev.reason, rounds=ev.rounds,
                   blue_vp=ev.blue_vp, red_vp=ev.red_vp)
    return row


def event_from_dict(d: dict[str, Any]) -> Event:
    """Build an event from its JSON Lines form.

    Raises ``KeyError`` for an unknown type or missing field and ``TypeError`` for a
    wrong one; :mod:`pmim_analytics.replay.format` turns these into positioned errors.
    """
    cls = EVENT_TYPES[d["type"]]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        v = d[f.name]
        if f.name in ("hex", "from_hex", "to_hex", "roll", "location_rolls", "blue", "red") and isinstance(v, list):
            v = tuple(v)
        kwargs[f.name] = v
    return cls(**kwargs)

