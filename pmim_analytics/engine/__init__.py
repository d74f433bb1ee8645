"""The PMIM rules engine: game state, rules resolution, bots, the driver and replay verification.

A fixed :class:`GameSpec` (rules version, scenario, two rosters) builds a mutable
:class:`GameState` that answers ``legal_actions()``, takes ``apply(action)`` and says which
dice it needs; :func:`play_game` is the driver that rolls them from a seeded generator and
asks the bots (:mod:`pmim_analytics.engine.bots`) for their moves;
:func:`~pmim_analytics.engine.verify.verify_game` replays a recorded game through the same
state. Batches of games are :mod:`pmim_analytics.sim`. Rules decisions are documented in
``docs/rules-notes.md``.
"""

from pmim_analytics.engine.actions import ActivateUnit, EndActivation, FireWeapon, MoveUnit, PlaceUnit, parse_action
from pmim_analytics.engine.dice import game_seed_sequence
from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameResult, GameState
from pmim_analytics.model.hexes import Hex, HexGrid

__all__ = [
    "ActivateUnit",
    "EndActivation",
    "FireWeapon",
    "GameResult",
    "GameSpec",
    "GameState",
    "Hex",
    "HexGrid",
    "MoveUnit",
    "PlaceUnit",
    "game_seed_sequence",
    "parse_action",
    "play_game",
]
