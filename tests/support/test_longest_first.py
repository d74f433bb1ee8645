"""The xdist order of longest_first.py: whole modules, the longest first, every test
kept; the controller's record of a run's seconds per module."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from tests.support.longest_first import CACHE_KEY, MARKED_GUESS_S, Recorder, longest_first


@dataclass
class Item:
    nodeid: str
    marks: tuple[str, ...] = field(default=())

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def _ids(items: list) -> list[str]:
    return [i.nodeid for i in items]


def test_modules_go_longest_first_and_keep_their_tests_in_order() -> None:
    items = [Item("a.py::t1"), Item("b.py::t1"), Item("a.py::t2"), Item("c.py::t1"), Item("b.py::t2")]
    got = longest_first(items, {"a.py": 1.0, "b.py": 30.0, "c.py": 5.0})  # type: ignore[arg-type]
    assert _ids(got) == ["b.py::t1", "b.py::t2", "c.py::t1", "a.py::t1", "a.py::t2"]


def test_an_unknown_module_counts_a_second_a_test_or_more_when_marked_slow() -> None:
    items = [Item("new.py::t1"), Item("new.py::t2"), Item("known.py::t"), Item("slow.py::t", ("slow",))]
    got = longest_first(items, {"known.py": 1.5})  # type: ignore[arg-type]
    assert _ids(got) == ["slow.py::t", "new.py::t1", "new.py::t2", "known.py::t"]
    assert MARKED_GUESS_S > 60


def test_no_figures_keeps_the_collection_order() -> None:
    items = [Item("a.py::t"), Item("b.py::t"), Item("c.py::t")]
    assert _ids(longest_first(items, {})) == ["a.py::t", "b.py::t", "c.py::t"]  # type: ignore[arg-type]


def test_the_recorder_adds_up_a_module_and_keeps_modules_that_did_not_run() -> None:
    class Cache(dict):
        def get(self, key, default):  # noqa: ANN001, ANN201
            return super().get(key, default)

        def set(self, key, value) -> None:  # noqa: ANN001
            self[key] = value

    cache = Cache({CACHE_KEY: {"old.py": 9.0, "a.py": 100.0}})
    rec = Recorder()
    for nodeid, seconds in (("a.py::t1", 1.0), ("a.py::t1", 0.5), ("a.py::t2", 2.0)):
        rec.add(SimpleNamespace(nodeid=nodeid, duration=seconds))  # type: ignore[arg-type]
    rec.save(SimpleNamespace(cache=cache))  # type: ignore[arg-type]
    assert cache[CACHE_KEY] == {"old.py": 9.0, "a.py": 3.5}


def test_the_recorded_figures_fill_in_what_the_cache_lacks() -> None:
    from tests.support.longest_first import RECORDED, last_seconds, recorded_seconds

    recorded = recorded_seconds()
    assert RECORDED.is_file() and len(recorded) > 50 and all(s >= 0 for s in recorded.values())
    known, missing = next(iter(recorded)), "tests/none/test_new.py"
    cache = {CACHE_KEY: {known: recorded[known] + 1.0, missing: 2.0}}
    config = SimpleNamespace(cache=SimpleNamespace(get=lambda key, default: cache.get(key, default)))
    got = last_seconds(config)  # type: ignore[arg-type]
    assert got is not None and got[known] == recorded[known] + 1.0 and got[missing] == 2.0  # the cache wins
    assert {k: v for k, v in got.items() if k not in (known, missing)} == {
        k: v for k, v in recorded.items() if k != known}
    assert last_seconds(SimpleNamespace(cache=None)) is None  # type: ignore[arg-type]
