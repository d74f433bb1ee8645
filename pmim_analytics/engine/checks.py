"""Why an action is illegal: the checks behind ``GameState.check``.

:class:`RuleChecks` is mixed into :class:`~pmim_analytics.engine.state.GameState`; each
check raises :class:`IllegalActionError` with a sentence naming the unit, the hex or the
weapon and the rule it breaks, and returns quietly when the action is legal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from pmim_analytics.engine import rulings
from pmim_analytics.engine.actions import Action, ActivateUnit, FireWeapon, MoveUnit, PlaceUnit, RushUnit
from pmim_analytics.errors import IllegalActionError
from pmim_analytics.model.hexes import Hex
from pmim_analytics.model.vocab import SIDES
from pmim_analytics.rules import mechanics

if TYPE_CHECKING:
    from pmim_analytics.engine.spec import UnitProfile

class CheckedUnit(Protocol):
    """What the checks read of a unit (:class:`~pmim_analytics.engine.state.UnitState` is one);
    a protocol, so this module needs nothing from the state module that mixes it in."""

    @property
    def id(self) -> str: ...
    @property
    def side(self) -> int: ...
    @property
    def p(self) -> UnitProfile: ...
    @property
    def pos(self) -> int: ...
    @property
    def alive(self) -> bool: ...
    @property
    def placed(self) -> bool: ...
    @property
    def activated(self) -> bool: ...
    @property
    def immobilized(self) -> bool: ...
    @property
    def lost(self) -> int: ...
    def can_use(self, m: int) -> bool: ...


#: The unit type of the game state the checks are mixed into.
U = TypeVar("U", bound=CheckedUnit)

#: The phases of a game.
DEPLOY, BATTLE, OVER = "deploy", "battle", "over"


class RuleChecks(Generic[U]):
    """The legality checks of a game state (a mixin of ``GameState``)."""

    if TYPE_CHECKING:  # what the checks read of the game state (GameState defines them)
        from pmim_analytics.engine.spec import Board
        from pmim_analytics.model.hexes import HexGrid
        from pmim_analytics.rules.optional import RushRule

        phase: str
        round: int
        to_act: int
        active: U | None
        moved: bool
        attacks: int
        fired: int
        occ: list[int]
        units: list[U]
        board: Board
        grid: HexGrid
        _pending: object | None
        _chance: str | None
        _rush: RushRule | None
        rushed: bool
        _checked_path: int | None

        def unit(self, unit_id: str) -> U: ...
        def next_to_place(self) -> U | None: ...
        def reachable(self, u: U) -> dict[int, int]: ...
        def rush_reachable(self, u: U) -> dict[int, int]: ...
        def path_length(self, u: U, i: int) -> int | None: ...

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` saying why ``action`` is illegal now; return if legal."""
        if self.phase == OVER:
            raise IllegalActionError(f"{action}: the game is over")
        if self._pending is not None:
            raise IllegalActionError(f"{action}: the attack in progress is waiting for dice")
        if self._chance is not None:
            raise IllegalActionError(f"{action}: the game is waiting for the {self._chance.replace('_', ' ')} roll")
        u = self.unit(action.unit)
        if isinstance(action, PlaceUnit):
            self._check_place(u, action.hex)
            return
        if self.phase == DEPLOY:
            raise IllegalActionError(f"{action}: units are still being deployed")
        if not u.alive:
            raise IllegalActionError(f"{action}: {u.id} has been destroyed")
        if isinstance(action, ActivateUnit):
            self._check_activate(u)
        elif u is not self.active:
            active = self.active.id if self.active else "no unit"
            raise IllegalActionError(f"{action}: {u.id} is not the active unit ({active} is)")
        elif isinstance(action, MoveUnit):
            self._check_move(u, action.to)
        elif isinstance(action, RushUnit):
            self._check_rush(u, action.to)
        elif isinstance(action, FireWeapon):
            self._check_fire(u, action.mount, action.target)

    def _check_place(self, u: U, h: Hex) -> None:
        if self.phase != DEPLOY:
            raise IllegalActionError(f"{u.id} cannot be placed: deployment is over")
        if u.placed:
            raise IllegalActionError(f"{u.id} is already on the map")
        if u.side != self.to_act:
            raise IllegalActionError(f"{u.id} cannot be placed: it is {SIDES[self.to_act]}'s turn to place")
        if not self.grid.contains(h):
            raise IllegalActionError(f"{u.id} cannot be placed on {h.format()}: off the map")
        i = self.grid.index(h)
        if i not in self.board.deploy_zone[u.side][u.p.kind]:
            raise IllegalActionError(f"{u.id} cannot be placed on {h.format()}: outside {SIDES[u.side]}'s "
                                     f"{u.p.kind} deployment zone")
        if self.occ[i] >= 0:
            raise IllegalActionError(f"{u.id} cannot be placed on {h.format()}: "
                                     f"{self.units[self.occ[i]].id} is already there (no stacking)")

    def _check_activate(self, u: U) -> None:
        if self.active is not None:
            raise IllegalActionError(f"{u.id} cannot activate: {self.active.id} is still active")
        if u.side != self.to_act:
            raise IllegalActionError(f"{u.id} cannot activate: it is {SIDES[self.to_act]}'s turn")
        if u.activated:
            raise IllegalActionError(f"{u.id} has already activated in round {self.round}")

    def _check_move(self, u: U, h: Hex) -> None:
        walked: list[int | None] = []

        def walk(i: int) -> int | None:
            walked.append(self.path_length(u, i))
            return walked[-1]

        refused = rulings.move_refusal(self.moved, u.immobilized)
        if refused is None:
            refused = rulings.destination_refusal(self.grid, u.pos, (h.col, h.row), u.p.mov, taken=self._taken,
                                                  impassable=self.board.impassable, walk=walk)
        if refused is None:
            self._checked_path = walked[-1]
            return
        if refused == rulings.MOVED:
            raise IllegalActionError(f"{u.id} has already moved this activation")
        if refused == rulings.IMMOBILIZED:
            raise IllegalActionError(f"{u.id} is immobilized and cannot move")
        if refused == rulings.OFF_MAP:
            raise IllegalActionError(f"{u.id} cannot move to {h.format()}: off the map")
        i = self.grid.index(h)
        if refused == rulings.STAYS:
            raise IllegalActionError(f"{u.id} cannot move to {h.format()}: it is already there")
        if refused == rulings.OCCUPIED:
            raise IllegalActionError(f"{u.id} cannot move to {h.format()}: "
                                     f"{self.units[self.occ[i]].id} is there (no stacking)")
        if refused == rulings.IMPASSABLE:
            raise IllegalActionError(f"{u.id} cannot move to {h.format()}: impassable")
        d = self.grid.dist[u.pos][i]
        why = (f"{d} hexes away, MOV {u.p.mov}" if refused == rulings.TOO_FAR
               else "every path within MOV is blocked by enemy units or terrain")
        raise IllegalActionError(f"{u.id} cannot move to {h.format()}: {why}")

    def _taken(self, i: int) -> bool:
        """Whether a unit stands on hex index ``i``."""
        return self.occ[i] >= 0

    def _check_rush(self, u: U, h: Hex) -> None:
        if self._rush is None:
            raise IllegalActionError(f"{u.id} cannot rush: rushing is not a rule of this game")
        if not mechanics.may_rush(self.attacks):
            raise IllegalActionError(f"{u.id} cannot rush: it has already attacked this activation")
        refused = rulings.move_refusal(self.moved, u.immobilized)
        if refused == rulings.MOVED:
            raise IllegalActionError(f"{u.id} has already moved this activation")
        if refused == rulings.IMMOBILIZED:
            raise IllegalActionError(f"{u.id} is immobilized and cannot move")
        refused = rulings.destination_refusal(self.grid, u.pos, (h.col, h.row),
                                              mechanics.rush_distance(self._rush, u.p.mov), taken=self._taken,
                                              impassable=self.board.impassable,
                                              walk=lambda i: self.rush_reachable(u).get(i))
        if refused == rulings.OFF_MAP:
            raise IllegalActionError(f"{u.id} cannot rush to {h.format()}: off the map")
        if refused is not None:
            d = self.grid.dist[u.pos][self.grid.index(h)]
            raise IllegalActionError(f"{u.id} cannot rush to {h.format()}: {d} hexes away, occupied, impassable "
                                     "or every path within its rush distance is blocked")

    def mount_index(self, u: U, mount: str) -> int:
        """Index of ``u``'s mount named ``mount``; raises :class:`IllegalActionError` if absent."""
        for m, wm in enumerate(u.p.mounts):
            if wm.mount == mount:
                return m
        have = ", ".join(wm.mount for wm in u.p.mounts)
        raise IllegalActionError(f"{u.id} has no weapon on mount {mount!r} (it has {have})")

    def _check_fire(self, u: U, mount: str, target_id: str) -> None:
        m = self.mount_index(u, mount)
        left = mechanics.attacks_left(u.p.max_attacks, self.attacks, self.rushed)
        t = self.unit(target_id)
        rng = u.p.mounts[m].rng
        d = self.grid.dist[u.pos][t.pos] if u.pos >= 0 and t.pos >= 0 else None  # None: a position not known
        refused = rulings.fire_refusal(left, bool((self.fired >> m) & 1), bool((u.lost >> m) & 1), not u.can_use(m),
                                       t.side == u.side, t.alive, d, rng)
        if refused == rulings.NO_ATTACK_LEFT:
            why = "rushed this activation and may not attack" if self.rushed else \
                f"has already made {self.attacks} attack(s) this activation"
            raise IllegalActionError(f"{u.id} {why}")
        if refused == rulings.FIRED:
            raise IllegalActionError(f"{u.id} has already fired its {mount} weapon this activation")
        if refused == rulings.OVERHEATED:
            raise IllegalActionError(f"{u.id} cannot fire its {mount} weapon: it was destroyed by overheating")
        if refused == rulings.LOCATION_LOST:
            raise IllegalActionError(f"{u.id} cannot fire its {mount} weapon: that location is destroyed")
        if refused == rulings.SAME_SIDE:
            raise IllegalActionError(f"{u.id} cannot attack {t.id}: same side")
        if refused == rulings.TARGET_DEAD:
            raise IllegalActionError(f"{u.id} cannot attack {t.id}: already destroyed")
        if refused == rulings.OUT_OF_RANGE:
            raise IllegalActionError(f"{u.id} cannot attack {t.id}: {d} hexes away, {u.p.mounts[m].weapon} "
                                     f"range {rng}")
