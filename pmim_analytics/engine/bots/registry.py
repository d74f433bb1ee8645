"""Every bot by name: :data:`BOTS` (a new bot is added here)."""

from __future__ import annotations

from pmim_analytics.engine.bots.base import Bot
from pmim_analytics.engine.bots.greedy import GreedyBot
from pmim_analytics.engine.bots.random_bot import RandomBot
from pmim_analytics.engine.bots.search import SearchBot
from pmim_analytics.engine.bots.tactician import TacticianBot

#: Every bot by name.
BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, GreedyBot, TacticianBot, SearchBot)}
