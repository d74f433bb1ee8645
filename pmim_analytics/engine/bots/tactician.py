"""``tactician``: focus fire, hold the objectives, keep out of the enemy's reach.

* Activation order: units with a kill shot first (finish what is damaged), then units
  that can shoot at all, then the rest.
* Targets: expected points removed with a large bonus for a kill, so damaged units are
  finished off before fresh ones are scratched, and a bonus for units sitting in a
  capture zone.
* Movement: every reachable hex is scored by what it adds at the objectives (a unit
  that is needed where it stands stays in the zone), by the best shots from it, and
  against the threat there: the expected damage of every enemy that could move and
  shoot at it next, so long-range units keep their distance.
"""

from __future__ import annotations

from pmim_analytics.engine.actions import Action, ActivateUnit, EndActivation, FireWeapon, MoveUnit, PlaceUnit
from pmim_analytics.engine.bots.base import Bot
from pmim_analytics.engine.bots.tactics import (
    objective_counts,
    objective_priority,
    shot_value,
    spread_deployment,
)
from pmim_analytics.engine.state import DEPLOY, GameState, UnitState

KILL_BONUS = 1.5
ZONE_TARGET_BONUS = 1.3
OBJECTIVE_WEIGHT = 6.0
APPROACH_WEIGHT = 0.8
THREAT_WEIGHT = 0.6


class TacticianBot(Bot):
    """Plays to win: focus fire, objective holding and range keeping."""

    name = "tactician"
    description = "focus fire, holds objectives, keeps out of enemy reach"

    def __init__(self, rng) -> None:  # noqa: ANN001 - same signature as Bot
        super().__init__(rng)
        self._plan_key: tuple[str, int] | None = None
        self._dest = -1
        self._fire_first: list[int] = []

    def choose(self, state: GameState) -> Action:
        """Place, activate, move or fire, as described in the module docstring."""
        if state.phase == DEPLOY:
            u = state.next_to_place()
            assert u is not None
            ks = list(range(len(state.board.objectives)))
            self.rng.shuffle(ks)
            return PlaceUnit(u.id, state.grid.hexes[spread_deployment(state, u, ks)])
        u = state.active
        if u is None:
            return ActivateUnit(self._next_unit(state).id)
        if self._plan_key != (u.id, state.round):
            self._plan(state, u)
        if not state.moved:
            while self._fire_first:
                m = self._fire_first.pop()
                if m in state.fireable_mounts(u):
                    value, t = self._target(state, u, m, u.pos)
                    if t is not None and value > 0:
                        return FireWeapon(u.id, u.p.mounts[m].mount, t.id)
            if self._dest >= 0 and state.can_move(u) and state.occ[self._dest] < 0:
                return MoveUnit(u.id, state.grid.hexes[self._dest])
        for m in state.fireable_mounts(u):
            value, t = self._target(state, u, m, u.pos)
            if t is not None and value > 0:
                return FireWeapon(u.id, u.p.mounts[m].mount, t.id)
        return EndActivation(u.id)

    # -- targets
    @staticmethod
    def _value(state: GameState, u: UnitState, m: int, e: UnitState, zones: tuple) -> float:
        v = shot_value(u.p.mounts[m], e, KILL_BONUS)
        return v * ZONE_TARGET_BONUS if zones[e.pos] else v

    def _target(self, state: GameState, u: UnitState, m: int, pos: int) -> tuple[float, UnitState | None]:
        rng = u.p.mounts[m].rng
        row = state.grid.dist[pos]
        zones = state.board.zones_of
        best, pick = 0.0, None
        for e in state.side_units[1 - u.side]:
            if e.alive and row[e.pos] <= rng:
                v = self._value(state, u, m, e, zones)
                if pick is None or v > best:
                    best, pick = v, e
        return best, pick

    def _firepower(self, state: GameState, u: UnitState, pos: int, mounts: list[int]) -> float:
        return sum(self._target(state, u, m, pos)[0] for m in mounts)

    # -- activation order
    def _next_unit(self, state: GameState) -> UnitState:
        best_key, pick = None, None
        for w in state.side_units[state.to_act]:
            if not w.alive or w.activated:
                continue
            shots = [self._target(state, w, m, w.pos)[0] for m in range(len(w.p.mounts)) if w.can_use(m)]
            top = max(shots, default=0.0)
            key = (top, w.p.pts, -w.index)
            if best_key is None or key > best_key:
                best_key, pick = key, w
        assert pick is not None
        return pick

    # -- movement
    def _threats(self, state: GameState, u: UnitState) -> list[tuple[int, int, float]]:
        """(position, reach, expected damage value) of each enemy that can hurt ``u``."""
        out = []
        for e in state.side_units[1 - u.side]:
            if not e.alive:
                continue
            mov = 0 if e.immobilized else e.p.mov
            values = [(shot_value(e.p.mounts[m], u, KILL_BONUS), e.p.mounts[m].rng)
                      for m in range(len(e.p.mounts)) if e.can_use(m)]
            for v, rng in values:
                if v > 0:
                    out.append((e.pos, mov + rng, v))
        return out

    def _plan(self, state: GameState, u: UnitState) -> None:
        self._plan_key = (u.id, state.round)
        self._dest = -1
        self._fire_first = []
        mounts = state.fireable_mounts(u)
        if not state.can_move(u):
            return
        board = state.board
        mine, theirs = objective_counts(state, exclude=u)
        if u.side == 1:
            mine, theirs = theirs, mine
        prio = [objective_priority(mine[k], theirs[k]) for k in range(len(mine))]
        od = board.objective_dist
        radius = state.spec.scenario.objectives.radius
        zones_of = board.zones_of
        dist = state.grid.dist
        threats = self._threats(state, u)
        candidates = [u.pos, *state.reachable(u)]
        scores = []
        for h in candidates:
            zone_value = sum(prio[k] for k in zones_of[h])
            approach = max(p - APPROACH_WEIGHT * 0.2 * max(0, od[k][h] - radius) for k, p in enumerate(prio))
            row = dist[h]
            threat = sum(v for pos, reach, v in threats if row[pos] <= reach)
            score = OBJECTIVE_WEIGHT * zone_value + APPROACH_WEIGHT * approach - THREAT_WEIGHT * threat
            scores.append((score, h))
        scores.sort(key=lambda t: (-t[0], t[1] != u.pos, t[1]))
        top = scores[:6]
        best_h, best_s = u.pos, None
        for score, h in top:
            total = score + self._firepower(state, u, h, mounts)
            if best_s is None or total > best_s:
                best_s, best_h = total, h
        if best_h != u.pos:
            self._dest = best_h
            self._fire_first = [m for m in mounts
                                if self._target(state, u, m, u.pos)[0] > self._target(state, u, m, best_h)[0]]
