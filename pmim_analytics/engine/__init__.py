"""The PMIM rules engine: hex grid, game state, rules resolution, bots and batch runner.

A fixed :class:`GameSpec` (rules version, scenario, two rosters) builds a mutable
:class:`GameState` that answers ``legal_actions()``, takes ``apply(action)`` and says which
dice it needs; :func:`play_game` is the driver that rolls them from a seeded generator and
asks the bots (:mod:`pmim_analytics.engine.bots`) for their moves; :func:`run_batch` plays
many games on a process pool. Rules decisions are documented in ``docs/rules-notes.md``.
"""

from pmim_analytics.engine.actions import ActivateUnit, EndActivation, FireWeapon, MoveUnit, PlaceUnit, parse_action
from pmim_analytics.engine.batch import BatchSpec, play_part, run_batch
from pmim_analytics.engine.dice import game_seed_sequence
from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.hexgrid import Hex, HexGrid
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameResult, GameState

__all__ = [
    "ActivateUnit",
    "BatchSpec",
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
    "play_part",
    "run_batch",
]
