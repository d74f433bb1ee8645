"""The replay viewer's timeline, kill buttons and linkable address; the timeline itself on a
hand-made game of two rounds."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pmim_analytics.model.events import VP, Activate, GameEnd, RoundEnd, RoundStart, UnitDestroyed
from pmim_analytics.replay.steps import iter_steps
from pmim_analytics.replay.timeline import next_kill, previous_kill, timeline
from pmim_analytics.store.games import read_stored_game
from tests.app.test_dashboard_app import APP, open_page, problems


def test_timeline_of_a_hand_made_game() -> None:
    events = [
        RoundStart(seq=1, round=1, first="blue"), Activate(seq=2, round=1, unit="B:GE1"),
        UnitDestroyed(seq=3, round=1, unit="R:IN1", by="B:GE1"),
        VP(seq=4, round=1, objective=2, side="blue", blue=("B:GE1",), red=()),
        RoundEnd(seq=5, round=1, blue_vp=1, red_vp=0),
        RoundStart(seq=6, round=2, first="red"), Activate(seq=7, round=2, unit="R:TY1"),
        VP(seq=8, round=2, objective=2, side="red", blue=(), red=("R:TY1",)),
        RoundEnd(seq=9, round=2, blue_vp=1, red_vp=1),
        GameEnd(seq=10, round=2, winner=None, reason="round_limit", rounds=2, blue_vp=1, red_vp=1),
    ]
    steps = iter_steps(events)
    assert [s.label for s in steps] == ["Round 1: B:GE1 activates", "Round 1: scoring", "Round 2: R:TY1 activates",
                                        "Round 2: scoring", "Game over"]
    got = [(m.kind, m.step, m.seq, m.text) for m in timeline(events, steps)]
    assert got == [
        ("kill", 0, 3, "R:IN1 is destroyed by B:GE1"),
        ("objective", 1, 4, "objective 2: blue takes it"),
        ("vp", 1, 5, "end of round 1: blue 1, red 0 VP (+1 blue, +0 red)"),
        ("objective", 3, 8, "objective 2: red takes it from blue"),
        ("vp", 3, 9, "end of round 2: blue 1, red 1 VP (+0 blue, +1 red)"),
    ]
    moments = timeline(events, steps)
    assert next_kill(moments, -1) == 0 and next_kill(moments, 0) is None
    assert previous_kill(moments, 3) == 0 and previous_kill(moments, 0) is None


def test_kill_buttons_and_timeline_follow_the_game_events(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    at = open_page("replay", small_demo_db, monkeypatch, tmp_path)
    at.sidebar.radio(key="source_filter").set_value("engine").run()
    gid = at.selectbox(key="replay_game").value
    game = read_stored_game(gid, small_demo_db)
    kills = [ev for ev in game.events if ev.type == "unit_destroyed"]
    assert kills, "the demo game destroys something"
    timeline_kills = [o for o in at.radio(key="replay_moment").options if "✕ kill" in o]
    assert len(timeline_kills) == len(kills)
    assert all(o.endswith(" · " + f"{k.unit} is destroyed" + (f" by {k.by}" if k.by else ""))
               for o, k in zip(timeline_kills, kills, strict=True))
    at.button(key="replay_next_kill").click().run()
    assert problems(at) == []
    step = at.slider(key="replay_step").value
    steps = iter_steps(game.events)
    first_kill = next(i for i, e in enumerate(game.events) if e.type == "unit_destroyed")
    assert steps[step - 1].first <= first_kill <= steps[step - 1].last
    assert at.query_params["game"] == gid and at.query_params["step"] == str(step)
    assert at.radio(key="replay_moment").value is not None  # the timeline marks where we are
    assert at.button(key="replay_prev_kill").disabled  # no kill before the first
    if len({m for m in timeline(game.events, steps) if m.kind == "kill"}) > 1:
        at.button(key="replay_next_kill").click().run()
        assert at.slider(key="replay_step").value > step
        at.button(key="replay_prev_kill").click().run()
        assert at.slider(key="replay_step").value == step


def test_the_address_opens_a_game_at_a_step(small_demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PMIM_DB", str(small_demo_db))
    first = AppTest.from_file(str(APP), default_timeout=90)
    first.switch_page("views/replay.py")
    first.run()
    games = first.selectbox(key="replay_game").options
    gid = [g for g in games if g.startswith("engine")][-1].rsplit(" · ", 1)[1]  # not the default game
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.switch_page("views/replay.py")
    at.query_params["game"] = gid
    at.query_params["step"] = "3"
    at.run()
    assert problems(at) == []
    assert at.selectbox(key="replay_game").value == gid
    assert at.subheader[0].value.startswith("Step 3 of ")
