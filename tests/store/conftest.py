"""Fixtures for the store tests: a fresh database file per test, replay writers."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from pmim_analytics.replay.format import GameRecord, write_game
from pmim_analytics.replay.provenance import sign_files
from pmim_analytics.store import read_frame


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database path in a fresh folder (created by the first write)."""
    return tmp_path / "pmim.duckdb"


def write_games(folder: Path, games: Iterable[GameRecord], prefix: str = "game") -> list[Path]:
    """Write games as JSON Lines replays ``<prefix>-N.jsonl``, signed as this installation's
    own (see tests/support/own.py): ``--trust-own`` ingests them without the rules check."""
    paths = [write_game(g, folder / f"{prefix}-{i:03d}.jsonl") for i, g in enumerate(games)]
    if paths:
        sign_files(folder, paths)
    return paths


def table_counts(db: Path) -> dict[str, int]:
    """Row counts of every game table."""
    tables = ("games", "sides", "units", "events", "unit_game_stats")
    frame = read_frame("SELECT " + ", ".join(f"(SELECT count(*) FROM {t}) AS {t}" for t in tables), db=db)
    return frame.row(0, named=True)


def rows_of(db: Path, game_id: str) -> int:
    """How many rows of any table belong to ``game_id``."""
    tables = ("games", "sides", "units", "events", "unit_game_stats")
    sql = " + ".join(f"(SELECT count(*) FROM {t} WHERE game_id = $g)" for t in tables)
    return read_frame(f"SELECT {sql} AS n", {"g": game_id}, db=db).item()
