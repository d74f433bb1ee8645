"""The PMIM rules engine: game state, rules resolution, bots, the driver and replay verification.

A fixed :class:`GameSpec` (rules version, scenario, two rosters) builds a mutable
:class:`GameState` that answers ``legal_actions()``, takes ``apply(action)`` and says which
dice it needs; :func:`play_game` is the driver that rolls them from a seeded generator and
asks the bots (:mod:`pmim_analytics.engine.bots`) for their moves;
:func:`~pmim_analytics.engine.verify.verify_game` replays a recorded game through the same
state. Batches of games are :mod:`pmim_analytics.sim`. Rules decisions are documented in
``docs/rules-notes.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pmim_analytics.lazy import load_attribute

if TYPE_CHECKING:
    from pmim_analytics.engine.actions import (
        ActivateUnit,
        EndActivation,
        FireWeapon,
        MoveUnit,
        PlaceUnit,
        parse_action,
    )
    from pmim_analytics.engine.dice import game_seed_sequence
    from pmim_analytics.engine.driver import play_game
    from pmim_analytics.engine.spec import GameSpec
    from pmim_analytics.engine.state import GameResult, GameState
    from pmim_analytics.model.hexes import Hex, HexGrid

#: Where each name of the package lives. They load on first use, so that importing one engine
#: module (the manual-log reader needs only ``engine.movement``) does not load the bots, the
#: driver and NumPy: ``pmim log ...`` refuses a bad file in a fraction of the start-up.
_HOMES = {
    "ActivateUnit": "pmim_analytics.engine.actions", "EndActivation": "pmim_analytics.engine.actions",
    "FireWeapon": "pmim_analytics.engine.actions", "MoveUnit": "pmim_analytics.engine.actions",
    "PlaceUnit": "pmim_analytics.engine.actions", "parse_action": "pmim_analytics.engine.actions",
    "game_seed_sequence": "pmim_analytics.engine.dice", "play_game": "pmim_analytics.engine.driver",
    "GameSpec": "pmim_analytics.engine.spec", "GameResult": "pmim_analytics.engine.state",
    "GameState": "pmim_analytics.engine.state", "Hex": "pmim_analytics.model.hexes",
    "HexGrid": "pmim_analytics.model.hexes",
}


def __getattr__(name: str) -> Any:
    return load_attribute(__name__, _HOMES, name)


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
