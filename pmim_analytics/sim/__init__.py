"""Batches of engine games: a matchup played many times on a backend, written as replay files.

Above the engine (it plays games) and the replay formats (it writes them): a
:class:`~pmim_analytics.sim.batch.BatchSpec` is run by :func:`~pmim_analytics.sim.runner.run_batch`
on a local process pool or Ray (:mod:`pmim_analytics.sim.backends`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pmim_analytics.lazy import load_attribute

if TYPE_CHECKING:
    from pmim_analytics.model.events import FIRST_PLAYER_SETTINGS
    from pmim_analytics.sim.backends import LocalBackend, open_backend
    from pmim_analytics.sim.batch import BatchSpec, PartJob, play_part
    from pmim_analytics.sim.runner import run_batch

#: What each first-player setting means, for the CLI's ``--first-player`` and the dashboard.
FIRST_PLAYER_HELP = ("Who activates first: alternate (blue in odd rounds, red in even), blue, red, or random "
                     "(a die before deployment picks round 1's first side, then the rounds alternate).")

#: Where each name lives. They load on first use, so that a light module of the package
#: (:mod:`.parts`) does not load the engine, the pool and NumPy first.
_HOMES = {
    "FIRST_PLAYER_SETTINGS": "pmim_analytics.model.events", "LocalBackend": "pmim_analytics.sim.backends",
    "open_backend": "pmim_analytics.sim.backends", "BatchSpec": "pmim_analytics.sim.batch",
    "PartJob": "pmim_analytics.sim.batch", "play_part": "pmim_analytics.sim.batch",
    "run_batch": "pmim_analytics.sim.runner",
}


def __getattr__(name: str) -> Any:
    return load_attribute(__name__, _HOMES, name)


__all__ = ["FIRST_PLAYER_HELP", "FIRST_PLAYER_SETTINGS", "BatchSpec", "LocalBackend", "PartJob", "open_backend",
           "play_part", "run_batch"]
