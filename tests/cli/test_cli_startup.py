"""`pmim` loads only the command module it runs: every top-level command has a loader, and a
light command such as `pmim rules show` starts without DuckDB, the analytics or the engine."""

from __future__ import annotations

import os
import subprocess
import sys

import typer

from pmim_analytics.cli import COMMAND_NAMES, app, build_app


def _names(t: typer.Typer) -> set[str]:
    group = typer.main.get_group(t)
    return set(group.commands)


def test_every_top_level_command_has_a_loader() -> None:
    assert _names(app) == COMMAND_NAMES


def test_each_partial_app_holds_the_command_it_was_built_for() -> None:
    for name in sorted(COMMAND_NAMES):
        assert name in _names(build_app(name)), name


def test_the_rules_commands_start_without_duckdb_the_analytics_or_the_engine() -> None:
    code = ("import sys\n"
            "from pmim_analytics.cli import build_app\n"
            "build_app('rules')\n"
            "heavy = ('duckdb', 'pmim_analytics.store', 'pmim_analytics.analytics', 'pmim_analytics.engine')\n"
            "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]", proc.stdout


def test_a_command_alone_in_its_app_is_still_called_by_its_name() -> None:
    proc = subprocess.run([sys.executable, "-m", "pmim_analytics", "demo", "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "100"})
    assert proc.returncode == 0, proc.stderr
    assert " demo [OPTIONS]" in proc.stdout and "--core" in proc.stdout


def test_a_partial_app_answers_as_the_whole_one() -> None:
    from typer.testing import CliRunner

    args = ["rules", "show", "v3", "--format", "json"]
    proc = subprocess.run([sys.executable, "-m", "pmim_analytics", *args], capture_output=True, text=True)
    whole = CliRunner().invoke(app, args)
    assert proc.returncode == whole.exit_code == 0, proc.stderr
    assert proc.stdout == whole.stdout and '"Infantry"' in proc.stdout
