"""A light fold over a game's events for viewers: where every unit stands after step N.

This is what the replay viewer draws. It trusts the events (``pmim replay verify`` checks
them against the rules); it only accumulates positions, damage and losses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pmim_analytics.model.events import (
    VP,
    Attack,
    Deploy,
    Event,
    Immobilized,
    LocationDestroyed,
    Move,
    RoundEnd,
    Rush,
    UnitDestroyed,
    WeaponLost,
    dispatch,
)


@dataclass
class UnitView:
    """What a viewer shows of one unit at one moment."""

    id: str
    side: str
    hex: tuple[int, int] | None = None
    damage_taken: int = 0
    destroyed: bool = False
    immobilized: bool = False
    lost_locations: list[str] = field(default_factory=list)


@dataclass
class BoardView:
    """The board after a prefix of the events."""

    units: dict[str, UnitView]
    round: int | None = 0
    blue_vp: int = 0
    red_vp: int = 0
    last_attacks: list[Attack] = field(default_factory=list)
    vp_events: list[VP] = field(default_factory=list)

    # what each event type changes on the board (see fold_events)
    def deployed(self, ev: Deploy) -> None:
        self.units[ev.unit].hex = ev.hex

    def moved(self, ev: Move | Rush) -> None:
        self.units[ev.unit].hex = ev.to_hex

    def overheated(self, ev: WeaponLost) -> None:
        self.units[ev.unit].damage_taken += ev.damage - ev.overkill

    def attacked(self, ev: Attack) -> None:
        self.last_attacks.append(ev)
        if ev.hit and ev.target in self.units:
            self.units[ev.target].damage_taken += ev.damage - ev.overkill

    def location_lost(self, ev: LocationDestroyed) -> None:
        self.units[ev.unit].lost_locations.append(ev.location)

    def immobilized(self, ev: Immobilized) -> None:
        self.units[ev.unit].immobilized = True

    def destroyed(self, ev: UnitDestroyed) -> None:
        self.units[ev.unit].destroyed = True

    def scored(self, ev: VP) -> None:
        self.vp_events.append(ev)

    def round_ended(self, ev: RoundEnd) -> None:
        self.blue_vp, self.red_vp = ev.blue_vp, ev.red_vp


def _unchanged(ev: Event) -> None:
    """Event types that change nothing a viewer draws."""


def side_of(unit_id: str) -> str:
    """``B:TW1`` -> ``blue``; ``R:TY3`` -> ``red``."""
    return "blue" if unit_id.startswith("B:") else "red"


def fold_events(unit_ids: Iterable[str], events: Iterable[Event], upto: int | None = None) -> BoardView:
    """Apply events with ``seq <= upto`` (all when ``upto`` is None) to an empty board.

    ``last_attacks`` holds the attacks of the round being shown, so a viewer can draw them.
    """
    board = BoardView({u: UnitView(u, side_of(u)) for u in unit_ids})
    apply: dict[str, Callable[[Any], None]] = {
        "deploy": board.deployed,
        "move": board.moved,
        "rush": board.moved,
        "weapon_lost": board.overheated,
        "attack": board.attacked,
        "location_destroyed": board.location_lost,
        "immobilized": board.immobilized,
        "unit_destroyed": board.destroyed,
        "vp": board.scored,
        "round_end": board.round_ended,
    }
    for ev in events:
        if upto is not None and ev.seq > upto:
            break
        if ev.round != board.round:
            board.last_attacks = []
            board.round = ev.round
        dispatch(apply, ev, default=_unchanged)
    return board
