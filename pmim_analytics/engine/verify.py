"""Check a recorded game against the rules by replaying it through the engine.

The recorded choices (placements, activations, moves, attacks) and dice are fed to a
fresh :class:`~pmim_analytics.engine.state.GameState`; everything the rules derive from
them (hits, damage, hit locations, destruction, VP, round and game ends) is compared with
what the replay says. Every disagreement is reported with the event's line, and the
check goes on from the engine's own reconstruction, so one bad field gives one finding.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pmim_analytics.engine import rulings
from pmim_analytics.engine.actions import Action, ActivateUnit, EndActivation, FireWeapon, MoveUnit, PlaceUnit, RushUnit
from pmim_analytics.engine.checks import BATTLE, DEPLOY, OVER
from pmim_analytics.engine.spec import GameSpec, UnitProfile
from pmim_analytics.engine.state import HEAT_HIT, INITIATIVE, OVERHEAT, GameState
from pmim_analytics.engine.state import UnitState as EngineUnit
from pmim_analytics.errors import IllegalActionError, InvalidArmyError, PmimError, ReplayError
from pmim_analytics.model import combat
from pmim_analytics.model.events import (
    EVENT_TYPES,
    VP,
    Activate,
    Attack,
    Deploy,
    Event,
    FirstPlayer,
    GameEnd,
    InitiativeRoll,
    OverheatRoll,
    RoundEnd,
    RoundStart,
    WeaponLost,
    dispatch,
)
from pmim_analytics.model.hexes import Hex
from pmim_analytics.model.record import GameHeader, GameRecord, MapRecord, SideRecord
from pmim_analytics.model.vocab import SIDE_PREFIX, SIDES, Side
from pmim_analytics.rules.army import ArmyEntry, ArmyList, Roster, RosterUnit, validate_army
from pmim_analytics.rules.catalogue import data_dir, load_rules
from pmim_analytics.rules.optional import OptionalRules
from pmim_analytics.rules.readings import readings_from_header

INPUT_TYPES = frozenset({"deploy", "activate", "move", "attack", "rush"})
#: The optional rules' dice events, and the chance node each answers.
ROLL_TYPES: dict[str, tuple[str, ...]] = {"initiative_roll": (INITIATIVE,), "overheat_roll": (OVERHEAT,),
                                          "weapon_lost": (HEAT_HIT,)}
_ROLL_NAMES = {INITIATIVE: "initiative_roll", OVERHEAT: "overheat_roll", HEAT_HIT: "weapon_lost"}
_PREFIX: dict[str, str] = {side: SIDE_PREFIX[i] for i, side in enumerate(SIDES)}


@dataclass(frozen=True)
class Violation:
    """One event that breaks the rules: where (line, seq) and why."""

    line: int | None
    seq: int | None
    message: str
    field: str | None = None  # the event field that disagrees with the rules, when one does

    def render(self, source: str) -> str:
        """``source:line: message`` (or ``source: seq N: message`` without a line)."""
        where = f"line {self.line}" if self.line is not None else f"seq {self.seq}" if self.seq else "header"
        return f"{source}: {where}: {self.message}"


class _Stop(Exception):
    """The replay diverged so far that checking cannot go on."""


def roster_from_header(header: GameHeader, side: Side) -> Roster:
    """Rebuild one side's roster (roster ids without the side prefix) from a replay header.

    Raises :class:`PmimError` when a unit id lacks its side's prefix.
    """
    rec = header.sides[side]
    units = []
    for u in rec.units:
        if not u.id.startswith(_PREFIX[side]):
            raise PmimError(f"{side} unit id {u.id!r} must start with {_PREFIX[side]!r}")
        units.append(RosterUnit(id=u.id[2:], code=u.code, type=u.type, kind=u.kind, weapons=tuple(u.weapons),
                                mounts=tuple(u.mounts), pts=u.pts, entry=0))
    return Roster(rec.name, header.rules, tuple(units))


def _army_problems(header: GameHeader, side: Side) -> list[str]:
    rec = header.sides[side]
    army = ArmyList(name=rec.name, rules=header.rules,
                    units=tuple(ArmyEntry(type=u.code, weapons=tuple(u.weapons)) for u in rec.units))
    try:
        validate_army(army, header.rules, header.scenario)
    except InvalidArmyError as e:
        return [f"the {side} army breaks the army rules: {v}" for v in e.violations]
    return []


def _need(p: UnitProfile) -> str:
    """What an attack on ``p`` needs, as a finding says it (DEF, or DEF + 1 under ``hit=beat``)."""
    return f"DEF {p.def_}" if p.needed == p.def_ else f"DEF {p.def_} (needs {p.needed}, hit=beat)"


@lru_cache(maxsize=256)
def _spec_of(rules: str, scenario: str, blue: SideRecord, red: SideRecord,
             first_player: str, data: str, optional_rules: str = "{}",
             readings: str = "{}") -> tuple[GameSpec, tuple[str, ...]]:
    """The game spec of two header sides and what breaks the army rules in them, built
    once per armies, data folder ``data``, optional rules and readings (their settings as
    JSON; a batch replays the same armies many times). Raises :class:`PmimError`."""
    header = GameHeader(game_id="", source="engine", rules=rules, scenario=scenario,
                        map=MapRecord(columns=0, rows=0), sides={"blue": blue, "red": red})
    optional = OptionalRules.model_validate(json.loads(optional_rules))
    spec = GameSpec.create(rules, scenario, roster_from_header(header, "blue"), roster_from_header(header, "red"),
                           first_player, optional_rules=optional, readings=readings_from_header(json.loads(readings)))
    return spec, tuple(p for side in ("blue", "red") for p in _army_problems(header, side))


def _record_spec(record: GameRecord, optional: OptionalRules,
                 present: frozenset[str] | None = None) -> tuple[GameSpec, tuple[str, ...]]:
    """The game spec a record was played under, with ``optional`` rules, and what breaks the
    army rules in its header (:func:`_spec_of`). The first-player setting is the one its
    first_player event says (a batch may override the scenario's); without one ``alternate``.
    With ``present``, the game is between those units alone (the army rules are still checked
    on the whole armies). Raises :class:`PmimError`."""
    header = record.header
    drawn = next((e for e in record.events if isinstance(e, FirstPlayer)), None)
    blue, red = header.sides["blue"], header.sides["red"]
    settings = (drawn.setting if drawn else "alternate", str(data_dir()),
                json.dumps(optional.settings(), sort_keys=True), json.dumps(header.readings or {}, sort_keys=True))
    spec, problems = _spec_of(header.rules, header.scenario, blue, red, *settings)
    if present is None:
        return spec, problems
    blue, red = (side.model_copy(update={"units": tuple(u for u in side.units if u.id in present)})
                 for side in (blue, red))
    return _spec_of(header.rules, header.scenario, blue, red, *settings)[0], problems


def _end_activation(st: GameState) -> bool:
    """End the active unit's activation when the state can (a unit is active in battle and no
    dice are awaited); a replay records no end of activation. True if it did."""
    if st.phase == BATTLE and st.active is not None and not st.is_chance_node():
        st.apply(EndActivation(st.active.id), check=False)
        return True
    return False


#: The one event->action adapter: the engine action each recorded choice stands for.
_ACTIONS: dict[str, Callable[[Any], Action]] = {
    "deploy": lambda ev: PlaceUnit(ev.unit, Hex(*ev.hex)),
    "activate": lambda ev: ActivateUnit(ev.unit),
    "move": lambda ev: MoveUnit(ev.unit, Hex(*ev.to_hex)),
    "rush": lambda ev: RushUnit(ev.unit, Hex(*ev.to_hex)),
    "attack": lambda ev: FireWeapon(ev.unit, ev.mount, ev.target),
}


#: The recorded choices made by the active unit, and those that move it.
_ACTORS = frozenset({"move", "rush", "attack"})
_MOVES = frozenset({"move", "rush"})


def action_of(ev: Event) -> Action:
    """The engine action a recorded choice (deploy, activate, move, rush, attack) stands for."""
    return dispatch(_ACTIONS, ev)


def _feed_rolls(st: GameState, rolls: list[int], kind: str | None) -> None:
    """Hand the state recorded d6 (hit-location rolls), one at a time, while it awaits a roll
    of ``kind`` (``None``: an attack's location roll; else an optional rule's chance node).
    The rolls not needed stay in ``rolls``."""
    while rolls and st.roll_needed() and st.optional_roll_kind() == kind:
        st.apply_roll((rolls.pop(0),))


def _feed_initiative(st: GameState, ev: InitiativeRoll) -> list[int]:
    st.apply_roll((ev.blue_roll, ev.red_roll))  # blue's die, then red's
    return []


def _feed_overheat(st: GameState, ev: OverheatRoll) -> list[int]:
    st.apply_roll((ev.result,))
    return []


def _feed_heat_hit(st: GameState, ev: WeaponLost) -> list[int]:
    rolls = list(ev.location_rolls)
    _feed_rolls(st, rolls, HEAT_HIT)
    return rolls


#: How each optional rule's roll event hands its dice to the engine.
_FEED_ROLL: dict[str, Callable[[GameState, Any], list[int]]] = {
    "initiative_roll": _feed_initiative, "overheat_roll": _feed_overheat, "weapon_lost": _feed_heat_hit,
}


def _feed_roll_event(st: GameState, ev: Event) -> list[int]:
    """Hand the state the dice of an optional rule's roll event (initiative, overheat, an
    overheated weapon's hit-location rolls); return the recorded rolls it did not need."""
    return _FEED_ROLL[ev.type](st, ev)


#: Why a logged result cannot be (:func:`~pmim_analytics.engine.rulings.result_refusal`).
_RESULT_WHY = {
    rulings.VP_IMPOSSIBLE: "more VP than the objectives give in its rounds",
    rulings.WINNER_WIPED_OUT: "the winner has no unit left",
    rulings.DRAW_WON: "a draw is not won by VP or a wipeout",
    rulings.VP_NEEDED: "a win on VP needs the final VP",
    rulings.VP_DISAGREE: "the VP do not give that side a win on VP",
    rulings.NOT_WIPED_OUT: "the loser is not wiped out",
    rulings.LIMIT_NOT_REACHED: "the game did not last to the round limit",
    rulings.LIMIT_IS_DRAW: "the scenario makes a game at the round limit a draw",
    rulings.LIMIT_WINNER: "at the round limit the side ahead on VP wins",
}


def _describe_any(ev: Event) -> str:
    unit = getattr(ev, "unit", None)
    return f"{ev.type} of {unit}" if unit else ev.type


#: How a finding names an event (by its unit unless the type says otherwise).
_DESCRIBE: dict[str, Callable[[Any], str]] = {
    "vp": lambda ev: f"vp for {ev.side} at objective {ev.objective}",
    "game_end": lambda ev: f"game_end ({ev.winner or 'draw'}, {ev.reason})",
}


def _describe(ev: Event) -> str:
    return dispatch(_DESCRIBE, ev, default=_describe_any)


def _key(ev: Event) -> tuple[str, object]:
    if isinstance(ev, VP):
        return (ev.type, ev.objective)
    return (ev.type, getattr(ev, "unit", None))


class _Checker:
    def __init__(self, record: GameRecord, lines: Sequence[int | None],
                 present: frozenset[str] | None = None, unknown: frozenset[str] = frozenset(),
                 any_turn_order: bool = False) -> None:
        self.record = record
        self.any_turn_order = any_turn_order  # a table log that may leave out activations
        self.present = present  # the units in the game, when not all of the armies' (absent_undeployed)
        self.unknown = unknown  # the units at positions the log never gives (unknown_positions)
        self.lines = lines
        self.found: list[Violation] = []
        self.queue: list[Event] = []
        self.mark = 0
        self.line: int | None = None
        self.seq: int | None = None
        self.state: GameState | None = None
        #: a manual log may leave out the dice and the order units were placed in
        self.dice_omitted = record.header.source == "manual"
        self.free_deployment = record.header.source == "manual"
        self.stopped_by_players = False
        self.scored: tuple[int, int] | None = None  # the VP of the last round_end replayed
        self.logged_round = 0  # unknown_positions: the last round whose VP totals the log gave

    def report(self, message: str, field: str | None = None) -> None:
        self.found.append(Violation(self.line, self.seq, message, field))

    def fresh(self) -> list[Event]:
        assert self.state is not None
        new = self.state.events[self.mark:]
        self.mark = len(self.state.events)
        return new

    def run(self) -> list[Violation]:
        """Replay the record; every violation found, in order."""
        self.open()
        try:
            return self.replay()
        finally:
            self.close()

    def open(self) -> None:
        """Bind what each recorded event does, by type: a recorded choice is replayed, a derived
        event compared; and the engine action each recorded choice stands for (with the fields
        already reported). Bound for one run only (:meth:`close`): kept on the checker, the bound
        methods would make it a reference cycle that outlives the run."""
        self.on_event: dict[str, Callable[[Any], None]] = {
            **dict.fromkeys(EVENT_TYPES, self.derived_event),
            "first_player": self.first_player_event,
            **dict.fromkeys(INPUT_TYPES, self.input_event),
            **dict.fromkeys(ROLL_TYPES, self.roll_event),
        }

    def close(self) -> None:
        """Unbind the event handlers (:meth:`open`)."""
        self.__dict__.pop("on_event", None)

    def replay(self) -> list[Violation]:
        header = self.record.header
        if header.source != "engine" and not self.record.events:
            self.line = self.lines[0] if self.lines else None
            return self.found
        if not self.begin():
            return self.found
        lines = self.lines
        n_lines = len(lines)
        try:
            for n, ev in enumerate(self.record.events, 1):
                self.step(ev, lines[n] if n < n_lines else None)
            self.finish()
        except _Stop as e:
            self.report(f"verification stopped: {e}")
        return self.found

    def begin(self) -> bool:
        """Build the game's state (its units not deployed placed at unknown positions); False,
        with the finding, when it cannot be rebuilt."""
        self.line = self.lines[0] if self.lines else None
        try:
            spec, problems = _record_spec(self.record, self.recorded_optional_rules(), self.present)
            for problem in problems:
                self.report(problem, "sides")
            self.state = GameState(spec)
            self.state.place_unknown(self.unknown)
            self.queue.extend(self.fresh())  # a blue/red first_player event comes with the state
        except PmimError as e:
            self.report(f"cannot rebuild the game: {e.render()}")
            return False
        return True

    def step(self, ev: Event, line: int | None) -> None:
        """Replay or compare one recorded event, made on ``line``. Raises :class:`_Stop`."""
        st = self.state
        assert st is not None
        self.line = line
        self.seq = ev.seq
        if st.phase == OVER and not self.queue:
            self.report(f"{_describe(ev)} comes after the game has ended")
            return
        if st.optional_roll_kind() is not None and not self.stop_before_roll(ev):
            self.check_no_roll_missing(ev)
        if self.unknown:
            self.advance_round(ev)
        dispatch(self.on_event, ev)

    def recorded_optional_rules(self) -> OptionalRules:
        """The optional rules the header says the game was played with; a difference from the
        rules version's own is a finding (the game is then checked by the recorded ones)."""
        header = self.record.header
        try:
            recorded = OptionalRules.model_validate(header.optional_rules or {})
        except ValueError as e:
            raise PmimError(f"the header's optional_rules cannot be read: {e}") from None
        catalogue = load_rules(header.rules).optional
        if recorded != catalogue:
            self.report(f"the header records optional rules {recorded.settings() or 'none'}, but rules "
                        f"{header.rules} has {catalogue.settings() or 'none'}; checked by the recorded ones")
        return recorded

    # -- the optional rules' dice: recorded in their own events, fed to the engine
    def check_no_roll_missing(self, ev: Event) -> None:
        """The engine waits for an optional rule's roll that the replay does not give next."""
        st = self.state
        assert st is not None
        chance = st.optional_roll_kind()
        if chance is None or ev.type == _ROLL_NAMES[chance] or self.queue:
            return
        raise _Stop(f"{_describe(ev)}: the rules need an {_ROLL_NAMES[chance]} event first "
                    f"({chance.replace('_', ' ')} roll), and the replay has none")

    def roll_event(self, ev: Event) -> None:
        st = self.state
        assert st is not None
        self.flush_missing()
        if st.optional_roll_kind() not in ROLL_TYPES[ev.type]:
            if ev.type == "initiative_roll" and st.spec.rules.optional.rolled_initiative is None:
                self.report(f"unexpected {ev.type}: rolled initiative is not a rule of this game")
            else:
                self.report(f"unexpected {_describe(ev)}: the rules call for no such roll here")
            return
        try:
            rolls = _feed_roll_event(st, ev)
        except IllegalActionError as e:
            raise _Stop(f"{_describe(ev)}: {e.message}") from None
        skip: set[str] = set()
        if ev.type == "weapon_lost" and st.optional_roll_kind() == HEAT_HIT:
            raise _Stop(f"{_describe(ev)}: the overheated weapon's hit needs a hit-location roll that is "
                        "not recorded (a roll on a destroyed location must be re-rolled)")
        if rolls:
            self.report(f"{_describe(ev)}: location rolls {rolls} were not needed"
                        " (the roll before them hit a standing location)")
            skip.add("location_rolls")
        new = self.fresh()
        if not new:
            return
        self.compare(new[0], ev, skip)
        self.queue.extend(new[1:])

    # -- derived events: the rules produce them; they must match
    def end_activation(self) -> None:
        assert self.state is not None
        if _end_activation(self.state):
            self.queue.extend(self.fresh())

    def players_stop(self, ev: Event) -> bool:
        """Whether ``ev`` is a manual log's result logged by players who stopped the game (they
        may stop before the next round's initiative roll, say), or, under ``unknown_positions``,
        a table log's result for a game its lines have not ended (a log in summary form, or one
        that stops logging rounds): the result as logged, judged by
        :func:`~pmim_analytics.engine.rulings.result_refusal`."""
        if not isinstance(ev, GameEnd):
            return False
        if ev.reason == "manual" and self.free_deployment:
            return True
        return bool(self.unknown) and self.state is not None and self.state.phase != OVER and not any(
            isinstance(q, GameEnd) for q in self.queue)

    def stop_before_roll(self, ev: Event) -> bool:
        """Whether ``ev`` is the players' stop before the roll the state waits for, which they may
        leave unrolled only when it is a round's initiative roll: an overheat roll (and the
        location of the overheated weapon's hit) finishes an attack already made, so a log that
        stops after that attack still gives it (docs/rules-notes.md, heat)."""
        return self.players_stop(ev) and self.state is not None and self.state.optional_roll_kind() == INITIATIVE

    def advance_round(self, ev: Event) -> None:
        """``unknown_positions``: a table log that does not say where every unit stands may also
        leave a round without its VP line. When an event of a later round comes, each round
        before it ends, its units that did not act holding and its VP as they were (no line
        gives them, and no position to score them is known)."""
        st = self.state
        assert st is not None
        r = ev.round
        if r is None or ev.type == "game_end":
            return
        while st.phase == BATTLE and st.round < r and not st.is_chance_node():
            ended = st.round
            st.logged_vp = (st.vp[0], st.vp[1])
            self.hold_the_rest()
            st.logged_vp = None
            self.queue = [q for q in self.queue
                          if not (q.type in ("round_start", "round_end", "vp") and q.round == ended)]
            if st.round == ended:
                return

    def unexplained_loss(self, ev: Event) -> None:
        """``unknown_positions``: a loss the table log gives without the attack that caused it is
        applied as logged, with what it leads to (compared with the lines after it)."""
        st = self.state
        assert st is not None
        unit: Any = ev
        try:
            st.lose(unit.unit, ev.type, getattr(ev, "location", None), getattr(ev, "by", None))
        except IllegalActionError as e:
            self.report(f"{_describe(ev)}: {e.message}")
            return
        new = self.fresh()
        if not new:
            self.report(f"unexpected {_describe(ev)}: {unit.unit} has already had that loss")
            return
        self.compare(new[0], ev, {"round"} if ev.round is None else frozenset())
        self.queue[:0] = new[1:]

    def table_log_event(self, ev: Event) -> bool:
        """``unknown_positions``: a loss the log gives without its attack is applied as logged,
        and a round's VP line gives its totals when no position to score them is known. True
        when ``ev`` is dealt with."""
        st = self.state
        assert st is not None
        if ev.type in _LOSSES and st.phase != OVER and not any(_key(q) == _key(ev) for q in self.queue):
            self.unexplained_loss(ev)
            return True
        if isinstance(ev, RoundEnd) and ev.round == st.round and not any(q.type == "round_end" for q in self.queue):
            refused = rulings.vp_line_refusal((st.vp[0], st.vp[1]), (ev.blue_vp, ev.red_vp),
                                              len(st.board.objectives), ev.round - self.logged_round)
            if refused is not None:
                gained = ev.blue_vp + ev.red_vp - st.vp[0] - st.vp[1]
                why = ("VP totals only grow" if refused == rulings.VP_FELL else
                       f"{len(st.board.objectives)} objectives cannot give {gained} VP in "
                       f"{ev.round - self.logged_round} round(s)")
                self.report(f"{_describe(ev)}: VP {ev.blue_vp}-{ev.red_vp} cannot follow "
                            f"{st.vp[0]}-{st.vp[1]}: {why}", "blue_vp")
            st.logged_vp = (ev.blue_vp, ev.red_vp)
            self.logged_round = ev.round
        return False

    def players_stopped(self, ev: GameEnd) -> None:
        """The players stopped the game and logged a result: nothing the rules would do next is
        missing (they may stop before scoring the round they finished); but the VP it gives are
        the ones scored by the last round the log ends, and if the rules had already ended the
        game, its winner is the rules' one."""
        over = next((q for q in self.queue if isinstance(q, GameEnd)), None)  # the rules ended it first
        self.queue = [q for q in self.queue if q.type not in ("round_start", "activate", "vp", "round_end", "game_end")]
        self.flush_missing()
        self.stopped_by_players = True
        if over is not None and over.winner != ev.winner:
            self.report(f"{_describe(ev)}: winner is {ev.winner!r}, the rules give {over.winner!r}: the game "
                        f"was already over ({over.reason})", "winner")
        st = self.state
        assert st is not None
        vp = None if ev.blue_vp is None or ev.red_vp is None else (ev.blue_vp, ev.red_vp)
        refused = rulings.result_refusal(st.spec.scenario.victory, len(st.board.objectives), ev.winner, ev.reason,
                                         vp, ev.rounds, (st.living[0], st.living[1]),
                                         None if over is None else (over.winner, over.reason))
        if refused is not None and refused not in (rulings.NOT_THE_SHOWN_WINNER, rulings.NOT_THE_SHOWN_END):
            self.report(f"{_describe(ev)}: the result cannot be: {_RESULT_WHY[refused]}", "winner")
        for side, got, scored in zip(SIDES, (ev.blue_vp, ev.red_vp), self.scored or (), strict=False):
            if got is not None and got != scored:
                self.report(f"{_describe(ev)}: {side}_vp is {got}, the rules give {scored}", f"{side}_vp")

    def derived_event(self, ev: Event) -> None:
        st = self.state
        assert st is not None
        if self.unknown and self.table_log_event(ev):
            return
        if self.players_stop(ev):
            assert isinstance(ev, GameEnd)
            self.players_stopped(ev)
            return
        if (self.free_deployment and ev.type in ("vp", "round_end") and ev.round == st.round
                and not any(q.type == "round_end" for q in self.queue)):
            self.hold_the_rest()
        if not self.queue:
            self.end_activation()
        if not self.queue:
            self.report(f"unexpected {_describe(ev)}: the rules produce no such event here")
            return
        key = _key(ev)
        idx = next((i for i, q in enumerate(self.queue) if _key(q) == key), None)
        if idx is None:
            self.report(f"unexpected {_describe(ev)}: the rules give {_describe(self.queue[0])} here")
            return
        for missing in self.queue[:idx]:
            if not self.unlogged(missing):
                self.report(f"missing {_describe(missing)} before this event")
        expected = self.queue[idx]
        if isinstance(expected, RoundEnd):
            self.scored = (expected.blue_vp, expected.red_vp)
        self.compare(self.queue[idx], ev, self.turn_order_fields(ev))
        del self.queue[:idx + 1]

    def compare(self, expected: Event, got: Event, skip: set[str] | frozenset[str] = frozenset()) -> None:
        if expected == got:  # the common case: same fields, seq included
            return
        want, have = expected.to_dict(), got.to_dict()
        for name, value in want.items():
            if name == "seq" or name in skip or have.get(name) == value:
                continue
            self.report(f"{_describe(got)}: {name} is {have.get(name)!r}, the rules give {value!r}"
                        + _why(expected, name), name)

    def hold_the_rest(self) -> None:
        """A manual log leaves out the units that did nothing in a round: at its end, each
        unit that has not activated activates and holds, in the order the rules give."""
        st = self.state
        assert st is not None
        start = st.round
        self.end_activation()
        while st.phase == BATTLE and st.round == start and st.active is None and not st.is_chance_node():
            waiting = [u for u in st.side_units[st.to_act] if u.alive and not u.activated]
            if not waiting:
                break
            st.apply(ActivateUnit(waiting[0].id), check=False)
            if st.active is not None:
                st.apply(EndActivation(st.active.id), check=False)
        self.queue.extend(e for e in self.fresh() if e.type not in ("activate",))

    # -- input events: recorded choices and dice, replayed through the engine
    def flush_missing(self) -> None:
        for missing in self.queue:
            if not self.unlogged(missing):
                self.report(f"missing {_describe(missing)} before this event")
        self.queue.clear()

    def turn_order_fields(self, ev: Event) -> frozenset[str]:
        """``any_turn_order``: a round's start names the side of the first unit the log
        activates, which need not be the rules' one (unless an initiative roll decided it)."""
        st = self.state
        assert st is not None
        if self.any_turn_order and isinstance(ev, RoundStart) and st.spec.rules.optional.rolled_initiative is None:
            return frozenset({"first"})
        return frozenset()

    def out_of_turn(self, ev: Event) -> None:
        """``any_turn_order``: the unit an activation names takes the turn, whoever's it was."""
        st = self.state
        assert st is not None
        if isinstance(ev, Activate) and self.any_turn_order and not self.round_opened_by_roll():
            try:
                st.let_activate_next(ev.unit)
            except IllegalActionError:
                pass  # an unknown unit: the action's check says so

    def round_opened_by_roll(self) -> bool:
        """Whether the next activation is a round's first under rolled initiative: the roll's
        winner's, whatever the turn order (``any_turn_order`` leaves that one judged)."""
        st = self.state
        assert st is not None
        return st.spec.rules.optional.rolled_initiative is not None and st.waiting == st.living

    def unlogged(self, ev: Event) -> bool:
        """``unknown_positions``: a round's start is logged with its first activation, so a round
        in which the log activates no unit (it gives a loss or its VP line) has none."""
        return bool(self.unknown) and ev.type == "round_start"

    def input_event(self, ev: Event) -> None:
        st = self.state
        assert st is not None
        if self.queue:
            self.flush_missing()
        if ev.type in ("activate", "deploy") and st.active is not None:
            self.end_activation()
            self.flush_missing()
        if st.phase == OVER:
            self.report(f"{_describe(ev)} comes after the game has ended")
            return
        skip = self.follow(ev)
        self.out_of_turn(ev)
        action = action_of(ev)
        try:
            st.check(action)
        except IllegalActionError as e:
            self.report(e.message)
            skip.add("path")  # an illegal move has no legal path length to compare
        try:
            st.apply(action, check=False)
        except (IllegalActionError, ValueError) as e:
            self.report(f"{action} cannot be replayed: {e}")
            return
        if isinstance(ev, Attack):
            skip |= self.feed_dice(ev)
        new = self.fresh()
        if not new:
            self.report(f"{action} has no effect in the rules")
            return
        self.compare(new[0], ev, skip)
        self.queue.extend(new[1:])

    def follow(self, ev: Event) -> set[str]:
        """Before a recorded choice is replayed: what a manual log may leave to the reader (the
        order units were placed in), and a move or attack by a unit that is not active or from
        a hex it does not stand on (reported, then followed). The fields already reported."""
        st = self.state
        assert st is not None
        if isinstance(ev, Deploy):
            if self.free_deployment and st.phase == DEPLOY and ev.unit in st.by_id:
                st.let_place_next(ev.unit)
            return set()
        choice: Any = ev  # a move, rush or attack: each names its unit
        if ev.type in _ACTORS:
            self.follow_actor(choice.unit, ev)
        return self.follow_start(choice) if ev.type in _MOVES else set()

    def first_player_event(self, ev: FirstPlayer) -> None:
        """A first_player event: the ``random`` draw is an input (its die), any other is derived."""
        st = self.state
        assert st is not None
        if st.roll_needed() == 1 and st.phase == DEPLOY:
            self.first_player_draw(ev)
        else:
            self.derived_event(ev)

    def first_player_draw(self, ev: FirstPlayer) -> None:
        """The ``random`` first-player draw: hand the state the recorded die, compare the side."""
        st = self.state
        assert st is not None
        self.flush_missing()
        if ev.die is None or not 1 <= ev.die <= 6:
            self.report(f"{_describe(ev)}: a random first-player draw needs its d6 (1-6), got {ev.die!r}")
            return
        st.apply_roll((ev.die,))
        new = self.fresh()
        self.compare(new[0], ev)
        self.queue.extend(new[1:])

    def follow_actor(self, unit: str, ev: Event) -> None:
        """A move or attack by a unit that is not active: report it, then treat it as activated."""
        st = self.state
        assert st is not None
        if st.active is not None and st.active.id == unit:
            return
        active = st.active.id if st.active else "no unit"
        self.report(f"{_describe(ev)}: {unit} acts without being activated ({active} is active)")
        try:
            st.apply(ActivateUnit(unit), check=False)
        except IllegalActionError:
            return
        self.queue.extend(e for e in self.fresh() if e.type != "activate")

    def follow_start(self, ev: Any) -> set[str]:
        """A move that starts where the unit is not: report it, then start from the recorded hex."""
        st = self.state
        assert st is not None
        u = st.by_id.get(ev.unit)
        start = Hex(*ev.from_hex)
        if u is not None and u.pos < 0 and st.phase == BATTLE:  # a unit nobody knew the position of
            try:
                st.place_at(u.id, start)
            except IllegalActionError as e:
                self.report(f"{_describe(ev)}: {e.message}")
                return {"from_hex"}
            return set()
        if u is None or u.pos < 0 or st.grid.hexes[u.pos] == start:
            return set()
        here = st.grid.hexes[u.pos].format()
        self.report(f"{_describe(ev)}: starts at {start.format()} but {u.id} stands at {here}")
        try:
            st.place_at(u.id, start)
        except IllegalActionError:
            pass
        return {"from_hex"}

    def feed_dice(self, ev: Attack) -> set[str]:
        """Hand the state the recorded dice; return the fields already reported."""
        st = self.state
        assert st is not None
        att, tgt = st.unit(ev.unit), st.unit(ev.target)
        wm = att.p.mounts[st.mount_index(att, ev.mount)]
        skip: set[str] = set()
        if ev.roll is None:  # a log that omits the dice: the logged outcome is the chance outcome
            roll = _roll_giving(ev.hit, wm.acc, tgt.p.needed)
            if roll is None:
                raise _Stop(f"{_describe(ev)}: no roll of 2d6 gives a {'hit' if ev.hit else 'miss'} with ACC "
                            f"{wm.acc} against {_need(tgt.p)}")
            skip.add("roll")
        else:
            roll = (ev.roll[0], ev.roll[1])
        if combat.is_hit(roll[0], roll[1], wm.acc, tgt.p.needed) != ev.hit:
            total = roll[0] + roll[1] + wm.acc
            self.report(f"{_describe(ev)}: hit is {ev.hit}, the rules give {not ev.hit}: "
                        f"{roll[0]}+{roll[1]} + ACC {wm.acc} = {total} vs {_need(tgt.p)} is "
                        + ("a miss" if ev.hit else "a hit"), "hit")
            # follow the recorded outcome with dice that give it, if any can
            roll = (6, 6) if ev.hit else (1, 1)
            if combat.is_hit(roll[0], roll[1], wm.acc, tgt.p.needed) != ev.hit:
                raise _Stop("no roll gives the recorded outcome")
            skip |= {"roll", "hit"}
        st.apply_roll(roll)
        rolls = list(ev.location_rolls)
        _feed_rolls(st, rolls, None)
        if st.roll_needed() and st.optional_roll_kind() is None:  # a location roll the log does not give
            if not self.dice_omitted:
                self.report(f"{_describe(ev)}: the hit needs a hit-location roll that is not recorded"
                            " (a roll on a destroyed or missing location must be re-rolled)")
            faces = [i + 1 for i, code in enumerate(tgt.p.chart)
                     if (code == ev.location or (ev.location is None and self.dice_omitted))
                     and combat.location_is_hittable(tgt.loc_hp, code)]
            if ev.location is None:
                skip |= {"location", "damage", "overkill"}
            if not faces:
                raise _Stop(f"no standing location {ev.location!r} to put the damage on")
            st.apply_roll((faces[0],))
            skip.add("location_rolls")
        if rolls:
            self.report(f"{_describe(ev)}: location rolls {rolls} were not needed"
                        " (the roll before them hit a standing location)")
            skip.add("location_rolls")
        return skip

    def finish(self) -> None:
        st = self.state
        assert st is not None
        if self.stopped_by_players:
            return
        if st.phase != OVER:
            self.end_activation()
        for missing in self.queue:
            self.report(f"missing {_describe(missing)} at the end of the replay")
        self.queue.clear()
        if st.phase != OVER:
            self.report("the replay stops before the game is over")


def _round_end(events: list[Event]) -> RoundEnd | None:
    """The first round_end among ``events``, if any."""
    return next((e for e in events if isinstance(e, RoundEnd)), None)


class LiveJudge:
    """The engine's judgement of a game as a reader makes its events, statement by statement (the
    manual-log reader). Deployments come first; at the first other event, the units not
    deployed are put at unknown positions and the table-log leniencies are on
    (:func:`table_log_options`). A finding is the engine's, about the statement just fed; the
    engine goes on from its own reconstruction, as :func:`verify_game` does."""

    def __init__(self, header: GameHeader) -> None:
        self.checker = _Checker(GameRecord(header, ()), [None])
        self.checker.open()
        self.battle = False
        self.stopped = not self.checker.begin()
        #: why the engine cannot rebuild the game, when it cannot
        self.problem = self.checker.found[-1].message if self.stopped and self.checker.found else None

    def close(self) -> None:
        """Unbind the checker's handlers (they make a reference cycle while bound)."""
        self.checker.close()

    def round_score(self, round_no: int) -> list[VP] | None:
        """The objectives the rules score at the end of round ``round_no``, if it ended now (the
        units that have not activated holding), from where the engine knows the units stand;
        ``None`` when the engine cannot say (it stopped, awaits dice, or plays another round).
        A round the rules have ended already (its last activation could do nothing more) has its
        scoring queued; otherwise it is asked of a copy of the game: nothing changes."""
        c = self.checker
        st = c.state
        if self.stopped or st is None:
            return None
        queue = c.queue
        if _round_end(queue) is None:
            if st.phase != BATTLE or st.round != round_no:
                return None
            saved = c.state, c.queue, c.mark, len(c.found)
            try:
                c.state, c.queue = st.clone(), []
                c.hold_the_rest()
                queue = c.queue
            finally:
                c.state, c.queue, c.mark = saved[:3]
                del c.found[saved[3]:]
        end = _round_end(queue)
        if end is None or end.round != round_no:
            return None
        return [v for v in queue if isinstance(v, VP) and v.round == round_no]

    def side_to_act(self, round_no: int) -> str | None:
        """The side whose turn it is to activate a unit in round ``round_no``, once the active unit's
        activation ends (the rules' turn order: ``first_side`` and ``next_turn``); ``None`` when the
        engine cannot say (it stopped, awaits dice, or plays another round). Nothing changes."""
        st = self.checker.state
        if self.stopped or st is None or st.phase != BATTLE:
            return None
        if st.active is not None:
            st = st.clone()
            _end_activation(st)
        if st.phase != BATTLE or st.round != round_no or st.is_chance_node():
            return None
        return SIDES[st.to_act]

    def won(self) -> tuple[str, str] | None:
        """``(winner, reason)`` once the rules have given a side the game on VP or by a wipeout
        (the events fed so far); ``None`` otherwise, or when the judge has stopped."""
        st = self.checker.state
        result = None if self.stopped or st is None else st.result()
        if result is None or result.winner is None or result.reason not in ("vp", "wipeout"):
            return None
        return result.winner, result.reason

    def assume_initiative(self, side: str) -> bool:
        """A round's initiative roll the log leaves out (the reader reports it): the round goes on
        as logged, ``side`` first, from a roll that gives it. False when the engine awaits no
        initiative roll."""
        c = self.checker
        st = c.state
        if self.stopped or st is None or st.optional_roll_kind() != INITIATIVE:
            return False
        st.apply_roll((2, 1) if side == "blue" else (1, 2))
        c.queue.extend(e for e in c.fresh() if not isinstance(e, InitiativeRoll))  # no line gives it
        return True

    def stop(self) -> None:
        """Judge no more: the reader has found the game cannot be followed (a roll the rules
        wait for is missing) and said so."""
        self.stopped = True

    def judge(self, events: Sequence[Event], line: int) -> str | None:
        """Feed the events of one statement, made on ``line``; the first rule they break, or ``None``."""
        c = self.checker
        if self.stopped or c.state is None:
            return None
        if not self.battle and any(ev.type != "deploy" for ev in events):
            self.begin_battle()
        before = len(c.found)
        try:
            for ev in events:
                c.step(ev, line)
        except _Stop as e:
            self.stopped = True  # the engine cannot follow the game any further
            return f"the engine cannot follow the game from here: {e}"
        return c.found[before].message if len(c.found) > before else None

    def unit(self, unit_id: str) -> EngineUnit:
        """The engine's state of a unit (HP, lost locations, what it lost), as the game stands."""
        st = self.checker.state
        assert st is not None  # a judge whose game cannot be rebuilt is not asked
        return st.by_id[unit_id]

    def losses(self) -> list[Event]:
        """The losses the rules derive from the events fed last (a location destroyed and what it
        leads to, a unit destroyed), in order; the reader's own events for them are still to come.
        None once the judge has stopped (it no longer follows the game)."""
        out: list[Event] = []
        if self.stopped:
            return out
        for q in self.checker.queue:
            if q.type not in _LOSSES:
                break
            out.append(q)
        return out

    def begin_battle(self) -> None:
        """The deployments are over: a unit not deployed is at a position nobody knows."""
        c = self.checker
        st = c.state
        assert st is not None
        self.battle = True
        unknown = frozenset(u.id for u in st.units if not u.placed)
        if unknown:
            c.unknown = unknown
            c.any_turn_order = True
            st.place_unknown(unknown)
            c.queue.extend(c.fresh())

    def finish(self, end: GameEnd, line: int) -> str | None:
        """Feed the game's end, made on ``line``, and end the replay; the first rule broken, or ``None``."""
        c = self.checker
        if self.stopped or c.state is None:
            return None
        if not self.battle:
            self.begin_battle()
        before = len(c.found)
        try:
            c.step(end, line)
            c.finish()
        except _Stop as e:
            return f"the engine cannot follow the game from here: {e}"
        return c.found[before].message if len(c.found) > before else None


def _why(expected: Event, name: str) -> str:
    """A short reason for the common attack mistakes."""
    if expected.type != "attack":
        return ""
    e = expected.to_dict()
    if name == "hit":
        total = sum(e["roll"]) + e["acc"]
        return f" ({e['roll'][0]}+{e['roll'][1]} + ACC {e['acc']} = {total} vs DEF {e['needed']})"
    if name == "damage":
        return " ((STR - ARM) x RPT, never negative, 0 on a miss)"
    if name == "location":
        return f" (location rolls {e['location_rolls']})"
    return ""


def named_units(record: GameRecord) -> set[str]:
    """Every unit id a recorded game's events name: a unit, a target, a unit or side's holders."""
    named: set[str] = set()
    for ev in record.events:
        for name in ("unit", "target", "by"):
            value = getattr(ev, name, None)
            if isinstance(value, str):
                named.add(value)
        if isinstance(ev, VP):
            named.update(ev.blue, ev.red)
    return named


_LOSSES = frozenset({"unit_destroyed", "location_destroyed", "immobilized", "disarmed"})


def replay_gap(record: GameRecord, absent_undeployed: bool = False, unknown_positions: bool = False) -> str | None:
    """Why the engine cannot replay a recorded game, or ``None`` when it can.

    A manual log in summary form (armies, result, losses) or one that never says where the
    units were deployed records no moves to replay; what it does record was checked when it
    was read (``pmim log check``). With ``absent_undeployed`` (see :func:`verify_game`) a log
    that deploys units of both sides and names no other unit can be replayed; with
    ``unknown_positions`` any manual log.
    """
    deployed = {ev.unit for ev in record.events if isinstance(ev, Deploy)}
    units = [u.id for side in record.header.sides.values() for u in side.units]
    missing = [u for u in units if u not in deployed]
    if not missing:
        return None
    if absent_undeployed and named_units(record) <= deployed and all(
            any(u.id in deployed for u in side.units) for side in record.header.sides.values()):
        return None
    if unknown_positions:
        return None
    if not deployed:
        return ("a summary-form log (it records the result and the losses, not where the units stood), so "
                "there is nothing to replay through the rules; reading it checked what it records")
    return (f"the log never deploys {', '.join(missing[:3])}{' and others' if len(missing) > 3 else ''}, so the "
            f"engine cannot replay it; reading it checked what it records")


def table_log_options(record: GameRecord) -> dict[str, bool]:
    """The leniencies of :func:`verify_game` a recorded game needs: none for an engine replay or a
    log that deploys every unit; for any other manual log, ``unknown_positions`` and
    ``any_turn_order`` (it may leave out where units stand and which units activated)."""
    if record.header.source == "engine" or replay_gap(record) is None:
        return {}
    return {"unknown_positions": True, "any_turn_order": True}


def verify_game(record: GameRecord, lines: Sequence[int | None] | None = None, *,
                absent_undeployed: bool = False, unknown_positions: bool = False,
                any_turn_order: bool = False) -> list[Violation]:
    """Every rule the recorded game breaks, in order. ``lines[0]`` is the header's line
    and ``lines[i]`` the line of event ``i`` (1-based seq); without it, lines follow seq.

    A manual log may omit the dice: the logged outcome is then fed to the engine as the
    chance outcome, and only what the dice could not explain is reported. Raises
    :class:`ReplayError` (saying why, see :func:`replay_gap`) for a game the engine cannot
    replay at all, such as a summary-form log.

    ``absent_undeployed`` is a table log's leniency, off by default: a log that deploys only
    some units and never names the others is checked as a game between the deployed units
    alone (the others are absent: they neither score nor count for a wipeout).
    ``unknown_positions``, another, also off by default: the units a log never deploys are in
    the game at positions nobody knows until a move says where one starts; no range or path is
    measured from or to a unit while its position is unknown. Without positions a round cannot be
    scored, so its VP are the log's (unchanged when a round has no VP line: the next round's
    lines end it, its other units holding), and a loss the log gives without its attack is
    applied as logged, with what it leads to (``absent_undeployed`` is preferred where both apply).
    ``any_turn_order``, a third, also off by default: a table log that may leave out activations
    does not keep the turn order, so a unit of either side may activate next (a round's first
    activation under rolled initiative is still the roll winner's).
    """
    # an engine replay deploys every unit: one that does not is checked (and refused at the
    # line where the deployment goes wrong), not excused as a log with nothing to replay
    gap = replay_gap(record, absent_undeployed, unknown_positions) if record.header.source != "engine" else None
    if gap is not None:
        raise ReplayError(f"cannot verify game {record.header.game_id}: {gap}")
    if record.header.source == "engine" and _replays_exactly(record):
        return []
    if lines is None:
        lines = list(range(1, len(record.events) + 2))
    present, unknown = None, frozenset[str]()
    if record.header.source != "engine" and replay_gap(record) is not None:
        deployed = frozenset(ev.unit for ev in record.events if isinstance(ev, Deploy))
        if absent_undeployed and replay_gap(record, absent_undeployed=True) is None:
            present = deployed
        else:
            unknown = frozenset(u.id for side in record.header.sides.values() for u in side.units) - deployed
    return _Checker(record, lines, present, unknown, any_turn_order).run()


def _roll_giving(hit: bool, acc: int, defence: int) -> tuple[int, int] | None:
    """A roll of 2d6 with the given outcome (the lowest total that hits, the highest that misses)."""
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    fitting = [r for r in rolls if combat.is_hit(r[0], r[1], acc, defence) == hit]
    if not fitting:
        return None
    return min(fitting, key=sum) if hit else max(fitting, key=sum)


def _replays_exactly(record: GameRecord) -> bool:
    """True when the engine, fed the recorded choices and dice, gives exactly the recorded
    events and the game is over: the game breaks no rule. The quick first try of
    :func:`verify_game` on an engine replay, which almost always passes; any doubt (an
    illegal action, an event the engine does not give, a header the checker would remark
    on) answers ``False`` and the full check runs, to name what is wrong. It decides no
    game on its own: ``True`` only when every event agrees to the last field."""
    header = record.header
    events = record.events
    try:
        recorded = OptionalRules.model_validate(header.optional_rules or {})
        if recorded != load_rules(header.rules).optional:
            return False
        spec, problems = _record_spec(record, recorded)
        if problems:
            return False
        st = GameState(spec)
        for k, ev in enumerate(events):
            if not _follows(st, ev, k):
                return False
        _end_activation(st)
        return st.phase == OVER and len(st.events) == len(events) and st.events == list(events)
    except Exception:  # noqa: BLE001 -- whatever went wrong, the full check says it properly
        return False


def _follows(st: GameState, ev: Event, k: int) -> bool:
    """Feed one recorded event (the ``k``-th) to the engine for :func:`_replays_exactly`, through
    the same adapter as the full check; ``False`` as soon as the record cannot be followed
    exactly. A derived event feeds nothing, but if the engine has not given it yet, the active
    unit's activation ended (a replay records no end of activation)."""
    t = ev.type
    if t in INPUT_TYPES:
        if t in ("deploy", "activate"):
            _end_activation(st)
        st.apply(action_of(ev))
        if isinstance(ev, Attack):
            if ev.roll is None:
                return False
            st.apply_roll(ev.roll)
            rolls = list(ev.location_rolls)
            _feed_rolls(st, rolls, None)
            return not rolls and not (st.roll_needed() and st.optional_roll_kind() is None)
        return True
    if t in ROLL_TYPES:
        if st.optional_roll_kind() not in ROLL_TYPES[t]:
            return False
        return not _feed_roll_event(st, ev) and not (t == "weapon_lost" and st.optional_roll_kind() == HEAT_HIT)
    if isinstance(ev, FirstPlayer) and st.roll_needed() == 1 and st.phase == DEPLOY:
        if ev.die is None:  # the random draw: its die is an input
            return False
        st.apply_roll((ev.die,))
        return True
    if len(st.events) <= k:
        _end_activation(st)
    return True
