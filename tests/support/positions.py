"""Hand-built positions for rules tests: small armies placed on chosen hexes."""

from __future__ import annotations

import dataclasses
from typing import Any

from pmim_analytics.engine.actions import ActivateUnit, EndActivation, FireWeapon
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameState
from pmim_analytics.model.events import Attack, Event
from pmim_analytics.rules.army import ArmyEntry, ArmyList, Roster, build_roster

Placed = tuple[str, tuple[str, ...], tuple[int, int]]  # unit type code, weapons, hex


def roster(rules: str, units: list[Placed], name: str) -> Roster:
    army = ArmyList(name=name, rules=rules, units=tuple(ArmyEntry(type=t, weapons=tuple(w)) for t, w, _ in units))
    r = build_roster(army, rules)
    assert not r.violations, r.violations
    return r


def position(rules: str, blue: list[Placed], red: list[Placed], round_no: int = 1,
             victory: dict[str, Any] | None = None) -> GameState:
    """A state at the start of ``round_no`` with the given units (ids B:TW1, R:TY1, ...).

    ``victory`` overrides fields of Take and Hold's victory settings (e.g. ``at_round_limit``).
    """
    b, r = roster(rules, blue, "blue"), roster(rules, red, "red")
    spec = GameSpec.create(rules, "take-and-hold", b, r)
    if victory:
        scen = spec.scenario
        spec = dataclasses.replace(spec, scenario=scen.model_copy(
            update={"victory": scen.victory.model_copy(update=victory)}))
    placements = {}
    for prefix, ros, units in (("B:", b, blue), ("R:", r, red)):
        for ru, (_, _, hex_) in zip(ros.units, units, strict=True):
            placements[prefix + ru.id] = hex_
    return GameState.from_position(spec, placements, round_no)


def activate(state: GameState, unit: str) -> None:
    """End any activation in progress, make ``unit``'s side the acting side, and activate it."""
    if state.active is not None:
        state.apply(EndActivation(state.active.id))
    state.to_act = state.unit(unit).side
    state.apply(ActivateUnit(unit))


def fire(state: GameState, unit: str, mount: str, target: str, *dice: int) -> Attack:
    """Fire and hand the state ``dice`` in order (2 for the attack roll, then location d6)."""
    state.apply(FireWeapon(unit, mount, target))
    rest = list(dice)
    while state.roll_needed():
        need = state.roll_needed()
        state.apply_roll(tuple(rest[:need]))
        del rest[:need]
    assert not rest, f"dice left over: {rest}"
    return last(state, Attack)


def last(state: GameState, kind: type[Event]) -> Event:
    return next(e for e in reversed(state.events) if isinstance(e, kind))


def types_after(state: GameState, event: Event) -> list[str]:
    """Event types recorded after ``event``."""
    i = state.events.index(event)
    return [e.type for e in state.events[i + 1:]]
