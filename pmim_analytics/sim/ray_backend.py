"""The Ray backend: part jobs as Ray tasks, on a local Ray instance or a cluster.

Each :class:`~pmim_analytics.sim.batch.PartJob` (by default 100 games, a couple of
seconds of play -- far above Ray's per-task cost) is one task. A task plays its chunk into a
private temporary folder on whichever node runs it and returns the outcomes and the bytes
of the part's files; the driver writes them into the output folder (temporary name, then
rename). So the output folder need only exist where ``pmim`` runs, and a task that Ray
retries after a crash (``max_retries``) or a transient ``OSError`` cannot leave a
duplicate or half a part: only the driver writes, once per finished job, and the same
part index always holds the same games.

Ray is imported only when this backend is chosen; it is the ``distributed`` extra.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import uuid
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import Any

from pmim_analytics.errors import PmimError
from pmim_analytics.sim.base import JobResult, output_folders, remove_temporaries
from pmim_analytics.sim.batch import GameOutcome, PartJob

#: Attempts after the first when a task's worker dies or it raises ``OSError``.
MAX_RETRIES = 3
PartFiles = list[tuple[str, bytes]]


def import_ray() -> Any:
    """The ``ray`` module. Raises :class:`PmimError` if it is not installed."""
    try:
        import ray
    except ImportError:
        raise PmimError("the Ray backend needs Ray: pip install 'pmim-analytics[distributed]'") from None
    return ray


def play_detached(job: PartJob) -> tuple[list[GameOutcome], PartFiles]:
    """Play ``job`` in a private temporary folder; return its outcomes and its files' (name, bytes).

    What a Ray task runs; nothing is written under ``job.out``.
    """
    if job.out is None:
        return job.play(), []
    with tempfile.TemporaryDirectory(prefix="pmim-part-") as tmp:
        local = dataclasses.replace(job, out=Path(tmp))
        outcomes = local.play()
        files = [(path.name, path.read_bytes()) for path in local.files()]
    return outcomes, files


def write_files(folder: Path, files: PartFiles) -> None:
    """Write each (name, bytes) under ``folder``: a unique temporary name, then a rename, in order."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files:
        path = folder / name
        tmp = folder / f"{name}.{uuid.uuid4().hex[:8]}.tmp"
        try:
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


class RayBackend:
    """Runs part jobs as Ray tasks (a context manager: connects on enter, disconnects on exit).

    Without ``address`` it starts a private local Ray instance with ``workers`` CPUs; with
    ``address`` (``auto``, ``ray://host:10001``) it joins that cluster and uses all of it.
    If Ray is already initialised in this process (a test fixture, a notebook) it is used
    as it is and left running. ``task`` is what each Ray task runs (tests inject faults).
    """

    name = "ray"

    def __init__(self, workers: int = 1, address: str | None = None, max_retries: int = MAX_RETRIES,
                 task: Callable[[PartJob], tuple[list[GameOutcome], PartFiles]] = play_detached) -> None:
        self.workers = workers
        self.address = address
        self.max_retries = max_retries
        self.task = task
        self._ray: Any = None
        self._started = False

    def __repr__(self) -> str:
        return f"RayBackend(workers={self.workers}, address={self.address!r})"

    def __enter__(self) -> RayBackend:
        ray = import_ray()
        if not ray.is_initialized():
            try:
                if self.address is None:
                    # "local": a new private instance even if a cluster runs here (or left its address file)
                    ray.init(address="local", num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                             configure_logging=False)
                elif self.address.startswith("ray://"):  # Ray Client: forward nothing the server need not know
                    ray.init(address=self.address)
                else:
                    ray.init(address=self.address, log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = f"the Ray cluster at {self.address!r}" if self.address else "a local Ray instance"
                raise PmimError(f"cannot start or reach {where}: {e}") from None
            self._started = True
        self._ray = ray
        return self

    def __exit__(self, *exc: object) -> None:
        if self._started and self._ray is not None:
            self._ray.shutdown()
        self._started = False

    def cluster_cpus(self) -> int:
        """CPUs of the Ray cluster (at least 1)."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def run(self, jobs: Sequence[PartJob]) -> Generator[JobResult, None, None]:
        """Run ``jobs`` as Ray tasks, a few per CPU in flight; yield each as its files are written.

        Raises the task's own :class:`PmimError` if a job fails for good, or a
        :class:`PmimError` naming the part if Ray gives up on it (worker lost after every retry).
        """
        if self._ray is None:
            raise PmimError("the Ray backend is used outside its `with` block")
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=self.max_retries, retry_exceptions=[OSError])(self.task)
        in_flight = 2 * self.cluster_cpus()
        queue = list(reversed(jobs))
        pending: dict[Any, PartJob] = {}
        try:
            while queue or pending:
                while queue and len(pending) < in_flight:
                    job = queue.pop()
                    pending[remote.remote(job)] = job
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    job = pending.pop(ref)
                    outcomes, files = self._result(ref, job)
                    if job.out is not None:
                        write_files(job.out, files)
                    yield job, outcomes
        except BaseException:
            for ref in pending:
                ray.cancel(ref)
            remove_temporaries(output_folders(jobs))
            raise

    def _result(self, ref: Any, job: PartJob) -> tuple[list[GameOutcome], PartFiles]:
        ray = self._ray
        try:
            got: tuple[list[GameOutcome], PartFiles] = ray.get(ref)
            return got
        except ray.exceptions.RayTaskError as e:
            if isinstance(e.cause, PmimError):
                raise e.cause from None
            raise PmimError(f"part {job.part} (games {job.start}-{job.stop - 1}) failed on Ray: "
                            f"{type(e.cause).__name__}: {e.cause}") from None
        except ray.exceptions.RayError as e:
            raise PmimError(f"part {job.part} (games {job.start}-{job.stop - 1}) failed on Ray after "
                            f"{self.max_retries + 1} attempts: {type(e).__name__}") from None
