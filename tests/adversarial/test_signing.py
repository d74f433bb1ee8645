"""Signing covers only what was written: forged replays put in a folder before ``pmim
simulate --out`` writes into it are never signed, so ``pmim ingest --trust-own`` still
checks them (and refuses them) while the simulation's own games skip the check; one of its
own files edited after signing no longer carries its signature and is checked too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmim_analytics.errors import Location
from pmim_analytics.model.record import compute_game_id
from pmim_analytics.replay.format import parse_event
from pmim_analytics.replay.provenance import MANIFEST
from pmim_analytics.rules.catalogue import REPO_ROOT
from tests.adversarial.test_cli_attacks import games_in, good_replays, pmim

__all__ = ["good_replays"]

BLUE = str(REPO_ROOT / "data" / "armies" / "v3-balanced.yaml")
RED = str(REPO_ROOT / "data" / "armies" / "v3-tank-heavy.yaml")


def forge(good: Path, out: Path) -> Path:
    """``good`` with its winner flipped and its game id recomputed: parses, breaks the rules
    (a note naming the file keeps each forgery a game of its own)."""
    lines = good.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["notes"] = out.name
    end = json.loads(lines[-1])
    end["winner"] = {"blue": "red", "red": "blue", None: "blue"}[end.get("winner")]
    lines[-1] = json.dumps(end)
    events = [parse_event(json.loads(x), Location("x")) for x in lines[1:]]
    head["game_id"] = compute_game_id(head, events)
    lines[0] = json.dumps(head)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.fixture
def folder(tmp_path: Path, good_replays: list[Path]) -> Path:
    f = tmp_path / "out"
    f.mkdir()
    for n in range(5):
        forge(good_replays[n % len(good_replays)], f / f"forged-{n}.jsonl")
    return f


def test_a_folder_holding_replays_is_refused_and_left_as_it_was(folder: Path) -> None:
    before = sorted(p.name for p in folder.iterdir())
    r = pmim("simulate", "--blue", BLUE, "--red", RED, "--games", "2", "--workers", "1", "--out", str(folder))
    assert r.code == 2 and "already holds 5 replay file(s)" in r.err and "--allow-existing" in r.err, r.err
    assert sorted(p.name for p in folder.iterdir()) == before and not (folder / MANIFEST).exists()


def test_with_allow_existing_only_the_written_files_are_signed_and_the_forged_ones_are_checked(
        tmp_path: Path, folder: Path) -> None:
    r = pmim("simulate", "--blue", BLUE, "--red", RED, "--games", "3", "--workers", "1", "--format", "jsonl",
             "--out", str(folder), "--allow-existing")
    assert r.code == 0, r.err
    signed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
    assert sorted(signed) == [f"game-{i:06d}.jsonl" for i in range(3)]
    forge(folder / "game-000001.jsonl", folder / "game-000001.jsonl")  # a signed file edited after signing
    db = tmp_path / "pmim.duckdb"
    ingest = pmim("ingest", "--trust-own", str(folder), "--db", str(db), "-q", timeout=120)
    assert ingest.code == 1 and games_in(db) == 2, (ingest.out, ingest.err)
    rejected = [x for x in ingest.err.splitlines() if x.startswith("rejected:")]
    assert len(rejected) == 6 and sum("forged-" in x for x in rejected) == 5, rejected
    assert any("game-000001.jsonl" in x for x in rejected)  # its signature no longer holds: checked, refused


def test_a_file_as_out_is_one_sentence(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    for out in (target, target / "sub"):
        r = pmim("simulate", "--blue", BLUE, "--red", RED, "--games", "1", "--workers", "1", "--out", str(out))
        assert r.code == 2 and "is a file, not a folder" in r.err and "Traceback" not in r.err, r.err
    assert target.read_text() == "mine"
