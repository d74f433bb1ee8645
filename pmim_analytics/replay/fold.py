"""A light fold over a game's events for viewers: where every unit stands after step N.

This is what the replay viewer draws. It trusts the events (``pmim replay verify`` checks
them against the rules); it only accumulates positions, damage and losses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

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


def side_of(unit_id: str) -> str:
    """``B:TW1`` -> ``blue``; ``R:TY3`` -> ``red``."""
    return "blue" if unit_id.startswith("B:") else "red"


def fold_events(unit_ids: Iterable[str], events: Iterable[Event], upto: int | None = None) -> BoardView:
    """Apply events with ``seq <= upto`` (all when ``upto`` is None) to an empty board.

    ``last_attacks`` holds the attacks of the round being shown, so a viewer can draw them.
    """
    board = BoardView({u: UnitView(u, side_of(u)) for u in unit_ids})
    for ev in events:
        if upto is not None and ev.seq > upto:
            break
        if ev.round != board.round:
            board.last_attacks = []
            board.round = ev.round
        if isinstance(ev, Deploy):
            board.units[ev.unit].hex = tuple(ev.hex)  # type: ignore[assignment]
        elif isinstance(ev, Move | Rush):
            board.units[ev.unit].hex = tuple(ev.to_hex)  # type: ignore[assignment]
        elif isinstance(ev, WeaponLost):
            board.units[ev.unit].damage_taken += ev.damage - ev.overkill
        elif isinstance(ev, Attack):
            board.last_attacks.append(ev)
            if ev.hit and ev.target in board.units:
                board.units[ev.target].damage_taken += ev.damage - ev.overkill
        elif isinstance(ev, LocationDestroyed):
            board.units[ev.unit].lost_locations.append(ev.location)
        elif isinstance(ev, Immobilized):
            board.units[ev.unit].immobilized = True
        elif isinstance(ev, UnitDestroyed):
            board.units[ev.unit].destroyed = True
        elif isinstance(ev, VP):
            board.vp_events.append(ev)
        elif isinstance(ev, RoundEnd):
            board.blue_vp, board.red_vp = ev.blue_vp, ev.red_vp
    return board
