"""The dashboard's rules picker names the optional rules a variant switches on (AppTest)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.replay.format import write_game
from pmim_analytics.rules import validate_army
from pmim_analytics.rules.generate import random_army
from pmim_analytics.store import ingest_paths

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"


def test_the_rules_picker_shows_each_variants_optional_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i, rules in enumerate(("v3", "v3-heat", "v3-rolled-initiative")):
        rng = random.Random(i)
        a, b = (validate_army(random_army(rules, rng), rules) for _ in range(2))
        game = play_game(GameSpec.create(rules, "take-and-hold", a, b), "greedy", "greedy", seed=i, played="x")
        write_game(game, tmp_path / "replays" / f"{rules}.jsonl")
    db = tmp_path / "pmim.duckdb"
    assert ingest_paths([tmp_path / "replays"], db).loaded == 3
    monkeypatch.setenv("PMIM_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.switch_page("views/overview.py").run()
    assert not at.exception
    picker = at.sidebar.multiselect(key="rules_filter")
    assert list(picker.options) == ["v3", "v3-heat (optional: heat)",
                                    "v3-rolled-initiative (optional: rolled initiative)"]
    assert set(picker.value) == {"v3", "v3-heat", "v3-rolled-initiative"}
    assert "Optional rules" in [h.value for h in at.header]
    initiative = next(d.value for d in at.dataframe if "Blue first %" in d.value.columns)
    assert initiative["Rules"].to_list() == ["v3-rolled-initiative"]
