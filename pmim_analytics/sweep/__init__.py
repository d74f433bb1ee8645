"""Sweeps: round-robins of compositions under rules versions, played as resumable batches.

:func:`load_sweep` reads a sweep file and plans its pairings; :func:`run_sweep` plays what
is not yet in the output folder on a backend (local pool or Ray).
"""

from pmim_analytics.sweep.run import SweepResult, pairing_folder, read_manifest, run_sweep
from pmim_analytics.sweep.spec import Pairing, Sweep, SweepFile, load_sweep, pairing_seed

__all__ = ["Pairing", "Sweep", "SweepFile", "SweepResult", "load_sweep", "pairing_folder", "pairing_seed",
           "read_manifest", "run_sweep"]
