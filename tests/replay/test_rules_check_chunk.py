"""``check_staged`` (the ingest's rules check in a worker) builds a chunk's events a type at a
time; the events must be exactly those of the row-wise reader, and one game whose rows do not
fit (an unknown event type) must cost only that game its check, not the chunk."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys

import pyarrow as pa

from pmim_analytics.model.events import event_from_row, event_to_row
from pmim_analytics.model.record import GameRecord
from pmim_analytics.replay.rules_check import _events_by_type, check_staged
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.rules.generate import random_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from pmim_analytics.store.rules_judge import _ipc
from pmim_analytics.store.staging import EVENT_STAGE_COLUMNS, _arrow
from tests.conftest import ARMIES

RULES = ["v3", "v3-heat", "v3-rush", "v3-rolled-initiative"]


def engine_games() -> list[GameRecord]:
    out = []
    for rules in RULES:
        rng = random.Random(f"chunk/{rules}")
        a, b = (validate_army(random_army(rules, rng), rules) for _ in range(2))
        seed = 16 if rules == "v3-heat" else 5  # seeds whose games have the optional rules' rolls
        out.append(play_batch_game(BatchSpec(rules, "take-and-hold", a, b, "greedy", "tactician", seed=seed, games=1),
                                   0))
    return out


def staged(games: list[GameRecord]) -> tuple[list[dict], pa.Table]:
    rows = [dict(event_to_row(gm.header.game_id, ev), g=g, line=k + 2)
            for g, gm in enumerate(games) for k, ev in enumerate(gm.events)]
    cols = (("g", "INTEGER"), ("line", "INTEGER"), *EVENT_STAGE_COLUMNS)
    return rows, _arrow(cols, {c: [r.get(c) for r in rows] for c, _ in cols})


def test_a_chunk_decoded_by_type_is_the_row_wise_decoding() -> None:
    games = engine_games()
    rows, table = staged(games)
    got = _events_by_type(table)
    assert got == [event_from_row(r) for r in rows]
    assert {e.type for e in got} >= {"deploy", "attack", "overheat_roll", "rush", "initiative_roll", "game_end"}


def test_one_game_with_an_unknown_event_type_fails_alone() -> None:
    games = engine_games()
    rows, _ = staged(games)
    bad = next(k for k, r in enumerate(rows) if r["g"] == 1 and r["type"] == "move")
    rows[bad]["type"] = "teleport"
    cols = (("g", "INTEGER"), ("line", "INTEGER"), *EVENT_STAGE_COLUMNS)
    table = _arrow(cols, {c: [r.get(c) for r in rows] for c, _ in cols})
    assert _events_by_type(table) is None
    verdicts = check_staged(_ipc(table), [(g, gm.header, 1) for g, gm in enumerate(games)])
    assert [v.g for v in verdicts] == [0, 1, 2, 3]
    assert "could not be replayed" in (verdicts[1].error or "")
    assert all(v.error is None and v.violations == () for k, v in enumerate(verdicts) if k != 1)


#: A rules-check worker's part, in a fresh interpreter: judge the pickled chunk, say whether pandas loaded.
WORKER = """import pickle, sys
from pmim_analytics.replay.rules_check import check_staged
ipc, headers = pickle.loads(sys.stdin.buffer.read())
verdicts = check_staged(ipc, headers)
print([(v.error, len(v.violations)) for v in verdicts], "pandas" in sys.modules)
"""


def test_a_worker_judges_its_chunk_without_loading_pandas() -> None:
    """pyarrow would import pandas (0.7 s of CPU a worker) on a worker's first chunk only to
    ask whether its input is a pandas object; the worker judges the chunk without it."""
    a, b = (validate_army(load_army(ARMIES / f"v3-{n}.yaml"), "v3") for n in ("balanced", "tank-heavy"))
    game = play_batch_game(BatchSpec("v3", "take-and-hold", a, b, "random", "random", seed=3, games=1), 0)
    _, table = staged([game])
    chunk = pickle.dumps((_ipc(table), [(0, game.header, 1)]))
    proc = subprocess.run([sys.executable, "-c", WORKER], input=chunk, capture_output=True, check=True)
    assert proc.stdout.decode().split() == ["[(None,", "0)]", "False"], proc.stdout
