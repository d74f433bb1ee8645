"""The xdist order of longest_first.py: work units (a module's tests that share a module
fixture, else single tests), the longest first, every test kept; the controller's record of a
run's seconds per module and per test."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from tests.support.longest_first import (
    CACHE_KEY,
    MARKED_GUESS_S,
    TEST_CACHE_KEY,
    Recorder,
    group_by_shared_fixtures,
    longest_first,
    plain_nodeid,
)


@dataclass
class Item:
    nodeid: str
    marks: tuple[str, ...] = field(default=())
    group: str | None = None
    _fixtureinfo: object = None

    def get_closest_marker(self, name: str) -> object | None:
        if name == "xdist_group":
            return None if self.group is None else SimpleNamespace(args=(self.group,), kwargs={})
        return name if name in self.marks else None

    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        assert mark.name == "xdist_group"
        self.group = mark.args[0]


def _ids(items: list) -> list[str]:
    return [i.nodeid for i in items]


def test_modules_go_longest_first_and_keep_their_tests_in_order() -> None:
    items = [Item("a.py::t1"), Item("b.py::t1"), Item("a.py::t2"), Item("c.py::t1"), Item("b.py::t2")]
    got = longest_first(items, {"a.py": 1.0, "b.py": 30.0, "c.py": 5.0})  # type: ignore[arg-type]
    assert _ids(got) == ["b.py::t1", "b.py::t2", "c.py::t1", "a.py::t1", "a.py::t2"]


def test_an_unknown_module_counts_a_second_a_test_or_more_when_marked_slow() -> None:
    items = [Item("new.py::t1"), Item("new.py::t2"), Item("known.py::t"), Item("slow.py::t", ("slow",))]
    got = longest_first(items, {"known.py": 1.5})  # type: ignore[arg-type]
    assert _ids(got) == ["slow.py::t", "known.py::t", "new.py::t1", "new.py::t2"]  # 120, 1.5, 1 and 1 s
    assert MARKED_GUESS_S > 60


def test_a_group_goes_whole_and_a_test_with_its_own_figure_goes_by_it() -> None:
    # m.py: 60 s, of which its long test 40; the other three share the 20 s left; two of them are a group
    items = [Item("m.py::a", group="m.py"), Item("m.py::long"), Item("m.py::b", group="m.py"), Item("m.py::c"),
             Item("n.py::x"), Item("n.py::y")]
    got = longest_first(items, {"m.py": 60.0, "n.py": 30.0},  # type: ignore[arg-type]
                        {"m.py::long": 40.0, "n.py::y": 29.0})
    assert _ids(got) == ["m.py::long", "n.py::y", "m.py::a", "m.py::b", "m.py::c", "n.py::x"]


def test_tests_sharing_a_module_or_class_fixture_are_grouped_by_module_and_a_folders_by_folder() -> None:
    def uses(*scopes: str, where: str = "tests") -> SimpleNamespace:
        return SimpleNamespace(name2fixturedefs={f"f{i}": (SimpleNamespace(scope=s, baseid=where),)
                                                 for i, s in enumerate(scopes)})

    items = [Item("tests/a.py::server", _fixtureinfo=uses("function", "module")),
             Item("tests/a.py::alone", _fixtureinfo=uses("function", "session")),  # per worker: a test of its own
             Item("tests/b.py::K::t", _fixtureinfo=uses("class")), Item("tests/c.py::t"),
             Item("tests/ray/d.py::t1", _fixtureinfo=uses("session", where="tests/ray")),
             Item("tests/ray/d.py::t2", _fixtureinfo=uses("module")),  # beside a folder's group: in it
             Item("tests/ray/e.py::t", _fixtureinfo=uses("session", "module", where="tests/ray"))]
    group_by_shared_fixtures(items)  # type: ignore[arg-type]
    assert [i.group for i in items] == ["tests/a.py", None, "tests/b.py", None, "tests/ray", "tests/ray", "tests/ray"]


def test_the_group_suffix_is_not_part_of_a_test_id() -> None:
    assert plain_nodeid("a.py::t@a.py") == "a.py::t"
    assert plain_nodeid("a.py::t[x@y]") == "a.py::t[x@y]"
    assert plain_nodeid("a.py::t[x@y]@a.py") == "a.py::t[x@y]"


def test_no_figures_keeps_the_collection_order() -> None:
    items = [Item("a.py::t"), Item("b.py::t"), Item("c.py::t")]
    assert _ids(longest_first(items, {})) == ["a.py::t", "b.py::t", "c.py::t"]  # type: ignore[arg-type]


def test_the_recorder_adds_up_a_module_and_keeps_modules_that_did_not_run() -> None:
    class Cache(dict):
        def get(self, key, default):  # noqa: ANN001, ANN201
            return super().get(key, default)

        def set(self, key, value) -> None:  # noqa: ANN001
            self[key] = value

    cache = Cache({CACHE_KEY: {"old.py": 9.0, "a.py": 100.0}, TEST_CACHE_KEY: {"old.py::t": 9.0}})
    rec = Recorder()
    for nodeid, seconds in (("a.py::t1@a.py", 1.0), ("a.py::t1@a.py", 0.5), ("a.py::t2", 2.0)):
        rec.add(SimpleNamespace(nodeid=nodeid, duration=seconds))  # type: ignore[arg-type]
    rec.save(SimpleNamespace(cache=cache))  # type: ignore[arg-type]
    assert cache[CACHE_KEY] == {"old.py": 9.0, "a.py": 3.5}
    assert cache[TEST_CACHE_KEY] == {"old.py::t": 9.0, "a.py::t1": 1.5, "a.py::t2": 2.0}


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


def test_the_recorded_test_figures_are_for_long_tests_of_recorded_modules() -> None:
    from tests.support.longest_first import (
        RECORDED_TEST_MIN_S,
        RECORDED_TESTS,
        last_test_seconds,
        module_of,
        recorded_seconds,
        recorded_test_seconds,
    )

    tests, modules = recorded_test_seconds(), recorded_seconds()
    assert RECORDED_TESTS.is_file() and len(tests) > 50
    assert all(s >= RECORDED_TEST_MIN_S and module_of(t) in modules for t, s in tests.items())
    known = next(iter(tests))
    cache = {TEST_CACHE_KEY: {known: tests[known] + 1.0}}
    config = SimpleNamespace(cache=SimpleNamespace(get=lambda key, default: cache.get(key, default)))
    assert last_test_seconds(config) == {**tests, known: tests[known] + 1.0}  # type: ignore[arg-type]
