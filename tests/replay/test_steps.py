"""Viewer steps split where the rules open one and where the round changes."""

from __future__ import annotations

from pmim_analytics.replay.manual import parse_log
from pmim_analytics.replay.steps import iter_steps

HEADER = "rules: v3\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"


def test_a_summary_logs_losses_are_filed_under_their_rounds() -> None:
    text = (HEADER + "\nR:BE1 destroyed\nR2 R:TY1 destroyed\nR4 R:TY2 destroyed\nR4 B:NE2 destroyed\n"
            "result: blue manual\n")
    game, errors = parse_log(text, "t.pmimlog", strict=False)
    assert not errors and game is not None
    steps = iter_steps(game.events)
    assert [(s.round, s.label, s.last - s.first + 1) for s in steps] == [
        (None, "No round given: logged events", 1),
        (2, "Round 2: logged events", 1),
        (4, "Round 4: logged events", 2),  # the round-4 losses together, not with the earlier ones
        (4, "Game over", 1),  # with no 'rounds:' tag the game lasted to the last round logged
    ]
    assert [i for s in steps for i in range(s.first, s.last + 1)] == list(range(len(game.events)))
