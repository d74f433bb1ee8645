"""Write a game back in the manual-log notation (the inverse of reading a log).

Armies are written inline, so the text stands alone. Events the reader derives by itself
are written as confirming marker lines (``R:TY3 destroyed by B:TW1``) or left out
(``round_start``; ``activate``, which the unit's first move or attack line implies; and
``vp``, which it recomputes from the positions), so reading the text back gives the same
events and the same game id. An activation with no move or attack event is written as
``B:GE1 hold`` (the unit activated and did nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from pmim_analytics.model.events import Activate, Attack, Event, GameEnd, Move, OverheatRoll, Rush, WeaponLost, dispatch
from pmim_analytics.replay.format import GameRecord, SideRecord
from pmim_analytics.replay.manual.notation import format_hex, quote_value


def format_army(side: SideRecord) -> str:
    """The inline form of an army: ``TW(GG ML) 2xTY(HAC)``, in roster order."""
    groups: list[list[Any]] = []
    for u in side.units:
        key = (u.code, u.weapons)
        if groups and groups[-1][0] == key:
            groups[-1][1] += 1
        else:
            groups.append([key, 1])
    parts = []
    for (code, weapons), n in groups:
        parts.append(f"{f'{n}x' if n > 1 else ''}{code}({' '.join(weapons)})")
    return " ".join(parts)


def _header_lines(game: GameRecord) -> Iterator[str]:
    h = game.header
    yield f"rules: {h.rules}"
    yield f"scenario: {h.scenario}"
    if h.played:
        yield f"date: {h.played}"
    for side in ("blue", "red"):
        s = h.sides[side]
        if s.player is not None:
            yield f"{side} player: {quote_value(s.player)}"
        yield f"{side} army name: {quote_value(s.name)}"
        yield f"{side} army: {format_army(s)}"
    if h.notes:
        yield f"notes: {quote_value(h.notes)}"
    # a log without play lines reads as a summary log (nothing recorded but the losses
    # listed): say so either way, so the text reads back to the same game
    played = any(ev.type in ("deploy", "activate", "move", "rush", "attack", "round_end") for ev in game.events)
    if h.not_recorded:
        yield f"not recorded: {' '.join(h.not_recorded)}"
    elif not played:
        yield "not recorded: nothing"
    if h.estimated:
        yield f"estimated: {' '.join(h.estimated)}"


def _weapon(ev: Attack | OverheatRoll, ambiguous: set[tuple[str, str]]) -> str:
    """The weapon as a line names it: with its mount where the unit carries it twice."""
    return f"{ev.weapon}/{ev.mount}" if (ev.unit, ev.weapon) in ambiguous else ev.weapon


def _location(ev: Attack | WeaponLost) -> str:
    rolls = f"({','.join(map(str, ev.location_rolls))})" if ev.location_rolls else ""
    return ev.location + rolls if ev.location else ""


def _attack_line(ev: Attack, ambiguous: set[tuple[str, str]]) -> str:
    parts = [ev.unit, f"{_weapon(ev, ambiguous)}>{ev.target}"]
    if ev.roll is not None:
        parts.append(f"{ev.roll[0]}+{ev.roll[1]}")
    parts.append("hit" if ev.hit else "miss")
    if ev.location:
        parts.append(_location(ev))
    if ev.hit:
        parts.append(str(ev.damage))
    return " ".join(parts)


def _overheat_line(ev: OverheatRoll, lost: Event | None, ambiguous: set[tuple[str, str]]) -> str:
    """The overheat roll, and for a weapon that overheated where its hit went (its ``weapon_lost``
    follows the roll and has no line of its own)."""
    line = f"{ev.unit} {_weapon(ev, ambiguous)} overheat {ev.result}"
    if ev.overheated and isinstance(lost, WeaponLost):
        line += f" {_location(lost)} {lost.damage}"
    return line


def _by(ev: Any) -> str:
    return f" by {ev.by}" if ev.by else ""


#: Each event type's line (round_start, activate and vp have none: the reader derives them).
_LINES: dict[str, Callable[[Any], str | None]] = {
    "deploy": lambda ev: f"{ev.unit} deploy {format_hex(ev.hex)}",
    "move": lambda ev: f"{ev.unit} move {format_hex(ev.from_hex)}-{format_hex(ev.to_hex)}",
    "rush": lambda ev: f"{ev.unit} rush {format_hex(ev.from_hex)}-{format_hex(ev.to_hex)}",
    "location_destroyed": lambda ev: f"{ev.unit} {ev.location} destroyed{_by(ev)}",
    "unit_destroyed": lambda ev: f"{ev.unit} destroyed{_by(ev)}",
    "immobilized": lambda ev: f"{ev.unit} immobilized{_by(ev)}",
    "disarmed": lambda ev: f"{ev.unit} disarmed{_by(ev)}",
    "round_end": lambda ev: f"vp {ev.blue_vp}-{ev.red_vp}",
    "initiative_roll": lambda ev: f"initiative {ev.blue_roll}-{ev.red_roll}",
}


def _no_line(ev: Event) -> None:
    """Event types the reader derives by itself: no line."""


def _hold_line(ev: Activate, nxt: Event | None) -> str | None:
    """The unit's next move or attack line starts its activation; an activation with neither holds."""
    if isinstance(nxt, (Move, Rush, Attack)) and nxt.unit == ev.unit:
        return None
    return f"{ev.unit} hold"


def format_log(game: GameRecord) -> str:
    """The game as manual-log text (tags, one line per event, the result)."""
    # an attack or overheat line names the weapon's mount where the unit carries that weapon twice
    ambiguous = {(u.id, w) for s in game.header.sides.values() for u in s.units
                 for w in u.weapons if u.weapons.count(w) > 1}
    lines = list(_header_lines(game))
    events = game.events
    # an activation's line and an overheat roll's depend on the event that follows
    after = {ev.seq: nxt for ev, nxt in zip(events, events[1:], strict=False)}
    line_of: dict[str, Callable[[Any], str | None]] = {
        **_LINES, "attack": partial(_attack_line, ambiguous=ambiguous),
        "activate": lambda ev: _hold_line(ev, after.get(ev.seq)),
        "overheat_roll": lambda ev: _overheat_line(ev, after.get(ev.seq), ambiguous)}
    current: int | None = None
    end: GameEnd | None = None
    for ev in events:
        if isinstance(ev, GameEnd):
            end = ev
            continue
        text = dispatch(line_of, ev, default=_no_line)
        if text is None:
            continue
        if ev.round != current:
            lines.append("")
            lines.append(f"R{ev.round if ev.round is not None else '?'}")
            current = ev.round
        lines.append(text)
    lines.append("")
    if end is not None:
        if end.rounds is not None:
            lines.append(f"rounds: {end.rounds}")
        vp = f" {end.blue_vp}-{end.red_vp}" if end.blue_vp is not None and end.red_vp is not None else ""
        lines.append(f"result: {end.winner or 'draw'} {end.reason}{vp}")
    return "\n".join(lines) + "\n"
