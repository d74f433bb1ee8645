"""Backends: the same batch gives the same games on the local pool (1 or 2 workers) and on Ray."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pmim_analytics.errors import IllegalActionError, PmimError
from pmim_analytics.replay.parquet import list_parts
from pmim_analytics.rules.catalogue import REPO_ROOT as REPO
from pmim_analytics.sim.backends import open_backend
from pmim_analytics.sim.batch import BatchSpec, GameOutcome, PartJob
from pmim_analytics.sim.ray_backend import PartFiles, RayBackend, play_detached
from pmim_analytics.sim.runner import run_batch
from tests.test_replay_verify import army

GAMES, PART = 24, 6


def batch(games: int = GAMES, seed: int = 11) -> BatchSpec:
    return BatchSpec("v3", "take-and-hold", army("v3-balanced", "v3"), army("v3-infantry-swarm", "v3"),
                     "greedy", "tactician", seed, games, name="cross-backend", played="2026-01-01")


def table(folder: Path, kind: str) -> pa.Table:
    """Every row of a batch folder's ``kind`` files, sorted by game and sequence number."""
    parts = [pq.read_table(p) for p in sorted(folder.glob(f"{kind}.*.parquet"))]
    keys = [("game_id", "ascending")] + ([("seq", "ascending")] if kind == "events" else [])
    return pa.concat_tables(parts).sort_by(keys)


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("local")
    runs = {}
    for workers in (1, 2):
        folder = root / f"w{workers}" / "cross-backend"
        runs[f"local-{workers}"] = (folder, run_batch(batch(), workers=workers, out=folder, part_size=PART))
    return runs


def test_local_pool_and_ray_write_identical_event_tables(ray_instance: Any, local_runs: dict[str, Any],
                                                          tmp_path: Path) -> None:
    folder = tmp_path / "cross-backend"
    seen: list[int] = []
    with open_backend("ray", workers=2) as backend:
        summary = run_batch(batch(), out=folder, part_size=PART, backend=backend,
                            progress_callback=lambda done, total: seen.append(done))
    assert seen[-1] == GAMES and seen == sorted(seen) and len(seen) == GAMES // PART  # streamed part by part
    ray_events, ray_games = table(folder, "events"), table(folder, "games")
    assert ray_games.num_rows == GAMES and len(set(ray_games.column("game_id").to_pylist())) == GAMES
    assert ray_events.num_rows > 20 * GAMES
    for name, (local_folder, local_summary) in local_runs.items():
        assert table(local_folder, "events").equals(ray_events), name
        assert table(local_folder, "games").equals(ray_games), name
        assert local_summary.outcomes == summary.outcomes, name
        assert sorted(p.name for p in local_folder.iterdir()) == sorted(p.name for p in folder.iterdir())
    assert not list(folder.glob("*.tmp"))


FAIL_MARKER = "PMIM_TEST_FAIL_MARKER"


def crash_once(job: PartJob) -> tuple[list[GameOutcome], PartFiles]:
    """Kill the Ray worker the first time part 1 runs; play normally otherwise."""
    marker = Path(job.out or ".").parent / f"crashed-part-{job.part}"
    if job.part == 1 and not marker.exists():
        marker.touch()
        os._exit(1)
    return play_detached(job)


def refuse(job: PartJob) -> tuple[list[GameOutcome], PartFiles]:
    raise IllegalActionError(f"bot misbehaved in part {job.part}")


@pytest.fixture
def pickled_by_value() -> None:
    """Ray workers get this module's task functions by value (tests/ need not be importable there)."""
    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def test_a_crashed_task_is_retried_and_no_game_is_duplicated(ray_instance: Any, pickled_by_value: None,
                                                              local_runs: dict[str, Any], tmp_path: Path) -> None:
    folder = tmp_path / "cross-backend"
    with RayBackend(task=crash_once) as backend:
        summary = run_batch(batch(), out=folder, part_size=PART, backend=backend)
    assert (tmp_path / "crashed-part-1").exists()  # the first attempt really died
    assert summary.games == GAMES and [o.game_index for o in summary.outcomes] == list(range(GAMES))
    assert list_parts(folder) == [0, 1, 2, 3]
    assert table(folder, "events").equals(table(local_runs["local-1"][0], "events"))


def test_an_error_in_a_task_reaches_the_user_as_itself(ray_instance: Any, pickled_by_value: None,
                                                       tmp_path: Path) -> None:
    with RayBackend(task=refuse) as backend, pytest.raises(IllegalActionError, match="bot misbehaved in part"):
        run_batch(batch(games=4), out=tmp_path / "b", part_size=2, backend=backend)
    assert not list_parts(tmp_path / "b")


def test_backend_choice_errors_are_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(PmimError, match="unknown backend 'spark'; choose local or ray"):
        open_backend("spark")
    with pytest.raises(PmimError, match="--address needs --backend ray"):
        open_backend("local", address="auto")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(PmimError, match=r"needs Ray: pip install 'pmim-analytics\[distributed\]'"):
        with open_backend("ray"):
            pass


def test_cli_sweep_and_simulate_on_ray_write_what_the_local_pool_writes(ray_instance: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pmim_analytics.cli import app
    from tests.test_sweep import files, sweep_file

    runner = CliRunner()
    path = sweep_file(tmp_path)
    for backend in ("local", "ray"):
        r = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / backend), "--backend", backend,
                                "--workers", "2", "--no-ingest"])
        assert r.exit_code == 0, r.output
    assert files(tmp_path / "ray") == files(tmp_path / "local") and len(files(tmp_path / "ray")) == 6
    armies = REPO / "data" / "armies"
    for backend in ("local", "ray"):
        r = runner.invoke(app, ["simulate", "--blue", str(armies / "v3-balanced.yaml"), "--red",
                                str(armies / "v3-fast-gev.yaml"), "--games", "6", "--format", "parquet",
                                "--backend", backend, "--out", str(tmp_path / f"sim-{backend}" / "b")])
        assert r.exit_code == 0, r.output
    assert files(tmp_path / "sim-ray") == files(tmp_path / "sim-local")
