"""The mutable state of one PMIM game: deployment, then rounds of alternating activations.

The state answers :meth:`GameState.legal_actions`, takes :meth:`GameState.apply`, and says
when it needs dice (:meth:`GameState.roll_needed`); it never rolls them itself. The driver
rolls and hands the result to :meth:`GameState.apply_roll`. Every change is recorded as an
event of :mod:`pmim_analytics.model.events` in ``state.events``.

Flow of a game:

* deployment: the sides alternate placing one unit at a time (the side that activates
  first in round 1 begins), each in roster order, on a free hex of its deployment zone;
* round N: ``round_start``, then the sides alternate activations (a side with no
  unactivated unit passes) until every living unit has activated; an activation ends when
  the player ends it or when the unit has nothing left it could do;
* end of round: each objective scores 1 VP for the side with more units in its zone,
  ``round_end``, then the victory check (``game_end``) or the next ``round_start``.

A side that loses its last unit loses at once (``game_end`` reason ``wipeout``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from pmim_analytics.engine import rulings
from pmim_analytics.engine.actions import Action, ActivateUnit, EndActivation, FireWeapon, MoveUnit, PlaceUnit, RushUnit
from pmim_analytics.engine.checks import BATTLE, DEPLOY, OVER, RuleChecks
from pmim_analytics.engine.movement import walk_lengths
from pmim_analytics.engine.spec import GameSpec, UnitProfile
from pmim_analytics.errors import IllegalActionError
from pmim_analytics.model import combat
from pmim_analytics.model.events import (
    VP,
    Activate,
    Attack,
    Deploy,
    Disarmed,
    Event,
    FirstPlayer,
    GameEnd,
    Immobilized,
    InitiativeRoll,
    LocationDestroyed,
    Move,
    OverheatRoll,
    RoundEnd,
    RoundStart,
    Rush,
    UnitDestroyed,
    WeaponLost,
    first_side_of_die,
)
from pmim_analytics.model.hexes import Hex
from pmim_analytics.model.vocab import BLUE, RED, SIDES
from pmim_analytics.rules import mechanics

_CT = combat.CT
_new = object.__new__

#: The chance nodes of the optional rules (:meth:`GameState.optional_roll_kind`).
INITIATIVE, OVERHEAT, HEAT_HIT = "initiative", "overheat", "heat_hit"


class UnitState:
    """A unit's changing state in a game; ``p`` is its fixed :class:`UnitProfile`."""

    __slots__ = ("p", "id", "side", "index", "hp", "loc_hp", "pos", "alive", "placed", "activated",
                 "immobilized", "disarmed", "lost")

    def __init__(self, p: UnitProfile) -> None:
        self.p = p
        self.id = p.id
        self.side = p.side
        self.index = p.index
        self.hp = p.hp
        self.loc_hp = list(p.loc_hp)
        self.pos = -1
        self.alive = True
        self.placed = False
        self.activated = False
        self.immobilized = False
        self.disarmed = False
        self.lost = 0  # bit m set when the weapon on mount m was destroyed by overheating

    def copy(self) -> UnitState:
        """An independent copy (the profile is shared: it never changes)."""
        c = _new(UnitState)
        c.p = self.p
        c.id = self.id
        c.side = self.side
        c.index = self.index
        c.hp = self.hp
        c.loc_hp = self.loc_hp[:]
        c.pos = self.pos
        c.alive = self.alive
        c.placed = self.placed
        c.activated = self.activated
        c.immobilized = self.immobilized
        c.disarmed = self.disarmed
        c.lost = self.lost
        return c

    def can_use(self, m: int) -> bool:
        """True when the weapon on mount number ``m`` is usable (its location stands, it has not overheated)."""
        if self.lost and (self.lost >> m) & 1:
            return False
        loc = self.p.mounts[m].loc
        return loc < 0 or self.loc_hp[loc] > 0

    def __repr__(self) -> str:
        return f"<UnitState {self.id} pos={self.pos} hp={self.hp} alive={self.alive}>"


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended. ``winner`` is ``blue``, ``red`` or ``None`` (draw)."""

    winner: str | None
    reason: str
    rounds: int
    blue_vp: int
    red_vp: int


class GameState(RuleChecks[UnitState]):
    """One game in progress. Build with ``GameState(spec)``; drive with apply / apply_roll."""

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.board = spec.board
        self.grid = spec.board.grid
        self.units = [UnitState(p) for p in spec.profiles]
        self.by_id = {u.id: u for u in self.units}
        self.side_units: tuple[list[UnitState], list[UnitState]] = (
            [u for u in self.units if u.side == BLUE], [u for u in self.units if u.side == RED])
        self.occ = [-1] * self.grid.size  # hex -> index of the unit on it, -1 when free
        self.events: list[Event] = []
        self.phase = DEPLOY
        self.round = 0
        self.vp = [0, 0]
        # who goes first in round 1; ``random`` leaves it to a die the driver rolls first
        self._draw_pending = spec.scenario.first_player == "random"
        self._first_r1: int | None = None if self._draw_pending else spec.first_side(1)
        self.to_act = BLUE if self._first_r1 is None else self._first_r1
        self.living = [len(self.side_units[BLUE]), len(self.side_units[RED])]
        self.waiting = [0, 0]  # living units per side not yet activated this round
        self.unplaced = [len(self.side_units[BLUE]), len(self.side_units[RED])]
        self.active: UnitState | None = None
        self.moved = False
        self.attacks = 0
        self.fired = 0  # bit m set when mount m has fired this activation
        self._pending: tuple[UnitState, int, UnitState] | None = None
        self._roll: tuple[int, int] | None = None
        self._loc_rolls: list[int] = []
        self._result: GameResult | None = None
        self._reach: tuple[UnitState | None, dict[int, int]] = (None, {})  # cache for the active unit
        self._checked_path: int | None = None  # the path length a move's check just found, for apply
        optional = spec.rules.optional
        self._initiative = optional.rolled_initiative
        self._catch_up = optional.catch_up
        self._rush = optional.rush
        self._chance: str | None = None  # an optional rule's chance node: INITIATIVE, OVERHEAT or HEAT_HIT
        self.turn_left = 1  # activations left in the acting side's turn (catch-up activations)
        self.heat = 0  # heat the active Warmech has made this activation
        self.rushed = False  # the active unit rushed: no attacks this activation
        self._overheat: tuple[UnitState, int, int] | None = None  # (Warmech, mount, excess) awaiting a roll
        self._heat_rolls: list[int] = []
        #: the VP totals a table log gives for the round being ended, taken as they are when the
        #: positions the scoring needs are not known (:meth:`place_unknown`); ``None``: scored
        self.logged_vp: tuple[int, int] | None = None
        if not self.units or not self.side_units[BLUE] or not self.side_units[RED]:
            raise IllegalActionError("each side needs at least one unit")
        if spec.scenario.first_player in ("blue", "red"):
            first = spec.scenario.first_player
            self._emit(FirstPlayer(seq=1, round=0, setting=first, die=None, side=first))

    @classmethod
    def from_position(cls, spec: GameSpec, placements: dict[str, tuple[int, int]], round_no: int = 1) -> GameState:
        """A hand-built position: every unit on the given hex, at the start of ``round_no``.

        For tests and what-if questions; deployment zones do not apply, stacking does.
        Raises :class:`IllegalActionError` for a missing, unknown, off-map or stacked unit.
        """
        st = cls(spec)
        missing = [u.id for u in st.units if u.id not in placements]
        if missing:
            raise IllegalActionError(f"no hex given for {', '.join(missing)}")
        for uid, h in placements.items():
            u = st.unit(uid)
            if not st.grid.contains(h):
                raise IllegalActionError(f"{uid} cannot stand on {h[0]},{h[1]}: off the map")
            i = st.grid.index(h)
            if st.occ[i] >= 0:
                raise IllegalActionError(f"{uid} cannot stand on {h[0]},{h[1]}: {st.units[st.occ[i]].id} is there")
            st.occ[i] = u.index
            u.pos = i
            u.placed = True
            st._emit(Deploy(seq=len(st.events) + 1, round=0, unit=u.id, hex=(h[0], h[1])))
        st.unplaced = [0, 0]
        st.phase = BATTLE
        st._start_round(round_no)
        return st

    def clone(self) -> GameState:
        """An exact, independent copy of the game so far, for a bot to look ahead on.

        Everything that changes is copied (units, occupancy, VP, turn, the attack in
        progress, the events so far -- a shallow copy: events are frozen); the spec, board
        and grid are shared, as they never change. Whatever is applied to the copy leaves
        this state untouched. A copy holds no dice: whoever plays on it rolls its own.
        """
        c = _new(GameState)
        c.spec = self.spec
        c.board = self.board
        c.grid = self.grid
        units = [u.copy() for u in self.units]
        c.units = units
        c.by_id = {u.id: u for u in units}
        c.side_units = ([units[u.index] for u in self.side_units[BLUE]], [units[u.index] for u in self.side_units[RED]])
        c.occ = self.occ[:]
        c.events = self.events[:]
        c.phase = self.phase
        c.round = self.round
        c.vp = self.vp[:]
        c.to_act = self.to_act
        c.living = self.living[:]
        c.waiting = self.waiting[:]
        c.unplaced = self.unplaced[:]
        c.active = None if self.active is None else units[self.active.index]
        c.moved = self.moved
        c.attacks = self.attacks
        c.fired = self.fired
        p = self._pending
        c._pending = None if p is None else (units[p[0].index], p[1], units[p[2].index])
        c._roll = self._roll
        c._loc_rolls = self._loc_rolls[:]
        c._result = self._result
        c._reach = (None, {})
        c._checked_path = None
        c._initiative = self._initiative
        c._catch_up = self._catch_up
        c._rush = self._rush
        c._chance = self._chance
        c.turn_left = self.turn_left
        c.heat = self.heat
        c.rushed = self.rushed
        o = self._overheat
        c._overheat = None if o is None else (units[o[0].index], o[1], o[2])
        c._heat_rolls = self._heat_rolls[:]
        c._draw_pending = self._draw_pending
        c._first_r1 = self._first_r1
        c.logged_vp = self.logged_vp
        return c

    def place_at(self, unit_id: str, h: tuple[int, int]) -> None:
        """Put a unit on a free hex outside the rules, recording nothing.

        For following a recorded game that broke the rules (the verifier) and what-if
        set-ups. Raises :class:`IllegalActionError` for an unknown unit or a taken hex.
        """
        u = self.unit(unit_id)
        if not self.grid.contains(h):
            raise IllegalActionError(f"{unit_id} cannot stand on {h[0]},{h[1]}: off the map")
        i = self.grid.index(h)
        if self.occ[i] >= 0 and self.occ[i] != u.index:
            raise IllegalActionError(f"{unit_id} cannot stand on {h[0]},{h[1]}: {self.units[self.occ[i]].id} is there")
        if u.pos >= 0 and self.occ[u.pos] == u.index:
            self.occ[u.pos] = -1
        self.occ[i] = u.index
        u.pos = i
        self._reach = (None, {})

    def place_unknown(self, unit_ids: list[str] | set[str] | frozenset[str]) -> None:
        """Put units on the map at positions nobody knows, recording nothing: a table log that
        never says where they stand. They take part, but no range or path is measured from or
        to them until :meth:`place_at` puts them on a hex. When no unit is left to place, the
        battle begins. Outside deployment it does nothing."""
        if self.phase != DEPLOY:
            return
        for uid in unit_ids:
            u = self.unit(uid)
            if not u.placed:
                u.placed = True
                self.unplaced[u.side] -= 1
        if self.unplaced[self.to_act] == 0 and self.unplaced[1 - self.to_act] > 0:
            self.to_act = 1 - self.to_act
        if self.unplaced == [0, 0]:
            self.phase = BATTLE
            self._start_round(1)

    def lose(self, unit_id: str, what: str, location: str | None = None, by: str | None = None) -> None:
        """A loss a table log gives without the attack that caused it, applied outside the rules
        with what it leads to: ``what`` is ``unit_destroyed``, ``location_destroyed`` (of
        ``location``), ``immobilized`` or ``disarmed``; ``by``: the unit the log says did it.
        Raises :class:`IllegalActionError` for an unknown unit or location."""
        u = self.unit(unit_id)
        att = None if by is None else self.by_id.get(by)
        if what == "unit_destroyed":
            if u.alive:
                self._destroy(u, att)
        elif what == "location_destroyed":
            if location not in combat.LOC_INDEX or u.p.body is None:
                raise IllegalActionError(f"{unit_id} has no location {location!r}")
            u.loc_hp[combat.LOC_INDEX[location]] = 0
            self._location_lost(u, location, att)
        elif what == "immobilized":
            u.immobilized = True
            self._emit(Immobilized(seq=len(self.events) + 1, round=self.round, unit=u.id, by=by))
        else:
            u.disarmed = True
            self._emit(Disarmed(seq=len(self.events) + 1, round=self.round, unit=u.id, by=by))

    def let_activate_next(self, unit_id: str) -> None:
        """Give ``unit_id``'s side the turn, a fresh one, whatever the turn order (a table log that
        leaves out activations does not keep it). Nothing happens outside a battle, while a unit
        is active or dice are awaited, or when it is that side's turn already.

        Raises :class:`IllegalActionError` for an unknown unit.
        """
        u = self.unit(unit_id)
        if self.phase != BATTLE or self.active is not None or self.is_chance_node() or u.side == self.to_act:
            return
        self._begin_turn(u.side)

    def let_place_next(self, unit_id: str) -> None:
        """Make ``unit_id`` the next unit to place, whatever the placing order (a game logged at a
        table records where units were deployed, not the order). The zones and stacking still hold.

        Raises :class:`IllegalActionError` for an unknown unit or outside deployment.
        """
        u = self.unit(unit_id)
        if self.phase != DEPLOY or u.placed:
            return
        self.to_act = u.side
        side = self.side_units[u.side]
        side.remove(u)
        first_unplaced = next((i for i, w in enumerate(side) if not w.placed), len(side))
        side.insert(first_unplaced, u)

    # ----------------------------------------------------------------- queries
    def is_terminal(self) -> bool:
        """True once the game has ended."""
        return self.phase == OVER

    def result(self) -> GameResult | None:
        """The result once the game has ended, else ``None``."""
        return self._result

    def is_chance_node(self) -> bool:
        """True while the state waits for dice (after a ``fire`` action, for the ``random``
        first-player draw before deployment, or for an optional rule's roll)."""
        return self._pending is not None or self._draw_pending or self._chance is not None

    def pending_attack(self) -> tuple[UnitState, int, UnitState] | None:
        """(attacker, mount number, target) of the attack waiting for dice, else ``None``."""
        return self._pending

    def roll_needed(self) -> int:
        """How many dice the state needs now: 2 for an attack roll, 1 for a hit location or the
        first-player draw, 0 for none; with optional rules, 2 for the initiative roll (one a
        side) and 1 for an overheat roll or the hit location of an overheated weapon."""
        if self._pending is None:
            if self._draw_pending:
                return 1
            if self._chance is None:
                return 0
            return 2 if self._chance == INITIATIVE else 1
        return 2 if self._roll is None else 1

    def roll_sides(self) -> int:
        """The sides of the dice the state needs now: 6, or the initiative die of rolled initiative."""
        if self._chance == INITIATIVE and self._initiative is not None:
            return self._initiative.die
        return 6

    def optional_roll_kind(self) -> str | None:
        """Which optional rule's roll the state waits for: INITIATIVE, OVERHEAT, HEAT_HIT or ``None``."""
        return self._chance

    def is_optional_roll(self) -> bool:
        """True when the dice wanted are an optional rule's (initiative, overheating); the driver
        rolls those from their own stream, so a game's other dice do not shift."""
        return self._chance is not None

    def current_side(self) -> int | None:
        """The side (0 blue, 1 red) that decides the next action; ``None`` at chance or end."""
        if self.phase == OVER or self._pending is not None or self._draw_pending or self._chance is not None:
            return None
        return self.to_act

    def unit(self, unit_id: str) -> UnitState:
        """The unit with game id ``unit_id``; raises :class:`IllegalActionError` if there is none."""
        u = self.by_id.get(unit_id)
        if u is None:
            raise IllegalActionError(f"there is no unit {unit_id!r} in this game")
        return u

    def hex_of(self, u: UnitState) -> Hex:
        """Where a unit stands."""
        return self.grid.hexes[u.pos]

    def next_to_place(self) -> UnitState | None:
        """The acting side's first unit still to place in roster order (deployment phase); the
        side may place any of :meth:`units_to_place` instead."""
        if self.phase != DEPLOY:
            return None
        return next((u for u in self.side_units[self.to_act] if not u.placed), None)

    def units_to_place(self) -> list[UnitState]:
        """The acting side's units still to place (deployment phase), in roster order. The
        rules leave the order free, so the side places whichever of them it likes next."""
        if self.phase != DEPLOY:
            return []
        return [u for u in self.side_units[self.to_act] if not u.placed]

    def deploy_hexes(self, u: UnitState) -> list[int]:
        """Free hexes of ``u``'s deployment zone."""
        occ = self.occ
        return [h for h in self.board.deploy_zone[u.side][u.p.kind] if occ[h] < 0]

    def can_move(self, u: UnitState) -> bool:
        """True when ``u`` is active, has not moved and is able to move."""
        return u is self.active and rulings.move_refusal(self.moved, u.immobilized) is None and u.p.mov > 0

    def can_rush(self, u: UnitState) -> bool:
        """True when rushing is on and ``u`` could move and has not attacked this activation."""
        return self._rush is not None and self.can_move(u) and mechanics.may_rush(self.attacks)

    def rush_reachable(self, u: UnitState) -> dict[int, int]:
        """Hexes ``u`` may end a rush on (up to the rush distance), with the shortest legal path;
        movement's rules (no enemy to pass, no terrain, no stacking) hold as for a move."""
        reach = mechanics.rush_distance(self._rush, u.p.mov)
        if reach <= 0 or u.immobilized or u.pos < 0:
            return {}
        enemy_at = {e.pos for e in self.side_units[1 - u.side] if e.alive and e.pos >= 0}
        seen = walk_lengths(self.grid, u.pos, reach, self.board.impassable, enemy_at)
        return {h: d for h, d in seen.items() if h != u.pos and self.occ[h] < 0}

    def reachable(self, u: UnitState) -> dict[int, int]:
        """Hexes ``u`` may end a move on, with the length of the shortest legal path.

        Paths may cross friendly units but not enemy units or impassable hexes; a move
        may not end on an occupied hex. The start hex is not included.
        """
        cached_for, cached = self._reach
        if cached_for is u:
            return cached
        found = self._reachable(u)
        if u is self.active:
            self._reach = (u, found)
        return found

    def path_length(self, u: UnitState, i: int) -> int | None:
        """The length of ``u``'s shortest legal path to hex index ``i``, or ``None`` when it
        cannot end a move there: ``reachable(u).get(i)``, found without listing every hex
        within MOV when no enemy stands close enough to block a path and there is no terrain."""
        cached_for, cached = self._reach
        if cached_for is u:
            return cached.get(i)
        mov = u.p.mov
        if mov <= 0 or u.immobilized or u.pos < 0 or i == u.pos or self.occ[i] >= 0:
            return None
        dist_row = self.grid.dist[u.pos]
        if dist_row[i] > mov:
            return None
        if not self.board.has_impassable:
            near = mov - 1
            for e in self.side_units[1 - u.side]:
                if e.alive and e.pos >= 0 and dist_row[e.pos] <= near:
                    break
            else:  # nothing can block a path: the straight line is legal
                return dist_row[i]
        return self.reachable(u).get(i)

    def _reachable(self, u: UnitState) -> dict[int, int]:
        mov = u.p.mov
        if mov <= 0 or u.immobilized or u.pos < 0:
            return {}
        grid, occ, start = self.grid, self.occ, u.pos
        dist_row = grid.dist[start]
        if not self.board.has_impassable:
            near = mov - 1
            for e in self.side_units[1 - u.side]:
                if e.alive and e.pos >= 0 and dist_row[e.pos] <= near:
                    break
            else:  # nothing can block a path: every hex within MOV is reachable in a straight line
                return {h: dist_row[h] for h in grid.within(start, mov) if occ[h] < 0}
        enemy_at = {e.pos for e in self.side_units[1 - u.side] if e.alive and e.pos >= 0}
        seen = walk_lengths(grid, start, mov, self.board.impassable, enemy_at)
        return {h: d for h, d in seen.items() if h != start and occ[h] < 0}

    def targets(self, u: UnitState, m: int) -> list[UnitState]:
        """Living enemies in range of the weapon on mount ``m`` of ``u`` (from where it stands)."""
        rng = u.p.mounts[m].rng
        dist_row = self.grid.dist[u.pos]
        return [e for e in self.side_units[1 - u.side] if e.alive and dist_row[e.pos] <= rng]

    def fireable_mounts(self, u: UnitState) -> list[int]:
        """Mounts the active unit may still fire this activation (ignoring targets)."""
        if u is not self.active or not mechanics.attacks_left(u.p.max_attacks, self.attacks, self.rushed):
            return []
        fired = self.fired
        return [m for m in range(len(u.p.mounts)) if not (fired >> m) & 1 and u.can_use(m)]

    def legal_actions(self) -> list[Action]:
        """Every action the deciding side may take now (empty at a chance node or the end).

        With rushing on, a rush is listed only to hexes a plain move cannot reach (a rush to a
        nearer hex is legal, but a move there does the same and keeps the attacks)."""
        if self.phase == OVER or self._pending is not None or self._draw_pending or self._chance is not None:
            return []
        if self.phase == DEPLOY:
            hexes = self.grid.hexes
            return [PlaceUnit(u.id, hexes[h]) for u in self.units_to_place() for h in self.deploy_hexes(u)]
        u = self.active
        if u is None:
            return [ActivateUnit(w.id) for w in self.side_units[self.to_act] if w.alive and not w.activated]
        actions: list[Action] = []
        if self.can_move(u):
            hexes = self.grid.hexes
            actions.extend(MoveUnit(u.id, hexes[h]) for h in sorted(self.reachable(u)))
            if self.can_rush(u):
                near = self.reachable(u)
                actions.extend(RushUnit(u.id, hexes[h]) for h in sorted(self.rush_reachable(u)) if h not in near)
        for m in self.fireable_mounts(u):
            mount = u.p.mounts[m].mount
            actions.extend(FireWeapon(u.id, mount, t.id) for t in self.targets(u, m))
        actions.append(EndActivation(u.id))
        return actions

    # ----------------------------------------------------------------- applying
    def apply(self, action: Action, check: bool = True) -> None:
        """Carry out ``action``. With ``check`` (the default) an illegal action raises
        :class:`IllegalActionError` and changes nothing; ``check=False`` is for replaying a
        recorded game that broke the rules (the verifier) and applies what can be applied."""
        if check:
            self.check(action)
        elif self.phase == OVER:
            return
        u = self.by_id.get(action.unit) or self.unit(action.unit)
        kind = type(action)
        if kind is MoveUnit:  # a checked move's path length was found by its check
            self._do_move(u, cast(MoveUnit, action).to, known=self._checked_path if check else None)
        elif kind is FireWeapon:
            fire = cast(FireWeapon, action)
            self._pending = (u, self.mount_index(u, fire.mount), self.unit(fire.target))
            self._roll = None
            self._loc_rolls = []
        elif kind is ActivateUnit:
            self._do_activate(u)
        elif kind is EndActivation:
            self._end_activation()
        elif kind is PlaceUnit:
            self._do_place(u, cast(PlaceUnit, action).hex)
        elif kind is RushUnit:
            self._do_move(u, cast(RushUnit, action).to, rush=True)
        else:
            raise IllegalActionError(f"{action!r} is not an action")

    def _emit(self, ev: Event) -> None:
        self.events.append(ev)

    def _do_place(self, u: UnitState, h: Hex) -> None:
        i = self.grid.index(h)
        if not u.placed:
            if self.occ[i] < 0:
                self.occ[i] = u.index
            u.pos = i  # stacked only when replaying a recorded illegal placement
            u.placed = True
            self.unplaced[u.side] -= 1
        self._emit(Deploy(seq=len(self.events) + 1, round=0, unit=u.id, hex=(h.col, h.row)))
        other = 1 - u.side
        if self.unplaced[other] > 0:
            self.to_act = other
        elif self.unplaced[u.side] > 0:
            self.to_act = u.side
        else:
            self.phase = BATTLE
            self._start_round(1)

    def _start_round(self, n: int) -> None:
        self.round = n
        for u in self.units:
            u.activated = False
        self.waiting = list(self.living)
        if self._initiative is not None:  # rolled initiative: wait for the dice
            self._chance = INITIATIVE
            return
        self._begin_turn(self.spec.first_side(n, self._first_r1))
        self._emit(RoundStart(seq=len(self.events) + 1, round=n, first=SIDES[self.to_act]))

    def _begin_turn(self, side: int) -> None:
        """``side`` starts a turn: it activates one unit, or more with catch-up activations."""
        self.to_act = side
        self.turn_left = (1 if self._catch_up is None
                          else mechanics.activations_per_turn(self._catch_up, self.living[side], self.living[1 - side]))

    def _do_activate(self, u: UnitState) -> None:
        if self.active is not None:
            self._end_activation()
            if self.phase == OVER:
                return
        if not u.activated and u.alive:
            self.waiting[u.side] -= 1
        u.activated = True
        self.active = u
        self._reach = (None, {})
        self.to_act = u.side
        self.moved = False
        self.attacks = 0
        self.fired = 0
        self.heat = 0
        self.rushed = False
        self._emit(Activate(seq=len(self.events) + 1, round=self.round, unit=u.id))
        self._maybe_auto_end()

    def _do_move(self, u: UnitState, h: Hex, rush: bool = False, known: int | None = None) -> None:
        i = self.grid.index(h)
        start = u.pos
        path = known if known is not None else self.rush_reachable(u).get(i) if rush else self.path_length(u, i)
        if path is None:  # only when replaying a recorded illegal move
            path = self.grid.dist[start][i]
        if self.occ[start] == u.index:
            self.occ[start] = -1
        if self.occ[i] < 0:
            self.occ[i] = u.index
        u.pos = i  # stacked only when replaying a recorded illegal move
        self.moved = True
        self._reach = (None, {})
        frm = self.grid.hexes[start]
        if rush:
            self.rushed = True
            self._emit(Rush(seq=len(self.events) + 1, round=self.round, unit=u.id, from_hex=(frm.col, frm.row),
                            to_hex=(h.col, h.row), path=path))
        else:
            self._emit(Move(seq=len(self.events) + 1, round=self.round, unit=u.id, from_hex=(frm.col, frm.row),
                            to_hex=(h.col, h.row), path=path))
        self._maybe_auto_end()

    def apply_roll(self, dice: tuple[int, ...] | list[int]) -> None:
        """Hand the state the d6 results it asked for (see :meth:`roll_needed`).

        Raises :class:`IllegalActionError` when no roll is wanted or the count is wrong.
        """
        if self._pending is None:
            if self._draw_pending:
                self._draw_first_player(dice)
                return
            if self._chance is not None:
                self._apply_optional_roll(dice)
                return
            raise IllegalActionError("no roll is needed now")
        need = 2 if self._roll is None else 1
        if len(dice) != need or not all(1 <= d <= 6 for d in dice):
            raise IllegalActionError(f"expected {need} d6 result(s), got {list(dice)!r}")
        att, m, tgt = self._pending
        if self._roll is None:
            self._roll = (dice[0], dice[1])
            wm = att.p.mounts[m]
            if not combat.is_hit(dice[0], dice[1], wm.acc, tgt.p.needed) or tgt.p.body is None:
                self._resolve(None)
            return
        self._loc_rolls.append(dice[0])
        code = tgt.p.chart[dice[0] - 1]
        if combat.location_is_hittable(tgt.loc_hp, code):
            self._resolve(code)

    def _draw_first_player(self, dice: tuple[int, ...] | list[int]) -> None:
        if len(dice) != 1 or not 1 <= dice[0] <= 6:
            raise IllegalActionError(f"expected 1 d6 result for the first-player draw, got {list(dice)!r}")
        side = first_side_of_die(dice[0])
        self._draw_pending = False
        self._first_r1 = self.to_act = SIDES.index(side)
        self._emit(FirstPlayer(seq=len(self.events) + 1, round=0, setting="random", die=dice[0], side=side))

    def _resolve(self, location: str | None) -> None:
        """Apply an attack whose dice are all in, and emit its events."""
        pending, roll = self._pending, self._roll
        assert pending is not None and roll is not None
        att, m, tgt = pending
        self._pending = None
        wm = att.p.mounts[m]
        hit = combat.is_hit(roll[0], roll[1], wm.acc, tgt.p.needed)
        damage = combat.attack_damage(wm.strength, wm.rpt, tgt.p.arm) if hit else 0
        overkill = 0
        lost = False  # the hit took the last HP of the unit (basic) or of the location hit
        if hit:
            if location is None:
                tgt.hp, overkill, lost = combat.hit_result(tgt.hp, damage)
            else:
                li = combat.LOC_INDEX[location]
                tgt.loc_hp[li], overkill, lost = combat.hit_result(tgt.loc_hp[li], damage)
        self.attacks += 1
        self.fired |= 1 << m
        dist = self.grid.dist[att.pos][tgt.pos] if att.pos >= 0 and tgt.pos >= 0 else None  # None: not known
        events = self.events
        events.append(Attack(seq=len(events) + 1, round=self.round, unit=att.id, weapon=wm.weapon, mount=wm.mount,
                             target=tgt.id, distance=dist, roll=roll, acc=wm.acc, needed=tgt.p.needed, hit=hit,
                             location=location, location_rolls=tuple(self._loc_rolls), damage=damage,
                             overkill=overkill))
        if lost and tgt.alive:
            if location is None:
                self._destroy(tgt, att)
            else:
                self._location_lost(tgt, location, att)
        if self.phase != OVER:
            if att.p.heat_rating >= 0 and self._heats_up(att, m, wm.heat):
                return
            self._maybe_auto_end()

    # ----------------------------------------------------------------- optional rules' dice
    def _heats_up(self, att: UnitState, m: int, heat: int) -> bool:
        """Heat: add an attack's heat to the activation's; True when an overheat roll is now due."""
        self.heat, excess = mechanics.activation_heat(self.heat, heat, att.p.heat_rating)
        if excess <= 0:
            return False
        self._overheat = (att, m, excess)
        self._chance = OVERHEAT
        return True

    def _apply_optional_roll(self, dice: tuple[int, ...] | list[int]) -> None:
        need, sides = self.roll_needed(), self.roll_sides()
        if len(dice) != need or not all(1 <= d <= sides for d in dice):
            raise IllegalActionError(f"expected {need} d{sides} result(s), got {list(dice)!r}")
        if self._chance == INITIATIVE:
            first = mechanics.initiative_first(dice[0], dice[1])
            self._emit(InitiativeRoll(seq=len(self.events) + 1, round=self.round, blue_roll=dice[0], red_roll=dice[1],
                                      first=None if first is None else SIDES[first]))
            if first is not None:
                self._chance = None
                self._begin_turn(first)
                self._emit(RoundStart(seq=len(self.events) + 1, round=self.round, first=SIDES[first]))
            return
        assert self._overheat is not None
        att, m, excess = self._overheat
        wm = att.p.mounts[m]
        if self._chance == OVERHEAT:
            overheated = mechanics.is_overheated(dice[0], excess)
            self._emit(OverheatRoll(seq=len(self.events) + 1, round=self.round, unit=att.id, weapon=wm.weapon,
                                    mount=wm.mount, excess=excess, result=dice[0], overheated=overheated))
            if not overheated:
                self._chance = None
                self._overheat = None
                self._maybe_auto_end()
                return
            att.lost |= 1 << m
            self._chance = HEAT_HIT
            self._heat_rolls = []
            return
        self._heat_rolls.append(dice[0])
        code = att.p.chart[dice[0] - 1]
        if combat.location_is_hittable(att.loc_hp, code):
            self._chance = None
            self._overheat = None
            self._overheat_hit(att, m, code)

    def _overheat_hit(self, att: UnitState, m: int, location: str) -> None:
        """An overheated weapon is destroyed and hits its own Warmech at ``location``, ignoring ARM."""
        wm = att.p.mounts[m]
        damage = mechanics.overheat_damage(wm.strength, wm.rpt)
        li = combat.LOC_INDEX[location]
        att.loc_hp[li], overkill, lost = combat.hit_result(att.loc_hp[li], damage)
        events = self.events
        events.append(WeaponLost(seq=len(events) + 1, round=self.round, unit=att.id, weapon=wm.weapon, mount=wm.mount,
                                 location=location, location_rolls=tuple(self._heat_rolls), damage=damage,
                                 overkill=overkill))
        if lost:
            self._location_lost(att, location, None)
        else:  # the weapon lost may be the last one
            self._loss_follows(att, None)
        if self.phase != OVER:
            self._maybe_auto_end()

    def _location_lost(self, tgt: UnitState, location: str, att: UnitState | None) -> None:
        """``tgt`` loses ``location`` to ``att`` (``None``: to its own overheated weapon)."""
        events = self.events
        by = None if att is None else att.id
        events.append(LocationDestroyed(seq=len(events) + 1, round=self.round, unit=tgt.id, location=location,
                                        by=by))
        self._loss_follows(tgt, att)

    def _loss_follows(self, tgt: UnitState, att: UnitState | None) -> None:
        """Apply what ``tgt``'s loss leads to (:func:`~pmim_analytics.model.combat.location_loss_follows`)."""
        by = None if att is None else att.id
        events = self.events
        lost = [not tgt.can_use(k) for k in range(len(tgt.p.mounts))]
        body = tgt.p.body
        assert body is not None  # only a Warmech loses a location or a weapon to overheating
        for what in combat.location_loss_follows(body, tgt.loc_hp, tgt.immobilized, tgt.disarmed, lost):
            if what == "unit_destroyed":
                self._destroy(tgt, att)
            elif what == "immobilized":
                tgt.immobilized = True
                events.append(Immobilized(seq=len(events) + 1, round=self.round, unit=tgt.id, by=by))
            else:
                tgt.disarmed = True
                events.append(Disarmed(seq=len(events) + 1, round=self.round, unit=tgt.id, by=by))

    def _destroy(self, tgt: UnitState, by: UnitState | None) -> None:
        tgt.alive = False
        self._reach = (None, {})
        if tgt.pos >= 0 and self.occ[tgt.pos] == tgt.index:
            self.occ[tgt.pos] = -1
        self.living[tgt.side] -= 1
        if not tgt.activated and self.phase == BATTLE:
            self.waiting[tgt.side] -= 1
        self._emit(UnitDestroyed(seq=len(self.events) + 1, round=self.round, unit=tgt.id, by=by.id if by else None))
        if mechanics.is_wiped_out(self.living[tgt.side]):
            self._finish(SIDES[1 - tgt.side], "wipeout")

    def _maybe_auto_end(self) -> None:
        """End the activation when the active unit has nothing left it could do."""
        u = self.active
        if u is None:
            return
        if not u.alive:
            self._end_activation()
            return
        if rulings.move_refusal(self.moved, u.immobilized) is None and u.p.mov > 0:
            return
        mounts = self.fireable_mounts(u)  # none when it has no attack left
        if mounts:
            # an enemy within the longest range of a weapon it may still fire: it may fire
            rng = max(u.p.mounts[m].rng for m in mounts)
            dist_row = self.grid.dist[u.pos]
            for e in self.side_units[1 - u.side]:
                if e.alive and (e.pos < 0 or u.pos < 0 or dist_row[e.pos] <= rng):  # unknown: may be in range
                    return
        self._end_activation()

    def _end_activation(self) -> None:
        u = self.active
        if u is None:
            return
        self.active = None
        nxt = mechanics.next_turn(self._catch_up, u.side, self.turn_left, self.waiting, self.living)
        if nxt is None:
            self._end_round()
        else:
            self.to_act, self.turn_left = nxt

    def objective_holders(self) -> list[tuple[list[str], list[str]]]:
        """For each objective, the ids of blue's and red's living units in its capture zone."""
        holders: list[tuple[list[str], list[str]]] = [([], []) for _ in self.board.objectives]
        zones_of = self.board.zones_of
        for u in self.units:
            if u.alive and u.pos >= 0:
                for k in zones_of[u.pos]:
                    holders[k][u.side].append(u.id)
        return holders

    def _end_round(self) -> None:
        n = self.round
        events = self.events
        if self.logged_vp is not None:  # a table log's totals: where units stood is not known
            self.vp = list(self.logged_vp)
            self.logged_vp = None
        else:
            self._score_objectives()
        events.append(RoundEnd(seq=len(events) + 1, round=n, blue_vp=self.vp[BLUE], red_vp=self.vp[RED]))
        over = mechanics.round_end_result(self.spec.scenario.victory, n, self.vp[BLUE], self.vp[RED])
        if over is not None:
            self._finish(*over)
        else:
            self._start_round(n + 1)

    def _score_objectives(self) -> None:
        """Each objective's VP at a round's end, with its events."""
        n = self.round
        events = self.events
        for k, (blue, red) in enumerate(self.objective_holders()):
            side = mechanics.objective_scorer(len(blue), len(red))
            if side is not None:
                self.vp[side] += 1
                events.append(VP(seq=len(events) + 1, round=n, objective=k, side=SIDES[side], blue=tuple(blue),
                                 red=tuple(red)))

    def _finish(self, winner: str | None, reason: str) -> None:
        self.phase = OVER
        self.active = None
        self._pending = None
        self._chance = None
        self._result = GameResult(winner, reason, self.round, self.vp[BLUE], self.vp[RED])
        self._emit(GameEnd(seq=len(self.events) + 1, round=self.round, winner=winner, reason=reason,
                           rounds=self.round, blue_vp=self.vp[BLUE], red_vp=self.vp[RED]))
