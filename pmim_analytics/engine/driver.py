"""The game driver: the only place dice are rolled. Plays a game and records it.

:func:`play_game` runs bots against each other on a :class:`GameSpec` with a seed and
returns the whole game as a :class:`~pmim_analytics.model.record.GameRecord` (header and
events), ready to be written as JSON Lines or Parquet.
"""

from __future__ import annotations

import datetime as dt

from pmim_analytics.engine.bots import Bot, BotSpec, make_bot, parse_bot_spec
from pmim_analytics.engine.bots.skill import SkillCounter
from pmim_analytics.engine.checks import OVER
from pmim_analytics.engine.dice import Dice, game_streams, optional_rule_dice
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameState
from pmim_analytics.errors import IllegalActionError
from pmim_analytics.model.events import Event
from pmim_analytics.model.record import GameHeader, GameRecord, compute_game_id, format_version_for
from pmim_analytics.model.vocab import BLUE, RED, SIDE_PREFIX

#: A game that takes more decisions than this is a bot that never ends its activations.
MAX_STEPS = 200_000


def run(spec: GameSpec, blue: Bot, red: Bot, dice: Dice, optional_dice: Dice | None = None) -> GameState:
    """Play one game to its end: bots decide, the dice answer the state's chance nodes.

    The optional rules' rolls (initiative, overheating) come from ``optional_dice`` (needed
    only when the rules have optional rules). Raises :class:`IllegalActionError` when a bot
    picks an illegal action or never ends.
    """
    state = GameState(spec)
    bots = (blue, red)
    steps = 0
    while state.phase != OVER:
        need = state.roll_needed()
        if need:
            if state.is_optional_roll():
                if optional_dice is None:
                    raise IllegalActionError("this game's optional rules need dice of their own")
                state.apply_roll(optional_dice.roll(need, state.roll_sides()))
            else:
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
                batch: str | None, played: str | None, events: list[Event], source: str = "engine") -> GameHeader:
    """The replay header of a finished game, its ``game_id`` computed from the content."""
    scen = spec.scenario
    optional = spec.rules.optional.settings() or None
    readings = spec.readings.settings() or None
    header = GameHeader(
        version=format_version_for(optional, readings), optional_rules=optional, readings=readings,
        game_id="", source=source, rules=spec.rules.id, scenario=scen.id, seed=seed, game_index=game_index,
        batch=batch, map={"columns": scen.map.columns, "rows": scen.map.rows, "layout": scen.map.layout},
        sides={"blue": side_record(spec, BLUE, bots[0]), "red": side_record(spec, RED, bots[1])},
        played=played,
    )
    game_id = compute_game_id(header.model_dump(mode="json"), events)
    return header.model_copy(update={"game_id": game_id})


def play_game(spec: GameSpec, blue_bot: BotSpec | str, red_bot: BotSpec | str, seed: int, game_index: int = 0,
              batch: str | None = None, played: str | None = None) -> GameRecord:
    """Play game ``game_index`` of the batch seeded ``seed`` and return its record.

    The bots are bot specs or their text (``search:budget=400``); the header records each
    one's canonical label. ``played`` defaults to today's date (ISO). Raises
    :class:`UnknownNameError` / :class:`BotSpecError` for a bad bot spec and
    :class:`IllegalActionError` if a bot misbehaves.
    """
    blue_spec, red_spec = parse_bot_spec(str(blue_bot)), parse_bot_spec(str(red_bot))
    dice, blue_rng, red_rng = game_streams(seed, game_index)
    extra = optional_rule_dice(seed, game_index) if not spec.rules.optional.is_empty() else None
    state = run(spec, make_bot(blue_spec, blue_rng), make_bot(red_spec, red_rng), dice, extra)
    played = played if played is not None else dt.date.today().isoformat()
    header = make_header(spec, (blue_spec.label(), red_spec.label()), seed, game_index, batch, played,
                         state.events)
    return GameRecord(header, tuple(state.events))


__all__ = ["BLUE", "RED", "make_header", "play_game", "run", "side_record"]


def game_departures(spec: GameSpec, bots: tuple[str, str], side: int, seed: int, game_index: int) -> SkillCounter:
    """Activations and departures from its own choice of the skill bot on ``side`` (0 blue, 1
    red) in game ``game_index`` of ``spec`` with ``bots`` (blue's, red's), seeded like a batch;
    no counts when that bot has no skill setting."""
    dice, blue_rng, red_rng = game_streams(seed, game_index)
    extra = optional_rule_dice(seed, game_index) if not spec.rules.optional.is_empty() else None
    players = (make_bot(bots[0], blue_rng), make_bot(bots[1], red_rng))
    run(spec, players[0], players[1], dice, extra)
    counter = getattr(players[side], "skill_counter", None)
    return counter if isinstance(counter, SkillCounter) else SkillCounter()


def departure_counts(spec: GameSpec, bot: str, opponent: str, seed: int, games: int) -> SkillCounter:
    """Activations and departures of ``bot`` (a skill bot spec) over ``games`` games against
    ``opponent`` on ``spec``, the bot blue in even games and red in odd ones (seeded like a batch)."""
    total = SkillCounter()
    for i in range(games):
        total.add(game_departures(spec, (bot, opponent) if i % 2 == 0 else (opponent, bot), i % 2, seed, i))
    return total
