"""A readable play-by-play of a recorded game, one line per thing that happened."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pmim_analytics.model.events import Attack, Deploy, Event, GameEnd, dispatch
from pmim_analytics.model.vocab import LOCATION_WORDS
from pmim_analytics.replay.format import GameRecord

LOCATION_NAMES = LOCATION_WORDS
REASONS = {"vp": "on victory points", "wipeout": "by wiping out the enemy", "round_limit": "at the round limit",
           "manual": "(logged result)"}


def _hex(h: tuple[int, int]) -> str:
    return f"{h[0]},{h[1]}"


def describe_header(game: GameRecord) -> Iterator[str]:
    """The lines that introduce a game: id, rules, seed, and both sides."""
    h = game.header
    seed = f", seed {h.seed} game {h.game_index}" if h.seed is not None else ""
    yield f"Game {h.game_id} ({h.source}): rules {h.rules}, {h.scenario}{seed}"
    for side in ("blue", "red"):
        s = h.sides[side]
        who = s.bot and f"bot {s.bot}" or s.player or "unknown player"
        yield f"  {side}: {s.name} ({who}), {s.points} points, {len(s.units)} units"


def describe_attack(ev: Attack) -> str:
    """One attack in words: weapon, target, the roll against DEF, where it hit, damage."""
    if ev.roll is None:  # a manual log that left out the dice
        rolled = f"roll not logged, DEF {ev.needed}, "
    else:
        rolled = f"{ev.roll[0]}+{ev.roll[1]}+{ev.acc} = {ev.roll[0] + ev.roll[1] + ev.acc} vs DEF {ev.needed}, "
    text = f"{ev.unit} fires {ev.weapon} ({ev.mount}) at {ev.target}, {ev.distance} hexes: " + rolled
    if not ev.hit:
        return text + "miss"
    where = ""
    if ev.location:
        rolls = ",".join(map(str, ev.location_rolls))
        where = f" on the {LOCATION_NAMES.get(ev.location, ev.location)} (d6 {rolls})"
    over = f", {ev.overkill} overkill" if ev.overkill else ""
    return text + f"hit{where}, {ev.damage} damage{over}"


def _describe_game_end(ev: GameEnd) -> str:
    result = f"{ev.winner} wins {REASONS.get(ev.reason, ev.reason)}" if ev.winner else "draw"
    rounds = f"after round {ev.rounds}" if ev.rounds else "(rounds not logged)"
    vp = f"blue {ev.blue_vp} VP, red {ev.red_vp} VP" if ev.blue_vp is not None else "VP not logged"
    return f"Game over {rounds}: {result} ({vp})"


#: Each event type in words (dispatched by :func:`~pmim_analytics.model.events.dispatch`).
_DESCRIBE: dict[str, Callable[[Any], str]] = {
    "deploy": lambda ev: f"{ev.unit} deploys at {_hex(ev.hex)}",
    "round_start": lambda ev: f"Round {ev.round} ({ev.first} activates first)",
    "first_player": lambda ev: (f"{ev.side} deploys and activates first in round 1 (first player: {ev.setting}"
                                + (f", drawn with a d6 of {ev.die}" if ev.die is not None else "") + ")"),
    "activate": lambda ev: f"{ev.unit} activates",
    "move": lambda ev: f"{ev.unit} moves {_hex(ev.from_hex)} -> {_hex(ev.to_hex)} ({ev.path} hexes)",
    "attack": lambda ev: describe_attack(ev),
    "location_destroyed": lambda ev: f"{ev.unit} loses its {LOCATION_NAMES.get(ev.location, ev.location)}",
    "immobilized": lambda ev: f"{ev.unit} is immobilized",
    "disarmed": lambda ev: f"{ev.unit} is disarmed",
    "unit_destroyed": lambda ev: f"{ev.unit} is destroyed" + (f" by {ev.by}" if ev.by else ""),
    "vp": lambda ev: (f"VP to {ev.side} for objective {ev.objective} "
                      f"(blue: {' '.join(ev.blue) or '-'}; red: {' '.join(ev.red) or '-'})"),
    "round_end": lambda ev: f"End of round {ev.round}: blue {ev.blue_vp} VP, red {ev.red_vp} VP",
    "game_end": _describe_game_end,
    "initiative_roll": lambda ev: (f"Initiative: blue rolls {ev.blue_roll}, red rolls {ev.red_roll}"
                                   + (f": {ev.first} goes first" if ev.first else ": a tie, roll again")),
    "overheat_roll": lambda ev: (f"{ev.unit} runs {ev.excess} heat over its rating firing {ev.weapon}: d6 "
                                 f"{ev.result}, " + ("the weapon overheats" if ev.overheated else "no overheat")),
    "weapon_lost": lambda ev: (f"{ev.unit}'s {ev.weapon} ({ev.mount}) blows up and hits its own "
                               f"{LOCATION_NAMES.get(ev.location, ev.location)} (d6 "
                               f"{','.join(map(str, ev.location_rolls))}), {ev.damage} damage"
                               + (f", {ev.overkill} overkill" if ev.overkill else "")),
    "rush": lambda ev: f"{ev.unit} rushes {_hex(ev.from_hex)} -> {_hex(ev.to_hex)} ({ev.path} hexes, no attack)",
}


def describe_event(ev: Event) -> str:
    """One event in words, without indentation (a deployment is ``B:TW1 deploys at 3,12``)."""
    return dispatch(_DESCRIBE, ev, default=lambda e: e.type)


#: How far each type of event is indented under its round and activation.
_INDENT: dict[str, int] = {"activate": 2, "move": 4, "attack": 4, "location_destroyed": 6, "immobilized": 6,
                           "disarmed": 6, "unit_destroyed": 6, "vp": 2}

#: Where the play-by-play words an event otherwise than :func:`describe_event`: a move
#: leaves out the unit, named on its activation line just above.
_PLAY_TEXT: dict[str, Callable[[Any], str]] = {
    "move": lambda ev: describe_event(ev).removeprefix(f"{ev.unit} "),
}


def iter_play_by_play(game: GameRecord, round_no: int | None = None) -> Iterator[str]:
    """The play-by-play lines of a game, or only of round ``round_no`` (0 = deployment)."""
    yield from describe_header(game)
    deploy: list[str] = []
    for ev in game.events:
        if round_no is not None and ev.round != round_no and ev.type != "game_end":
            continue
        if isinstance(ev, Deploy):  # the deployments are gathered on one line
            deploy.append(f"{ev.unit} {_hex(ev.hex)}")
            continue
        if deploy:
            yield "Deployment: " + ", ".join(deploy)
            deploy = []
        yield " " * _INDENT.get(ev.type, 0) + dispatch(_PLAY_TEXT, ev, default=describe_event)
    if deploy:
        yield "Deployment: " + ", ".join(deploy)
