"""The rules and army commands, run as a user would (a real subprocess for exit codes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from typer.testing import CliRunner

from pmim_analytics.cli import app
from tests.conftest import ARMIES
from tests.support.cli import pmim_in_process

runner = CliRunner()


def pmim(*args: str) -> subprocess.CompletedProcess[str]:
    """The command run in this process (:mod:`tests.support.cli`): what it prints and writes and
    its exit code are the point, not the process."""
    return pmim_in_process(*args)


def test_rules_list_and_show() -> None:
    r = runner.invoke(app, ["rules", "list"])
    assert r.exit_code == 0 and "v3-llaser-rpt4" in r.output
    r = runner.invoke(app, ["rules", "show", "v3", "--unit", "timber wolf"])
    assert r.exit_code == 0 and "Timber Wolf" in r.output and "humanoid" in r.output


def test_rules_diff_markdown() -> None:
    r = runner.invoke(app, ["rules", "diff", "v2", "v3", "--markdown"])
    assert r.exit_code == 0
    assert "| chassis | Beetle | HP | 3 | 2 |" in r.output


def test_validate_samples_exit_zero() -> None:
    r = runner.invoke(app, ["army", "validate", *map(str, sorted(ARMIES.glob("*.yaml")))])
    assert r.exit_code == 0, r.output
    assert r.output.count("valid") == len(list(ARMIES.glob("*.yaml")))


def test_invalid_army_exits_one_with_every_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nrules: v3\nunits:\n  - {type: Timber Wolf, weapons: [GG]}\n"
                   "  - {type: Infantry, weapons: [HL], count: 40}\n")
    p = pmim("army", "validate", str(bad))
    assert p.returncode == 1
    assert "INVALID" in p.stdout and "Infantry takes a 5-ton weapon" in p.stdout
    assert "Traceback" not in p.stderr


def test_missing_file_exits_two_without_traceback(tmp_path: Path) -> None:
    p = pmim("army", "validate", str(tmp_path / "nope.yaml"))
    assert p.returncode == 2
    assert "file not found" in p.stderr and "Traceback" not in p.stderr


def test_unknown_rules_id_exits_two() -> None:
    p = pmim("rules", "show", "v7")
    assert p.returncode == 2
    assert "unknown rules version 'v7'" in p.stderr and "Traceback" not in p.stderr


def test_help_has_examples() -> None:
    for cmd in (["rules", "diff"], ["army", "validate"], ["army", "show"], ["rules", "show"]):
        r = runner.invoke(app, [*cmd, "--help"])
        assert r.exit_code == 0 and "Example:" in r.output
