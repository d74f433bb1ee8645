"""Ingest replays every game through the rules: nothing that `pmim replay verify` flags is stored.

320 mutated engine replays (a line dropped, duplicated or swapped, a field edited; seq
renumbered and the content id recomputed, as a careless or malicious writer would) go
in together with untouched games. Every game stored must pass the rules check; every
mutant not stored must be named among the rejections with its reason; the good games of
the same batch are stored.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from pmim_analytics.engine.verify import verify_game
from pmim_analytics.model.events import event_from_dict
from pmim_analytics.replay.format import GameHeader, GameRecord, format_game, game_id_of, read_game, write_game
from pmim_analytics.replay.parquet import write_part
from pmim_analytics.rules import load_army, validate_army
from pmim_analytics.sim.batch import BatchSpec, play_batch_game
from pmim_analytics.store import ingest_paths, read_frame
from tests.conftest import ARMIES

N_BASE = 4


@cache
def base_games() -> tuple[GameRecord, ...]:
    a = validate_army(load_army(ARMIES / "v3-balanced.yaml"), "v3")
    b = validate_army(load_army(ARMIES / "v3-tank-heavy.yaml"), "v3")
    batch = BatchSpec("v3", "take-and-hold", a, b, "greedy", "random", seed=5, games=N_BASE)
    return tuple(play_batch_game(batch, n) for n in range(N_BASE))


def _reidentify(header: dict, event_lines: list[dict]) -> list[str]:
    """Renumber seq 1..n and give the header the id of the new content."""
    for n, obj in enumerate(event_lines, start=1):
        obj["seq"] = n
    events = [event_from_dict(o) for o in event_lines]
    header["game_id"] = game_id_of(GameHeader.model_validate(header), events)
    return [json.dumps(header, separators=(",", ":"))] + [json.dumps(o, separators=(",", ":")) for o in event_lines]


EDITS = {  # field edits: (event type, field, new value from the old)
    "path": ("move", "path", lambda v: v + 1),
    "to_hex": ("move", "to_hex", lambda v: [v[0], (v[1] + 7) % 14]),
    "roll": ("attack", "roll", lambda v: [7 - v[0], v[1]]),
    "hit": ("attack", "hit", lambda v: not v),
    "damage": ("attack", "damage", lambda v: v + 2),
    "target": ("attack", "target", lambda v: "B:" + v[2:] if v.startswith("R:") else "R:" + v[2:]),
    "winner": ("game_end", "winner", lambda v: {"blue": "red", "red": "blue"}.get(v, "blue")),
    "final_vp": ("game_end", "blue_vp", lambda v: v + 1),
    "vp_side": ("vp", "side", lambda v: "red" if v == "blue" else "blue"),
    "deploy": ("deploy", "hex", lambda v: [v[0], 20]),
    "unit": ("activate", "unit", lambda v: v[:-1] + ("2" if v[-1] != "2" else "1")),
}

KINDS = ["drop", "duplicate", "swap", *EDITS]
N_MUTANTS = 320


def mutate(game: GameRecord, kind: str, k: int) -> list[str] | None:
    lines = format_game(game).splitlines()
    header, events = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    if kind in ("drop", "duplicate", "swap"):
        i = k % (len(events) - 1)
        if kind == "drop":
            del events[i]
        elif kind == "duplicate":
            events.insert(i, dict(events[i]))
        else:
            if events[i]["type"] == events[i + 1]["type"] and events[i].get("unit") == events[i + 1].get("unit"):
                return None
            events[i], events[i + 1] = events[i + 1], events[i]
    else:
        etype, fld, change = EDITS[kind]
        idx = [n for n, e in enumerate(events) if e["type"] == etype]
        if not idx:
            return None
        e = events[idx[k % len(idx)]]
        new = change(e[fld])
        if new == e[fld]:
            return None
        e[fld] = new
    return _reidentify(header, events)


def test_no_mutated_replay_that_breaks_the_rules_is_stored(tmp_path: Path) -> None:
    folder, db = tmp_path / "in", tmp_path / "pmim.duckdb"
    good = [write_game(g, folder / f"good-{n}.jsonl") for n, g in enumerate(base_games())]
    rng = random.Random(16)
    mutants: dict[str, Path] = {}
    seen = {format_game(g) for g in base_games()}
    while len(mutants) < N_MUTANTS:
        base, kind, k = rng.randrange(N_BASE), rng.choice(KINDS), rng.randrange(10_000)
        lines = mutate(base_games()[base], kind, k)
        text = "\n".join(lines) + "\n" if lines else None
        if text is None or text in seen:
            continue
        seen.add(text)
        p = folder / f"mut-{len(mutants):03d}-{kind}.jsonl"
        p.write_text(text, encoding="utf-8")
        mutants[p.name] = p
    result = ingest_paths([folder], db, workers=2)
    stored = {gid for (gid,) in read_frame("SELECT game_id FROM games", db=db).rows()}
    rejected = {Path(r.file).name: r for r in result.rejected}
    for p in good:
        assert read_game(p).header.game_id in stored, f"good game {p.name} not stored"
    for name, p in mutants.items():
        record = read_game(p) if name not in rejected or rejected[name].error_type != "syntax" else None
        if record is not None and record.header.game_id in stored:
            assert verify_game(record) == [], f"{name} was stored but breaks the rules"
        else:
            assert name in rejected, f"{name} neither stored nor named among the rejections"
            assert rejected[name].message
    checked = read_frame("SELECT count(*) FILTER (WHERE rules_checked) AS n, count(*) AS total FROM game_checks",
                         db=db).row(0)
    assert checked[0] == checked[1] == len(stored)


def test_a_parquet_part_with_a_flipped_winner_or_a_cut_game_is_refused(tmp_path: Path) -> None:
    games = list(base_games())
    folder = tmp_path / "batch"
    write_part(folder, 0, games)
    events = folder / "events.00000.parquet"
    t = pq.read_table(events).to_pylist()
    first, second = games[0].header.game_id, games[1].header.game_id
    for row in t:  # flip the winner of game 0
        if row["game_id"] == first and row["type"] == "game_end":
            row["side"] = "red" if row["side"] == "blue" else "blue"
    # cut game 1 after round 1, ending it there with a consistent-looking game_end
    kept, cut_done = [], False
    for row in t:
        if row["game_id"] != second:
            kept.append(row)
        elif not cut_done and (row["round"] or 0) <= 1 and row["type"] != "game_end":
            kept.append(row)
            if row["type"] == "round_end" and row["round"] == 1:
                end = dict(row, seq=row["seq"] + 1, type="game_end", side="blue", reason="vp", rounds=1)
                kept.append(end)
                cut_done = True
    pq.write_table(pq.read_table(events).schema.empty_table().from_pylist(kept, schema=pq.read_schema(events)),
                   events)
    result = ingest_paths([folder], tmp_path / "pmim.duckdb")
    con = duckdb.connect(str(tmp_path / "pmim.duckdb"), read_only=True)
    stored = {gid for (gid,) in con.execute("SELECT game_id FROM games").fetchall()}
    con.close()
    assert first not in stored and second not in stored
    assert {g.header.game_id for g in games[2:]} <= stored
    assert len(result.rejected) == 2 and all(r.error_type == "rules" for r in result.rejected)
    assert any("winner" in r.message for r in result.rejected)


def test_mutants_are_rejected_for_breaking_the_rules_not_only_for_format(tmp_path: Path) -> None:
    """The mutations bite: with seq renumbered and the id recomputed, only the rules check
    can refuse most of them (the set-based checks see a well-formed game)."""
    rng = random.Random(3)
    folder = tmp_path / "in"
    n = 0
    while n < 40:
        lines = mutate(base_games()[rng.randrange(N_BASE)], rng.choice(KINDS), rng.randrange(10_000))
        if lines:
            (folder / f"m{n}.jsonl").parent.mkdir(exist_ok=True)
            (folder / f"m{n}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
            n += 1
    result = ingest_paths([folder], tmp_path / "pmim.duckdb")
    kinds = [r.error_type for r in result.rejected]
    assert kinds.count("rules") >= 20, kinds
    unplaced = [r.render() for r in result.rejected if r.error_type == "rules" and (r.line is None or not r.file)]
    assert not unplaced, unplaced


def test_slices_checked_while_staging_give_the_same_outcome(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """A batch staged slice by slice, each slice replayed while the next is read: the same
    games stored, rejected (with the same reasons) and skipped as duplicates as in one go."""
    import pmim_analytics.store.ingest as ingest_mod

    rng = random.Random(8)
    folder = tmp_path / "in"
    folder.mkdir()
    for n, g in enumerate(base_games()):
        write_game(g, folder / f"a{n}-good.jsonl")
    write_game(base_games()[0], folder / "z-copy-of-a0.jsonl")  # a duplicate in a later slice
    n = 0
    while n < 6:
        lines = mutate(base_games()[rng.randrange(N_BASE)], rng.choice(KINDS), rng.randrange(10_000))
        if lines:
            (folder / f"m{n}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
            n += 1
    outcomes = []
    for slice_files in (1000, 3):
        monkeypatch.setattr(ingest_mod, "JUDGE_SLICE_FILES", slice_files)
        db = tmp_path / f"s{slice_files}.duckdb"
        write_game(base_games()[1], tmp_path / "first" / "b1.jsonl")
        ingest_paths([tmp_path / "first"], db, workers=2)  # already stored: a duplicate in the batch below
        result = ingest_paths([folder], db, workers=2)
        stored = sorted(gid for (gid,) in read_frame("SELECT game_id FROM games", db=db).rows())
        checks = sorted(read_frame("SELECT game_id, rules_checked, checked_by FROM game_checks", db=db).rows())
        rejected = sorted((Path(r.file).name, r.line, r.error_type, r.message) for r in result.rejected)
        outcomes.append((stored, checks, rejected, result.loaded, result.duplicates))
    assert outcomes[0] == outcomes[1]
    stored, checks, rejected, loaded, duplicates = outcomes[1]
    assert duplicates == 2 and loaded == N_BASE - 1 + 6 - len(rejected)
    assert any(kind == "rules" for _, _, kind, _ in rejected)
    assert all(checked for _, checked, _ in checks)


def test_a_worker_judges_by_the_data_folder_of_the_ingest_that_started_it(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Workers are forked from one fork server per process, which keeps the environment of the
    # first pool; an ingest started later under another $PMIM_DATA (its own rules) must still
    # have its games judged by those rules, not the first pool's.
    from pmim_analytics.rules.catalogue import data_dir
    from pmim_analytics.store.rules_judge import RulesJudge

    monkeypatch.delenv("PMIM_DATA", raising=False)
    first = RulesJudge(workers=2)
    try:
        assert first._make_pool().submit(data_dir).result() == data_dir()
    finally:
        first.close()
    monkeypatch.setenv("PMIM_DATA", str(tmp_path))
    second = RulesJudge(workers=2)
    try:
        assert second._make_pool().submit(data_dir).result() == tmp_path
    finally:
        second.close()


#: (field, edit of a hit attack's fields, words in the rejection): what store/validate.py
#: once checked in SQL, now judged by the engine alone (one judge).
RULE_EDITS = [
    ("hit", lambda e: {"hit": False, "damage": 0, "overkill": 0, "location": None, "location_rolls": []},
     "hit is False, the rules give True"),
    ("needed", lambda e: {"needed": e["needed"] - 2}, "the rules give"),
    ("acc", lambda e: {"acc": e["acc"] + 1}, "the rules give"),
    ("damage", lambda e: {"damage": e["damage"] + 1}, "the rules give"),
]


@pytest.mark.parametrize(("field", "edit", "words"), RULE_EDITS, ids=[r[0] for r in RULE_EDITS])
def test_an_attack_the_rules_do_not_give_is_refused_at_its_line_and_field(tmp_path: Path, field: str, edit,  # noqa: ANN001
                                                                          words: str) -> None:
    lines = format_game(base_games()[0]).splitlines()
    header, events = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    i = next(n for n, e in enumerate(events) if e["type"] == "attack" and e["hit"] and e["damage"] > 0)
    events[i].update(edit(events[i]))
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "bad.jsonl").write_text("\n".join(_reidentify(header, events)) + "\n", encoding="utf-8")
    result = ingest_paths([tmp_path / "in"], tmp_path / "pmim.duckdb", workers=1)
    assert result.loaded == 0 and len(result.rejected) == 1
    rej = result.rejected[0]
    assert (rej.line, rej.field, rej.error_type) == (i + 2, field, "rules"), rej.render()
    assert words in rej.message, rej.render()
