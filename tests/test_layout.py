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
    flat = sorted(p.name for p in (ROOT / "tests").glob("test_*.py") if p.name != "test_layout.py")
    assert not flat, f"tests belong in tests/<layer>/, not at the top: {flat}"
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    # support: shared helpers; adversarial: attacks on the whole tool, across layers (issue #16)
    assert folders - {"support", "adversarial"} <= layers | {"app"}, folders - layers
