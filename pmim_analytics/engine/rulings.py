"""When a move, a rush and an attack are legal, and when a logged score and result are: each
rule decided in one function.

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
from pmim_analytics.rules.mechanics import is_wiped_out, round_limit_winner, rounds_left, vp_winner
from pmim_analytics.rules.scenario import Victory

#: Why a unit may not move (or rush) at all this activation.
MOVED, IMMOBILIZED = "moved", "immobilized"
#: Why a move (or rush) may not end on a hex.
OFF_MAP, STAYS, OCCUPIED, IMPASSABLE, TOO_FAR, BLOCKED = (
    "off_map", "stays", "occupied", "impassable", "too_far", "blocked")
#: Why a weapon may not fire at a target.
NO_ATTACK_LEFT, FIRED, OVERHEATED, LOCATION_LOST, SAME_SIDE, TARGET_DEAD, OUT_OF_RANGE = (
    "no_attack_left", "fired", "overheated", "location_lost", "same_side", "target_dead", "out_of_range")
#: Why a round's logged VP totals cannot be.
VP_FELL, VP_TOO_MANY = "vp_fell", "vp_too_many"
#: Why a logged result cannot be.
(VP_IMPOSSIBLE, WINNER_WIPED_OUT, DRAW_WON, NOT_THE_SHOWN_WINNER, NOT_THE_SHOWN_END, VP_NEEDED, VP_DISAGREE,
 NOT_WIPED_OUT, LIMIT_NOT_REACHED, LIMIT_IS_DRAW, LIMIT_WINNER) = (
    "vp_impossible", "winner_wiped_out", "draw_won", "not_the_shown_winner", "not_the_shown_end", "vp_needed",
    "vp_disagree", "not_wiped_out", "limit_not_reached", "limit_is_draw", "limit_winner")


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


def vp_line_refusal(before: tuple[int, int], after: tuple[int, int], objectives: int, rounds: int) -> str | None:
    """Whether a table log's VP totals ``after`` (blue, red) can follow ``before`` when the
    positions that would score them are not known: totals only grow, and each of the
    ``objectives`` gives at most one VP a round, to one side, over the ``rounds`` since."""
    if after[0] < before[0] or after[1] < before[1]:
        return VP_FELL
    if (after[0] - before[0]) + (after[1] - before[1]) > objectives * rounds:
        return VP_TOO_MANY
    return None


def most_vp(objectives: int, victory: Victory, rounds: int | None) -> tuple[int, int]:
    """The most VP the two sides can hold together after ``rounds`` (the round limit when not
    known), and that round count: each objective gives at most one VP a round."""
    n = rounds if rounds is not None else victory.round_limit
    return objectives * n, n


def result_refusal(victory: Victory, objectives: int, winner: str | None, reason: str,
                   vp: tuple[int, int] | None, rounds: int | None, living: tuple[int, int],
                   shown: tuple[str | None, str] | None) -> str | None:
    """Whether a logged result can end the game: ``winner`` (``None``: a draw) by ``reason``
    (``vp``, ``wipeout``, ``round_limit`` or ``manual``, the players' stop) with final ``vp``
    (blue, red; ``None``: not given) after ``rounds`` (``None``: not known), the sides having
    ``living`` units (blue, red), when the game's lines already ended it as ``shown``
    (winner, reason) or not (``None``). A result without its reason names the shown winner."""
    if vp is not None and (vp[0] < 0 or vp[1] < 0 or vp[0] + vp[1] > most_vp(objectives, victory, rounds)[0]):
        return VP_IMPOSSIBLE
    wiped = {side for side, n in zip(("blue", "red"), living, strict=True) if is_wiped_out(n)}
    if winner in wiped:
        return WINNER_WIPED_OUT
    if winner is None and reason in ("vp", "wipeout"):
        return DRAW_WON
    if shown is not None:
        if reason == "manual" and winner != shown[0]:
            return NOT_THE_SHOWN_WINNER
        if reason != "manual" and (winner, reason) != shown:
            return NOT_THE_SHOWN_END
    if reason == "vp":
        if vp is None:
            return VP_NEEDED
        if vp_winner(victory, vp[0], vp[1]) != winner:
            return VP_DISAGREE
    elif reason == "wipeout":
        if ("red" if winner == "blue" else "blue") not in wiped:
            return NOT_WIPED_OUT
    elif reason == "round_limit":
        if rounds is None or rounds_left(victory, rounds) != 0:
            return LIMIT_NOT_REACHED
        if victory.at_round_limit == "draw":
            if winner is not None:
                return LIMIT_IS_DRAW
        elif vp is not None and round_limit_winner(victory, vp[0], vp[1]) != winner:
            return LIMIT_WINNER
    return None
