"""Batches: seeds, side swapping, worker-independence, Parquet parts, golden replays, Ctrl-C."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pmim_analytics.engine.dice import Dice, game_seed_sequence
from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.model.events import EVENT_COLUMNS
from pmim_analytics.replay.format import format_game, read_game
from pmim_analytics.replay.parquet import list_parts, read_batch, read_part, write_part
from pmim_analytics.sim.batch import BatchSpec, play_batch_game, wilson_interval
from pmim_analytics.sim.runner import run_batch
from tests.engine.test_verify import army

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
GOLDEN_GAMES = {
    "v1-random-vs-greedy.jsonl": ("v1", "v1-avian-mix", "v1-heavy", "random", "greedy", 1),
    "v2-tactician-vs-random.jsonl": ("v2", "v2-avians", "v2-playtest-balanced", "tactician", "random", 2),
    "v3-greedy-vs-tactician.jsonl": ("v3", "v3-balanced", "v3-tank-heavy", "greedy", "tactician", 7),
    # the search bot's own game (its speed changes must play the same games)
    "v3-search-vs-search.jsonl": ("v3", "v3-balanced", "v3-tank-heavy", "search", "search", 3),
}


def batch(games: int = 10, seed: int = 5, bots: tuple[str, str] = ("greedy", "tactician")) -> BatchSpec:
    return BatchSpec("v3", "take-and-hold", army("v3-balanced", "v3"), army("v3-tank-heavy", "v3"),
                     bots[0], bots[1], seed, games, name="test-batch", played="2026-01-01")


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_golden_replays_same_seed_same_bytes(name: str) -> None:
    rules, a, b, bot_a, bot_b, seed = GOLDEN_GAMES[name]
    spec = GameSpec.create(rules, "take-and-hold", army(a, rules), army(b, rules))
    text = format_game(play_game(spec, bot_a, bot_b, seed, 0, played="2026-01-01"))
    path = GOLDEN / name
    if os.environ.get("PMIM_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{name} changed; PMIM_UPDATE_GOLDEN=1 rewrites it"
    assert format_game(read_game(path)) == text  # the reader gives back every byte


def test_dice_depend_only_on_batch_seed_and_game_index() -> None:
    a = Dice(game_seed_sequence(9, 4))
    b = Dice(game_seed_sequence(9, 4))
    rolls = [a.roll(2) for _ in range(400)]
    assert rolls == [b.roll(2) for _ in range(400)]
    assert all(1 <= d <= 6 for r in rolls for d in r)
    assert rolls != [Dice(game_seed_sequence(9, 5)).roll(2) for _ in range(400)]
    spawned = __import__("numpy").random.SeedSequence(9).spawn(5)[4]
    assert spawned.generate_state(4).tolist() == game_seed_sequence(9, 4).generate_state(4).tolist()


def test_odd_games_swap_sides_and_each_game_stands_alone() -> None:
    spec = batch()
    even, odd = play_batch_game(spec, 2), play_batch_game(spec, 3)
    assert even.header.sides["blue"].name == "Balanced" and even.header.sides["blue"].bot == "greedy"
    assert odd.header.sides["blue"].name == "Tank-heavy" and odd.header.sides["blue"].bot == "tactician"
    assert (odd.header.seed, odd.header.game_index, odd.header.batch) == (5, 3, "test-batch")
    # `pmim play --seed 5` is game 0 of the batch with seed 5
    g0 = play_game(GameSpec.create("v3", "take-and-hold", spec.army_a, spec.army_b), "greedy", "tactician", 5, 0,
                   batch="test-batch", played="2026-01-01")
    assert format_game(g0) == format_game(play_batch_game(spec, 0))
    assert even.header.game_id != play_batch_game(spec, 4).header.game_id


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_same_seed_same_games_whatever_the_workers(tmp_path: Path, fmt: str) -> None:
    spec = batch(games=9)
    one = run_batch(spec, workers=1, out=tmp_path / "one", fmt=fmt, part_size=4)
    two = run_batch(spec, workers=2, out=tmp_path / "two", fmt=fmt, part_size=4)
    assert one.outcomes == two.outcomes and one.games == 9
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "two").iterdir())
    if fmt == "parquet":
        assert names == [f"{k}.{n:05d}.parquet" for k in ("events", "games") for n in range(3)]
        texts = [[format_game(g) for g in read_batch(tmp_path / d)] for d in ("one", "two")]
        assert texts[0] == texts[1] and len(texts[0]) == 9
    else:
        assert names == [f"game-{i:06d}.jsonl" for i in range(9)]
        for n in names:
            assert (tmp_path / "one" / n).read_bytes() == (tmp_path / "two" / n).read_bytes()


def test_summary_counts_wins_per_army() -> None:
    s = run_batch(batch(games=6), workers=1)
    assert s.wins_a + s.wins_b + s.draws == 6 == len(s.outcomes)
    assert [o.game_index for o in s.outcomes] == list(range(6))
    for o in s.outcomes:
        record = play_batch_game(batch(games=6), o.game_index)
        end = record.events[-1]
        a_is_blue = o.game_index % 2 == 0
        winner_army = None if end.winner is None else ("A" if (end.winner == "blue") == a_is_blue else "B")
        assert o.winner == winner_army and o.rounds == end.rounds
    assert s.mean_rounds == sum(o.rounds for o in s.outcomes) / 6


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_parquet_part_round_trips_with_the_contract_schema(tmp_path: Path) -> None:
    games = [play_batch_game(batch(), i) for i in range(3)]
    games.append(play_game(GameSpec.create("v1", "take-and-hold", army("v1-avian-mix", "v1"), army("v1-heavy", "v1")),
                           "random", "random", 3, 0, played="2026-01-01"))
    write_part(tmp_path, 7, games)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.00007.parquet", "games.00007.parquet"]
    back = read_part(tmp_path, 7)
    assert [format_game(g) for g in back] == [format_game(g) for g in games]
    ev_schema = pq.read_schema(tmp_path / "events.00007.parquet")
    arrow = {"VARCHAR": "string", "INTEGER": "int32", "SMALLINT": "int16", "TINYINT": "int8", "BOOLEAN": "bool"}
    assert [(f.name, str(f.type)) for f in ev_schema] == [(n, arrow[t]) for n, t in EVENT_COLUMNS]
    g_schema = pq.read_schema(tmp_path / "games.00007.parquet")
    assert [(f.name, str(f.type)) for f in g_schema] == [
        ("game_id", "string"), ("source", "string"), ("rules", "string"), ("scenario", "string"),
        ("seed", "int64"), ("game_index", "int32"), ("batch", "string"), ("played", "string"),
        ("header_json", "string")]
    rows = pq.read_table(tmp_path / "games.00007.parquet").to_pylist()
    assert [r["game_id"] for r in rows] == [g.header.game_id for g in games]
    assert rows[0]["header_json"] == format_game(games[0]).splitlines()[0]


def test_a_part_without_its_games_file_is_incomplete(tmp_path: Path) -> None:
    write_part(tmp_path, 0, [play_batch_game(batch(), 0)])
    write_part(tmp_path, 1, [play_batch_game(batch(), 1)])
    (tmp_path / "games.00001.parquet").unlink()
    assert list_parts(tmp_path) == [0]
    assert len(list(read_batch(tmp_path))) == 1


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupt_leaves_only_complete_files(tmp_path: Path, workers: int) -> None:
    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_batch(batch(games=40), workers=workers, out=tmp_path, fmt="parquet", progress_callback=interrupt,
                  part_size=2)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert not [f for f in files if f.endswith(".tmp")]
    parts = list_parts(tmp_path)
    # the pool holds at most workers + 1 chunks beyond the one that finished: most never start
    assert parts and len(parts) <= 2 * workers + 2
    for part in parts:
        assert f"events.{part:05d}.parquet" in files
        assert len(read_part(tmp_path, part)) == 2
