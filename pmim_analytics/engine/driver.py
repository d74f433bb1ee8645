"""The game driver: the only place dice are rolled. Plays a game and records it.

:func:`play_game` runs bots against each other on a :class:`GameSpec` with a seed and
returns the whole game as a :class:`~pmim_analytics.model.record.GameRecord` (header and
events), ready to be written as JSON Lines or Parquet.
"""

from __future__ import annotations

import datetime as dt

from pmim_analytics.engine.bots import Bot, make_bot
from pmim_analytics.engine.dice import Dice, game_streams
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import OVER, GameState
from pmim_analytics.errors import IllegalActionError
from pmim_analytics.model.record import GameHeader, GameRecord, compute_game_id
from pmim_analytics.model.vocab import BLUE, RED, SIDE_PREFIX

#: A game that takes more decisions than this is a bot that never ends its activations.
MAX_STEPS = 200_000


def run(spec: GameSpec, blue: Bot, red: Bot, dice: Dice) -> GameState:
    """Play one game to its end: bots decide, the dice answer the state's chance nodes.

    Raises :class:`IllegalActionError` when a bot picks an illegal action or never ends.
    """
    state = GameState(spec)
    bots = (blue, red)
    steps = 0
    while state.phase != OVER:
        need = state.roll_needed()
        if need:
            state.apply_roll(dice.roll(need))
        else:
            state.apply(bots[state.to_act].choose(state))
        steps += 1
        if steps > MAX_STEPS:
            raise IllegalActionError(f"the game did not end after {MAX_STEPS} decisions (a bot never ends its turn)")
    return state


def side_record(spec: GameSpec, side: int, bot: str | None) -> dict[str, object]:
    """The header's description of one side: army, its hash and points, units with game ids."""
    roster = spec.roster(side)
    units = []
    for ru in roster.units:
        d = ru.as_dict()
        d["id"] = SIDE_PREFIX[side] + ru.id
        units.append(d)
    return {"name": roster.name, "bot": bot, "player": None, "army_hash": roster.content_hash(),
            "points": roster.points, "units": units}


def make_header(spec: GameSpec, bots: tuple[str | None, str | None], seed: int | None, game_index: int | None,
                batch: str | None, played: str | None, events: list, source: str = "engine") -> GameHeader:
    """The replay header of a finished game, its ``game_id`` computed from the content."""
    scen = spec.scenario
    header = GameHeader(
        game_id="", source=source, rules=spec.rules.id, scenario=scen.id, seed=seed, game_index=game_index,
        batch=batch, map={"columns": scen.map.columns, "rows": scen.map.rows, "layout": scen.map.layout},
        sides={"blue": side_record(spec, BLUE, bots[0]), "red": side_record(spec, RED, bots[1])},
        played=played,
    )
    game_id = compute_game_id(header.model_dump(mode="json"), events)
    return header.model_copy(update={"game_id": game_id})


def play_game(spec: GameSpec, blue_bot: str, red_bot: str, seed: int, game_index: int = 0,
              batch: str | None = None, played: str | None = None) -> GameRecord:
    """Play game ``game_index`` of the batch seeded ``seed`` and return its record.

    ``played`` defaults to today's date (ISO). Raises :class:`UnknownNameError` for an
    unknown bot and :class:`IllegalActionError` if a bot misbehaves.
    """
    dice, blue_rng, red_rng = game_streams(seed, game_index)
    state = run(spec, make_bot(blue_bot, blue_rng), make_bot(red_bot, red_rng), dice)
    played = played if played is not None else dt.date.today().isoformat()
    header = make_header(spec, (blue_bot, red_bot), seed, game_index, batch, played, state.events)
    return GameRecord(header, tuple(state.events))


__all__ = ["BLUE", "RED", "make_header", "play_game", "run", "side_record"]
