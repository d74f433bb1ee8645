"""The repository's layout rules that no import contract covers."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_benchmarks_import_nothing_from_tests() -> None:
    bad = []
    for path in sorted((ROOT / "bench").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            bad += [f"{path.name}:{node.lineno}: {n}" for n in names if n == "tests" or n.startswith("tests.")]
    assert not bad, "bench/ imports test code:\n" + "\n".join(bad)


def test_tests_mirror_the_package() -> None:
    layers = {p.name for p in (ROOT / "pmim_analytics").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    # at the top: this file and the suite's own settings (tests/conftest.py's hypothesis profile)
    flat = sorted(p.name for p in (ROOT / "tests").glob("test_*.py")
                  if p.name not in ("test_layout.py", "test_suite_settings.py"))
    assert not flat, f"tests belong in tests/<layer>/, not at the top: {flat}"
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    # support: shared helpers; adversarial: attacks on the whole tool, across layers (issue #16)
    assert folders - {"support", "adversarial"} <= layers | {"app"}, folders - layers


# -- events are told apart by type in one way (issue #11) ---------------------------------
# model/events/types.py declares the event types and `dispatch`; everywhere else a function that
# tells one value apart among three or more event types uses a handler table and
# `dispatch` (or a table keyed by `ev.type`), not a chain of isinstance checks or of
# `ev.type == "..."` comparisons. One or two checks (type narrowing for mypy) are fine.
CHAIN = 3


def _event_names() -> tuple[frozenset[str], frozenset[str]]:
    from pmim_analytics.model.events import EVENT_TYPES, Event

    return frozenset({c.__name__ for c in EVENT_TYPES.values()} | {Event.__name__}), frozenset(EVENT_TYPES)


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of a function's (or module's) own code, without the functions nested in it."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _strings(node: ast.AST) -> list[str]:
    elts = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def event_type_chains(source: str, classes: frozenset[str], types: frozenset[str]) -> list[str]:
    """``line: subject`` for each function in ``source`` that tests one subject against event
    types in :data:`CHAIN` or more isinstance checks or ``.type`` comparisons."""
    tree = ast.parse(source)
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    found = []
    for scope in scopes:
        checks: dict[str, int] = {}
        for node in _own_nodes(scope):
            subject = None
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                    and len(node.args) == 2):
                named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                named |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
                if named & classes:
                    subject = ast.unparse(node.args[0])
            elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "type"
                  and any(s in types for c in node.comparators for s in _strings(c))):
                subject = ast.unparse(node.left.value)
            if subject is not None:
                checks[subject] = checks.get(subject, 0) + 1
        found += [f"{getattr(scope, 'lineno', 1)}: {getattr(scope, 'name', '<module>')} tests {subject!r} "
                  f"{n} times" for subject, n in checks.items() if n >= CHAIN]
    return found


def test_event_types_are_told_apart_by_dispatch() -> None:
    classes, types = _event_names()
    home = ROOT / "pmim_analytics" / "model" / "events" / "types.py"
    bad = []
    for path in sorted([*(ROOT / "pmim_analytics").rglob("*.py"), *(ROOT / "app").rglob("*.py")]):
        if path != home:
            rel = path.relative_to(ROOT)
            bad += [f"{rel}:{hit}" for hit in event_type_chains(path.read_text(encoding="utf-8"), classes, types)]
    assert not bad, ("chains of event-type checks; use a handler table and model.events.dispatch:\n"
                     + "\n".join(bad))


def test_the_chain_check_finds_chains() -> None:
    classes, types = _event_names()
    chain = ("def f(ev):\n"
             "    if isinstance(ev, Deploy):\n        return 1\n"
             "    elif isinstance(ev, (Move, events.Attack)):\n        return 2\n"
             "    return 3 if isinstance(ev, Move | GameEnd) else 4\n")
    assert event_type_chains(chain, classes, types) == ["1: f tests 'ev' 3 times"]
    strings = 'def g(e):\n    return e.type == "move" or e.type in ("vp", "round_end") or e.type != "deploy"\n'
    assert event_type_chains(strings, classes, types) == ["1: g tests 'e' 3 times"]
    # two checks, other subjects, nested functions on their own, non-event classes: no chain
    fine = ("def h(ev, nxt, unit):\n"
            "    def inner(x):\n        return isinstance(x, Move)\n"
            "    a = isinstance(ev, Move) and isinstance(nxt, Attack) and isinstance(unit, Warmech)\n"
            "    b = ev.type == 'move' and unit.type == 'TW' and unit.type == 'TY' and unit.type == 'GE'\n"
            "    return a, b, inner(nxt), isinstance(nxt, str)\n")
    assert event_type_chains(fine, classes, types) == []


# -- every package is in the import contracts, and the imports have no cycle (issue #32) ---------
def _top_level() -> set[str]:
    pkg = ROOT / "pmim_analytics"
    names = {p.name for p in pkg.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    names |= {p.stem for p in pkg.glob("*.py") if p.stem not in ("__init__", "__main__")}
    return {f"pmim_analytics.{n}" for n in names}


def _contracts() -> dict[str, dict]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["name"]: c for c in config["tool"]["importlinter"]["contracts"]}


def test_every_package_is_in_the_layers_and_the_library_contracts() -> None:
    everything = _top_level()
    contracts = _contracts()
    layers = next(c for c in contracts.values() if c["type"] == "layers")["layers"]
    layered = {name.strip() for layer in layers for name in layer.split("|")}
    assert layered == everything, f"not in the layers: {everything - layered}; gone: {layered - everything}"
    expected = {  # contract: the packages it must name (all of them, less those it is about)
        "duckdb only in the store": everything - {"pmim_analytics.store"},
        "the library imports no streamlit (only app/ does)": everything,
        "the library never imports the CLI": everything - {"pmim_analytics.cli"},
    }
    for name, sources in expected.items():
        got = set(contracts[name]["source_modules"])
        assert got == sources, f"{name}: missing {sources - got}, unknown {got - sources}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_lead_in_a_circle() -> None:
    """Module by module, counting imports inside functions and under TYPE_CHECKING too (grimp)."""
    import grimp

    g = grimp.build_graph("pmim_analytics")
    graph = {m: {d for d in g.find_modules_directly_imported_by(m) if d in g.modules} for m in g.modules}
    cycles = _cycles(graph)
    assert cycles == [], cycles


# -- mypy strict over the whole package and app/, no module let off (issue #32) -----------------
def test_mypy_is_strict_everywhere() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config.get("strict") is True
    assert set(config["files"]) == {"pmim_analytics", "app"}, config["files"]
    loose = [o["module"] for o in config.get("overrides", [])
             if o.get("ignore_errors") or o.get("strict") is False or o.get("check_untyped_defs") is False]
    assert not loose, f"modules let off strict typing: {loose}"
