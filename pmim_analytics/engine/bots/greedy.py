"""``greedy``: heads for the contested objectives and takes the best shot it has.

It deploys first the units that can take a capture zone in round 1, the fastest first
(the rules leave the order free: :func:`~pmim_analytics.engine.bots.tactics.next_to_deploy`),
each near the objective its side has aimed fewest units at. Each activation it picks one
objective -- the one where one more unit matters most (a tie it would break, a VP it would
deny), nearer ones first -- and moves as close to its capture zone as it can; among equally
good hexes it takes the one with the best shots.
Each weapon fires at the target with the highest expected points removed (damage, with a
bonus for a kill), before the move when the start hex offers the better shot. Under the
optional rules it holds fire when a shot's overheat risk is worth more than the shot, and
rushes toward its objective when no enemy is within reach of a move and a shot.

The steps are methods (:meth:`goal`, :meth:`pick_hex`, :meth:`target`,
:meth:`activation_order`) so a stronger bot can refine them one at a time.
"""

from __future__ import annotations

import random

from pmim_analytics.engine.actions import (
    Action,
    ActivateUnit,
    EndActivation,
    FireWeapon,
    MoveUnit,
    PlaceUnit,
    RushUnit,
)
from pmim_analytics.engine.bots.base import Bot
from pmim_analytics.engine.bots.evaluation import StaticEval, candidate_activations
from pmim_analytics.engine.bots.persona import load_persona
from pmim_analytics.engine.bots.skill import SkillCounter, near_miss, temperature
from pmim_analytics.engine.bots.tactics import (
    ShotLists,
    best_in_range,
    firepower,
    next_to_deploy,
    objective_counts,
    objective_priority,
    overheat_risk,
    shot_value,
    spread_deployment,
    unit_worths,
)
from pmim_analytics.engine.checks import DEPLOY
from pmim_analytics.engine.state import GameState, UnitState

#: How many VP-priority points one hex of distance costs when choosing an objective.
DISTANCE_WEIGHT = 0.15
#: At most this many equally good destinations are compared by their shots.
TIE_LIMIT = 8


class GreedyBot(Bot):
    """Contested objectives first, then the best expected damage or kill."""

    name = "greedy"
    description = "moves to contested objectives, fires at the best expected damage or kill"
    takes_skill = True

    def __init__(self, rng: random.Random, skill: float = 1.0) -> None:
        super().__init__(rng)
        self.skill = skill
        self.skill_counter = SkillCounter()
        self._order_round = -1
        self._order: list[UnitState] = []
        self._plan_key: tuple[str, int] | None = None
        self._dest = -1
        self._fire_first: list[int] = []
        self._rushing = False

    def choose(self, state: GameState) -> Action:
        """Place, activate, move or fire, as described in the module docstring (below skill 1,
        with the errors :mod:`~pmim_analytics.engine.bots.skill` describes)."""
        if self.skill < 1.0:
            if self.skill <= 0.0:
                return self.rng.choice(state.legal_actions())
            if state.phase != DEPLOY and state.active is None:
                return scripted_activation(self, state)
        if state.phase == DEPLOY:
            placed = next_to_deploy(state)
            ks = list(range(len(state.board.objectives)))
            self.rng.shuffle(ks)
            return PlaceUnit(placed.id, state.grid.hexes[spread_deployment(state, placed, ks)])
        u = state.active
        if u is None:
            return ActivateUnit(self._next_unit(state).id)
        if self._plan_key != (u.id, state.round):
            self._plan(state, u)
        if not state.moved:
            while self._fire_first:
                m = self._fire_first.pop()
                if m in state.fireable_mounts(u):
                    value, t = self.target(state, u, m, u.pos)
                    if t is not None and value > 0 and (u.p.heat_rating < 0 or value > overheat_risk(state, u, m)):
                        return FireWeapon(u.id, u.p.mounts[m].mount, t.id)
            if self._dest >= 0 and self._dest != u.pos and state.can_move(u) and state.occ[self._dest] < 0:
                if self._rushing and state.can_rush(u) and self._dest in state.rush_reachable(u):
                    return RushUnit(u.id, state.grid.hexes[self._dest])
                return MoveUnit(u.id, state.grid.hexes[self._dest])
        for m in state.fireable_mounts(u):
            value, t = self.target(state, u, m, u.pos)
            if t is not None and value > 0 and (u.p.heat_rating < 0 or value > overheat_risk(state, u, m)):
                return FireWeapon(u.id, u.p.mounts[m].mount, t.id)
        return EndActivation(u.id)

    # -- hooks -------------------------------------------------------------
    def shot_value(self, state: GameState, u: UnitState, m: int, e: UnitState) -> float:
        """Worth of one attack of mount ``m`` on ``e``: expected worth removed, a kill counts extra."""
        return shot_value(u, m, e, state.spec.shot_table, unit_worths(state.spec))

    def target(self, state: GameState, u: UnitState, m: int, pos: int) -> tuple[float, UnitState | None]:
        """(value, enemy) of the best shot of mount ``m`` from hex ``pos``."""
        rng = u.p.mounts[m].rng
        row = state.grid.dist[pos]
        best, pick = 0.0, None
        for e in state.side_units[1 - u.side]:
            if e.alive and row[e.pos] <= rng:
                v = self.shot_value(state, u, m, e)
                if pick is None or v > best:
                    best, pick = v, e
        return best, pick

    def goal(self, state: GameState, u: UnitState, mine: list[int], theirs: list[int]) -> int:
        """The objective to head for: most needed, nearest first."""
        radius = state.spec.scenario.objectives.radius
        pos = u.pos
        best_k, best = 0, -1e9
        for k, dist_row in enumerate(state.board.objective_dist):
            d = dist_row[pos] - radius
            score = objective_priority(mine[k], theirs[k]) - DISTANCE_WEIGHT * (d if d > 0 else 0)
            if score > best:
                best_k, best = k, score
        return best_k

    def pick_hex(self, state: GameState, u: UnitState, tied: list[int], shots: ShotLists) -> int:
        """Among hexes equally close to the goal (the start hex first), the one with the best shots."""
        if len(tied) == 1 or not shots:
            return tied[0]
        dist = state.grid.dist
        return max(tied, key=lambda h: firepower(shots, dist[h]))

    @staticmethod
    def activation_order(state: GameState, side: int) -> list[UnitState]:
        """This side's living units: those with an enemy within MOV + range first, then by worth."""
        enemies = [e.pos for e in state.side_units[1 - side] if e.alive]
        dist = state.grid.dist
        worths = unit_worths(state.spec)
        keyed = []
        for w in state.side_units[side]:
            if not w.alive:
                continue
            reach = (0 if w.immobilized else w.p.mov) + max((wm.rng for wm in w.p.mounts), default=0)
            row = dist[w.pos]
            engaged = any(row[e] <= reach for e in enemies)
            keyed.append((not engaged, -worths[w.index], w.index, w))
        keyed.sort(key=lambda t: t[:3])
        return [t[3] for t in keyed]

    # -- machinery ---------------------------------------------------------
    def _next_unit(self, state: GameState) -> UnitState:
        side = state.to_act
        if self._order_round != state.round:
            self._order_round = state.round
            self._order = self.activation_order(state, side)
        for w in self._order:
            if w.alive and not w.activated:
                return w
        return next(w for w in state.side_units[side] if w.alive and not w.activated)

    def _plan(self, state: GameState, u: UnitState) -> None:
        """Choose this activation's destination and which mounts fire before moving."""
        if not self._plan_start(state, u):
            return
        mounts = state.fireable_mounts(u)
        mine, theirs, goal_dist = self._goal_row(state, u)
        radius = state.spec.scenario.objectives.radius
        pos = u.pos
        best = max(0, goal_dist[pos] - radius)
        tied = [pos]
        for h in state.reachable(u):
            d = goal_dist[h] - radius
            if d < 0:
                d = 0
            if d < best:
                best, tied = d, [h]
            elif d == best and len(tied) < TIE_LIMIT:
                tied.append(h)
        shots = self.shot_lists(state, u, mounts)
        dest = self.pick_hex(state, u, tied, shots)
        if not shots and best > 0 and self._rush_toward(state, u, goal_dist, best):
            return  # nothing to shoot at this activation and the goal is still out of reach
        self._set_dest(state, u, dest, mounts, shots)

    # -- plan steps shared with the bots built on this one ------------------
    def _plan_start(self, state: GameState, u: UnitState) -> bool:
        """Forget the last plan and start ``u``'s (it stays put and fires in mount order
        unless told otherwise); False when it cannot move, so there is nothing to plan."""
        self._plan_key = (u.id, state.round)
        self._dest = -1
        self._fire_first = []
        self._rushing = False
        return state.can_move(u)

    def _goal_row(self, state: GameState, u: UnitState) -> tuple[list[int], list[int], tuple[int, ...]]:
        """(our units, theirs, in each capture zone, ``u`` left out; the distance row of the
        objective :meth:`goal` picks for ``u``)."""
        mine, theirs = objective_counts(state, exclude=u)
        if u.side == 1:
            mine, theirs = theirs, mine
        return mine, theirs, state.board.objective_dist[self.goal(state, u, mine, theirs)]

    def _rush_toward(self, state: GameState, u: UnitState, goal_dist: tuple[int, ...], gap: int) -> bool:
        """Plan a rush to the hex nearest the goal's capture zone if that leaves less than
        ``gap`` hexes to go (True: planned)."""
        if not state.can_rush(u):
            return False
        radius = state.spec.scenario.objectives.radius
        far = min(state.rush_reachable(u).items(), key=lambda hd: (max(0, goal_dist[hd[0]] - radius), hd[1], hd[0]),
                  default=None)
        if far is None or max(0, goal_dist[far[0]] - radius) >= gap:
            return False
        self._dest, self._rushing = far[0], True
        return True

    def _set_dest(self, state: GameState, u: UnitState, dest: int, mounts: list[int], shots: ShotLists) -> None:
        """Plan the move to ``dest`` (none if it is where ``u`` stands) and fire before moving
        each mount whose best shot is better from the start hex than from ``dest``."""
        if dest == u.pos:
            return
        self._dest = dest
        if not shots:
            return
        here, there = state.grid.dist[u.pos], state.grid.dist[dest]
        self._fire_first = [m for m, (rng, values) in zip(mounts, shots, strict=True)
                            if best_in_range(rng, values, here) > best_in_range(rng, values, there)]

    def shot_lists(self, state: GameState, u: UnitState, mounts: list[int]) -> ShotLists:
        """Per mount: (range, [(value, enemy hex)] best first) over the enemies the unit could
        reach this activation -- computed once, then read for every candidate hex."""
        if not mounts:
            return []
        row = state.grid.dist[u.pos]
        mov = u.p.mov
        out = []
        for m in mounts:
            rng = u.p.mounts[m].rng
            reach = rng + mov
            values = [(self.shot_value(state, u, m, e), e.pos)
                      for e in state.side_units[1 - u.side] if e.alive and row[e.pos] <= reach]
            values.sort(reverse=True)
            out.append((rng, values))
        return out if any(values for _, values in out) else []


def scripted_activation(bot: GreedyBot, state: GameState) -> Action:
    """The activation a greedy or tactician bot of skill below 1 starts at ``state``.

    Its own choice (the unit it would activate and its plan for it, made on a clone) is
    weighed against every candidate of the common evaluation; on a departure the drawn unit
    is activated with a plan to go to the drawn hex, firing as the bot would.
    """
    unit = bot._next_unit(state)
    dest, first, rushing = _plan_on_clone(bot, state, unit, None)
    cands = candidate_activations(state, StaticEval(state, state.to_act, load_persona(None)))
    mine = (unit.index, dest if dest >= 0 else unit.pos, rushing)
    best = next((i for i, (_, u, h, r) in enumerate(cands) if (u.index, h, r) == mine), -1)
    if best < 0:
        cands.append((max(c[0] for c in cands), unit, mine[1], rushing))
        best = len(cands) - 1
    scores = [c[0] for c in cands]
    pick = near_miss(bot.rng, scores, best, temperature(bot.skill))
    bot.skill_counter.count(scores, best, pick)
    if pick != best:
        _, unit, h, rushing = cands[pick]
        dest, first, rushing = _plan_on_clone(bot, state, unit, (h, rushing))
    bot._plan_key = (unit.id, state.round)
    bot._dest, bot._fire_first, bot._rushing = dest, first, rushing
    return ActivateUnit(unit.id)


def _plan_on_clone(bot: GreedyBot, state: GameState, unit: UnitState,
                   move: tuple[int, bool] | None) -> tuple[int, list[int], bool]:
    """(destination or -1, mounts to fire before moving, rushing) of ``bot``'s plan for
    ``unit``, made on a clone where it is active: its own plan, or with ``move`` (hex,
    rushing) the plan to go there."""
    sim = state.clone()
    sim.apply(ActivateUnit(unit.id), check=False)
    su = sim.units[unit.index]
    if move is None:
        bot._plan(sim, su)
    else:
        h, rush = move
        if bot._plan_start(sim, su):
            if rush:
                bot._dest, bot._rushing = h, True
            else:
                mounts = sim.fireable_mounts(su)
                bot._set_dest(sim, su, h, mounts, bot.shot_lists(sim, su, mounts))
    return bot._dest, bot._fire_first[:], bot._rushing
