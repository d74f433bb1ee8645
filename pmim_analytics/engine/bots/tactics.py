"""Cheap evaluation helpers shared by the scripted bots (no bot class lives here).

Values are in worth points: a shot is worth the share of the target's worth it is
expected to remove, plus a bonus for a possible kill. A unit's worth
(:func:`unit_worths`) comes from what it does on the table -- its HP and how hard it is to
hurt, its weapons, its speed -- never from its listed cost, so repricing a unit leaves
every bot's play as it was. Everything reads the state's tables directly and allocates
little, because bots run at every decision of thousands of games.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pmim_analytics.engine.state import GameState, UnitState
from pmim_analytics.model.combat import attack_damage, hit_probability
from pmim_analytics.rules import mechanics

if TYPE_CHECKING:
    from pmim_analytics.engine.spec import GameSpec, UnitProfile

#: ``spec.shot_table``: attacker -> mount -> target -> (chance to hit, damage of a hit).
ShotTable = tuple[tuple[tuple[tuple[float, int], ...], ...], ...]

#: Reference targets (DEF, ARM) a unit's firepower is measured against: a Warmech or heavy
#: vehicle, a light vehicle, infantry, a medium vehicle.
REFERENCE_TARGETS = ((7, 2), (8, 1), (8, 0), (7, 1))
#: Reference weapons (ACC, RPT, STR) a unit's durability is measured against.
REFERENCE_WEAPONS = ((1, 3, 3), (1, 1, 4), (2, 2, 2), (1, 1, 2))
#: Worth of one reference attack's worth of HP, of one point of firepower, of one hex of
#: MOV: one least-squares fit, made once, that puts worth on the scale of v3's listed costs
#: (0.8 points apart on average over its chassis). The bots never read a cost.
WORTH_DURABILITY, WORTH_FIREPOWER, WORTH_SPEED = 0.5, 0.5, 0.65


def unit_worth(p: UnitProfile) -> float:
    """What a unit does on the table, on the scale of points: how many reference attacks it
    takes to destroy (HP over the mean expected damage of :data:`REFERENCE_WEAPONS`), its
    firepower (the expected damage of all its weapons on :data:`REFERENCE_TARGETS`, longer
    ranges counting more) and its speed (MOV)."""
    per_attack = sum(float(hit_probability(acc, p.def_)) * attack_damage(strength, rpt, p.arm)
                     for acc, rpt, strength in REFERENCE_WEAPONS) / len(REFERENCE_WEAPONS)
    durability = p.hp / max(per_attack, 0.1)
    firepower = sum(float(hit_probability(wm.acc, d)) * attack_damage(wm.strength, wm.rpt, arm) * (1 + wm.rng / 6)
                    for wm in p.mounts for d, arm in REFERENCE_TARGETS) / len(REFERENCE_TARGETS)
    return WORTH_DURABILITY * durability + WORTH_FIREPOWER * firepower + WORTH_SPEED * p.mov


_WORTHS: dict[int, tuple[object, tuple[float, ...]]] = {}


def unit_worths(spec: GameSpec) -> tuple[float, ...]:
    """Every unit's :func:`unit_worth`, by unit index (cached per spec)."""
    entry = _WORTHS.get(id(spec))
    if entry is None or entry[0] is not spec:
        if len(_WORTHS) > 256:
            _WORTHS.clear()
        entry = (spec, tuple(unit_worth(p) for p in spec.profiles))
        _WORTHS[id(spec)] = entry
    return entry[1]


def shot_value(u: UnitState, m: int, tgt: UnitState, table: ShotTable, worths: tuple[float, ...],
               kill_bonus: float = 0.5) -> float:
    """Expected worth removed by one attack of ``u``'s mount ``m`` on ``tgt``.

    ``table`` is ``state.spec.shot_table`` and ``worths`` :func:`unit_worths`. Basic
    units: damage up to the HP left, as a share of the unit's worth, plus ``kill_bonus``
    times its worth when one hit kills. Warmechs: damage up to the sturdiest standing
    location's HP, as a share of the mech's total HP.
    """
    p, dmg = table[u.index][m][tgt.index]
    if dmg == 0:
        return 0.0
    tp = tgt.p
    worth = worths[tgt.index]
    if tp.body is None:
        left = tgt.hp
        if dmg >= left:
            return p * worth * (left / tp.hp + kill_bonus)
        return p * worth * dmg / tp.hp
    cap = max(tgt.loc_hp)
    return p * worth * (dmg if dmg < cap else cap) / tp.hp


def overheat_risk(state: GameState, u: UnitState, m: int) -> float:
    """Expected points the active Warmech ``u`` loses to overheating if it fires mount ``m`` now
    (0 without the heat rule or within its rating): the exact chance of the overheat roll times
    the weapon's share of the mech plus the damage it would do to itself (as :func:`shot_value`
    counts damage to a Warmech). A bot fires only when the shot is worth more."""
    rating = u.p.heat_rating
    if rating < 0:
        return 0.0
    wm = u.p.mounts[m]
    _, excess = mechanics.activation_heat(state.heat, wm.heat, rating)
    if excess <= 0:
        return 0.0
    dmg = mechanics.overheat_damage(wm.strength, wm.rpt)
    cap = max(u.loc_hp)
    share = (dmg if dmg < cap else cap) / u.p.hp + 1 / len(u.p.mounts)
    return float(mechanics.overheat_chance(excess)) * unit_worths(state.spec)[u.index] * share


def best_target(state: GameState, u: UnitState, m: int, pos: int = -1,
                kill_bonus: float = 0.5) -> tuple[float, UnitState | None]:
    """The most valuable enemy the weapon on mount ``m`` reaches from ``pos`` (default: where u is)."""
    rng = u.p.mounts[m].rng
    dist_row = state.grid.dist[u.pos if pos < 0 else pos]
    table = state.spec.shot_table
    worths = unit_worths(state.spec)
    best, pick = 0.0, None
    for e in state.side_units[1 - u.side]:
        if e.alive and dist_row[e.pos] <= rng:
            v = shot_value(u, m, e, table, worths, kill_bonus)
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


_GAPS_BY_OBJECTIVE: dict[int, tuple[object, tuple[tuple[int, ...], ...]]] = {}


def zone_gaps_by_objective(state: GameState) -> tuple[tuple[int, ...], ...]:
    """Per objective, per hex: the hexes still to go from the hex to the objective's capture
    zone (0 inside it; cached per board)."""
    board = state.board
    entry = _GAPS_BY_OBJECTIVE.get(id(board))
    if entry is None or entry[0] is not board:
        radius = state.spec.scenario.objectives.radius
        gaps = tuple(tuple(max(0, d - radius) for d in od) for od in board.objective_dist)
        entry = (board, gaps)
        _GAPS_BY_OBJECTIVE[id(board)] = entry
    return entry[1]


_ZONE_GAPS: dict[int, tuple[object, tuple[int, ...]]] = {}


def zone_gaps(state: GameState) -> tuple[int, ...]:
    """Per hex, the hexes still to go from it to the nearest capture zone (0 inside one;
    cached per board)."""
    board = state.board
    entry = _ZONE_GAPS.get(id(board))
    if entry is None or entry[0] is not board:
        radius = state.spec.scenario.objectives.radius
        ods = board.objective_dist
        gaps = tuple(max(0, min(od[h] for od in ods) - radius) for h in range(len(board.zones_of)))
        entry = (board, gaps)
        _ZONE_GAPS[id(board)] = entry
    return entry[1]


def next_to_deploy(state: GameState) -> UnitState:
    """The unit the side to place puts down next. The rules leave the order free: the units
    that can take a capture zone in round 1 from a free deployment hex go first, the fastest
    first (the lowest roster number among equals), so the few hexes from which a fast unit
    reaches a zone in round 1 are theirs, not a slow unit's; then the rest in roster order."""
    units = state.units_to_place()
    gaps = zone_gaps(state)
    quick = []
    seen: dict[tuple[str, int], bool] = {}
    for w in units:
        kind_mov = (w.p.kind, w.p.mov)
        if kind_mov not in seen:
            seen[kind_mov] = w.p.mov > 0 and any(gaps[h] <= w.p.mov for h in state.deploy_hexes(w))
        if seen[kind_mov]:
            quick.append(w)
    return max(quick, key=lambda w: (w.p.mov, -w.index)) if quick else units[0]


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


ShotLists = list[tuple[int, list[tuple[float, int]]]]


def best_in_range(rng: int, values: list[tuple[float, int]], row: tuple[int, ...]) -> float:
    """The best value in a best-first shot list whose enemy lies within ``rng`` on distance row ``row``."""
    for v, pos in values:
        if row[pos] <= rng:
            return v
    return 0.0


def firepower(shots: ShotLists, row: tuple[int, ...]) -> float:
    """Sum over mounts of the best shot from the hex whose distance row is ``row`` (a plain
    loop: bots call it for every hex a unit can reach)."""
    total = 0.0
    for rng, values in shots:
        for v, pos in values:
            if row[pos] <= rng:
                total += v
                break
    return total
