"""The dashboard is thin: a fence around what ``app/`` may import.

The app calls the library's public entry points (report tables and figures, the store's
readers and ingest, the rules catalogue, the manual-log reader) and draws what they return.
It never opens DuckDB itself, never reaches into the analytics' or the store's internals,
never runs the engine's state directly, and never edits ``sys.path``.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"

#: The library modules the app may import, exactly (a new one is a decision: add it here).
ALLOWED_LIBRARY = frozenset({
    "pmim_analytics.analytics",  # the package API: report tables, Provenance, dice table
    "pmim_analytics.analytics.costs",  # the implied-cost verdicts on the Overview
    "pmim_analytics.analytics.implied_costs",  # the unpinned implied-cost fit (Overview, Units)
    "pmim_analytics.analytics.flags",  # the legend of the verdict words (Bots page)
    "pmim_analytics.analytics.levels",  # the bot level a figure rests on (the sidebar, every page)
    "pmim_analytics.analytics.robustness",  # verdicts by bot level for the bots page
    "pmim_analytics.analytics.skill_axis",  # each composition at skills 0.5 to 1 (Bots page)
    "pmim_analytics.analytics.stats",  # Wilson intervals of a simulation's results
    "pmim_analytics.analytics.whatif",  # the What-if page's exact dice maths, base against edit
    "pmim_analytics.analytics.weapons",  # the dice tests' family in words (Weapons page)
    "pmim_analytics.demo",  # the background demo build's status (the banner)
    "pmim_analytics.errors",
    "pmim_analytics.pipeline",  # simulate, then ingest (Simulate and What-if)
    "pmim_analytics.engine.bots",  # bots, their settings and personas for Simulate and What-if
    "pmim_analytics.replay.fold",
    "pmim_analytics.replay.manual",
    "pmim_analytics.replay.manual.summary_form",
    "pmim_analytics.replay.show",
    "pmim_analytics.replay.steps",
    "pmim_analytics.replay.timeline",  # the replay viewer's kills, objective and VP changes
    "pmim_analytics.report",
    "pmim_analytics.report.board",
    "pmim_analytics.report.dashboard_figures",
    "pmim_analytics.report.design_notes",  # a stored balance proposal's notes (Rules A → B page)
    "pmim_analytics.report.export",
    "pmim_analytics.report.figures",
    "pmim_analytics.report.selection",  # the filter selection in words (Export)
    "pmim_analytics.report.summary",
    "pmim_analytics.model.record",  # the game record type (the Log a match page names it)
    "pmim_analytics.rules",
    "pmim_analytics.rules.army",
    "pmim_analytics.rules.diff",  # what changes from rules A to B (Rules A → B page)
    "pmim_analytics.rules.variant_edit",  # variants saved from the What-if page
    "pmim_analytics.sim",
    "pmim_analytics.sim.batch",
    "pmim_analytics.store.connection",
    "pmim_analytics.store.games",
    "pmim_analytics.store.info",
    "pmim_analytics.store.ladder",  # the bot ladder's stored runs
    "pmim_analytics.store.ingest",
    "pmim_analytics.store.readers",
})
#: Third-party libraries the app must not use directly (the store and the analytics own them).
FORBIDDEN_THIRD_PARTY = ("duckdb", "pyarrow", "numpy", "scipy", "sqlite3")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "pmim_analytics":
                found.extend((node.lineno, f"pmim_analytics.{alias.name}") for alias in node.names)
            else:
                found.append((node.lineno, node.module))
    return found


def _app_files() -> list[Path]:
    files = sorted(APP.rglob("*.py"))
    assert len(files) >= 5, f"expected the dashboard's pages under {APP}"
    return files


def test_app_imports_only_the_library_entry_points() -> None:
    bad = [f"{p.relative_to(APP.parent)}:{line}: {name}"
           for p in _app_files() for line, name in _imports(p)
           if name.startswith("pmim_analytics") and name not in ALLOWED_LIBRARY]
    assert not bad, "app/ imports library internals:\n" + "\n".join(bad)


def test_app_uses_no_storage_or_numeric_library_directly() -> None:
    bad = [f"{p.relative_to(APP.parent)}:{line}: {name}"
           for p in _app_files() for line, name in _imports(p)
           if name.split(".")[0] in FORBIDDEN_THIRD_PARTY]
    assert not bad, "app/ imports a library the store or the analytics own:\n" + "\n".join(bad)


def test_app_never_edits_sys_path() -> None:
    bad = []
    for p in _app_files():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name)
                    and node.value.id == "sys"):
                bad.append(f"{p.relative_to(APP.parent)}:{node.lineno}")
    assert not bad, "app/ touches sys.path: " + ", ".join(bad)


def test_the_fence_catches_an_internal_import(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text("import duckdb\n"
                    "from pmim_analytics.store.staging import StageBuffer\n"
                    "from pmim_analytics import errors\n")
    names = [name for _, name in _imports(page)]
    assert names == ["duckdb", "pmim_analytics.store.staging", "pmim_analytics.errors"]
    assert "pmim_analytics.store.staging" not in ALLOWED_LIBRARY
