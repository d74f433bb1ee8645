"""``pmim play``, ``pmim simulate`` and ``pmim replay verify|show`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from pmim_analytics.cli import app
from tests.conftest import ARMIES
from tests.support.cli import pmim_in_process

runner = CliRunner()
BAL, TANKS = str(ARMIES / "v3-balanced.yaml"), str(ARMIES / "v3-tank-heavy.yaml")


def pmim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pmim_analytics", *args], capture_output=True, text=True)


def test_play_prints_the_result_and_writes_a_replay_that_verifies(tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    r = runner.invoke(app, ["play", "--rules", "v3", "--blue", BAL, "--red", TANKS, "--blue-bot", "tactician",
                            "--red-bot", "random", "--seed", "7", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "wins" in r.output or "draw" in r.output
    header = json.loads(out.read_text().splitlines()[0])
    assert header["seed"] == 7 and header["sides"]["blue"]["bot"] == "tactician"
    assert header["sides"]["red"]["units"][0]["id"].startswith("R:")
    again = tmp_path / "again.jsonl"
    runner.invoke(app, ["play", "--rules", "v3", "--blue", BAL, "--red", TANKS, "--blue-bot", "tactician",
                        "--red-bot", "random", "--seed", "7", "--out", str(again)])
    assert [x for x in again.read_text().splitlines()[1:]] == out.read_text().splitlines()[1:]
    r = runner.invoke(app, ["replay", "verify", str(out)])
    assert r.exit_code == 0 and "1 game(s) checked, 0 with violations" in r.output
    r = runner.invoke(app, ["replay", "show", str(out), "--round", "1"])
    assert r.exit_code == 0 and "Round 1 (blue activates first)" in r.output and "Round 2" not in r.output
    assert " activates" in r.output and "Deployment" not in r.output


def test_verify_exits_one_and_points_at_the_line(tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    runner.invoke(app, ["play", "--blue", BAL, "--red", TANKS, "--seed", "3", "--out", str(out)])
    lines = out.read_text().splitlines()
    n = next(i for i, x in enumerate(lines) if '"type":"attack"' in x and '"hit":true' in x)
    ev = json.loads(lines[n])
    ev["damage"] += 5
    lines[n] = json.dumps(ev)
    out.write_text("\n".join(lines) + "\n")
    r = pmim_in_process("replay", "verify", str(out))
    assert r.returncode == 1
    assert f"game.jsonl: line {n + 1}: attack of {ev['unit']}: damage is {ev['damage']}" in r.stdout
    assert "1 with violations" in r.stderr


def test_simulate_prints_win_rates_and_writes_a_batch(tmp_path: Path) -> None:
    folder = tmp_path / "batch"
    r = pmim("simulate", "--rules", "v3", "--blue", BAL, "--red", TANKS, "--games", "8", "--seed", "1",
             "--workers", "2", "--out", str(folder), "--format", "parquet", "--red-bot", "random")
    assert r.returncode == 0, r.stderr
    assert "A: Balanced" in r.stdout and "B: Tank-heavy" in r.stdout and "95% interval" in r.stdout
    assert "mean rounds" in r.stdout and "draws" in r.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["events.00000.parquet", "games.00000.parquet",
                                                        "pmim-signed.json"]  # signed as this installation's
    r = pmim("replay", "verify", str(folder))
    assert r.returncode == 0 and "8 game(s) checked, 0 with violations" in r.stderr


def test_simulate_defaults_to_json_lines_for_small_batches(tmp_path: Path) -> None:
    r = runner.invoke(app, ["simulate", "--blue", BAL, "--red", TANKS, "--games", "3", "--workers", "1",
                            "--out", str(tmp_path / "small")])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "small").iterdir()) == [f"game-{i:06d}.jsonl" for i in range(3)] + [
        "pmim-signed.json"]
    from pmim_analytics.replay.provenance import own_files_checker

    own = own_files_checker()
    assert all(own(str(tmp_path / "small" / f"game-{i:06d}.jsonl")) for i in range(3))
    (tmp_path / "small" / "game-000000.jsonl").write_text("edited\n")
    assert not own_files_checker()(str(tmp_path / "small" / "game-000000.jsonl"))


def test_bad_input_is_one_sentence_and_exit_two(tmp_path: Path) -> None:
    v2 = str(ARMIES / "v2-playtest-balanced.yaml")
    cases = [
        (["play", "--rules", "v1", "--blue", v2, "--red", v2], "the army is not legal under v1: unit 3 (Tyrant)"),
        (["play", "--rules", "v9", "--blue", BAL, "--red", TANKS], "unknown rules version 'v9'"),
        (["play", "--blue", BAL, "--red", TANKS, "--blue-bot", "smart"], "unknown bot 'smart'; choose one of"),
        (["simulate", "--blue", BAL, "--red", str(tmp_path / "nope.yaml")], "file not found"),
        (["simulate", "--blue", BAL, "--red", TANKS, "--format", "csv"], "unknown format 'csv'"),
        (["replay", "verify", str(tmp_path / "missing.jsonl")], "file not found"),
        (["replay", "show", str(tmp_path)], "holds no replays"),
    ]
    for args, message in cases:
        r = pmim_in_process(*args)  # the sentence and the exit code are the point, not the process
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert message in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_verify_replays_a_table_game_with_the_leniencies_its_log_needs(tmp_path: Path) -> None:
    from dataclasses import replace

    from pmim_analytics.model.events import GameEnd
    from pmim_analytics.model.record import GameRecord
    from pmim_analytics.replay.format import write_game
    from pmim_analytics.replay.manual import parse_log

    head = "rules: v3\nblue army: v3-mech-heavy\nred army: v3-tank-heavy\n"
    game, errors = parse_log(head + "R:TY1 destroyed\nresult: blue vp 11-7\n", "s.pmimlog")
    assert game is not None and not errors
    write_game(game, tmp_path / "summary.jsonl")  # a summary log: losses and the result, no positions
    *rest, end = game.events
    assert isinstance(end, GameEnd)
    write_game(GameRecord(game.header, (*rest, replace(end, reason="wipeout"))), tmp_path / "wrong.jsonl")
    r = runner.invoke(app, ["replay", "verify", str(tmp_path / "summary.jsonl"), str(tmp_path / "wrong.jsonl")])
    assert r.exit_code == 1, r.output
    assert "wrong.jsonl: line 3: game_end (blue, wipeout): the result cannot be: the loser is not wiped out" in r.stdout
    assert "2 game(s) checked, 1 with violations" in r.stderr
