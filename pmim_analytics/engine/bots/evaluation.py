"""The search bot's static evaluation of a decision, shared with the skill bots.

:class:`StaticEval` scores activating a unit and moving it to a hex, in VP, for one side at
one decision; :func:`candidate_activations` lists every activation the search bot weighs
with its score. The search bot (:mod:`.search`) ranks its moves with them, and a greedy or
tactician bot below skill 1 (:mod:`.skill`) draws its near-misses among the same candidates.
It lives apart from the search bot so those bots use it without importing the search bot,
which is built on them (issue 32: no import cycle).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from pmim_analytics.engine.bots.persona import Persona
from pmim_analytics.engine.bots.tactics import firepower, shot_value, unit_worths
from pmim_analytics.engine.state import GameState, UnitState

if TYPE_CHECKING:
    from pmim_analytics.engine.spec import Board

#: Points of army value that weigh as much as one VP.
PTS_PER_VP = 6.0
#: VP value of one hex of progress towards a zone still to take (future rounds).
PROGRESS = 0.04
KILL_BONUS = 1.0
#: Share of a unit's zone gain it can expect to keep by activating later (see ``_search``).
WAIT = 0.5
#: Share of an enemy's fire this round that killing it before it acts denies.
DENY = 0.7
#: Weight of the threat terms overall.
THREAT_W = 1.0


def candidate_activations(state: GameState, ev: StaticEval) -> list[tuple[float, UnitState, int, bool]]:
    """(score in VP, unit, destination hex, rushing) of every candidate activation the search
    bot scores at ``state`` for the side to act: each unit it has not activated, with each of
    its destinations and rushes, scored as the bot ranks them (the zone gain discounted)."""
    out = []
    for u in state.side_units[state.to_act]:
        if not u.alive or u.activated:
            continue
        reach = {} if u.immobilized or u.p.mov <= 0 else state.reachable(u)
        for h in destinations(state, u, ev, reach):
            value, zones = ev.candidate(u, h)
            out.append((value - WAIT * max(0.0, zones), u, h, False))
        for h in rushes(state, u, ev, reach):
            value, zones = ev.candidate(u, h, rush=True)
            out.append((value - WAIT * max(0.0, zones), u, h, True))
    return out


def destinations(state: GameState, u: UnitState, ev: StaticEval, reach: dict[int, int]) -> list[int]:
    """Stay, the best hex in (or nearest to) each capture zone, and the hex with the best fire
    against threat, among ``reach`` (the hexes ``u`` can move to)."""
    out = [u.pos]
    if not reach:
        return out
    wd, wp = ev.w.damage, ev.w.preservation
    fire_threat = ev.fire_threat(u, reach)
    quality = {h: wd * fp - wp * thr for h, (fp, thr) in fire_threat.items() if h in reach}
    hexes = list(quality)
    items = list(quality.items())
    qs = list(quality.values())
    # per objective, the hex with the fewest hexes still to go to its capture zone (ten times
    # that, less the hex's quality): the first such hex in the reachable order
    for gaps in ev.gaps10:
        keys = [gaps[h] - q for h, q in items]
        h = hexes[keys.index(min(keys))]
        if h not in out:
            out.append(h)
    top = max(qs)
    safest = min(h for h, q in items if q == top)
    if safest not in out:
        out.append(safest)
    return out

def rushes(state: GameState, u: UnitState, ev: StaticEval, near: dict[int, int]) -> list[int]:
    """Under the optional rushing rule: for each objective, the hex a rush takes ``u`` to
    nearest its capture zone (least threat among those), when that is nearer than any hex
    a plain move reaches (``near``). A rush gives up the activation's attacks."""
    if state.spec.rules.optional.rush is None:
        return []
    far = state.rush_reachable(u)
    if not far:
        return []
    radius = ev.radius
    out: list[int] = []
    for od in ev.od:
        walk = min(max(0, od[h] - radius) for h in (u.pos, *near))
        gap = min(max(0, od[h] - radius) for h in far)
        if gap >= walk:
            continue
        ties = [h for h in far if max(0, od[h] - radius) == gap]  # none a move reaches: gap < walk
        threat = ev.fire_threat(u, ties)
        h = min(ties, key=lambda x: (threat[x][1], x))
        if h not in out:
            out.append(h)
    return out


_GAPS10: dict[tuple[int, int], tuple[object, tuple[tuple[float, ...], ...]]] = {}


def zone_gaps10(board: Board, radius: int) -> tuple[tuple[float, ...], ...]:
    """Per objective, per hex: ten times the hexes still to go from the hex to the
    objective's capture zone (0 inside it), as :func:`destinations` weighs them (cached per board)."""
    entry = _GAPS10.get((id(board), radius))
    if entry is None or entry[0] is not board:
        if len(_GAPS10) > 256:
            _GAPS10.clear()
        table = tuple(tuple((d - radius if d - radius > 0 else 0) * 10.0 for d in od) for od in board.objective_dist)
        entry = (board, table)
        _GAPS10[(id(board), radius)] = entry
    return entry[1]


class StaticEval:
    """The static evaluation of one decision, for ``side``: built once, then asked per candidate."""

    def __init__(self, state: GameState, side: int, w: Persona) -> None:
        self.state = state
        self.side = side
        self.w = w
        board = state.board
        self.radius = state.spec.scenario.objectives.radius
        self.zones_of = board.zones_of
        self.od = board.objective_dist
        self.gaps10 = zone_gaps10(board, self.radius)
        self.dist = state.grid.dist
        self.table = state.spec.shot_table
        self.worths = unit_worths(state.spec)
        n = len(board.objectives)
        self.n = n
        held = ([0.0] * n, [0.0] * n)
        may = ([0.0] * n, [0.0] * n)
        self.share: dict[int, list[tuple[int, float]]] = {}
        for x in state.units:
            if not x.alive or x.pos < 0:
                continue
            zs = self.zones_of[x.pos]
            for k in zs:
                held[x.side][k] += 1
            if zs or x.activated or x.immobilized or x.p.mov <= 0:
                continue
            mov = x.p.mov
            ks = [k for k in range(n) if self.od[k][x.pos] - self.radius <= mov]
            if ks:
                s = 1.0 / len(ks)
                self.share[x.index] = [(k, s) for k in ks]
                for k in ks:
                    may[x.side][k] += s
        self.held, self.may = held, may
        # enemy weapons still to act this round: (position, reach, attacker, mount, targets it
        # has to choose from) -- each fires at one of our units, so its threat is shared out
        self.enemy_guns = []
        ours = [x.pos for x in state.side_units[side] if x.alive and x.pos >= 0]
        for e in state.side_units[1 - side]:
            if e.alive and e.pos >= 0 and not e.activated:
                mov = 0 if e.immobilized else e.p.mov
                row = self.dist[e.pos]
                for m, wm in enumerate(e.p.mounts):
                    if e.can_use(m):
                        reach = mov + wm.rng
                        targets = max(1, sum(1 for h in ours if row[h] <= reach))
                        self.enemy_guns.append((e.pos, reach, e, m, targets / THREAT_W))
        self._units: dict[int, Any] = {}
        self._fire_threat: dict[int, dict[int, tuple[float, float]]] = {}
        self._menace: dict[int, float] = {}
        s = side
        self._open_rows = [self.od[k] for k in range(n) if held[s][k] <= held[1 - s][k] + 1]
        self._enemy_pos = [e.pos for e in state.side_units[1 - side] if e.alive and e.pos >= 0]
        self._enemy_gap: dict[int, int] = {}
        self._open_gap: dict[int, int] = {}

    def control(self, mine: float, theirs: float) -> float:
        """Expected VP of one objective at the round's end from projected unit counts."""
        d = mine - theirs
        return 1.0 if d >= 1 else -1.0 if d <= -1 else d

    def zone_value(self, k: int, d_mine: float = 0.0, d_theirs: float = 0.0) -> float:
        s = self.side
        return self.control(self.held[s][k] + self.may[s][k] + d_mine,
                            self.held[1 - s][k] + self.may[1 - s][k] + d_theirs)

    def _unit(self, u: UnitState) -> tuple[list[tuple[int, int, float]], list[tuple[int, list[tuple[float, int]]]]]:
        """(threats, shots) of ``u``, computed once: each enemy weapon still to act as (position,
        reach, expected points it removes from u), and per usable mount (range, [(value, enemy
        hex)] best first) over the enemies u could reach this activation."""
        got = self._units.get(u.index)
        if got is not None:
            return cast(tuple[list[tuple[int, int, float]], list[tuple[int, list[tuple[float, int]]]]], got)
        table = self.table
        ui = u.index
        # a weapon that cannot damage u (no damage in the shot table) is no threat to it
        threats = [(pos, reach, shot_value(e, m, u, table, self.worths, 0.5) / targets)
                   for pos, reach, e, m, targets in self.enemy_guns if table[e.index][m][ui][1]]
        threats = [t for t in threats if t[2] > 0]
        row = self.dist[u.pos]
        mov = 0 if u.immobilized or u.activated and u is not self.state.active else u.p.mov
        shots = []
        for m, wm in enumerate(u.p.mounts):
            if not u.can_use(m):
                continue
            reach = wm.rng + mov
            values = [(v, e.pos) for e in self.state.side_units[1 - u.side]
                      if e.alive and row[e.pos] <= reach and (v := self.shot(u, m, e)) > 0]
            if values:
                values.sort(reverse=True)
                shots.append((wm.rng, values))
        got = (threats, shots)
        self._units[u.index] = got
        return got

    def fire_threat(self, u: UnitState, hexes: Iterable[int]) -> dict[int, tuple[float, float]]:
        """(fire, threat) of ``u`` at each of ``hexes``, remembered for the decision: fire is the
        sum over u's mounts of the best shot from the hex (points, with kills and zone swings),
        threat the expected points the enemy weapons still to act this round could remove from
        u there. Returns every hex asked for u so far."""
        got = self._fire_threat.get(u.index)
        if got is None:
            got = self._fire_threat[u.index] = {}
        threats, shots = self._unit(u)
        dist = self.dist
        for h in hexes:
            if h in got:
                continue
            row = dist[h]
            thr = 0.0
            for pos, reach, v in threats:
                if row[pos] <= reach:
                    thr += v
            got[h] = (firepower(shots, row), thr)
        return got

    def shot(self, u: UnitState, m: int, e: UnitState) -> float:
        """Value in points of one attack: expected points removed, a kill, and a zone it swings."""
        p, dmg = self.table[u.index][m][e.index]
        if dmg == 0:
            return 0.0
        v = shot_value(u, m, e, self.table, self.worths, KILL_BONUS)
        tp = e.p
        kills = dmg >= e.hp if tp.body is None else dmg >= min(x for x in e.loc_hp if x > 0)
        if kills:
            zs = self.zones_of[e.pos]
            if zs:
                swing = sum(self.zone_value(k, 0, -1) - self.zone_value(k) for k in zs)
                v += p * swing * PTS_PER_VP * self.w.objectives / max(self.w.damage, 0.1)
            if not e.activated:  # it will not fire this round (a Warmech only loses a part)
                v += p * DENY * self.menace(e) * (1.0 if tp.body is None else 0.3)
        return v

    def menace(self, e: UnitState) -> float:
        """Points the enemy ``e`` can expect to remove this round: its best shot per weapon
        at our units within its move and range."""
        got = self._menace.get(e.index)
        if got is not None:
            return got
        row = self.dist[e.pos]
        mov = 0 if e.immobilized else e.p.mov
        total = 0.0
        for m, wm in enumerate(e.p.mounts):
            if e.can_use(m):
                reach = mov + wm.rng
                total += max((shot_value(e, m, x, self.table, self.worths, 0.5)
                              for x in self.state.side_units[self.side] if x.alive and row[x.pos] <= reach),
                             default=0.0)
        self._menace[e.index] = total
        return total

    def best_shot(self, u: UnitState, m: int, row: tuple[int, ...]) -> float:
        """The best shot of mount ``m`` of ``u`` from the hex whose distance row is ``row``."""
        rng = u.p.mounts[m].rng
        best = 0.0
        for e in self.state.side_units[1 - u.side]:
            if e.alive and row[e.pos] <= rng:
                v = self.shot(u, m, e)
                if v > best:
                    best = v
        return best

    def candidate(self, u: UnitState, h: int, rush: bool = False) -> tuple[float, float]:
        """(score, its part from the capture zones) in VP of activating ``u`` now and moving it
        to ``h`` (``u.pos`` to stay); with ``rush`` it rushes there and fires nothing."""
        w = self.w
        value = 0.0
        # zones: u leaves its zones and its share of zones it may reach, enters h's zones
        old = self.zones_of[u.pos]
        new = self.zones_of[h]
        touched = set(old) | set(new)
        shares = self.share.get(u.index, ())
        touched.update(k for k, _ in shares)
        known = self._fire_threat.get(u.index)
        got = known.get(h) if known is not None else None
        fire, threat = got if got is not None else self.fire_threat(u, (h,))[h]
        if rush:
            fire = 0.0
        alive = 1.0 - min(1.0, threat / max(self.worths[u.index], 1.0))
        for k in touched:
            d = -self.may_of(shares, k) - (1.0 if k in old else 0.0) + (alive if k in new else 0.0)
            value += w.objectives * (self.zone_value(k, d) - self.zone_value(k))
        zones = value
        # fire from h, threat at h, in points
        value += (w.damage * fire - w.preservation * threat) / PTS_PER_VP
        # progress towards the zone that needs us most (future rounds)
        if not new:
            gap_now = self.nearest_open_gap(u.pos)
            gap_then = self.nearest_open_gap(h)
            value += w.objectives * PROGRESS * (gap_now - gap_then)
        if w.aggression:
            value += w.aggression * PROGRESS * (self.enemy_gap(u.pos) - self.enemy_gap(h))
        return value, zones

    @staticmethod
    def may_of(shares: Any, k: int) -> float:
        for kk, sh in shares:
            if kk == k:
                return float(sh)
        return 0.0

    def nearest_open_gap(self, h: int) -> float:
        """Hexes from ``h`` to the nearest capture zone the side does not hold outright."""
        got = self._open_gap.get(h)
        if got is None:
            rows = self._open_rows
            if not rows:
                return 0
            best = 1 << 30
            for od in rows:
                if od[h] < best:
                    best = od[h]
            best -= self.radius
            got = self._open_gap[h] = best if best > 0 else 0
        return got

    def enemy_gap(self, h: int) -> float:
        """Hexes from ``h`` to the nearest living enemy."""
        got = self._enemy_gap.get(h)
        if got is None:
            row = self.dist[h]
            got = 1 << 30
            for p in self._enemy_pos:
                if row[p] < got:
                    got = row[p]
            if got == 1 << 30:
                got = 0
            self._enemy_gap[h] = got
        return got
