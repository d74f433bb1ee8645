"""The record of one game: its header (who, what, where, under which rules) and its events.

This is what the engine's driver produces, what the replay formats read and write
(:mod:`pmim_analytics.replay.format` for JSON Lines, :mod:`pmim_analytics.replay.parquet`),
and what the verifier checks. The ``game_id`` is derived from the content
(:func:`compute_game_id`), so the same game always gets the same id and ingesting it twice
adds nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from pmim_analytics.limits import MAX_MAP_CELLS
from pmim_analytics.model.events import Event

FORMAT_NAME = "pmim-replay"
#: The newest replay format version. Version 2 added the header's ``optional_rules`` and the
#: events of the optional rules (``initiative_roll``, ``overheat_roll``, ``weapon_lost``,
#: ``rush``); a game played without optional rules is still written as version 1, byte for
#: byte as before, so older readers and golden files keep working. Version 3 added the
#: header's ``readings`` (the readings in doubt a game was played under,
#: :mod:`pmim_analytics.rules.readings`); a game played as the data files read is written
#: as before.
FORMAT_VERSION = 3
#: Every version this tool reads.
FORMAT_VERSIONS = (1, 2, 3)


def format_version_for(optional_rules: dict[str, Any] | None, readings: dict[str, Any] | None = None) -> int:
    """The version a header is written in: 3 when it records readings, 2 when it records
    optional rules, else 1."""
    return 3 if readings else 2 if optional_rules else 1


class UnitRecord(BaseModel):
    """A unit as listed in a replay header."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    type: str
    code: str
    kind: Literal["infantry", "vehicle", "warmech"]
    weapons: tuple[str, ...]
    mounts: tuple[str, ...]
    pts: int = Field(ge=0)


class SideRecord(BaseModel):
    """One side of a game: its army, and who or what played it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    bot: str | None = None
    player: str | None = None
    army_hash: str
    points: int = Field(ge=0)
    units: tuple[UnitRecord, ...]


class MapRecord(BaseModel):
    """The map the game was played on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    columns: int = Field(ge=0, le=MAX_MAP_CELLS)
    rows: int = Field(ge=0, le=MAX_MAP_CELLS)
    layout: str = "odd-q"


class GameHeader(BaseModel):
    """The first line of a replay."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["pmim-replay"] = "pmim-replay"
    version: int = 1
    game_id: str
    source: Literal["engine", "manual"]
    rules: str
    scenario: str
    seed: int | None = None
    game_index: int | None = None
    batch: str | None = None
    map: MapRecord
    sides: dict[Literal["blue", "red"], SideRecord]
    played: str | None = None
    notes: str | None = None
    #: What the log did not record (a summary log, or a play log that says so): ``combat``
    #: (attacks, hits, damage, kills) and/or ``losses`` (which units were destroyed, beyond
    #: those the log lists). Unknown, not zero: the store keeps those figures NULL.
    not_recorded: tuple[Literal["combat", "losses"], ...] = ()
    #: Facts the log reconstructs rather than reports: ``vp`` (the final VP totals).
    #: Stored flagged, and left out of VP margins unless a report is asked to include them.
    estimated: tuple[Literal["vp"], ...] = ()
    #: the optional rules the game was played with and their settings (version 2; absent = none)
    optional_rules: dict[str, dict[str, Any]] | None = None
    #: the readings in doubt the game was played under, those that differ from the data
    #: files (version 3; absent = none): ``{"hit": "beat", "vp_to_win": 10}``
    readings: dict[str, str | int] | None = None

    @model_serializer(mode="wrap")
    def _omit_empty_lists(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``not_recorded``, ``estimated``, ``optional_rules`` and ``readings`` are written only
        when they say something, so every replay written before they existed keeps its bytes
        and its game id."""
        d: dict[str, Any] = handler(self)
        for key in ("not_recorded", "estimated", "optional_rules", "readings"):
            if not d.get(key):
                d.pop(key, None)
        return d


@dataclass(frozen=True)
class GameRecord:
    """A whole game: its header and its events in order."""

    header: GameHeader
    events: tuple[Event, ...]


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # = json.dumps(obj, sort_keys=..., ...)


def _canonical(obj: Any) -> bytes:
    return _CANONICAL.encode(obj).encode()


def compute_game_id(header: dict[str, Any], events: Iterable[Event]) -> str:
    """A 16-hex-digit id from the game's content: header (less ``game_id`` and
    ``played``) and every event."""
    h = hashlib.sha256()
    head = {k: v for k, v in header.items() if k not in ("game_id", "played")}
    h.update(_canonical(head))
    for ev in events:
        h.update(_canonical(ev.to_dict()))
    return h.hexdigest()[:16]


def game_id_of(header: GameHeader, events: Iterable[Event]) -> str:
    """The content id of a game whose header is a :class:`GameHeader`: :func:`compute_game_id`
    over the header's full JSON form (defaults included) and the events."""
    return compute_game_id(header.model_dump(mode="json"), events)
