"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmim_analytics.rules.catalogue import REPO_ROOT, clear_caches

DATA = REPO_ROOT / "data"
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
