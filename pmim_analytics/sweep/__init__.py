"""Sweeps: round-robins of compositions under rules versions, played as resumable batches.

:func:`load_sweep` reads a sweep file and plans its pairings; :func:`run_sweep` plays what
is not yet in the output folder on a backend (local pool or Ray).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pmim_analytics.lazy import load_attribute

if TYPE_CHECKING:
    from pmim_analytics.sweep.run import SweepResult, pairing_folder, read_manifest, run_sweep
    from pmim_analytics.sweep.spec import Pairing, Sweep, SweepFile, load_sweep, pairing_seed

#: Where each name lives. They load on first use, so that reading and checking a sweep file
#: (:mod:`.spec`) does not load the runner, Arrow and the pool (:mod:`.run`) first.
_HOMES = {
    "SweepResult": "pmim_analytics.sweep.run", "pairing_folder": "pmim_analytics.sweep.run",
    "read_manifest": "pmim_analytics.sweep.run", "run_sweep": "pmim_analytics.sweep.run",
    "Pairing": "pmim_analytics.sweep.spec", "Sweep": "pmim_analytics.sweep.spec",
    "SweepFile": "pmim_analytics.sweep.spec", "load_sweep": "pmim_analytics.sweep.spec",
    "pairing_seed": "pmim_analytics.sweep.spec",
}


def __getattr__(name: str) -> Any:
    return load_attribute(__name__, _HOMES, name)


__all__ = ["Pairing", "Sweep", "SweepFile", "SweepResult", "load_sweep", "pairing_folder", "pairing_seed",
           "read_manifest", "run_sweep"]
