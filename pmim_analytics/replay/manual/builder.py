"""The visitor: statements of a manual log into replay events, checked against the rules.

:class:`LogBuilder` walks the body statements in line order, keeps the state of every unit
(:mod:`.state`) and emits the same events the engine does. A statement that breaks the
notation or the rules is reported through the error hook and leaves no event and no
change behind, so the lenient reader can go on and report the next problem.

Two optional-rule checks are about a line that is missing rather than a line that is wrong:
a round's initiative roll before its first activation (rolled initiative), and the overheat
roll right after the attack that made it due (heat). Each is reported once, at the line that
came instead, and that line is then read as usual, so one missing roll is one error.

Events the rules imply are derived: a hit that takes a location or a unit to 0 HP emits
``location_destroyed`` / ``unit_destroyed`` / ``immobilized`` / ``disarmed`` at once; a
later marker line saying the same (``R:TY3 destroyed``) just confirms it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pmim_analytics.engine import rulings
from pmim_analytics.engine.movement import walk_lengths
from pmim_analytics.engine.verify import LiveJudge
from pmim_analytics.errors import Location, ReplayError
from pmim_analytics.model.events import (
    VP,
    Activate,
    Attack,
    Deploy,
    Disarmed,
    Event,
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
)
from pmim_analytics.model.hexes import grid_for
from pmim_analytics.model.record import GameHeader
from pmim_analytics.replay.manual.attacks import (
    check_chart_location,
    check_damage,
    check_location,
    check_roll,
    resolve_weapon,
)
from pmim_analytics.replay.manual.ending import check_result, parse_result
from pmim_analytics.replay.manual.header import SIDE_PREFIX, SIDES, LogHeader
from pmim_analytics.replay.manual.notation import (
    AttackStmt,
    Body,
    DeployStmt,
    ErrorHook,
    HoldStmt,
    InitiativeStmt,
    MarkerStmt,
    MoveStmt,
    OverheatStmt,
    Reject,
    RoundMark,
    Statement,
    Tag,
    Token,
    VPStmt,
    format_hex,
    parse_unit_id,
)
from pmim_analytics.replay.manual.state import (
    UnitState,
    hex_distance,
    in_deployment_zone,
    location_name,
    on_map,
)
from pmim_analytics.rules import find_unit
from pmim_analytics.rules.mechanics import (
    activation_heat,
    attacks_left,
    attacks_per_activation,
    deployment_rows,
    initiative_first,
    is_overheated,
    may_rush,
    overheat_damage,
    rounds_left,
    rush_distance,
    weapon_heat,
)

#: How often a log is read again without a line only the engine refused (see ``_engine_refuses``).
MAX_REREADS = 20

_DERIVED = {"location_destroyed": LocationDestroyed, "unit_destroyed": UnitDestroyed,
            "immobilized": Immobilized, "disarmed": Disarmed}


@dataclass
class _Activation:
    unit: str
    round: int
    line: int
    moves: int = 0
    attacks: int = 0
    rushed: int = 0  # the line of the activation's rush (0: none): no attacks after it
    heat: int = 0  # heat the unit's attacks made this activation (optional heat rule)
    overheat_due: tuple[str, str, int, int] | None = None  # (weapon, mount, excess, attack line): roll next
    mounts: set[str] = field(default_factory=set)


class LogBuilder:
    """Fold body statements into events; ``finish`` returns them with the game's end."""

    def __init__(self, header: LogHeader, source: str, on_error: ErrorHook, game: GameHeader,
                 rereads: int = 0) -> None:
        self.header = header
        self.game = game  # the replay header the log's tags make
        self.judge = LiveJudge(game)  # the engine, replaying the game as its lines come: what units have left is its
        if self.judge.problem is not None:
            self.judge.close()
            raise ReplayError(f"the rules engine cannot rebuild this game: {self.judge.problem}",
                              Location(source, 1, 1))
        self.fed = 0  # how many of the statement being read's events the engine has had
        self.refusal: str | None = None  # what the engine refuses in the statement being read
        self.accepted: list[Statement] = []  # the statements read so far without an error
        self.rereads = rereads  # how often the lines were read again, each time without a line the engine refused
        self.rules = header.rules
        self.scenario = header.scenario
        self.source = source
        self.on_error = on_error
        self.events: list[Event] = []
        self.units: dict[str, UnitState] = {}
        for side in SIDES:
            for u in header.sides[side].roster.units:
                uid = f"{SIDE_PREFIX[side]}:{u.id}"
                self.units[uid] = UnitState.create(uid, side, find_unit(self.rules, u.code), u.weapons, u.mounts,
                                                   self.judge.unit(uid))
        self.pending: dict[tuple[str, str, str | None], tuple[str | None, int]] = {}
        self.last_round: int | None = None
        self.last_round_tok: Token | None = None
        self.max_round = 0
        self.reached: tuple[int, int] = (0, 0)  # (highest round of any accepted line, that line)
        self.started: set[int] = set()
        self.activated: dict[int, dict[str, int]] = {}
        self.current: _Activation | None = None
        self.vp = (0, 0)
        self.vp_rounds: dict[int, int] = {}
        self.initiative: dict[int, tuple[str | None, int]] = {}  # round -> (side first or None on a tie, line)
        self.ended: tuple[int | None, str, str, int] | None = None  # (round, winner, reason, line)
        self.rounds_tag: Tag | None = None
        self.result_tag: Tag | None = None
        self.result_refused = False  # a result line was given but refused (its error is reported)
        self.game_end: GameEnd | None = None
        self.last_line = 0
        self.grid = grid_for(self.scenario.map.columns, self.scenario.map.rows)
        self.impassable = bytearray(self.grid.size)
        for h in self.scenario.map.impassable:
            self.impassable[self.grid.index(h)] = 1

    # -- plumbing -------------------------------------------------------------------
    def _error(self, tok: Token | None, message: str, line: int | None = None) -> None:
        where = Location(self.source, tok.line, tok.column) if tok else Location(self.source, line or 1, 1)
        self.on_error(ReplayError(message, where))

    def _emit(self, staged: list[Event], cls: type[Event], rnd: int | None, **kw: Any) -> None:
        staged.append(cls(seq=len(self.events) + len(staged) + 1, round=rnd, **kw))

    def visit(self, stmt: Statement) -> None:
        """Check one statement and append its events; report a refusal through the hook."""
        self.last_line = max(self.last_line, stmt.line)
        self.fed, self.refusal = 0, None
        try:
            staged = self._visit(stmt)
        except Reject as r:
            self._error(r.tok, r.message, stmt.line)
            return
        self.events.extend(staged)
        self._feed(staged, stmt)
        if self.refusal is not None:
            self._engine_refuses(self.refusal, stmt)
            return
        self.accepted.append(stmt)
        if isinstance(stmt, Body) and not isinstance(stmt, RoundMark) and (stmt.round or 0) > self.reached[0]:
            self.reached = (stmt.round or 0, stmt.line)

    def _feed(self, staged: list[Event], stmt: Statement | Body) -> None:
        """Hand the engine the statement's events it has not had yet (``self.fed`` of them it has)."""
        if len(staged) > self.fed:
            refusal = self.judge.judge(staged[self.fed:], stmt.line)
            self.fed = len(staged)
            self.refusal = self.refusal or refusal

    def _derived(self, staged: list[Event], stmt: Body, end: str = "wipeout") -> list[tuple[str, str | None]]:
        """What the statement's events lead to by the rules (a location destroyed, immobilized,
        disarmed, the unit destroyed), as the engine derives them once it has them: the
        statement's events so far go to the engine now. A win by ``end`` it gives is noted here."""
        self._feed(staged, stmt)
        self._note_end(stmt, end)
        return [(ev.type, getattr(ev, "location", None)) for ev in self.judge.losses()]

    def _engine_refuses(self, refusal: str, stmt: Statement) -> None:
        """Report a rule the engine, replaying the statement's events, finds broken (after the
        reader's own checks passed them), at the statement's first token. Like any refused line it
        leaves nothing behind: the lines accepted so far are read again, without it, into a fresh
        state and engine (their errors were reported the first time). After
        :data:`MAX_REREADS` such lines, a bound on the work a log can cause, the line's events
        stay and the engine goes on from its own reconstruction."""
        tok = self._first_tok(stmt, marker=False)
        if self.rereads < MAX_REREADS:
            self.judge.close()
            fresh = LogBuilder(self.header, self.source, lambda e: None, self.game, self.rereads + 1)
            for again in self.accepted:
                fresh.visit(again)
            fresh.on_error = self.on_error
            self.__dict__.update(fresh.__dict__)
        self._error(tok, f"the rules engine, replaying this log, refuses {tok.text!r}: {refusal}; correct this line")

    def _visit(self, stmt: Statement) -> list[Event]:
        if not isinstance(stmt, (RoundMark, MarkerStmt, OverheatStmt)) and (
                not isinstance(stmt, Tag) or stmt.name == "result"):
            self._check_no_overheat_due(stmt)
        if isinstance(stmt, Tag):
            return self._visit_footer(stmt)
        if self.result_tag is not None:
            raise Reject(self._first_tok(stmt), f"{self._first_tok(stmt).text!r} comes after the result line "
                         f"(line {self.result_tag.line}); the result ends the log")
        assert isinstance(stmt, Body)
        self._check_round(stmt)
        if isinstance(stmt, RoundMark):
            return []
        if isinstance(stmt, DeployStmt):
            return self._deploy(stmt)
        if isinstance(stmt, MoveStmt):
            return self._move(stmt)
        if isinstance(stmt, HoldStmt):
            return self._hold(stmt)
        if isinstance(stmt, AttackStmt):
            return self._attack(stmt)
        if isinstance(stmt, MarkerStmt):
            return self._marker(stmt)
        if isinstance(stmt, VPStmt):
            return self._vp(stmt)
        if isinstance(stmt, InitiativeStmt):
            return self._initiative(stmt)
        if isinstance(stmt, OverheatStmt):
            return self._overheat(stmt)
        raise AssertionError(stmt)  # pragma: no cover

    @staticmethod
    def _first_tok(stmt: Statement | Body, marker: bool = True) -> Token:
        """The token a line's error points at: the tag's key, else the round marker written on
        the line (unless ``marker`` is False), else the statement's unit or numbers."""
        if isinstance(stmt, Tag):
            return stmt.key
        if marker and stmt.round_tok is not None and stmt.round_tok.line == stmt.line:
            return stmt.round_tok
        for name in ("unit", "vp_tok", "dice_tok"):
            tok: Token | None = getattr(stmt, name, None)
            if tok is not None:
                return tok
        return Token("", stmt.line, 1)  # pragma: no cover

    def _check_round(self, stmt: Body) -> None:
        r, tok = stmt.round, stmt.round_tok
        if r is None:
            return
        if tok is not None and tok.line == stmt.line:
            if self.last_round is not None and r < self.last_round:
                line = self.last_round_tok.line if self.last_round_tok else "?"
                raise Reject(tok, f"round {tok.text!r} comes after R{self.last_round} (line {line}); "
                             f"rounds only go forward")
            if rounds_left(self.scenario.victory, r) < 0:
                raise Reject(tok, f"round {tok.text!r} is past {self.scenario.name}'s limit of "
                             f"{self.scenario.victory.round_limit} rounds")
            if r != self.last_round:
                self.last_round, self.last_round_tok = r, tok
        if self.rounds_tag is not None and r > int(self.rounds_tag.value.text) and not isinstance(stmt, RoundMark):
            first = self._first_tok(stmt, marker=False)  # the unit (its round is in the message)
            raise Reject(first, f"{first.text!r} is in R{r}, past the {self.rounds_tag.value.text} rounds the "
                         f"log's 'rounds:' line gives (line {self.rounds_tag.line})")
        unscored = [k for k in range(1, r) if k not in self.vp_rounds]
        if unscored and not isinstance(stmt, RoundMark) and self._replayable():
            first = self._first_tok(stmt)
            raise Reject(first, f"R{unscored[0]} has no VP line before {first.text!r}: this log deploys every "
                         f"unit, so the engine replays it and scores each round at its end; end R{unscored[0]} "
                         f"with its VP line ('R{unscored[0]} vp BLUE-RED')")
        if r >= 1 and self.ended is not None and not isinstance(stmt, (RoundMark, MarkerStmt)):
            rnd, winner, reason, line = self.ended
            first = self._first_tok(stmt)
            raise Reject(first, f"the game was already over at {first.text!r}: {winner} won by {reason} "
                         f"on line {line}")

    def _unit(self, tok: Token, alive: bool = True) -> UnitState:
        uid = parse_unit_id(tok)
        unit = self.units.get(uid or "")
        if unit is None:
            side = "blue" if tok.text[:1].upper() == "B" else "red"
            ids = " ".join(u.id.split(":")[1] for u in self.units.values() if u.side == side)
            raise Reject(tok, f"unknown unit {tok.text!r}; {side} has {ids}")
        if alive and unit.is_destroyed:
            raise Reject(tok, f"{tok.text!r} was destroyed on line {unit.destroyed_line} and cannot act")
        return unit

    def _occupant(self, h: tuple[int, int], mover: UnitState) -> UnitState | None:
        for u in self.units.values():
            if u is not mover and not u.is_destroyed and u.pos == h:
                return u
        return None

    # -- activations ----------------------------------------------------------------
    def _activation(self, stmt: MoveStmt | HoldStmt | AttackStmt, unit: UnitState, what: str,
                    staged: list[Event]) -> _Activation | None:
        """Check that ``unit`` may act now; emit round_start/activate into ``staged``."""
        r = stmt.round
        if r is None:
            return None
        if r == 0:
            tok = stmt.round_tok or stmt.unit
            raise Reject(tok, f"R0 is deployment; a {what} belongs to a round from R1 on")
        if r in self.vp_rounds:
            raise Reject(stmt.unit, f"R{r} already ended with its VP line (line {self.vp_rounds[r]}), so "
                         f"{stmt.unit.text!r} cannot act in it")
        cur = self.current
        if cur is not None and cur.unit == unit.id and cur.round == r:
            return cur
        done = self.activated.get(r, {})
        if unit.id in done:
            raise Reject(stmt.unit, f"{stmt.unit.text!r} already activated in R{r} (line {done[unit.id]}); "
                         f"a unit activates once a round and its actions go together")
        if r not in self.started:
            self._check_initiative(stmt, unit, r)
        self._check_turn(stmt, unit, r)
        if r not in self.started:
            self._emit(staged, RoundStart, r, first=unit.side)
        self._emit(staged, Activate, r, unit=unit.id)
        return _Activation(unit.id, r, stmt.line)

    def _check_turn(self, stmt: MoveStmt | HoldStmt | AttackStmt, unit: UnitState, r: int) -> None:
        """Whose turn it is, the engine's (``LiveJudge.side_to_act``: the rules' turn order of
        :func:`~pmim_analytics.rules.mechanics.first_side` and
        :func:`~pmim_analytics.rules.mechanics.next_turn`), judged in a log that deploys every
        unit: a unit of the other side is refused. (A log that deploys only some units may leave
        out activations, so its order is not judged.)"""
        if not self._replayable():
            return
        side = self.judge.side_to_act(r)
        if side is None or side == unit.side:
            return
        if r not in self.started:
            raise Reject(stmt.unit, f"{side} activates first in R{r} ({self.scenario.name}'s first "
                         f"player: {self.scenario.first_player}), not {stmt.unit.text!r}")
        raise Reject(stmt.unit, f"it is {side}'s turn, not {stmt.unit.text!r}'s: the sides take turns "
                     f"to activate a unit (a side with none left to activate passes); log the unit that "
                     f"activates next, even if it only holds ('UNIT hold')")

    def _commit_activation(self, act: _Activation | None) -> None:
        if act is None:
            return
        self.started.add(act.round)
        self.max_round = max(self.max_round, act.round)
        self.activated.setdefault(act.round, {})[act.unit] = act.line
        self.current = act

    # -- statements -----------------------------------------------------------------
    def _deploy(self, s: DeployStmt) -> list[Event]:
        unit = self._unit(s.unit)
        if s.round not in (None, 0):
            raise Reject(s.round_tok or s.unit, f"deployment comes before round 1; write it under R0, "
                         f"not {s.round_tok.text if s.round_tok else 'a round'!r}")
        if self.max_round >= 1:
            raise Reject(s.unit, f"{s.unit.text!r} deploys after R{self.max_round} has begun")
        if unit.deploy_line is not None:
            raise Reject(s.unit, f"{s.unit.text!r} is already deployed (line {unit.deploy_line})")
        self._check_hex(s.hex, s.hex_tok)
        kind = unit.spec.kind
        if not in_deployment_zone(s.hex, unit.side, kind, self.scenario):
            depth = len(deployment_rows(self.scenario, unit.side, kind))
            edge = getattr(self.scenario.deployment, unit.side).edge
            raise Reject(s.hex_tok, f"hex {s.hex_tok.text!r} is outside {unit.side}'s deployment zone "
                         f"({kind} deploy within {depth} rows of the {edge} edge)")
        other = self._occupant(s.hex, unit)
        if other is not None:
            raise Reject(s.hex_tok, f"hex {s.hex_tok.text!r} is already taken by {other.id} (no stacking)")
        staged: list[Event] = []
        self._emit(staged, Deploy, 0, unit=unit.id, hex=s.hex)
        unit.pos, unit.deploy_line = s.hex, s.line
        return staged

    def _check_hex(self, h: tuple[int, int], tok: Token) -> None:
        if not on_map(h, self.scenario):
            m = self.scenario.map
            raise Reject(tok, f"hex {tok.text!r} is off the {m.columns}x{m.rows} map "
                         f"(columns 00-{m.columns - 1:02d}, rows 00-{m.rows - 1:02d})")

    def _move(self, s: MoveStmt) -> list[Event]:
        unit = self._unit(s.unit)
        verb = "rush" if s.rush else "move"
        rule = self.rules.optional.rush
        if s.rush and rule is None:
            raise Reject(s.unit, f"{s.unit.text!r} cannot rush: rushing is an optional rule that {self.rules.id!r} "
                         f"does not switch on (a variant such as 'v3-rush' does); write 'move'")
        staged: list[Event] = []
        act = self._activation(s, unit, verb, staged)
        if s.rush and act is not None and not may_rush(act.attacks):
            raise Reject(s.unit, f"{s.unit.text!r} already attacked in this activation, so it cannot rush "
                         f"(a rush gives up the activation's attacks)")
        refused = rulings.move_refusal(act is not None and act.moves > 0, unit.immobilized)
        if refused == rulings.MOVED:
            assert act is not None
            raise Reject(s.unit, f"{s.unit.text!r} already moved in this activation (line {act.line}); "
                         f"a unit moves once")
        if refused == rulings.IMMOBILIZED:
            raise Reject(s.unit, f"{s.unit.text!r} is immobilized and cannot {verb}")
        # Every change of a known position is a move event: a move from a known hex must say
        # where it goes, and a move to a hex must say where it starts when that is unknown.
        if s.hex_tok is None:
            if unit.pos is not None:
                raise Reject(s.unit, f"{s.unit.text!r} is at {format_hex(unit.pos)} by this log, so its {verb} must "
                             f"name the hex it goes to: '{s.unit.text} {verb} CCRR'")
        else:
            if s.from_hex is None and unit.pos is None:
                raise Reject(s.hex_tok, f"the log does not know where {s.unit.text!r} starts, so {s.hex_tok.text!r} "
                             f"needs its starting hex too: FROM-TO such as 0409-{s.hex_tok.text}")
            if s.from_hex is not None:
                self._check_hex(s.from_hex, s.hex_tok)
                if unit.pos is not None and unit.pos != s.from_hex:
                    raise Reject(s.hex_tok, f"{s.unit.text!r} is at {format_hex(unit.pos)}, not "
                                 f"{format_hex(s.from_hex)} as {s.hex_tok.text!r} says")
                other = self._occupant(s.from_hex, unit) if unit.pos is None else None
                if other is not None:
                    raise Reject(s.hex_tok, f"{s.unit.text!r} cannot start at {format_hex(s.from_hex)} as "
                                 f"{s.hex_tok.text!r} says: {other.id} stands there (no stacking)")
            frm = s.from_hex if s.from_hex is not None else unit.pos
            assert s.to_hex is not None and frm is not None
            self._emit(staged, Rush if s.rush else Move, s.round, unit=unit.id, from_hex=frm, to_hex=s.to_hex,
                       path=self._check_destination(s, unit, frm, s.to_hex, verb))
        self._commit_activation(act)
        if act is not None:
            act.moves += 1
            if s.rush:
                act.rushed = s.line
        unit.pos = s.to_hex  # stays unknown after a move without hexes
        return staged

    def _hold(self, s: HoldStmt) -> list[Event]:
        unit = self._unit(s.unit)
        staged: list[Event] = []
        act = self._activation(s, unit, "hold", staged)
        if act is not None and act.line != s.line:
            raise Reject(s.unit, f"{s.unit.text!r} already acted in this activation (line {act.line}), so it "
                         f"cannot also hold")
        self._commit_activation(act)
        return staged

    def _check_destination(self, s: MoveStmt, unit: UnitState, frm: tuple[int, int], to: tuple[int, int],
                           verb: str) -> int:
        """Check a move's (or rush's) hexes by the engine's rule
        (:func:`~pmim_analytics.engine.rulings.destination_refusal`); return its path length."""
        rule = self.rules.optional.rush
        mov = unit.spec.mov
        limit = rush_distance(rule, mov) if s.rush else mov
        grid, tok = self.grid, s.hex_tok
        assert tok is not None
        start = grid.index(frm) if grid.contains(frm) else -1
        walk = self._walk(unit, start, limit)
        refused = rulings.destination_refusal(grid, start, to, limit, taken=lambda i: self._occupant(
            grid.hexes[i], unit) is not None, impassable=self.impassable, walk=walk)
        what = f"rush distance {limit} ({rule.factor} x MOV {mov})" if s.rush and rule else f"MOV {mov}"
        if refused == rulings.OFF_MAP:
            self._check_hex(to, tok)
        if refused == rulings.STAYS:
            raise Reject(tok, f"{tok.text!r} goes nowhere: {s.unit.text!r} is already at "
                         f"{format_hex(frm)}, and a {verb} must go to another hex (a unit that stays holds)")
        if refused == rulings.OCCUPIED:
            other = self._occupant(to, unit)
            raise Reject(tok, f"hex {format_hex(to)} in {tok.text!r} is taken by "
                         f"{other.id if other else 'another unit'} (no stacking)")
        if refused == rulings.IMPASSABLE:
            raise Reject(tok, f"hex {format_hex(to)} in {tok.text!r} is impassable, so no {verb} can end there")
        if refused == rulings.TOO_FAR:
            raise Reject(tok, f"{s.unit.text!r} would {verb} {hex_distance(frm, to)} hexes with {tok.text!r} "
                         f"({format_hex(frm)} to {format_hex(to)}), more than its {what}")
        if refused == rulings.BLOCKED:
            raise Reject(tok, f"{s.unit.text!r} cannot reach {format_hex(to)} from {format_hex(frm)} "
                         f"within its {what}: every path is blocked by enemy units or terrain")
        path = walk(grid.index(to))
        assert path is not None
        return path

    def _walk(self, unit: UnitState, start: int, limit: int) -> Callable[[int], int | None]:
        """The engine's length of a walk from hex index ``start`` to a hex index (the shortest
        path that avoids enemy units and impassable hexes), ``None`` when none is within
        ``limit``. An enemy whose position the log does not know blocks nothing, as in the
        engine (``verify_game``'s ``unknown_positions``)."""
        grid = self.grid
        enemy_at = {grid.index(u.pos) for u in self.units.values()
                    if u.side != unit.side and not u.is_destroyed and u.pos is not None}
        return walk_lengths(grid, start, limit, self.impassable, enemy_at).get

    def _attack(self, s: AttackStmt) -> list[Event]:
        unit = self._unit(s.unit)
        staged: list[Event] = []
        act = self._activation(s, unit, "attack", staged)
        weapon, mount = resolve_weapon(unit, s, self.rules)
        target = self._unit(s.target, alive=False)
        limit = attacks_per_activation(unit.spec.kind)
        left = limit if act is None else attacks_left(limit, act.attacks, bool(act.rushed))
        distance = None
        if unit.pos is not None and target.pos is not None:
            distance = hex_distance(unit.pos, target.pos)
        rng = unit.weapon_range(weapon, self.rules)
        refused = rulings.fire_refusal(left, act is not None and mount in act.mounts, mount in unit.heat_lost,
                                       unit.is_warmech and unit.is_lost(mount), target.side == unit.side,
                                       not target.is_destroyed, distance, rng)
        if refused == rulings.NO_ATTACK_LEFT:
            assert act is not None
            if act.rushed:
                raise Reject(s.weapon, f"{s.unit.text!r} rushed in this activation (line {act.rushed}), so "
                             f"{s.weapon.text!r} cannot fire (a rush gives up the activation's attacks)")
            raise Reject(s.weapon, f"{s.unit.text!r} already made {act.attacks} attack"
                         f"{'s' if act.attacks > 1 else ''} this activation (at most {limit}), so "
                         f"{s.weapon.text!r} cannot fire")
        if refused == rulings.FIRED:
            raise Reject(s.weapon, f"{s.unit.text!r} already fired its {s.weapon.text!r} this activation; "
                         f"a weapon fires once")
        if refused == rulings.OVERHEATED:
            raise Reject(s.weapon, f"{s.unit.text!r}'s {s.weapon.text!r} overheated and was lost on line "
                         f"{unit.heat_lost[mount]}, so it cannot fire")
        if refused == rulings.LOCATION_LOST:
            raise Reject(s.weapon, f"{s.unit.text!r} lost its {location_name(mount)}, so its {s.weapon.text!r} "
                         f"cannot fire")
        if refused == rulings.SAME_SIDE:
            raise Reject(s.target, f"{s.target.text!r} is on {unit.side}'s own side")
        if refused == rulings.TARGET_DEAD:
            raise Reject(s.target, f"target {s.target.text!r} was destroyed on line {target.destroyed_line}")
        if refused == rulings.OUT_OF_RANGE:
            raise Reject(s.target, f"target {s.target.text!r} is {distance} hexes from {s.unit.text!r}, beyond "
                         f"its {weapon.code}'s range of {rng}")
        needed = target.spec.def_
        check_roll(s, weapon, needed)
        damage = check_damage(s, weapon, target)
        location = check_location(s, target, damage, self.rules)
        self._emit(staged, Attack, s.round, unit=unit.id, weapon=weapon.code, mount=mount, target=target.id,
                   distance=distance, roll=s.dice, acc=weapon.acc, needed=needed, hit=s.hit, location=location,
                   location_rolls=s.location_rolls, damage=damage, overkill=target.overkill(damage, location))
        self._follow(staged, target, self._derived(staged, s), unit.id, s)
        self._commit_activation(act)
        if act is not None:
            act.attacks += 1
            act.mounts.add(mount)
            rating = unit.heat_rating(self.rules)
            if rating is not None:
                act.heat, excess = activation_heat(act.heat, weapon_heat(self.rules, weapon.code), rating)
                if excess > 0 and self.ended is None:
                    act.overheat_due = (weapon.code, mount, excess, s.line)
        return staged

    def _follow(self, staged: list[Event], unit: UnitState, follows: list[tuple[str, str | None]],
                by: str | None, s: Body) -> None:
        for kind, loc in follows:
            cls = _DERIVED[kind]
            kw: dict[str, Any] = {"unit": unit.id, "by": by}
            if kind == "location_destroyed":
                kw["location"] = loc
            self._emit(staged, cls, s.round, **kw)
            self.pending[(kind, unit.id, loc)] = (by, s.line)
            if kind == "unit_destroyed":
                unit.destroyed_line = s.line
            elif kind == "immobilized":
                unit.immobilized = True
            elif kind == "disarmed":
                unit.disarmed = True

    def _note_end(self, s: Body, reason: str) -> None:
        """Once the engine, fed the lines so far, has given a side the game by ``reason`` (a
        wipeout after a loss, on VP at a VP line), the reader notes it at line ``s`` (lines after
        it are refused). The engine may score a round as soon as its last activation can do
        nothing more, but the log wins on VP only at the round's VP line."""
        won = self.judge.won() if self.ended is None else None
        if won is not None and won[1] == reason:
            self.ended = (s.round, won[0], won[1], s.line)

    def _check_not_over(self, s: MarkerStmt) -> None:
        """A loss logged after the game ended is refused: after the VP line of the round a side
        won on VP (that line is the round's end), or in a round after a wipeout. (Within the
        wipeout's own round, a log in summary form does not say the order of the losses.) A
        marker confirming a loss the log already derived from an attack is not a new loss."""
        if self.ended is None:
            return
        rnd, winner, reason, line = self.ended
        if reason == "vp" or (s.round is not None and rnd is not None and s.round > rnd):
            first = self._first_tok(s)
            raise Reject(first, f"the game was already over at {first.text!r}: {winner} won by {reason} "
                         f"on line {line}")

    def _marker(self, s: MarkerStmt) -> list[Event]:
        unit = self._unit(s.unit, alive=False)
        by = None
        if s.by is not None:
            attacker = self._unit(s.by, alive=False)
            if attacker.side == unit.side:
                raise Reject(s.by, f"{s.by.text!r} is on the same side as {s.unit.text!r}")
            by = attacker.id
        kind = {"destroyed": "unit_destroyed"}.get(s.kind, s.kind) if s.location is None else "location_destroyed"
        key = (kind, unit.id, s.location)
        if key not in self.pending:
            self._check_not_over(s)
        if key in self.pending:
            derived_by, line = self.pending[key]
            if s.by is not None and by is not None and derived_by is not None and by != derived_by:
                raise Reject(s.by, f"the attack on line {line} says {derived_by} did it, not {s.by.text!r}")
            del self.pending[key]
            return []
        what = f"{s.unit.text} {s.location or ''} {s.kind_tok.text}".replace("  ", " ")
        if unit.is_destroyed:
            raise Reject(s.unit, f"{s.unit.text!r} was already destroyed on line {unit.destroyed_line} ({what!r})")
        if self._replayable():
            raise Reject(s.kind_tok, f"no logged attack or overheat gives {what!r}: this log deploys every unit, "
                         f"so the engine replays it, and a loss there follows from the lines before it")
        staged: list[Event] = []
        if s.kind == "destroyed" and s.location is None:
            self._emit(staged, UnitDestroyed, s.round, unit=unit.id, by=by)
            unit.destroyed_line = s.line
            self._derived(staged, s)  # the engine has it now, and says whether it wiped the side out
            return staged
        if not unit.is_warmech:
            raise Reject(s.location_tok or s.kind_tok, f"{s.unit.text!r} is not a Warmech; only Warmechs have "
                         f"locations or are {s.kind}")
        if s.location is not None:
            assert s.location_tok is not None  # a location is always read with its token
            if not unit.has_location(s.location):
                raise Reject(s.location_tok, f"a {unit.body} Warmech has no {location_name(s.location)} "
                             f"{s.location_tok.text!r}; its locations are {unit.location_names()}")
            if unit.is_lost(s.location):
                raise Reject(s.location_tok, f"{s.unit.text!r}'s {location_name(s.location)} is already destroyed")
            self._emit(staged, LocationDestroyed, s.round, unit=unit.id, location=s.location, by=by)
            self._follow(staged, unit, self._derived(staged, s), by, s)
            return staged
        flag = unit.immobilized if s.kind == "immobilized" else unit.disarmed
        if flag:
            raise Reject(s.kind_tok, f"{s.unit.text!r} is already {s.kind}")
        self._emit(staged, Immobilized if s.kind == "immobilized" else Disarmed, s.round, unit=unit.id, by=by)
        setattr(unit, s.kind, True)
        return staged

    # -- heat (optional rule) -------------------------------------------------------------
    def _check_no_overheat_due(self, stmt: Statement) -> None:
        """After an attack that takes a Warmech over its heat rating, its overheat roll comes
        next (marker lines confirming the attack's results may come between). A missing roll
        is reported at the line that came instead, which is then read as usual."""
        act = self.current
        if act is None or act.overheat_due is None:
            return
        weapon, _, excess, line = act.overheat_due
        act.overheat_due = None  # reported once; the line itself is read on
        self.judge.stop()  # the engine waits for the roll the log leaves out: it cannot follow the game
        tok = self._first_tok(stmt, marker=False)
        self._error(tok, f"{act.unit}'s {weapon} attack on line {line} took it {excess} over its heat rating, so "
                    f"its overheat roll comes before {tok.text!r}: '{act.unit} {weapon} overheat D6'")

    def _overheat(self, s: OverheatStmt) -> list[Event]:
        rule = self.rules.optional.heat
        if rule is None:
            raise Reject(s.roll_tok, f"overheat roll {s.roll_tok.text!r} of {s.unit.text!r}: heat is an optional rule "
                         f"that {self.rules.id!r} does not switch on (a variant such as 'v3-heat' does)")
        unit = self._unit(s.unit)
        act = self.current
        mine = act is not None and act.unit == unit.id and act.round == s.round  # the activation it follows
        due = act.overheat_due if mine and act is not None else None
        if s.round is None:
            raise Reject(s.roll_tok, f"overheat roll {s.roll_tok.text!r} needs its round (write 'R3 {s.unit.text} "
                         f"...') so the reader can add up the activation's heat")
        if due is None or act is None:
            rating = unit.heat_rating(self.rules)
            why = (f"{s.unit.text!r} is not a Warmech and makes no heat" if rating is None else
                   f"the attacks of {s.unit.text!r} this activation made {act.heat} heat, within its rating "
                   f"{rating}, or their roll is already logged" if mine and act is not None else
                   f"a roll comes right after the attack that takes {s.unit.text!r} over its heat rating")
            raise Reject(s.roll_tok, f"overheat roll {s.roll_tok.text!r} is not due here: {why}")
        weapon, mount = resolve_weapon(unit, s, self.rules)
        code, due_mount, excess, line = due
        if mount != due_mount:
            raise Reject(s.weapon, f"the overheat roll due is for the {code} that fired on line {line}, "
                         f"not {s.weapon.text!r}")
        overheated = is_overheated(s.result, excess)
        staged: list[Event] = []
        self._emit(staged, OverheatRoll, s.round, unit=unit.id, weapon=code, mount=mount, excess=excess,
                   result=s.result, overheated=overheated)
        why = f"roll {s.result} {'<=' if overheated else '>'} {excess}, the heat over the rating"
        if not overheated:
            extra = s.location_tok or s.damage_tok
            if extra is not None:
                raise Reject(extra, f"the {code} does not overheat ({why}), so nothing is hit: drop {extra.text!r}")
            act.overheat_due = None
            return staged
        if s.location is None or s.location_tok is None:
            raise Reject(s.roll_tok, f"the {code} overheats ({why}) and hits {s.unit.text!r} itself: name the "
                         f"location after {s.roll_tok.text!r} ({unit.location_names()})")
        location = check_chart_location(s.location_tok, s.location, s.location_rolls, unit, s.unit.text, self.rules)
        damage = overheat_damage(weapon.strength, weapon.rpt)
        if s.damage is not None and s.damage_tok is not None and s.damage != damage:
            raise Reject(s.damage_tok, f"damage {s.damage_tok.text!r} does not match the rules: an overheated "
                         f"weapon hits its own Warmech for STR {weapon.strength} x RPT {weapon.rpt} = {damage}, "
                         f"ignoring ARM")
        unit.heat_lost[mount] = s.line
        self._emit(staged, WeaponLost, s.round, unit=unit.id, weapon=code, mount=mount, location=location,
                   location_rolls=s.location_rolls, damage=damage, overkill=unit.overkill(damage, location))
        self._follow(staged, unit, self._derived(staged, s), None, s)
        act.overheat_due = None
        return staged

    # -- rolled initiative (optional rule) ---------------------------------------------
    def _initiative(self, s: InitiativeStmt) -> list[Event]:
        rule = self.rules.optional.rolled_initiative
        tok = s.dice_tok
        if rule is None:
            raise Reject(tok, f"{tok.text!r} is an initiative roll, but rolled initiative is an optional rule that "
                         f"{self.rules.id!r} does not switch on (a variant such as 'v3-rolled-initiative' does)")
        r = s.round
        if r is None or r == 0:
            raise Reject(tok, f"an initiative roll belongs to a round from R1 on: write 'R1 initiative {tok.text}', "
                         f"not just {tok.text!r}")
        if r in self.started:
            raise Reject(tok, f"R{r} has already begun, so its initiative roll {tok.text!r} comes too late: "
                         f"write it before the round's first activation")
        got = self.initiative.get(r)
        if got is not None and got[0] is not None:
            raise Reject(tok, f"{tok.text!r} is one roll too many: R{r}'s initiative was already won by {got[0]} "
                         f"(line {got[1]}), and only a tie is rolled again")
        if not (1 <= s.blue <= rule.die and 1 <= s.red <= rule.die):
            raise Reject(tok, f"each initiative die is 1 to {rule.die} (a d{rule.die}), got {tok.text!r}")
        won = initiative_first(s.blue, s.red)
        first = None if won is None else SIDES[won]
        staged: list[Event] = []
        self._emit(staged, InitiativeRoll, r, blue_roll=s.blue, red_roll=s.red, first=first)
        self.initiative[r] = (first, s.line)
        return staged

    def _check_initiative(self, stmt: MoveStmt | HoldStmt | AttackStmt, unit: UnitState, r: int) -> None:
        """Under rolled initiative, the first activation of round ``r`` needs the round's
        deciding roll first, and is the winner's. A problem is reported once, at that
        activation, which is then read as usual (as for a missing overheat roll)."""
        if self.rules.optional.rolled_initiative is None:
            return
        tok = stmt.unit
        first, line = self.initiative.get(r, (None, 0))
        if not line:
            problem = (f"R{r} needs its initiative roll before {tok.text!r} activates: "
                       f"'R{r} initiative BLUE-RED' (the rules roll for who goes first each round)")
        elif first is None:
            problem = (f"R{r}'s initiative roll on line {line} is a tie, so it is rolled again before "
                       f"{tok.text!r} activates: add the new roll")
        elif unit.side != first:
            problem = f"{first} won R{r}'s initiative (line {line}) and activates first, not {tok.text!r}"
        else:
            return
        self.initiative[r] = (unit.side, line)  # reported once: the round goes on as logged
        if not self.judge.assume_initiative(unit.side):
            self.judge.stop()  # the engine cannot follow the round as logged
        self._error(tok, problem)

    def _replayable(self) -> bool:
        """Whether the log deploys every unit, so the engine replays it (see ``verify.replay_gap``):
        then every loss must follow from its attacks and overheat rolls, as in the engine."""
        return all(u.deploy_line is not None for u in self.units.values())

    # -- VP and the end --------------------------------------------------------------
    def _positions_known(self) -> bool:
        return all(u.pos is not None for u in self.units.values() if not u.is_destroyed)

    def _vp(self, s: VPStmt) -> list[Event]:
        r = s.round
        if r is None or r == 0:
            raise Reject(s.vp_tok, f"a VP line belongs to a round from R1 on: write 'R3 vp {s.vp_tok.text}', "
                         f"not just {s.vp_tok.text!r}")
        if r in self.vp_rounds:
            raise Reject(s.vp_tok, f"R{r} already has its VP line (line {self.vp_rounds[r]}), so "
                         f"{s.vp_tok.text!r} is one too many")
        if self.ended is not None:
            rnd, winner, reason, line = self.ended
            raise Reject(s.vp_tok, f"the game was already over at {s.vp_tok.text!r}: {winner} won by {reason} "
                         f"on line {line}")
        b0, r0 = self.vp
        n_obj = len(self.scenario.objectives.hexes)
        rounds_since = r - max(self.vp_rounds, default=0)
        refused = rulings.vp_line_refusal(self.vp, (s.blue, s.red), n_obj, rounds_since)
        if refused == rulings.VP_FELL:
            raise Reject(s.vp_tok, f"VP totals only grow, but {s.vp_tok.text!r} is below the {b0}-{r0} "
                         f"already scored")
        gained = (s.blue - b0) + (s.red - r0)
        if refused == rulings.VP_TOO_MANY:
            raise Reject(s.vp_tok, f"VP totals {s.vp_tok.text!r} gain {gained} VP since {b0}-{r0}, more than "
                         f"{n_obj} objectives can give in {rounds_since} round{'s' if rounds_since > 1 else ''}")
        staged: list[Event] = []
        scored = self.judge.round_score(r) if self._positions_known() and rounds_since == 1 else None
        if scored is not None:  # the engine's scoring, where the units stand
            blue_got = sum(1 for v in scored if v.side == "blue")
            red_got = len(scored) - blue_got
            if (b0 + blue_got, r0 + red_got) != (s.blue, s.red):
                raise Reject(s.vp_tok, f"VP totals {s.vp_tok.text!r} do not match the positions logged: blue "
                             f"scores {blue_got} and red {red_got} in R{r}, so {b0 + blue_got}-{r0 + red_got}")
            for v in scored:
                self._emit(staged, VP, r, objective=v.objective, side=v.side, blue=v.blue, red=v.red)
        self._emit(staged, RoundEnd, r, blue_vp=s.blue, red_vp=s.red)
        self.vp = (s.blue, s.red)
        self.vp_rounds[r] = s.line
        self.max_round = max(self.max_round, r)
        self.current = None
        self._derived(staged, s, "vp")  # the engine has the round's end now, and says whether it won the game
        return staged

    def _visit_footer(self, tag: Tag) -> list[Event]:
        if tag.name == "rounds":
            if self.rounds_tag is not None:
                raise Reject(tag.key, f"tag 'rounds' is given twice (first on line {self.rounds_tag.line})")
            v = tag.value
            limit = self.scenario.victory.round_limit
            if not v.text.isdigit() or int(v.text) < 1 or rounds_left(self.scenario.victory, int(v.text)) < 0:
                raise Reject(v, f"rounds must be a whole number from 1 to {limit}, got {v.text!r}")
            if int(v.text) < self.max_round:
                raise Reject(v, f"rounds {v.text!r} is fewer than the R{self.max_round} the log reaches")
            if int(v.text) < self.reached[0]:
                raise Reject(v, f"rounds {v.text!r} is fewer than the R{self.reached[0]} the log reaches "
                             f"(line {self.reached[1]})")
            self.rounds_tag = tag
            return []
        if tag.name != "result":
            return []
        if self.result_tag is not None:
            raise Reject(tag.key, f"the result is given twice (first on line {self.result_tag.line})")
        self.result_refused = True  # until it is accepted below
        res = parse_result(tag)
        vp, vp_tok = res.vp, res.vp_tok
        if vp is None and self.vp_rounds:
            vp = self.vp
        elif vp is not None and vp_tok is not None and self.vp_rounds and vp != self.vp:
            last = max(self.vp_rounds)
            raise Reject(vp_tok, f"final VP {vp_tok.text!r} differ from the {self.vp[0]}-{self.vp[1]} "
                         f"of R{last}'s VP line (line {self.vp_rounds[last]})")
        # without a 'rounds:' tag, the game lasted to the last round any line reaches (a manual
        # end can come in a round that never scored), the least a 'rounds:' tag may say
        rounds = int(self.rounds_tag.value.text) if self.rounds_tag else (max(self.max_round, self.reached[0]) or None)
        check_result(res, vp, rounds, self.scenario, list(self.units.values()), self.ended)
        self.result_tag = tag
        self.result_refused = False
        self.game_end = GameEnd(seq=0, round=rounds, winner=res.winner, reason=res.reason, rounds=rounds,
                                blue_vp=vp[0] if vp else None, red_vp=vp[1] if vp else None)
        return []

    def finish(self) -> list[Event] | None:
        """The events with the game's end appended, or ``None`` when the log has no result."""
        if self.game_end is None:
            if self.result_refused:  # its own error says what is wrong with it; no second one
                return None
            self._error(None, "the log has no result; end it with a line such as 'result: blue vp 11-7'",
                        max(self.last_line, 1))
            return None
        e = self.game_end
        end = GameEnd(seq=len(self.events) + 1, round=e.round, winner=e.winner, reason=e.reason,
                      rounds=e.rounds, blue_vp=e.blue_vp, red_vp=e.red_vp)
        self.events.append(end)
        refusal = self.judge.finish(end, self.result_tag.line) if self.result_tag is not None else None
        if refusal is not None:
            assert self.result_tag is not None
            tok = self.result_tag.key
            self._error(tok, f"the rules engine, replaying this log, refuses {tok.text!r}: {refusal}; "
                        f"correct this line")
        return self.events

