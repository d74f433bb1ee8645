"""The dashboard's Bots page under Streamlit's AppTest: empty, demo, and with a stored ladder run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pmim_analytics.botlab.ladder import ladder_plan, run_ladder
from pmim_analytics.store.ladder import save_ladder

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"


def open_bots(db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AppTest:
    monkeypatch.setenv("PMIM_DB", str(db))
    monkeypatch.setenv("PMIM_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("PMIM_SIM_DIR", str(tmp_path / "sims"))
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.switch_page("views/bots.py")
    return at.run()


def problems(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def test_bots_page_on_an_empty_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = open_bots(tmp_path / "nothing.duckdb", monkeypatch, tmp_path)
    assert problems(at) == []
    assert any("no ladder" in i.value for i in at.info)


def test_bots_page_shows_a_stored_ladder_run(small_demo_db: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "copy.duckdb"
    shutil.copy(small_demo_db, db)
    at = open_bots(db, monkeypatch, tmp_path)
    assert problems(at) == [] and any("No ladder run" in i.value for i in at.info)
    plan = ladder_plan("v2-heavy-def6", "random,greedy", 1, seed=2)
    result = run_ladder(plan, workers=1, bootstrap=10)
    save_ladder({"run_id": result.run_id, "rules_id": plan.rules_id, "scenario": plan.scenario_id,
                 "bots": "random,greedy", "armies": "a", "games_per_pairing": 1, "seed": 2, "games": plan.games,
                 "seconds": result.seconds, "workers": 1}, result.ratings, result.games, db)
    at = open_bots(db, monkeypatch, tmp_path)
    assert problems(at) == []
    assert at.get("plotly_chart")
    table = at.dataframe[0].value
    assert list(table["Bot"]) == ["greedy", "random"]
    # the small demo has tactician games only: one bot level per row, in a column of its own
    robust = at.dataframe[1].value
    assert set(robust["Flag"]) == {"one level"} and "tactician" in robust.columns
    assert any("What the words mean" in c.value and "flips" in c.value for c in at.caption)
