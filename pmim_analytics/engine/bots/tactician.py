"""``tactician``: focus fire, hold the objectives, keep out of the enemy's reach.

It refines ``greedy`` step by step:

* activation order: units with the best shot first, so damaged enemies are finished
  before they act again;
* targets: expected points removed with a large bonus for a kill (focus fire);
* objectives: the gain at each objective is weighed by how many rounds the unit needs
  to get there, so a unit already needed in a zone holds it and slow units do not chase
  far objectives;
* the hex: every hex the unit can reach (staying put included) is scored at once, in
  points -- hexes still to go to the goal's capture zone cost, standing in a capture zone
  where one more unit matters pays, the best shots from there pay, and the threat there
  (the expected damage of every enemy that could move and shoot at it next round) costs.
  So a unit may stop a hex short of its goal for a kill, stay in a zone it is needed in,
  or keep its distance from short-range enemies. It rushes (an optional rule) only when
  nothing is within reach of a move and a shot and it is not standing in a capture zone.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from pmim_analytics.engine.bots.greedy import GreedyBot
from pmim_analytics.engine.bots.tactics import ShotLists, firepower, objective_priority, shot_value, unit_worths
from pmim_analytics.engine.state import GameState, UnitState

if TYPE_CHECKING:
    from pmim_analytics.engine.spec import GameSpec

#: A kill is worth this many times the target's worth on top of the worth removed.
KILL_BONUS = 1.5
#: Points one hex of distance still to go to the goal's capture zone costs.
GAP_COST = 1.5
#: Points standing in a capture zone is worth, times the objective's priority (0..1).
ZONE_WORTH = 4.0
#: Share of the threat at a hex (expected points the enemy could remove there) it costs.
THREAT_WEIGHT = 0.15


_GAP_COSTS: dict[tuple[int, int], tuple[tuple[int, ...], tuple[float, ...]]] = {}


def gap_costs(goal_dist: tuple[int, ...], radius: int) -> tuple[float, ...]:
    """Per hex, what the hexes still to go to the capture zone of the objective whose distance
    row is ``goal_dist`` cost (``GAP_COST`` each; cached per row)."""
    entry = _GAP_COSTS.get((id(goal_dist), radius))
    if entry is None or entry[0] is not goal_dist:
        if len(_GAP_COSTS) > 256:
            _GAP_COSTS.clear()
        entry = (goal_dist, tuple(-GAP_COST * (d - radius) if d - radius > 0 else 0.0 for d in goal_dist))
        _GAP_COSTS[(id(goal_dist), radius)] = entry
    return entry[1]


#: Per spec: [attacker][target] -> (longest range, ((mount, range), ...)) of the attacker's
#: weapons that can damage the target.
Hurting = tuple[tuple[tuple[int, tuple[tuple[int, int], ...]], ...], ...]
_HURTING: dict[int, tuple[object, Hurting]] = {}
_LAST_HURTING: list[tuple[object, Hurting]] = [(None, ())]


def hurting(spec: GameSpec) -> Hurting:
    """For each attacker and target (unit indices), the attacker's mounts whose weapon does
    damage to the target with a hit, with their ranges, and the longest of those (cached per spec)."""
    last = _LAST_HURTING[0]
    if last[0] is spec:  # the spec of the last call: most calls
        return last[1]
    entry = _HURTING.get(id(spec))
    if entry is None or entry[0] is not spec:
        if len(_HURTING) > 256:
            _HURTING.clear()
        table = spec.shot_table
        rows = []
        for a in spec.profiles:
            row = []
            for t in spec.profiles:
                mounts = tuple((m, wm.rng) for m, wm in enumerate(a.mounts) if table[a.index][m][t.index][1])
                row.append((max((r for _, r in mounts), default=0), mounts))
            rows.append(tuple(row))
        entry = (spec, tuple(rows))
        _HURTING[id(spec)] = entry
    _LAST_HURTING[0] = entry
    return entry[1]


class TacticianBot(GreedyBot):
    """Plays to win: focus fire, objective holding and range keeping."""

    name = "tactician"
    description = "focus fire, holds objectives, keeps out of enemy reach"

    def __init__(self, rng: random.Random, skill: float = 1.0) -> None:
        super().__init__(rng, skill)
        self._worths_of: object = None
        self._worths: tuple[float, ...] = ()

    def shot_value(self, state: GameState, u: UnitState, m: int, e: UnitState) -> float:
        """Focus fire: kills count heavily."""
        spec = state.spec
        if self._worths_of is not spec:
            self._worths_of, self._worths = spec, unit_worths(spec)
        return shot_value(u, m, e, spec.shot_table, self._worths, KILL_BONUS)

    def target(self, state: GameState, u: UnitState, m: int, pos: int) -> tuple[float, UnitState | None]:
        """As :meth:`GreedyBot.target`, each shot valued as :meth:`shot_value` values it (written
        out here: the bots call it for every shot)."""
        spec = state.spec
        if self._worths_of is not spec:
            self._worths_of, self._worths = spec, unit_worths(spec)
        table, worths = spec.shot_table, self._worths
        rng = u.p.mounts[m].rng
        row = state.grid.dist[pos]
        best, pick = 0.0, None
        for e in state.side_units[1 - u.side]:
            if e.alive and row[e.pos] <= rng:
                v = shot_value(u, m, e, table, worths, KILL_BONUS)
                if pick is None or v > best:
                    best, pick = v, e
        return best, pick

    def shot_lists(self, state: GameState, u: UnitState, mounts: list[int]) -> ShotLists:
        """As :meth:`GreedyBot.shot_lists`, each shot valued as :meth:`shot_value` values it
        (written out here: the bots call it at every plan)."""
        if not mounts:
            return []
        spec = state.spec
        if self._worths_of is not spec:
            self._worths_of, self._worths = spec, unit_worths(spec)
        table, worths = spec.shot_table, self._worths
        row = state.grid.dist[u.pos]
        mov = u.p.mov
        enemies = state.side_units[1 - u.side]
        out = []
        for m in mounts:
            rng = u.p.mounts[m].rng
            reach = rng + mov
            values = [(shot_value(u, m, e, table, worths, KILL_BONUS), e.pos)
                      for e in enemies if e.alive and row[e.pos] <= reach]
            values.sort(reverse=True)
            out.append((rng, values))
        return out if any(values for _, values in out) else []

    def goal(self, state: GameState, u: UnitState, mine: list[int], theirs: list[int]) -> int:
        """The objective with the most gain per round needed to reach its zone."""
        od = state.board.objective_dist
        radius = state.spec.scenario.objectives.radius
        mov = max(1, u.p.mov)
        pos = u.pos
        best_k, best = 0, -1e18
        for k, row in enumerate(od):
            d = row[pos]
            gap = d - radius
            rounds = -(-gap // mov) if gap > 0 else 0
            v = objective_priority(mine[k], theirs[k]) / (1 + rounds) - 0.01 * d
            if v > best:
                best_k, best = k, v
        return best_k

    def _plan(self, state: GameState, u: UnitState) -> None:
        """Choose this activation's hex by its score, and which mounts fire before moving."""
        if not self._plan_start(state, u):
            return
        mounts = state.fireable_mounts(u)
        mine, theirs, goal_dist = self._goal_row(state, u)
        radius = state.spec.scenario.objectives.radius
        pos = u.pos
        shots = self.shot_lists(state, u, mounts)
        dist = state.grid.dist
        near = dist[pos]
        mov = u.p.mov
        # only the enemy weapons that reach some hex the unit can reach matter
        threats = self._threats(state, u, near, mov)
        zones_of = state.board.zones_of
        worth = [ZONE_WORTH * objective_priority(mine[k], theirs[k]) for k in range(len(mine))]
        # the best the shots could add anywhere: hexes are scored best first by their other
        # terms, and once those cannot beat the best score so far even with it, the rest are
        # skipped (the same choice, the first best hex in the reachable order, found faster)
        fire_max = sum(values[0][0] for _, values in shots if values)
        hexes = (pos, *state.reachable(u))
        cost = gap_costs(goal_dist, radius)
        base = [cost[h] for h in hexes]
        for i, h in enumerate(hexes):
            zs = zones_of[h]
            if zs:
                v = base[i]
                for k in zs:
                    v += worth[k]
                base[i] = v
        best = -1e18
        first = 0
        for i in sorted(range(len(hexes)), key=base.__getitem__, reverse=True):
            v = base[i]
            if v + fire_max < best:
                break
            row = dist[hexes[i]]
            v += firepower(shots, row)
            for p, r, t in threats:
                if row[p] <= r:
                    v -= t
            if v > best or v == best and i < first:
                best, first = v, i
        dest = hexes[first]
        if not shots and not zones_of[pos] and self._rush_toward(state, u, goal_dist, max(0, goal_dist[dest] - radius)):
            return  # nothing within reach and not holding a zone: rush, as that gets nearer the goal
        self._set_dest(state, u, dest, mounts, shots)

    # why the ignore below: greedy's activation_order is a staticmethod; the tactician's reads its own settings
    def activation_order(self, state: GameState, side: int) -> list[UnitState]:  # type: ignore[override]
        """Every living unit of the side, best available shot first."""
        keyed = []
        spec = state.spec
        worths = unit_worths(spec)
        table = spec.shot_table
        dist = state.grid.dist
        enemies = [e for e in state.side_units[1 - side] if e.alive]
        for w in state.side_units[side]:
            if w.alive:
                # the best shot of any usable mount (shot_value, as target() finds it; 0 if none)
                row = dist[w.pos]
                best = 0.0
                for m, wm in enumerate(w.p.mounts):
                    if w.can_use(m):
                        rng = wm.rng
                        for e in enemies:
                            if row[e.pos] <= rng:
                                v = shot_value(w, m, e, table, worths, KILL_BONUS)
                                if v > best:
                                    best = v
                keyed.append((-best, -worths[w.index], w.index, w))
        keyed.sort(key=lambda t: t[:3])
        return [t[3] for t in keyed]

    def _next_unit(self, state: GameState) -> UnitState:
        # Re-rank before every activation: the last exchange of fire changes who has a shot.
        order = self.activation_order(state, state.to_act)
        return next(w for w in order if not w.activated)

    @staticmethod
    def _threats(state: GameState, u: UnitState, near: tuple[int, ...], mov: int) -> list[tuple[int, int, float]]:
        """(position, reach, weighted value) of each enemy weapon that can hurt ``u`` on a hex
        within ``mov`` of the hex whose distance row is ``near``."""
        out = []
        spec = state.spec
        table = spec.shot_table
        worths = unit_worths(spec)
        ui = u.index
        hurt = hurting(spec)
        for e in state.side_units[1 - u.side]:
            if not e.alive:
                continue
            # the mounts whose weapon can damage u (the others are no threat: shot_value is 0)
            longest, mounts = hurt[e.index][ui]
            if not mounts:
                continue
            emov = 0 if e.immobilized else e.p.mov
            d = near[e.pos] - mov
            if d > emov + longest:
                continue
            for m, rng in mounts:
                reach = emov + rng
                if d <= reach and e.can_use(m):
                    v = shot_value(e, m, u, table, worths)
                    if v > 0:
                        out.append((e.pos, reach, THREAT_WEIGHT * v))
        return out
