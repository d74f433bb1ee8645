"""`pmim` loads only the command module it runs: every top-level command has a loader, and a
light command such as `pmim rules show` starts without DuckDB, the analytics or the engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import typer

from pmim_analytics.cli import COMMAND_NAMES, app, build_app
from pmim_analytics.rules.catalogue import REPO_ROOT


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


def test_the_cli_sets_one_blas_thread_before_numpy_loads_unless_told_otherwise() -> None:
    code = ("import os, sys\n"
            "import pmim_analytics.cli\n"
            "print('numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert proc.stdout.split() == ["False", "1", "1"]
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**env, "OPENBLAS_NUM_THREADS": "3"})
    assert proc.stdout.split() == ["False", "3", "1"]


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


#: Runs ``pmim ARGS`` in this interpreter and prints, at exit, which heavy libraries it loaded.
LOADED_AT_EXIT = """import atexit, sys
heavy = ('pandas', 'polars', 'duckdb', 'pyarrow', 'numpy', 'pmim_analytics.engine.bots', 'pmim_analytics.sim')
atexit.register(lambda: print('loaded:', *sorted({m.split('.')[0] if m.split('.')[0] != 'pmim_analytics' else m
                                                for m in sys.modules if m.startswith(heavy)}), file=sys.stderr))
sys.argv = ['pmim', *sys.argv[1:]]
from pmim_analytics.cli import main
main()
"""


def _loaded(args: list[str], cwd: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", LOADED_AT_EXIT, *args], capture_output=True, text=True, cwd=cwd)
    assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
    return set(proc.stderr.strip().splitlines()[-1].split()[1:])


def test_a_hostile_input_is_refused_before_the_heavy_libraries_load(tmp_path: Path) -> None:
    """Refusing an oversized or malformed input costs only the start-up of the command's own
    reader (docs/limits.md has the figures): no Polars, DuckDB, Arrow, NumPy or bots for it."""
    (tmp_path / "deep.jsonl").write_text("[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "long.pmimlog").write_text("rules: v3 " + "x" * 2_000_000 + "\n")
    for args in (["rules", "show", "no-such-rules"], ["army", "validate", "deep.jsonl"],
                 ["log", "show", "long.pmimlog"], ["log", "write", "deep.jsonl"],
                 ["replay", "verify", "deep.jsonl"]):
        assert _loaded(args, tmp_path) == set(), args


def test_an_ingest_loads_no_pandas(tmp_path: Path) -> None:
    """pyarrow would import pandas (most of an ingest's start-up) only to ask whether its
    input is a pandas object; ``cli.arrow_without_pandas`` keeps it from doing so."""
    (tmp_path / "deep.jsonl").write_text("[" * 5000 + "]" * 5000 + "\n")
    good = REPO_ROOT / "replays" / "sample-v3-balanced-vs-tank-heavy.jsonl"  # a new database, a game judged
    proc = subprocess.run([sys.executable, "-c", LOADED_AT_EXIT, "ingest", "deep.jsonl", str(good), "--db", "t.duckdb",
                           "-q", "--workers", "1"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1 and "nested deeper" in proc.stderr and "loaded 1 game" in proc.stdout, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("loaded:")
    assert "pandas" not in proc.stderr.strip().splitlines()[-1].split()


def test_a_count_over_its_ceiling_is_refused_before_the_analytics_load(tmp_path: Path) -> None:
    """The count options of ``bots ladder``, ``calibrate``, ``report`` and a sweep file's counts
    are checked before Polars, DuckDB, Arrow or NumPy load: a refusal costs the start-up of the
    command's own options."""
    huge = str(10**12)
    (tmp_path / "huge.yaml").write_text("name: huge\nseed: 1\nrules: [v3]\ncompositions: [v3-balanced, v3-tank-heavy]\n"
                                        f"games_per_pairing: {huge}\n", encoding="utf-8")
    for args in (["bots", "ladder", "--games-per-pairing", huge, "--no-store"],
                 ["bots", "ladder", "--bootstrap", huge, "--no-store"], ["calibrate", "--games", huge],
                 ["report", "meta", "--rules", "v3", "--min-games", "-1"],
                 ["report", "robustness", "--min-games", "0"]):
        assert _loaded(args, tmp_path) == set(), args
    for args in (["sweep", "huge.yaml", "--no-ingest"],  # the part size's module of the batch runner
                 ["bots", "ladder", "--bots", f"random,search:budget={huge}", "--no-store"]):  # the bots' parser
        loaded = _loaded(args, tmp_path)
        assert not loaded & {"pandas", "polars", "duckdb", "pyarrow", "numpy"}, (args, loaded)
