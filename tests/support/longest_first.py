"""Longest work first, so that the xdist workers finish together.

``make test`` runs ``--dist loadgroup``: a test that uses a module-scoped (or class-scoped)
fixture is put in its module's group (``xdist_group``), one that uses a session fixture of a
sub-folder's conftest in that folder's group, and a group goes to one worker whole, so the
fixture (a Streamlit server, a browser, a built database, a Ray instance) is made once; every
other test is a unit of its own and goes to whichever worker is free. xdist hands the units out in
collection order (with ``--no-loadscope-reorder``); a long unit handed out last leaves the
other workers idle until it ends. Here the controller passes the last run's seconds (per module
and per test, from pytest's cache) to the workers, and the workers collect the units longest
first. A figure the cache does not know comes from the files beside this one (a whole run's
seconds per module, and per test for the tests of a second or more, kept in the repository so
that a fresh clone, as CI runs it, starts with the long work too); a test without a figure of
its own gets an equal share of what its module's figure leaves; a module without a figure
counts ``MARKED_GUESS_S`` when a test in it is marked slow or browser, else a second per test.
Only the order and the grouping change, never which tests run; a run without the cache
(``-p no:cacheprovider``) keeps the collection order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

CACHE_KEY = "pmim/module-seconds"
TEST_CACHE_KEY = "pmim/test-seconds"
#: A whole ``make test`` run's seconds per module (refresh: copy .pytest_cache/v/pmim/module-seconds here).
RECORDED = Path(__file__).with_name("module_seconds.json")
#: The same run's seconds per test, for the tests of at least ``RECORDED_TEST_MIN_S``.
RECORDED_TESTS = Path(__file__).with_name("test_seconds.json")
RECORDED_TEST_MIN_S = 1.0
WORKER_KEY = "pmim_module_seconds"
WORKER_TEST_KEY = "pmim_test_seconds"
MARKED_GUESS_S = 120.0
MARKS = ("slow", "browser")
SHARED_SCOPES = ("module", "class", "package")


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def plain_nodeid(nodeid: str) -> str:
    """The test's id without the ``@group`` that ``--dist loadgroup`` appends (xdist's own rule:
    an ``@`` after the last ``]``, so that a parameter holding an ``@`` is left alone)."""
    return nodeid[:nodeid.rfind("@")] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid


def shared_group(item: pytest.Item) -> str | None:
    """The group a test must run in with others, or None when it may go to any worker alone:
    its folder when it uses a session fixture of a sub-folder's conftest (one Ray instance for
    ``tests/sim/distributed``; the suite-wide ones of ``tests/conftest.py`` are made per worker), else
    its module when it uses a fixture made once per module or class (a server, a browser, a built
    database)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    group = None
    for defs in info.name2fixturedefs.values():
        fixture = defs[-1] if defs else None
        if fixture is None:
            continue
        if fixture.scope == "session" and "/" in fixture.baseid:
            return fixture.baseid
        if fixture.scope in SHARED_SCOPES:
            group = module_of(item.nodeid)
    return group


def group_by_shared_fixtures(items: list[pytest.Item]) -> None:
    """Mark each test that shares a fixture (:func:`shared_group`) with its group; a module with a
    test in a folder's group puts its other module-fixture users in that group too."""
    groups = {id(item): shared_group(item) for item in items}
    folder_of = {module_of(item.nodeid): group for item in items
                 if (group := groups[id(item)]) is not None and group != module_of(item.nodeid)}
    for item in items:
        group = groups[id(item)]
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(folder_of.get(group, group)))


def _group_of(item: pytest.Item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return None
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


def longest_first(items: list[pytest.Item], seconds: dict[str, float],
                  test_seconds: dict[str, float] | None = None) -> list[pytest.Item]:
    """``items`` as work units (an ``xdist_group`` whole, else one test), the units in decreasing
    cost (ties keep their order); a unit's tests keep their order."""
    test_seconds = test_seconds or {}
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(module_of(item.nodeid), []).append(item)

    def module_cost(name: str) -> float:
        if name in seconds:
            return seconds[name]
        marked = any(item.get_closest_marker(m) for item in modules[name] for m in MARKS)
        return MARKED_GUESS_S if marked else float(len(modules[name]))

    estimate: dict[int, float] = {}
    for name, its in modules.items():
        known = {id(i): test_seconds[plain_nodeid(i.nodeid)] for i in its if plain_nodeid(i.nodeid) in test_seconds}
        rest = [i for i in its if id(i) not in known]
        share = max(module_cost(name) - sum(known.values()), 0.0) / len(rest) if rest else 0.0
        estimate.update(known)
        estimate.update({id(i): share for i in rest})

    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        group = _group_of(item)
        units.setdefault(f"@{group}" if group is not None else item.nodeid, []).append(item)
    ordered = sorted(units.values(), key=lambda unit: sum(estimate[id(i)] for i in unit), reverse=True)
    return [item for unit in ordered for item in unit]


class Recorder:
    """On the controller: adds up each module's and each test's set-up, call and tear-down
    seconds and stores them in the cache at the end (what did not run keeps its last figure)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.test_seconds: dict[str, float] = defaultdict(float)

    def add(self, report: pytest.TestReport) -> None:
        nodeid = plain_nodeid(report.nodeid)
        self.seconds[module_of(nodeid)] += report.duration
        self.test_seconds[nodeid] += report.duration

    def save(self, config: pytest.Config) -> None:
        cache = getattr(config, "cache", None)
        if cache is None or not self.seconds:
            return
        for key, figures in ((CACHE_KEY, self.seconds), (TEST_CACHE_KEY, self.test_seconds)):
            known = dict(cache.get(key, {}))
            known.update({name: round(s, 2) for name, s in figures.items()})
            cache.set(key, known)


def _read(path: Path) -> dict[str, float]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in found.items()} if isinstance(found, dict) else {}


def recorded_seconds() -> dict[str, float]:
    """The per-module figures kept in the repository (none if the file is missing or unreadable)."""
    return _read(RECORDED)


def recorded_test_seconds() -> dict[str, float]:
    """The per-test figures kept in the repository (none if the file is missing or unreadable)."""
    return _read(RECORDED_TESTS)


def last_seconds(config: pytest.Config) -> dict[str, float] | None:
    """Each module's seconds: the last run's (pytest's cache) over the repository's recorded ones."""
    cache = getattr(config, "cache", None)
    return None if cache is None else {**recorded_seconds(), **cache.get(CACHE_KEY, {})}


def last_test_seconds(config: pytest.Config) -> dict[str, float] | None:
    """Each test's seconds, the same way (tests under a second are not in the repository's file)."""
    cache = getattr(config, "cache", None)
    return None if cache is None else {**recorded_test_seconds(), **cache.get(TEST_CACHE_KEY, {})}



# -- the groups on the controller ------------------------------------------------------------------
# xdist's own loadgroup appends "@group" to a grouped test's id on the worker (``item._nodeid``),
# which pytest 9 no longer reads (an item's id lives elsewhere): every test would then be a unit
# of its own, and a module's server or browser would be made on every worker. So each worker
# writes the groups it found to a file the controller names, and the controller's scheduler reads
# them (all workers collect the same tests, so any one file will do).
GROUPS_KEY = "pmim_groups_file"


def write_groups(items: list[pytest.Item], path: str) -> None:
    """On a worker: each grouped test's id and group, to ``path``."""
    groups = {plain_nodeid(item.nodeid): group for item in items if (group := _group_of(item)) is not None}
    tmp = Path(f"{path}.tmp")
    tmp.write_text(json.dumps(groups), encoding="utf-8")
    tmp.replace(path)


def make_scheduler(config: pytest.Config, log: object, folder: Path) -> object:
    """On the controller: xdist's loadgroup scheduler, its units the groups the workers wrote to
    ``folder`` (a test in none is a unit of its own)."""
    from xdist.scheduler import LoadGroupScheduling

    class GroupsFromWorkers(LoadGroupScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                found = sorted(folder.glob("*.json"))
                self.groups = json.loads(found[0].read_text(encoding="utf-8")) if found else {}
            group = self.groups.get(plain_nodeid(nodeid))
            return f"@{group}" if group is not None else super()._split_scope(nodeid)

    return GroupsFromWorkers(config, log)  # type: ignore[arg-type]
