"""Cheap evaluation helpers shared by the scripted bots (no bot class lives here).

Values are in points: a shot is worth the share of the target's point cost it is expected
to remove, plus a bonus for a possible kill. Everything reads the state's tables
directly and allocates little, because bots run at every decision of thousands of games.
"""

from __future__ import annotations

from pmim_analytics.engine.state import GameState, UnitState
from pmim_analytics.rules import mechanics

#: ``spec.shot_table``: attacker -> mount -> target -> (chance to hit, damage of a hit).
ShotTable = tuple[tuple[tuple[tuple[float, int], ...], ...], ...]


def shot_value(u: UnitState, m: int, tgt: UnitState, table: ShotTable, kill_bonus: float = 0.5) -> float:
    """Expected points removed by one attack of ``u``'s mount ``m`` on ``tgt``.

    ``table`` is ``state.spec.shot_table``. Basic units: damage up to the HP left, as a
    share of the unit's cost, plus ``kill_bonus`` times its cost when one hit kills.
    Warmechs: damage up to the sturdiest standing location's HP, as a share of the
    mech's total HP.
    """
    p, dmg = table[u.index][m][tgt.index]
    if dmg == 0:
        return 0.0
    tp = tgt.p
    if tp.body is None:
        left = tgt.hp
        if dmg >= left:
            return p * tp.pts * (left / tp.hp + kill_bonus)
        return p * tp.pts * dmg / tp.hp
    cap = max(tgt.loc_hp)
    return p * tp.pts * (dmg if dmg < cap else cap) / tp.hp


def overheat_risk(state: GameState, u: UnitState, m: int) -> float:
    """Expected points the active Warmech ``u`` loses to overheating if it fires mount ``m`` now
    (0 without the heat rule or within its rating): the exact chance of the overheat roll times
    the weapon's share of the mech plus the damage it would do to itself (as :func:`shot_value`
    counts damage to a Warmech). A bot fires only when the shot is worth more."""
    rating = u.p.heat_rating
    if rating < 0:
        return 0.0
    wm = u.p.mounts[m]
    excess = mechanics.overheat_excess(state.heat + wm.heat, rating)
    if excess <= 0:
        return 0.0
    dmg = mechanics.overheat_damage(wm.strength, wm.rpt)
    cap = max(u.loc_hp)
    share = (dmg if dmg < cap else cap) / u.p.hp + 1 / len(u.p.mounts)
    return float(mechanics.overheat_chance(excess)) * u.p.pts * share


def best_target(state: GameState, u: UnitState, m: int, pos: int = -1,
                kill_bonus: float = 0.5) -> tuple[float, UnitState | None]:
    """The most valuable enemy the weapon on mount ``m`` reaches from ``pos`` (default: where u is)."""
    rng = u.p.mounts[m].rng
    dist_row = state.grid.dist[u.pos if pos < 0 else pos]
    table = state.spec.shot_table
    best, pick = 0.0, None
    for e in state.side_units[1 - u.side]:
        if e.alive and dist_row[e.pos] <= rng:
            v = shot_value(u, m, e, table, kill_bonus)
            if v > best or pick is None:
                best, pick = v, e
    return best, pick


def objective_counts(state: GameState, exclude: UnitState | None = None) -> tuple[list[int], list[int]]:
    """Units of blue and red in each objective's capture zone (``exclude`` left out)."""
    n = len(state.board.objectives)
    counts = ([0] * n, [0] * n)
    zones_of = state.board.zones_of
    for w in state.units:
        if w.alive and w is not exclude and w.pos >= 0:
            zones = zones_of[w.pos]
            if zones:
                side_counts = counts[w.side]
                for k in zones:
                    side_counts[k] += 1
    return counts


def objective_priority(mine: int, theirs: int) -> float:
    """How much one more unit of ours is worth at an objective, 0..1.

    1 when it turns a tie into a VP for us, 0.6 when it turns their VP into a tie, 0.3
    when they still lead, and a little when we already hold it.
    """
    if mine == theirs:
        return 1.0
    if theirs == mine + 1:
        return 0.6
    if theirs > mine:
        return 0.3
    return 0.1 if mine == theirs + 1 else 0.02


_DEPLOY_ORDER: dict[int, tuple[object, dict[tuple[int, str, int], tuple[int, ...]]]] = {}


def zone_by_objective(state: GameState, side: int, kind: str, k: int) -> tuple[int, ...]:
    """The side's deployment hexes for ``kind``, nearest to objective ``k`` first (cached per board)."""
    board = state.board
    entry = _DEPLOY_ORDER.get(id(board))
    if entry is None or entry[0] is not board:
        entry = (board, {})
        _DEPLOY_ORDER[id(board)] = entry
    table = entry[1]
    key = (side, kind, k)
    order = table.get(key)
    if order is None:
        od = board.objective_dist[k]
        order = tuple(sorted(board.deploy_zone[side][kind], key=lambda h: (od[h], h)))
        table[key] = order
    return order


def nearest_objective(state: GameState, pos: int) -> int:
    """Index of the objective nearest to hex ``pos`` (lowest index on ties)."""
    best_k, best = 0, 1 << 30
    for k, dist_row in enumerate(state.board.objective_dist):
        if dist_row[pos] < best:
            best_k, best = k, dist_row[pos]
    return best_k


def spread_deployment(state: GameState, u: UnitState, choices: list[int]) -> int:
    """A free deployment hex for ``u`` near the objective its side has aimed fewest units at.

    ``choices`` are candidate objective indices to break ties between (the caller may
    shuffle them); returns a hex index.
    """
    n = len(state.board.objectives)
    aimed = [0] * n
    for w in state.side_units[u.side]:
        if w.placed and w.pos >= 0:
            aimed[nearest_objective(state, w.pos)] += 1
    k = min(choices, key=lambda j: aimed[j])
    occ = state.occ
    for h in zone_by_objective(state, u.side, u.p.kind, k):
        if occ[h] < 0:
            return h
    return state.deploy_hexes(u)[0]
