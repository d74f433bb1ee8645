"""Longest modules first, so that two xdist workers finish together.

``make test`` sends whole modules to the workers (``--dist loadscope``: a module's fixtures are
built once). xdist hands them out in collection order (with ``--no-loadscope-reorder``); a long
module handed out last leaves the other worker idle until it ends. Here the controller passes
each module's seconds from the last run (pytest's cache) to the workers, and the workers collect
the modules longest first. A module the cache does not know takes its figure from
``module_seconds.json`` beside this file (a whole run's seconds per module, kept in the
repository so that a fresh clone, as CI runs it, starts with the long modules too), else counts
``MARKED_GUESS_S`` when a test in it is marked slow or browser, else a second per test. Only the
order changes, never which tests run; a run without the cache (``-p no:cacheprovider``) keeps the
collection order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

CACHE_KEY = "pmim/module-seconds"
#: A whole ``make test`` run's seconds per module (refresh: copy .pytest_cache/v/pmim/module-seconds here).
RECORDED = Path(__file__).with_name("module_seconds.json")
WORKER_KEY = "pmim_module_seconds"
MARKED_GUESS_S = 120.0
MARKS = ("slow", "browser")


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def longest_first(items: list[pytest.Item], seconds: dict[str, float]) -> list[pytest.Item]:
    """``items`` grouped by module, the modules in decreasing cost (ties keep their order)."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(module_of(item.nodeid), []).append(item)

    def cost(name: str) -> float:
        if name in seconds:
            return seconds[name]
        marked = any(item.get_closest_marker(m) for item in modules[name] for m in MARKS)
        return MARKED_GUESS_S if marked else float(len(modules[name]))

    ordered = sorted(modules, key=cost, reverse=True)
    return [item for name in ordered for item in modules[name]]


class Recorder:
    """On the controller: adds up each module's set-up, call and tear-down seconds and stores
    them in the cache at the end (modules that did not run keep their last figure)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def add(self, report: pytest.TestReport) -> None:
        self.seconds[module_of(report.nodeid)] += report.duration

    def save(self, config: pytest.Config) -> None:
        cache = getattr(config, "cache", None)
        if cache is None or not self.seconds:
            return
        known = dict(cache.get(CACHE_KEY, {}))
        known.update({name: round(s, 2) for name, s in self.seconds.items()})
        cache.set(CACHE_KEY, known)


def recorded_seconds() -> dict[str, float]:
    """The figures kept in the repository (none if the file is missing or unreadable)."""
    try:
        found = json.loads(RECORDED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in found.items()} if isinstance(found, dict) else {}


def last_seconds(config: pytest.Config) -> dict[str, float] | None:
    """Each module's seconds: the last run's (pytest's cache) over the repository's recorded ones."""
    cache = getattr(config, "cache", None)
    return None if cache is None else {**recorded_seconds(), **cache.get(CACHE_KEY, {})}
