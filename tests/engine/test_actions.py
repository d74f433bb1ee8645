"""The action notation, and that every action the state offers is one it accepts."""

from __future__ import annotations

import random

import pytest

from pmim_analytics.engine import ActivateUnit, EndActivation, FireWeapon, Hex, MoveUnit, PlaceUnit, parse_action
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.engine.state import GameState
from pmim_analytics.errors import PmimError
from tests.engine.test_verify import army


@pytest.mark.parametrize("action", [
    PlaceUnit("B:TW1", Hex(5, 12)), ActivateUnit("R:TY3"), MoveUnit("B:GE2", Hex(0, 9)),
    FireWeapon("B:TW1", "LA", "R:TY2"), EndActivation("B:TW1"),
])
def test_notation_round_trips(action) -> None:  # noqa: ANN001
    assert parse_action(str(action)) == action
    assert eval(repr(action)) == action  # noqa: S307 - repr rebuilds the value


def test_bad_notation_is_refused_with_the_text() -> None:
    for text in ("fly B:TW1 5,5", "move B:TW1", "place B:TW1 here", ""):
        with pytest.raises(PmimError, match="is not an action"):
            parse_action(text)


def test_every_offered_action_is_accepted() -> None:
    """Walk random games; at every decision, each legal action passes the state's own check."""
    spec = GameSpec.create("v3", "take-and-hold", army("v3-beasts", "v3"), army("v3-mech-heavy", "v3"))
    rng = random.Random(4)
    for _ in range(3):
        st = GameState(spec)
        steps = 0
        while not st.is_terminal() and steps < 3000:
            if st.is_chance_node():
                st.apply_roll(tuple(rng.randint(1, 6) for _ in range(st.roll_needed())))
            else:
                actions = st.legal_actions()
                assert actions, "a deciding side always has something to do"
                if steps % 7 == 0:
                    for a in actions:
                        st.check(a)
                st.apply(rng.choice(actions))
            steps += 1
        assert st.is_terminal()
