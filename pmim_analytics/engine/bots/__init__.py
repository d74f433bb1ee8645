"""Bots: players outside the game state, named by a bot spec such as ``search:budget=400``.

A new bot is one :class:`~pmim_analytics.engine.bots.base.Bot` subclass in its own file,
added to :data:`~pmim_analytics.engine.bots.registry.BOTS`; its settings are declared in ``params`` (see
:mod:`pmim_analytics.engine.bots.spec` for the spec syntax).
"""

from __future__ import annotations

import random

from pmim_analytics.engine.bots.base import Bot, Param
from pmim_analytics.engine.bots.persona import DEFAULT_PERSONA, Persona, load_persona, persona_names
from pmim_analytics.engine.bots.registry import BOTS
from pmim_analytics.engine.bots.spec import BotSpec, bot_options, parse_bot_spec


def bot_names() -> list[str]:
    """The names of every bot, sorted."""
    return sorted(BOTS)


def check_bot_name(text: str) -> str:
    """The canonical label of the bot spec ``text`` (``search`` -> ``search:budget=...``).

    Raises :class:`~pmim_analytics.errors.UnknownNameError` for an unknown bot or persona and
    :class:`~pmim_analytics.errors.BotSpecError` for a bad setting (see :func:`parse_bot_spec`).
    """
    return parse_bot_spec(text).label()


def make_bot(spec_or_text: BotSpec | str, rng: random.Random) -> Bot:
    """A new bot as the spec (or its text) says; raises like :func:`parse_bot_spec`."""
    spec = parse_bot_spec(str(spec_or_text))
    return BOTS[spec.name](rng, **bot_options(spec))


__all__ = ["BOTS", "DEFAULT_PERSONA", "Bot", "BotSpec", "Param", "Persona", "bot_names", "check_bot_name",
           "load_persona", "make_bot", "parse_bot_spec", "persona_names"]
