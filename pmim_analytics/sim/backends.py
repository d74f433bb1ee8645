"""Where batch jobs run: the local process pool, or Ray (:mod:`pmim_analytics.sim.ray_backend`).

A backend takes a list of :class:`~pmim_analytics.sim.batch.PartJob` and yields
``(job, outcomes)`` as each job finishes, in whatever order they finish; every job has
written its files by the time it is yielded. A job's games depend only on the job, so the
backend and its number of workers change how fast a batch is played, never what is in it.

If the consumer stops early (Ctrl-C, an exception, ``close()`` on the generator), the
backend stops the jobs still running after their current game, writes nothing more and
removes temporary files: the output folders hold only complete parts.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import AbstractContextManager
from itertools import islice
from typing import Any

from pmim_analytics.errors import PmimError
from pmim_analytics.lifeline import die_with_parent
from pmim_analytics.replay.rules_check import exit_with_parent
from pmim_analytics.sim.base import Backend, JobResult, output_folders, remove_temporaries
from pmim_analytics.sim.batch import GameOutcome, PartJob

__all__ = ["BACKENDS", "Backend", "JobResult", "LocalBackend", "open_backend", "output_folders",
           "remove_temporaries"]

BACKENDS = ("local", "ray")


_STOP: Any = None  # in pool workers: the run's stop event


def _init_worker(stop: Any, parent: int | None = None) -> None:
    """Pool workers leave Ctrl-C to the parent, which tells them to stop through ``stop``, and
    exit when the parent is killed outright: at once through the kernel's parent-death signal
    when the pool was started from the parent's main thread (its process id is ``parent``),
    and by watching it in every case."""
    global _STOP
    if parent is not None:
        die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()
    _STOP = stop


def _play_in_worker(job: PartJob) -> list[GameOutcome]:
    return job.play(should_stop=_STOP.is_set if _STOP else None)


class LocalBackend:
    """A process pool of ``workers`` processes on this machine (in-process with one worker).

    The workers are forked, so a job must not use Polars in them: a forked copy of a process
    that has used Polars' thread pool can wait forever on it. Jobs play and write games; the
    parent turns their results into frames (as :func:`pmim_analytics.botlab.ladder.play_ladder` does).
    """

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise PmimError(f"--workers must be at least 1, got {workers}")
        self.workers = workers

    def __repr__(self) -> str:
        return f"LocalBackend(workers={self.workers})"

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def run(self, jobs: Sequence[PartJob]) -> Generator[JobResult, None, None]:
        """Play ``jobs`` on the pool; yield each with its outcomes as it finishes."""
        try:
            if self.workers == 1 or len(jobs) <= 1:
                for job in jobs:
                    yield job, job.play()
                return
            yield from self._run_pool(jobs)
        except BaseException:
            remove_temporaries(output_folders(jobs))
            raise

    def _run_pool(self, jobs: Sequence[PartJob]) -> Iterator[JobResult]:
        ctx = multiprocessing.get_context("fork")
        stop_event = ctx.Event()
        # the parent-death signal follows the thread that forks: only the main thread lives as long as we do
        parent = os.getpid() if threading.current_thread() is threading.main_thread() else None
        with ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=_init_worker,
                                 initargs=(stop_event, parent)) as pool:
            pending: dict[Future[list[GameOutcome]], PartJob] = {}
            queue = iter(jobs)
            try:
                # a few jobs per worker in flight, the rest submitted as those finish: a long
                # batch never holds every part's work and results at once
                for job in islice(queue, 2 * self.workers):
                    pending[pool.submit(_play_in_worker, job)] = job
                while pending:
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        job = pending.pop(fut)
                        for nxt in islice(queue, 1):
                            pending[pool.submit(_play_in_worker, nxt)] = nxt
                        yield job, fut.result()
            except BaseException:
                stop_event.set()
                pool.shutdown(wait=True, cancel_futures=True)
                raise


def open_backend(name: str = "local", workers: int = 1, address: str | None = None) -> AbstractContextManager[Any]:
    """The backend called ``name`` as a context manager (Ray connects on enter, disconnects on exit).

    ``workers`` is the pool size, or the CPUs of a local Ray instance; ``address`` (Ray only)
    is ``auto`` or ``ray://host:port`` of a running cluster. Raises :class:`PmimError` for an
    unknown backend, a bad worker count, an address without Ray, or Ray not installed.
    """
    if name not in BACKENDS:
        raise PmimError(f"unknown backend {name!r}; choose local or ray")
    if workers < 1:
        raise PmimError(f"--workers must be at least 1, got {workers}")
    if name == "local":
        if address is not None:
            raise PmimError("--address needs --backend ray")
        return LocalBackend(workers)
    from pmim_analytics.sim.ray_backend import RayBackend

    return RayBackend(workers=workers, address=address)
