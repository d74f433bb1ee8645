"""When a move, a rush and an attack are legal: each rule decided in one function.

The game state's checks (:mod:`pmim_analytics.engine.checks`) and the manual-log reader
(:mod:`pmim_analytics.replay.manual.builder`) both ask these functions and word the answer
for their own reader: the engine as a finding about an action, the reader as an error at the
token of a log line. Each function takes plain values, so a caller that knows less (a table
log that never said where a unit stands) passes what it does know, and returns ``None`` when
the action is legal, else the first rule it breaks, as one of the codes below.
"""

from __future__ import annotations

from collections.abc import Callable

from pmim_analytics.model.hexes import HexGrid

#: Why a unit may not move (or rush) at all this activation.
MOVED, IMMOBILIZED = "moved", "immobilized"
#: Why a move (or rush) may not end on a hex.
OFF_MAP, STAYS, OCCUPIED, IMPASSABLE, TOO_FAR, BLOCKED = (
    "off_map", "stays", "occupied", "impassable", "too_far", "blocked")
#: Why a weapon may not fire at a target.
NO_ATTACK_LEFT, FIRED, OVERHEATED, LOCATION_LOST, SAME_SIDE, TARGET_DEAD, OUT_OF_RANGE = (
    "no_attack_left", "fired", "overheated", "location_lost", "same_side", "target_dead", "out_of_range")


def move_refusal(moved: bool, immobilized: bool) -> str | None:
    """Whether the active unit may move (or rush) now: once an activation, and never when immobilized."""
    if moved:
        return MOVED
    if immobilized:
        return IMMOBILIZED
    return None


def destination_refusal(grid: HexGrid, start: int, to: tuple[int, int], limit: int, *,
                        taken: Callable[[int], bool], impassable: bytes | bytearray,
                        walk: Callable[[int], int | None]) -> str | None:
    """Whether a unit standing on hex index ``start`` may move (or rush) to ``to``, at most
    ``limit`` hexes (MOV, or the rush distance): on the map, another hex, free (no stacking)
    and passable, within ``limit`` in a straight line, and by a walk within ``limit`` that
    passes no enemy unit and no impassable hex. ``taken(i)``: another unit stands on hex index
    ``i``; ``walk(i)``: the length of the shortest such walk to ``i``, ``None`` when there is none."""
    if not grid.contains(to):
        return OFF_MAP
    i = grid.index(to)
    if i == start:
        return STAYS
    if taken(i):
        return OCCUPIED
    if impassable[i]:
        return IMPASSABLE
    if grid.dist[start][i] > limit:
        return TOO_FAR
    if walk(i) is None:
        return BLOCKED
    return None


def fire_refusal(attacks_left: int, fired: bool, overheated: bool, location_lost: bool, same_side: bool,
                 target_alive: bool, distance: int | None, rng: int) -> str | None:
    """Whether a unit may fire a weapon at a target now: it has an attack left this activation
    (:func:`~pmim_analytics.rules.mechanics.attacks_left`), has not fired that weapon this
    activation, the weapon was not lost to overheating nor its location destroyed, the target is
    an enemy still standing, and no farther than the weapon's range (``distance`` ``None``: not
    known, not checked)."""
    if attacks_left <= 0:
        return NO_ATTACK_LEFT
    if fired:
        return FIRED
    if overheated:
        return OVERHEATED
    if location_lost:
        return LOCATION_LOST
    if same_side:
        return SAME_SIDE
    if not target_alive:
        return TARGET_DEAD
    if distance is not None and distance > rng:
        return OUT_OF_RANGE
    return None
