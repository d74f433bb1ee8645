"""The summary form's checks: errors at the form field, destroyed units in any order."""

from __future__ import annotations

from pmim_analytics.replay.manual import parse_log
from pmim_analytics.replay.manual.summary_form import SummaryForm, check_summary_form, format_summary_log


def test_a_vp_win_with_the_loser_ahead_gives_one_error_at_the_vp_field() -> None:
    form = SummaryForm("v3", "v3-balanced", "v3-tank-heavy", "blue", "vp", 7, 11, 8)
    game, errors = check_summary_form(form)
    assert game is None
    assert [(e.field, e.label) for e in errors] == [("vp", "VP")]
    assert "7-11" in errors[0].message and "no result" not in errors[0].message
    # the typed log reader says the same, once (no spurious "the log has no result")
    _, log_errors = parse_log(format_summary_log(form), "form", strict=False)
    assert len(log_errors) == 1


def test_destroyed_units_in_any_order_and_errors_by_entry() -> None:
    form = SummaryForm("v3", "v3-balanced", "v3-tank-heavy", "blue", "vp", 11, 7, 8,
                       ("R5 B:GE1", "R2 R:TY1", "", "R:ZZ9", "R3 R:TY1"))
    game, errors = check_summary_form(form)
    assert [(e.field, e.entry) for e in errors] == [("destroyed", 4), ("destroyed", 5)]
    assert errors[0].label == "Units destroyed, line 4" and "R:ZZ9" in errors[0].message
    # a message naming another line of the generated log names the form entry instead
    assert "in Units destroyed, line 2" in errors[1].message and "line 9" not in errors[1].message
    ok = SummaryForm("v3", "v3-balanced", "v3-tank-heavy", "blue", "vp", 11, 7, 8, ("R5 B:GE1", "R2 R:TY1"))
    game, errors = check_summary_form(ok)
    assert errors == [] and game is not None
    destroyed = [(e.round, e.unit) for e in game.events if e.type == "unit_destroyed"]
    assert destroyed == [(2, "R:TY1"), (5, "B:GE1")]


def test_errors_at_the_winner_how_and_army_fields() -> None:
    _, errors = check_summary_form(SummaryForm("v3", "v3-balanced", "v3-tank-heavy", "red", "wipeout", 3, 4, 8))
    assert [e.field for e in errors] == ["reason"]
    _, errors = check_summary_form(SummaryForm("v3", "v3-balanced", "no-such-army", "blue", "vp", 11, 7))
    assert errors and errors[0].field == "red_army"


def test_a_lost_location_and_the_units_death_in_the_same_round_in_either_order() -> None:
    # v3-balanced fields a Timber Wolf (humanoid): both side torsos gone destroys it
    form = SummaryForm("v3", "v3-tank-heavy", "v3-balanced", "blue", "vp", 11, 7, 8,
                       ("R3 R:TW1 destroyed", "R3 R:TW1 LT", "R:TY1"))
    game, errors = check_summary_form(form)
    assert errors == [], errors
    kinds = [(e.type, e.unit) for e in game.events if e.type in ("location_destroyed", "unit_destroyed")]
    assert kinds[0] == ("unit_destroyed", "R:TY1") and kinds[1] == ("location_destroyed", "R:TW1")
    assert kinds[-1] == ("unit_destroyed", "R:TW1")


def test_a_loss_in_a_round_after_the_last_is_refused_and_each_loss_keeps_its_round() -> None:
    late = SummaryForm("v3", "v3-balanced", "v3-tank-heavy", "blue", "manual", rounds=5,
                       destroyed=("R7 B:GE1", "R2 R:TY1", "R6 R:TY2"))
    game, errors = check_summary_form(late)
    # each late loss is refused at its own entry of the box, not at "Rounds played"
    assert game is None and [(e.field, e.entry) for e in errors] == [("destroyed", 3), ("destroyed", 1)]
    assert errors[1].label == "Units destroyed, line 1"
    assert errors[1].message == "'B:GE1' is in R7, past the 5 rounds given at Rounds played"
    assert "R6" in errors[0].message and "line" not in errors[0].message
    # a typed log with its 'rounds:' line at the end is refused at that line, naming the loss's line
    typed = "rules: v3\nblue army: v3-balanced\nred army: v3-tank-heavy\n\nR7 B:GE1 destroyed\nrounds: 5\n" \
            "result: blue manual\n"
    _, log_errors = parse_log(typed, "typed", strict=False)
    assert [(e.where.line, e.message) for e in log_errors] == [
        (6, "rounds '5' is fewer than the R7 the log reaches (line 5)")]
    ok = SummaryForm("v3", "v3-balanced", "v3-tank-heavy", "blue", "manual", rounds=5,
                     destroyed=("R4 B:GE1", "R2 R:TY1"))
    game, errors = check_summary_form(ok)
    assert errors == [] and game is not None
    from pmim_analytics.replay.steps import iter_steps
    from pmim_analytics.replay.timeline import timeline

    kills = [(m.round, m.text) for m in timeline(game.events, iter_steps(game.events)) if m.kind == "kill"]
    assert kills == [(2, "R:TY1 is destroyed"), (4, "B:GE1 is destroyed")]
