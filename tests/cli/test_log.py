"""``pmim log check`` and ``pmim log show`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pmim_analytics.cli import app
from pmim_analytics.replay.format import read_game
from pmim_analytics.replay.manual import read_log
from pmim_analytics.rules.catalogue import REPO_ROOT

PLAYTESTS = REPO_ROOT / "data" / "playtests"
runner = CliRunner()
GOOD = "rules: v3\nblue army: v3-balanced\nred army: v3-tank-heavy\nR1 vp 1-0\nresult: blue manual\n"
BAD = GOOD.replace("R1 vp 1-0", "R1 B:GE1 GG>R:TY1 hit\nR1 vp 9-0")  # a weapon the unit lacks, VP out of reach


def test_check_prints_a_summary_per_good_log_and_exits_0() -> None:
    result = runner.invoke(app, ["log", "check", str(PLAYTESTS / "playtest-1.pmimlog"),
                                 str(PLAYTESTS / "playtest-2.pmimlog")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2
    assert "v2 take-and-hold" in lines[0] and "blue wins on VP" in lines[0] and "VP 11-7" in lines[0]
    assert "red wins" in lines[1] and "VP not logged" in lines[1]


def test_check_prints_every_error_with_line_and_column_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pmimlog"
    bad.write_text(BAD)
    good = tmp_path / "good.pmimlog"
    good.write_text(GOOD)
    result = runner.invoke(app, ["log", "check", str(bad), str(good)])
    assert result.exit_code == 1
    out = result.stdout
    assert f"{bad}:4:10: 'B:GE1' has no weapon 'GG'" in out.replace("\n", "")
    assert f"{bad}:5:7: VP totals '9-0' gain 9 VP" in out.replace("\n", "")
    assert "INVALID" in out and "2 errors" in out
    assert "ok" in out and "good.pmimlog" in out


def test_check_exits_2_for_an_unreadable_file(tmp_path: Path) -> None:
    good = tmp_path / "good.pmimlog"
    good.write_text(GOOD)
    result = runner.invoke(app, ["log", "check", str(tmp_path / "missing.pmimlog"), str(good)])
    assert result.exit_code == 2
    assert "file not found" in result.stderr
    assert "ok" in result.stdout


def test_show_prints_json_lines_that_read_back_as_the_same_replay(tmp_path: Path) -> None:
    path = PLAYTESTS / "sample-detailed-v3.pmimlog"
    result = runner.invoke(app, ["log", "show", str(path)])
    assert result.exit_code == 0
    header = json.loads(result.stdout.splitlines()[0])
    assert header["source"] == "manual" and header["format"] == "pmim-replay"
    out = tmp_path / "g.jsonl"
    out.write_text(result.stdout)
    assert read_game(out) == read_log(path)


def test_show_notation_reads_back_as_the_same_game(tmp_path: Path) -> None:
    path = PLAYTESTS / "sample-quick-v3.pmimlog"
    result = runner.invoke(app, ["log", "show", "--notation", str(path)])
    assert result.exit_code == 0
    assert "blue army: TW(GG ML) VI(MPC MAC)" in result.stdout
    again = tmp_path / "again.pmimlog"
    again.write_text(result.stdout)
    assert read_log(again) == read_log(path)


def test_show_stops_at_the_first_error_with_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pmimlog"
    bad.write_text(GOOD.replace("R1 vp 1-0", "R1 B:GE9 move"))
    result = runner.invoke(app, ["log", "show", str(bad)])
    assert result.exit_code == 2
    assert "line 4, column 4: unknown unit 'B:GE9'" in result.stderr.replace("\n", "")
    assert "Traceback" not in result.output


def bad_logs() -> dict[str, str]:
    """The logs this file writes to be refused (for test_reader_engine_differential.py)."""
    return {"log check: two errors": BAD}
