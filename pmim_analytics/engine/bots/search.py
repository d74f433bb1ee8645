"""``search``: plans each activation by scoring candidate moves, then looks ahead on clones.

At each of its activations the bot

1. lists candidates: every unit it has not activated yet, each with a small portfolio of
   destinations (stay; for each objective the best hex in, or nearest to, its capture
   zone; the hex with the best fire against threat);
2. scores every candidate with a cheap static evaluation of Take and Hold: the change in
   the round's projected VP (units in each capture zone against the enemy units there
   and those that can still reach it this round), the expected points its fire removes
   (a kill in a zone swings that zone; a kill before the enemy acts denies its fire),
   the threat at the destination (the expected damage of the enemy weapons that can
   still reach it this round, shared among the targets each could pick), progress
   towards the zones still to take, and closing in on the enemy. Each unit keeps its
   best destination; units whose gain is only in the zones rank lower, because a zone
   taken later in the round cannot be answered;
3. with ``budget`` > 0, looks ahead on the best three: each is tried on a
   :meth:`~pmim_analytics.engine.state.GameState.clone` of the game, its activation played
   as the bot would play it (the same shots before and after the move, targets valued the
   same way), and the round is played on, both sides' remaining units by the tactician's
   script (the order it ranks them in at this decision; a plan made in one playout is
   reused in the others on the same board), to the round's end or for ``HORIZON`` (8)
   more activations, whichever comes first (a playout stopped before the round's end
   counts the zones held then as the VP they would score), with dice the bot draws from
   its own generator -- never the game's dice. Playouts go in passes, one per candidate,
   until the budget is spent; within a pass every candidate meets the same dice for the
   same attack (common random numbers: an attack's dice are drawn once per attacker,
   weapon and round), so candidates are compared on the same luck. The mean value of the
   positions reached -- VP lead, army worth left on both sides weighed alike, zones held; a
   finished game counts as a big win or loss -- is added to the static score. ``budget``
   is the number of simulated actions (decisions and rolls) per activation; a pass is
   always finished, so a small budget still plays one playout per candidate.

Points here are worth points (:func:`~pmim_analytics.engine.bots.tactics.unit_worths`: what a
unit does on the table), never a unit's listed cost.

A persona (``data/bots/*.yaml``, default ``balanced``) weights the terms: objectives,
damage, preservation and aggression. Deployment places first the units that can take a
capture zone in round 1 (the fastest first, on hexes from which they do), then the rest in
roster order, each where it reaches a zone soonest, spread over the objectives.
"""

from __future__ import annotations

import random
from typing import Any

from pmim_analytics.engine.actions import Action, ActivateUnit, EndActivation, FireWeapon, MoveUnit, PlaceUnit, RushUnit
from pmim_analytics.engine.bots.base import Bot, Param
from pmim_analytics.engine.bots.evaluation import (
    PTS_PER_VP,
    WAIT,
    StaticEval,
    destinations,
    rushes,
)
from pmim_analytics.engine.bots.persona import Persona, load_persona
from pmim_analytics.engine.bots.skill import SkillCounter, near_miss, temperature
from pmim_analytics.engine.bots.tactician import TacticianBot
from pmim_analytics.engine.bots.tactics import next_to_deploy, overheat_risk, unit_worths, zone_gaps_by_objective
from pmim_analytics.engine.checks import DEPLOY, OVER
from pmim_analytics.engine.state import GameState, UnitState

#: The budget a plain ``search`` gets (simulated actions per activation).
DEFAULT_BUDGET = 100
#: How many of the best-scored candidates the look-ahead compares.
LOOKAHEAD_WIDTH = 3
#: Activations a playout plays after the candidate's before it stops, if the round has not
#: ended by then (0: always to the round's end).
HORIZON = 8
#: Weight of the look-ahead's round-end value against the static score.
LOOKAHEAD_WEIGHT = 1.0


#: A candidate activation: (score, tie-break order, unit, destination hex, rushing there).
Candidate = tuple[float, int, UnitState, int, bool]
#: A look-ahead's remembered tactician plans: (where every unit stands and what it has left,
#: then the unit) -> (destination or -1, mounts to fire before moving, rushing).
PlanMemo = dict[tuple[Any, ...], tuple[int, list[int], bool]]


class RolloutBot(TacticianBot):
    """The tactician as both sides play it in a look-ahead playout, made cheaper: its units
    activate in the order the tactician ranks them at the decision the look-ahead serves
    (``order``: unit numbers), not re-ranked before every activation, and a plan made in one
    playout is reused in the look-ahead's others (``memo``) when the unit starts its
    activation on the same board: positions, hit points and lost weapons of every unit,
    which is all the tactician's plan reads. Playouts of one look-ahead often meet the same
    board (a missed shot leaves it as it was), so about half the plans are reused."""

    def __init__(self, rng: random.Random, order: list[int] | None = None,
                 memo: PlanMemo | None = None) -> None:
        super().__init__(rng)
        self._ranking = order
        self._memo = memo if memo is not None else {}
        self._mechs: list[int] | None = None

    def _plan(self, state: GameState, u: UnitState) -> None:
        """The tactician's plan for ``u``, from the memo when it met this board before."""
        units = state.units
        mechs = self._mechs
        if mechs is None:  # the Warmechs' unit numbers, found once per playout
            mechs = self._mechs = [x.index for x in units if x.p.body is not None]
        board = [x.pos * 256 + x.hp if x.alive else -1 for x in units]
        for i in mechs:
            x = units[i]
            board.append(x.lost)
            board.extend(x.loc_hp)
        board.append(u.index)
        key = tuple(board)
        got = self._memo.get(key)
        if got is None:
            super()._plan(state, u)
            self._memo[key] = (self._dest, self._fire_first[:], self._rushing)
            return
        self._plan_key = (u.id, state.round)
        self._dest, first, self._rushing = got
        self._fire_first = first[:]

    def _next_unit(self, state: GameState) -> UnitState:
        if self._ranking is None:
            self._ranking = [w.index for w in self.activation_order(state, state.to_act)]
        units = state.units
        for i in self._ranking:
            w = units[i]
            if w.alive and not w.activated:
                return w
        return next(w for w in state.side_units[state.to_act] if w.alive and not w.activated)


#: Weight of the army points left on each side in the value of a playout's end: the same for
#: both sides (a trade of equal points is worth nothing at the end of a round; the persona's
#: lopsided damage/preservation weights only steer the static score).
ROUND_MATERIAL = 1.0
#: A unit whose best activation gains at most this many VP outside the capture zones has
#: only a zone to gain this round (a "dasher", held back while the side has activations to spare).
ZONE_ONLY = 0.05
#: Rounds of travel one more unit already aimed at an objective weighs, when deploying.
DEPLOY_SPREAD = 0.5


class SearchBot(Bot):
    """Static evaluation of each unit's candidate moves, refined by look-ahead on clones."""

    name = "search"
    description = "scores every unit's candidate moves for VP, fire and threat; looks ahead on clones"
    params = {"budget": Param(DEFAULT_BUDGET, 0, 100_000, "simulated actions per activation")}
    takes_persona = True
    takes_skill = True

    def __init__(self, rng: random.Random, budget: int = DEFAULT_BUDGET, persona: Persona | None = None,
                 skill: float = 1.0, **options: Any) -> None:
        super().__init__(rng)
        self.budget = budget
        self.skill = skill
        self.skill_counter = SkillCounter()
        self._all: list[tuple[float, UnitState, int, bool]] | None = None
        self.persona = persona if persona is not None else load_persona(None)
        self._script = TacticianBot(rng)
        self._plan_key: tuple[str, int] | None = None
        self._dest = -1
        self._fire_first: list[int] = []
        self._rush = False
        self._target_eval: tuple[tuple[int, int], StaticEval] | None = None

    # ------------------------------------------------------------------ acting
    def choose(self, state: GameState) -> Action:
        """Place as the tactician; activate the best-scored unit; carry out its plan (below
        skill 1, with the errors :mod:`~pmim_analytics.engine.bots.skill` describes)."""
        if self.skill <= 0.0:
            return self.rng.choice(state.legal_actions())
        if state.phase == DEPLOY:
            return self._deploy(state)
        u = state.active
        if u is None:
            unit, dest, first, self._rush = self._search(state)
            if self.skill < 1.0:
                unit, dest, first, self._rush = self._near_miss(state, unit, dest, first, self._rush)
            self._plan_key, self._dest, self._fire_first = (unit.id, state.round), dest, first
            return ActivateUnit(unit.id)
        if self._plan_key != (u.id, state.round):  # not ours to plan (should not happen): be the tactician
            return self._script.choose(state)
        return self._act(state, u, self._dest, self._fire_first, rush=self._rush)

    def _near_miss(self, state: GameState, unit: UnitState, dest: int, first: list[int],
                   rush: bool) -> tuple[UnitState, int, list[int], bool]:
        """The bot's choice, or with the softmax's chance a near-miss among every candidate
        :meth:`_search` scored (``self._all``)."""
        cands = self._all
        assert cands is not None
        self._all = None
        mine = (unit.index, dest if dest >= 0 else unit.pos, rush)
        best = next(i for i, (_, u, h, r) in enumerate(cands) if (u.index, h, r) == mine)
        scores = [c[0] for c in cands]
        pick = near_miss(self.rng, scores, best, temperature(self.skill))
        self.skill_counter.count(scores, best, pick)
        if pick == best:
            return unit, dest, first, rush
        _, u, h, rush = cands[pick]
        ev = StaticEval(state, state.to_act, self.persona)
        return u, (h if h != u.pos else -1), ([] if rush else self._fire_before(state, ev, u, h)), rush

    def _act(self, state: GameState, u: UnitState, dest: int, first: list[int], ev: StaticEval | None = None,
             rush: bool = False) -> Action:
        """The active unit's next action under its plan: the mounts in ``first`` fire from where
        it stands (popped as they are used), it moves to ``dest`` (-1: it stays), then fires
        what it still can. With ``rush`` it rushes to ``dest`` instead (an optional rule: no
        attacks after it). Targets are valued by ``ev`` (default: an evaluation of ``state``)."""
        if not state.moved:
            if rush and dest >= 0 and state.can_rush(u) and dest in state.rush_reachable(u):
                return RushUnit(u.id, state.grid.hexes[dest])
            while first:
                m = first.pop()
                if m in state.fireable_mounts(u):
                    t = self._target(state, u, m, ev)
                    if t is not None:
                        return FireWeapon(u.id, u.p.mounts[m].mount, t.id)
            if dest >= 0 and dest != u.pos and state.can_move(u) and dest in state.reachable(u):
                return MoveUnit(u.id, state.grid.hexes[dest])
        for m in state.fireable_mounts(u):
            t = self._target(state, u, m, ev)
            if t is not None:
                return FireWeapon(u.id, u.p.mounts[m].mount, t.id)
        return EndActivation(u.id)

    def _deploy(self, state: GameState) -> Action:
        """Place a unit where it reaches a capture zone soonest, spreading the side's units over
        the objectives. The rules leave the order free: units that can take a zone in round 1
        from a free hex go first, the fastest first, so the few hexes from which a fast unit
        reaches a zone in round 1 are theirs, not a slow unit's; then the rest in roster order
        (:func:`~pmim_analytics.engine.bots.tactics.next_to_deploy`)."""
        ods = state.board.objective_dist
        radius = state.spec.scenario.objectives.radius
        u = next_to_deploy(state)
        free = state.deploy_hexes(u)
        mov = max(1, u.p.mov)
        aimed = [0.0] * len(ods)
        for w in state.side_units[u.side]:
            if w.placed and w.pos >= 0:
                wm = max(1, w.p.mov)
                k = min(range(len(ods)), key=lambda j: (-(-max(0, ods[j][w.pos] - radius) // wm), ods[j][w.pos]))
                aimed[k] += 1
        # the least (rounds of travel + spread, hexes to go, a random draw), drawn for every
        # hex and objective in turn; compared part by part (the order of a tuple comparison)
        spread = [DEPLOY_SPREAD * a for a in aimed]
        gaps = zone_gaps_by_objective(state)
        draw = self.rng.random
        best_h, ba, bg, br = -1, 0.0, 0, 0.0
        for h in free:
            for k in range(len(ods)):
                gap = gaps[k][h]
                a = -(-gap // mov) + spread[k]
                r = draw()
                if best_h < 0 or a < ba or a == ba and (gap < bg or gap == bg and r < br):
                    best_h, ba, bg, br = h, a, gap, r
        assert best_h >= 0
        return PlaceUnit(u.id, state.grid.hexes[best_h])

    def _target(self, state: GameState, u: UnitState, m: int, ev: StaticEval | None = None) -> UnitState | None:
        """The enemy in range whose attack is worth most: points removed, a kill, a zone swung
        (valued by ``ev``; default: an evaluation of ``state``, made once per position)."""
        rng = u.p.mounts[m].rng
        row = state.grid.dist[u.pos]
        if ev is None:
            key = (id(state), len(state.events))
            if self._target_eval is not None and self._target_eval[0] == key:
                ev = self._target_eval[1]
            else:
                ev = StaticEval(state, u.side, self.persona)
                self._target_eval = (key, ev)
        best, pick = 0.0, None
        for e in state.side_units[1 - u.side]:
            if e.alive and row[e.pos] <= rng:
                v = ev.shot(u, m, e)
                if pick is None or v > best:
                    best, pick = v, e
        if pick is None or best <= 0 or (u is state.active and best <= overheat_risk(state, u, m)):
            return None
        return pick

    # ------------------------------------------------------------------ search
    def _search(self, state: GameState) -> tuple[UnitState, int, list[int], bool]:
        """(unit, destination or -1, mounts to fire before moving, rushing) of the best candidate."""
        side = state.to_act
        ev = StaticEval(state, side, self.persona)
        scored: list[Candidate] = []
        every: list[tuple[float, UnitState, int, bool]] | None = [] if self.skill < 1.0 else None
        dashers: set[int] = set()
        for u in state.side_units[side]:
            if not u.alive or u.activated:
                continue
            # the unit's best destination by its score; units whose gain is only in the zones
            # wait (a zone taken later cannot be answered), those with shots or under fire act now
            best = None
            reach = {} if u.immobilized or u.p.mov <= 0 else state.reachable(u)
            for h in self._destinations(state, u, ev, reach):
                value, zones = ev.candidate(u, h)
                if best is None or value > best[0]:
                    best = (value, zones, h, False)
                if every is not None:
                    every.append((value - WAIT * max(0.0, zones), u, h, False))
            for h in self._rushes(state, u, ev, reach):
                value, zones = ev.candidate(u, h, rush=True)
                if best is None or value > best[0]:
                    best = (value, zones, h, True)
                if every is not None:
                    every.append((value - WAIT * max(0.0, zones), u, h, True))
            assert best is not None
            value, zones, h, rush = best
            if zones > 0 and value - zones <= ZONE_ONLY:
                dashers.add(u.index)
            scored.append((value - WAIT * max(0.0, zones), -len(scored), u, h, rush))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        scored = self._hold_back(state, scored, dashers)
        if self.budget > 0 and len(scored) > 1:
            scored = self._look_ahead(state, scored[:LOOKAHEAD_WIDTH], ev)
        self._all = every
        _, _, u, h, rush = scored[0]
        return u, (h if h != u.pos else -1), ([] if rush else self._fire_before(state, ev, u, h)), rush

    @staticmethod
    def _hold_back(state: GameState, scored: list[Candidate], dashers: set[int]) -> list[Candidate]:
        """Hold back, then dash: with more activations left than the enemy, the side keeps the
        units whose only gain this round is a capture zone (``dashers``, unit numbers) -- as many
        as its surplus, the best first -- until the enemy has none left, so the zones they take
        cannot be answered. ``scored`` is best first; returns it without the held units (all of
        it when nothing else is left to activate)."""
        if not dashers:
            return scored
        theirs = sum(1 for e in state.side_units[1 - state.to_act] if e.alive and not e.activated)
        surplus = len(scored) - theirs
        if theirs == 0 or surplus <= 0:
            return scored
        held = set([c[2].index for c in scored if c[2].index in dashers][:surplus])
        keep = [c for c in scored if c[2].index not in held]
        return keep or scored

    @staticmethod
    def _fire_before(state: GameState, ev: StaticEval, u: UnitState, h: int) -> list[int]:
        """The mounts of ``u`` with a better shot from where it stands than from ``h``."""
        if h == u.pos:
            return []
        here, there = state.grid.dist[u.pos], state.grid.dist[h]
        return [m for m in range(len(u.p.mounts))
                if u.can_use(m) and ev.best_shot(u, m, here) > ev.best_shot(u, m, there)]

    _destinations = staticmethod(destinations)
    _rushes = staticmethod(rushes)

    def _look_ahead(self, state: GameState, cands: list[Candidate], ev: StaticEval) -> list[Candidate]:
        """Re-rank ``cands`` by static score plus the mean round-end value of playouts on clones.

        Playouts go in passes, one per candidate each, until the budget is spent (a pass is
        always finished, so every candidate has as many playouts). Within a pass every
        candidate meets the same dice: each attack's dice are drawn once per (attacker,
        mount, round) and shared, so the candidates are compared on the same luck and the
        difference between them is their play, not the dice (common random numbers)."""
        side = state.to_act
        ranker = TacticianBot(self.rng)
        orders = ([w.index for w in ranker.activation_order(state, 0)],
                  [w.index for w in ranker.activation_order(state, 1)])
        totals = [0.0] * len(cands)
        memo: PlanMemo = {}
        firsts = [[] if rush else self._fire_before(state, ev, u, h) for _, _, u, h, rush in cands]
        passes = 0
        spent = 0
        while spent < self.budget:
            dice: dict[tuple[int, ...], tuple[int, ...]] = {}
            for i, (_, _, u, h, rush) in enumerate(cands):
                used, value = self._playout(state, side, u, h, dice, orders, memo, firsts[i], ev, rush)
                totals[i] += value
                spent += max(1, used)
            passes += 1
        ranked = []
        for j, (score, order, u, h, rush) in enumerate(cands):
            ranked.append((score + LOOKAHEAD_WEIGHT * totals[j] / passes, order, u, h, rush))
        ranked.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return ranked

    def _playout(self, state: GameState, side: int, u: UnitState, h: int,
                 dice: dict[tuple[int, ...], tuple[int, ...]], orders: tuple[list[int], list[int]] | None = None,
                 memo: PlanMemo | None = None, first: list[int] | None = None, ev: StaticEval | None = None,
                 rush: bool = False) -> tuple[int, float]:
        """Play ``u``'s activation on a clone as the bot would (the mounts in ``first`` fire
        before it moves to ``h``, or it rushes there with ``rush``, targets valued by ``ev``,
        the decision's evaluation) and the
        rest of the round, or :data:`HORIZON` more activations of it, both sides by the
        tactician's script (:class:`RolloutBot`, units in ``orders``, plans shared through
        ``memo``), with dice from ``dice`` (filled from the bot's own generator); return
        (simulated actions, value of the position reached for ``side``)."""
        sim = state.clone()
        rng = self.rng
        if ev is None:
            ev = StaticEval(state, side, self.persona)
        policy = (RolloutBot(rng, orders[0] if orders else None, memo),
                  RolloutBot(rng, orders[1] if orders else None, memo))
        su = sim.units[u.index]
        sim.apply(ActivateUnit(su.id), check=False)
        steps = 1
        first = list(first or ())
        dest = h if h != su.pos else -1
        round_no = sim.round
        nloc = 0
        left = HORIZON if HORIZON > 0 else 1 << 30
        while sim.phase != OVER and sim.round == round_no:
            need = sim.roll_needed()
            if not need and sim.active is None:
                left -= 1
                if left < 0:
                    return steps, round_end_value(sim, side, self.persona, scored=False)
            if need:
                attack = sim.pending_attack()
                if attack is None:  # not an attack (first-player draw, optional rules' rolls): plain dice
                    sides = sim.roll_sides()
                    sim.apply_roll(tuple(int(rng.random() * sides) + 1 for _ in range(need)))
                    steps += 1
                    continue
                nloc = 0 if need == 2 else nloc + 1
                key = (attack[0].index, attack[1], nloc)
                got = dice.get(key)
                if got is None:
                    got = dice[key] = tuple(int(rng.random() * 6) + 1 for _ in range(need))
                sim.apply_roll(got)
            elif sim.active is su:
                sim.apply(self._act(sim, su, dest, first, ev, rush), check=False)
            else:
                sim.apply(policy[sim.to_act].choose(sim), check=False)
            steps += 1
        return steps, round_end_value(sim, side, self.persona)


def round_end_value(state: GameState, side: int, w: Persona, scored: bool = True) -> float:
    """Value in VP of a position between rounds for ``side``: the VP lead (a finished game
    counts as a big win or loss), army points left on both sides, and zones held; with
    ``scored`` False (a position within a round) the zones held also count as the VP they
    would score at the round's end."""
    res = state.result()
    if res is not None:
        me = ("blue", "red")[side]
        return 0.0 if res.winner is None else (50.0 if res.winner == me else -50.0)
    vp = state.vp
    value = w.objectives * (vp[side] - vp[1 - side])
    mine = theirs = 0.0
    n = len(state.board.objectives)
    counts = ([0] * n, [0] * n)
    zones_of = state.board.zones_of
    worths = unit_worths(state.spec)
    for x in state.units:
        if x.alive:
            left = worths[x.index] * (x.hp / x.p.hp if x.p.body is None else sum(v for v in x.loc_hp if v > 0) / x.p.hp)
            if x.side == side:
                mine += left
            else:
                theirs += left
            for k in zones_of[x.pos]:
                counts[x.side][k] += 1
    value += ROUND_MATERIAL * (mine - theirs) / PTS_PER_VP
    for k in range(n):
        a, b = counts[side][k], counts[1 - side][k]
        value += (0.5 if scored else 1.5) * w.objectives * ((a > b) - (b > a))
    return value
