"""``tactician``: focus fire, hold the objectives, keep out of the enemy's reach.

It refines ``greedy`` step by step:

* activation order: units with the best shot first, so damaged enemies are finished
  before they act again;
* targets: expected points removed with a large bonus for a kill (focus fire) and more
  for enemies standing in a capture zone (each one removed can swing a VP);
* objectives: the gain at each objective is weighed by how many rounds the unit needs
  to get there, so a unit already needed in a zone holds it and slow units do not chase
  far objectives;
* among equally good hexes: the best shots minus the threat there -- the expected
  damage of every enemy that could move and shoot at it next round -- so long-range
  units keep their distance from short-range ones.
"""

from __future__ import annotations

import random

from pmim_analytics.engine.bots.greedy import GreedyBot, ShotLists, firepower
from pmim_analytics.engine.bots.tactics import objective_priority, shot_value
from pmim_analytics.engine.state import GameState, UnitState

KILL_BONUS = 1.5
ZONE_TARGET_BONUS = 1.5
THREAT_WEIGHT = 0.15


class TacticianBot(GreedyBot):
    """Plays to win: focus fire, objective holding and range keeping."""

    name = "tactician"
    description = "focus fire, holds objectives, keeps out of enemy reach"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self._next_key: tuple[int, int] | None = None

    def shot_value(self, state: GameState, u: UnitState, m: int, e: UnitState) -> float:
        """Focus fire: kills count heavily, enemies in capture zones count more."""
        v = shot_value(u, m, e, state.spec.shot_table, KILL_BONUS)
        return v * ZONE_TARGET_BONUS if state.board.zones_of[e.pos] else v

    def goal(self, state: GameState, u: UnitState, mine: list[int], theirs: list[int]) -> int:
        """The objective with the most gain per round needed to reach its zone."""
        od = state.board.objective_dist
        radius = state.spec.scenario.objectives.radius
        mov = max(1, u.p.mov)
        pos = u.pos

        def gain(k: int) -> float:
            rounds = -(-max(0, od[k][pos] - radius) // mov)
            return objective_priority(mine[k], theirs[k]) / (1 + rounds) - 0.01 * od[k][pos]

        return max(range(len(od)), key=gain)

    def pick_hex(self, state: GameState, u: UnitState, tied: list[int], shots: ShotLists) -> int:
        """Best shots minus the threat, among hexes equally close to the goal."""
        if len(tied) == 1:
            return tied[0]
        threats = self._threats(state, u)
        if not threats and not shots:
            return tied[0]
        dist = state.grid.dist

        def score(h: int) -> float:
            row = dist[h]
            threat = sum(v for pos, reach, v in threats if row[pos] <= reach)
            return firepower(shots, row) - THREAT_WEIGHT * threat

        return max(tied, key=score)

    def activation_order(self, state: GameState, side: int) -> list[UnitState]:  # type: ignore[override]
        """Every living unit of the side, best available shot first."""
        keyed = []
        for w in state.side_units[side]:
            if w.alive:
                shots = [self.target(state, w, m, w.pos)[0] for m in range(len(w.p.mounts)) if w.can_use(m)]
                keyed.append((-max(shots, default=0.0), -w.p.pts, w.index, w))
        keyed.sort(key=lambda t: t[:3])
        return [t[3] for t in keyed]

    def _next_unit(self, state: GameState) -> UnitState:
        # Re-rank before every activation: the last exchange of fire changes who has a shot.
        order = self.activation_order(state, state.to_act)
        return next(w for w in order if not w.activated)

    @staticmethod
    def _threats(state: GameState, u: UnitState) -> list[tuple[int, int, float]]:
        """(position, reach, value) of each enemy weapon that can hurt ``u``."""
        out = []
        table = state.spec.shot_table
        for e in state.side_units[1 - u.side]:
            if not e.alive:
                continue
            mov = 0 if e.immobilized else e.p.mov
            for m, wm in enumerate(e.p.mounts):
                if e.can_use(m):
                    v = shot_value(e, m, u, table)
                    if v > 0:
                        out.append((e.pos, mov + wm.rng, v))
        return out
