"""What every backend shares: the :class:`Backend` protocol, its result type and the clean-up of
cut-short writes. The local pool (:mod:`pmim_analytics.sim.backends`) and Ray
(:mod:`pmim_analytics.sim.ray_backend`) both build on it, so Ray's
module needs nothing from the local one's."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Protocol

from pmim_analytics.sim.batch import GameOutcome, PartJob

JobResult = tuple[PartJob, list[GameOutcome]]


class Backend(Protocol):
    """Runs part jobs and yields each with its outcomes as it finishes."""

    name: str

    def run(self, jobs: Sequence[PartJob]) -> Generator[JobResult, None, None]:
        """Run ``jobs``; yield ``(job, outcomes)`` in completion order."""
        ...


def remove_temporaries(folders: set[Path]) -> None:
    """Delete ``*.tmp`` files left in ``folders`` by writes that were cut short."""
    for folder in folders:
        if folder.is_dir():
            for tmp in folder.glob("*.tmp"):
                tmp.unlink(missing_ok=True)


def output_folders(jobs: Sequence[PartJob]) -> set[Path]:
    """The folders ``jobs`` write into."""
    return {job.out for job in jobs if job.out is not None}
