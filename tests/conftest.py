"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

# OpenBLAS starts a thread per core for every matrix product. The suite's matrices are small
# (a bootstrap's 25 x 25 solves) and its workers already fill the cores, so those threads only
# spin: a cost fit took 3 times the CPU with them. One thread each, set before numpy loads
# (pmim processes the tests start inherit it). Polars' thread pool likewise: with one thread
# tests/analytics and tests/report took 35.4-36.2 CPU-s instead of 37.6-40.4 (results are the
# same; Polars reads the setting when it loads).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "POLARS_MAX_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from pmim_analytics.rules.catalogue import REPO_ROOT, clear_caches  # noqa: E402

# No test may fail on time: a property test's examples have no deadline and may be slow
# (a busy machine runs them several times slower); the number of examples stays each test's own.
settings.register_profile("pmim", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pmim")

DATA = REPO_ROOT / "data"


def pytest_configure(config: pytest.Config) -> None:
    """The session's own installation key (never the user's): fixtures sign with it."""
    import tempfile

    os.environ["PMIM_KEY_FILE"] = str(Path(tempfile.mkdtemp(prefix="pmim-key-")) / "install.key")
    # A shell that starts `make test` in the background (`make test &`, nohup) ignores Ctrl-C
    # in it, and every pmim the Ctrl-C tests start would inherit that: give them Python's own.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
ARMIES = DATA / "armies"


@pytest.fixture
def data_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private copy of data/ that a test may break; PMIM_DATA points at it."""
    dst = tmp_path / "data"
    shutil.copytree(DATA, dst, ignore=shutil.ignore_patterns("*.duckdb*"))
    monkeypatch.setenv("PMIM_DATA", str(dst))
    clear_caches()
    yield dst
    clear_caches()


@pytest.fixture(autouse=True)
def _no_stray_env(monkeypatch: pytest.MonkeyPatch) -> None:
    if "PMIM_DATA" in os.environ and not os.environ["PMIM_DATA"]:
        monkeypatch.delenv("PMIM_DATA")


@pytest.fixture(scope="session")
def small_demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small demo database (read it, don't write it): 3 v3 armies round-robin under v3 and
    v3-llaser-rpt4, 6 games a pairing, plus the playtest and sample logs. Built once per run."""
    from pmim_analytics.demo import DemoPlan, build_demo

    root = tmp_path_factory.mktemp("small-demo")
    db = root / "demo.duckdb"
    build_demo(db, root / "replays", plans=(DemoPlan(("v3", "v3-llaser-rpt4"),
                                                     ("v3-balanced", "v3-tank-heavy", "v3-fast-gev"), 6),),
               random_plans=(), workers=1)
    return db


# -- longest work first under xdist; tests sharing a module fixture together (tests/support/longest_first.py)
_recorder = None
_groups_dir: Path | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    global _recorder
    from tests.support.longest_first import Recorder

    if not hasattr(session.config, "workerinput"):
        _recorder = Recorder()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # noqa: ANN001 (an xdist WorkerController)
    """The controller tells each xdist worker the modules' seconds from the last run."""
    from tests.support.longest_first import GROUPS_KEY, WORKER_KEY, WORKER_TEST_KEY, last_seconds, last_test_seconds

    seconds = last_seconds(node.config)
    if seconds is not None:
        node.workerinput[WORKER_KEY] = seconds
        node.workerinput[WORKER_TEST_KEY] = last_test_seconds(node.config)
    if node.config.getoption("dist") == "loadgroup":
        node.workerinput[GROUPS_KEY] = str(_groups_folder() / f"{node.gateway.id}.json")


def _groups_folder() -> Path:
    """On the controller: where the workers write the groups they found (made once per run)."""
    global _groups_dir
    if _groups_dir is None:
        import tempfile

        _groups_dir = Path(tempfile.mkdtemp(prefix="pmim-xdist-groups-"))
    return _groups_dir


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # noqa: ANN001, ANN201 (xdist's types)
    """``--dist loadgroup`` with the groups the workers found (see longest_first.make_scheduler)."""
    if config.getoption("dist") != "loadgroup":
        return None
    from tests.support.longest_first import make_scheduler

    return make_scheduler(config, log, _groups_folder())


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from tests.support.longest_first import (
        GROUPS_KEY,
        WORKER_KEY,
        WORKER_TEST_KEY,
        group_by_shared_fixtures,
        longest_first,
        write_groups,
    )

    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return
    if getattr(config.option, "loadgroup", False):  # xdist sets it on a worker of --dist loadgroup
        group_by_shared_fixtures(items)
        if GROUPS_KEY in workerinput:
            write_groups(items, workerinput[GROUPS_KEY])
    seconds = workerinput.get(WORKER_KEY)
    if seconds is not None:
        items[:] = longest_first(items, seconds, workerinput.get(WORKER_TEST_KEY))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _recorder is not None:
        _recorder.add(report)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _recorder is not None:
        _recorder.save(session.config)
    if _groups_dir is not None:
        shutil.rmtree(_groups_dir, ignore_errors=True)
