"""Batches of engine games: a matchup played many times on a backend, written as replay files.

Above the engine (it plays games) and the replay formats (it writes them): a
:class:`~pmim_analytics.sim.batch.BatchSpec` is run by :func:`~pmim_analytics.sim.runner.run_batch`
on a local process pool or Ray (:mod:`pmim_analytics.sim.backends`).
"""

from pmim_analytics.model.events import FIRST_PLAYER_SETTINGS
from pmim_analytics.sim.backends import LocalBackend, open_backend
from pmim_analytics.sim.batch import BatchSpec, PartJob, play_part
from pmim_analytics.sim.runner import run_batch

#: What each first-player setting means, for the CLI's ``--first-player`` and the dashboard.
FIRST_PLAYER_HELP = ("Who activates first: alternate (blue in odd rounds, red in even), blue, red, or random "
                     "(a die before deployment picks round 1's first side, then the rounds alternate).")

__all__ = ["FIRST_PLAYER_HELP", "FIRST_PLAYER_SETTINGS", "BatchSpec", "LocalBackend", "PartJob", "open_backend",
           "play_part", "run_batch"]
