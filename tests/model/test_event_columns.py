"""The column-wise event reader agrees with the row-wise one, event for event."""

from __future__ import annotations

import pytest

from pmim_analytics.model.events import EVENT_COLUMN_NAMES, event_from_row, event_to_row, events_from_columns
from tests.support.games import hand_built_games
from tests.support.synthetic import iter_games


def _columns(rows: list[dict]) -> dict[str, list]:
    return {c: [r.get(c) for r in rows] for c in EVENT_COLUMN_NAMES}


def test_columns_give_the_same_events_as_rows() -> None:
    games = [*hand_built_games(), *iter_games(6, seed=3)]
    rows = [event_to_row(g.header.game_id, ev) for g in games for ev in g.events]
    cols = _columns(rows)
    want = [event_from_row(r) for r in rows]
    assert events_from_columns(cols, 0, len(rows)) == want
    assert {type(e) for e in want} >= {type(e) for g in games for e in g.events}
    # a slice in the middle, and the first game alone
    assert events_from_columns(cols, 7, 40) == want[7:40]
    n0 = len(games[0].events)
    assert tuple(events_from_columns(cols, 0, n0)) == games[0].events


def test_a_column_left_out_is_null_and_an_unknown_type_is_refused() -> None:
    game = hand_built_games()[0]
    rows = [event_to_row(game.header.game_id, ev) for ev in game.events]
    cols = _columns(rows)
    del cols["by"]
    got = events_from_columns(cols, 0, len(rows))
    assert all(getattr(e, "by", None) is None for e in got)
    cols["type"][0] = "teleport"
    with pytest.raises(KeyError):
        events_from_columns(cols, 0, len(rows))
