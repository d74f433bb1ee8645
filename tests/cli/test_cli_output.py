"""``--format table|csv|json|markdown``: output that pipes, whatever the terminal and the paths."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pmim_analytics.analytics import tables
from pmim_analytics.cli import app
from pmim_analytics.store.migrate import latest_version
from pmim_analytics.store.readers import DuckDBData
from tests.store.test_readers import mixed_games, paired_games
from tests.support.dbhelper import create_db
from tests.support.gamebuilder import frames_of

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_db(tmp_path_factory.mktemp("out") / "pmim.duckdb", frames_of([*mixed_games(), *paired_games()]))


@pytest.fixture(scope="module")
def long_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database at the end of a path longer than any terminal line."""
    deep = tmp_path_factory.mktemp("long")
    for i in range(8):
        deep = deep / f"a-rather-long-folder-name-number-{i}"
    deep.mkdir(parents=True)
    return create_db(deep / "pmim.duckdb", frames_of([*mixed_games(), *paired_games()]))


def pmim(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The CLI in a real process, stdout a pipe, on a 40-column 'terminal'."""
    env = {**os.environ, "COLUMNS": "40", "LINES": "20"}
    return subprocess.run([sys.executable, "-m", "pmim_analytics", *args], capture_output=True, text=True,
                          env=env, cwd=cwd)


def test_piped_tables_keep_every_row_whole_on_a_narrow_terminal_and_a_long_path(long_db: Path) -> None:
    assert len(str(long_db)) > 250
    r = pmim("report", "compositions", "--min-games", "1", "--db", str(long_db))
    assert r.returncode == 0, r.stderr
    _assert_whole_rows(r.stdout, long_db)  # one line holds the whole row, in order

    info = pmim("db", "info", "--db", str(long_db))
    assert info.returncode == 0, info.stderr
    assert f"database       {long_db}" in info.stdout.splitlines()

    migrate = pmim("db", "migrate", "--db", str(long_db))
    assert migrate.stdout.strip().endswith(f"schema version {latest_version()}")
    assert str(long_db) in migrate.stdout.splitlines()[0]


def _assert_whole_rows(stdout: str, db: Path) -> None:
    """Every composition's row is on one line of ``stdout``: rules id, source, name, games, W-D-L."""
    comps = tables.composition_report(DuckDBData(db))
    assert comps.height > 5
    lines = stdout.splitlines()
    for row in comps.iter_rows(named=True):
        cells = (row["rules_id"], row["source"], row["composition"], row["games"],
                 f"{row['wins']}-{row['draws']}-{row['losses']}")
        pattern = re.compile(r"\s+│\s+".join(re.escape(str(x)) for x in cells))
        assert any(pattern.search(line) for line in lines), (row, stdout)
    assert "…" not in stdout


def test_a_shell_pipe_to_cat_and_a_redirect_to_a_file_give_whole_rows(long_db: Path, tmp_path: Path) -> None:
    """What a user types: ``pmim report compositions | cat`` and ``> file``, on a 40-column terminal."""
    env = {**os.environ, "COLUMNS": "40", "LINES": "20"}
    cmd = shlex.join([sys.executable, "-m", "pmim_analytics", "report", "compositions", "--min-games", "1",
                      "--db", str(long_db)])
    piped = subprocess.run(["sh", "-c", f"{cmd} | cat"], capture_output=True, text=True, env=env, cwd=ROOT)
    assert piped.returncode == 0, piped.stderr
    _assert_whole_rows(piped.stdout, long_db)
    out = tmp_path / "compositions.txt"
    redirected = subprocess.run(["sh", "-c", f"{cmd} > {shlex.quote(str(out))}"], capture_output=True, text=True,
                                env=env, cwd=ROOT)
    assert redirected.returncode == 0, redirected.stderr
    assert out.read_text(encoding="utf-8") == piped.stdout
    # the CSV, redirected to a file, loads in Polars with the columns docs/cli-output.md lists, in that order
    documented = dict(_documented())["report compositions --min-games 1"]
    csv = tmp_path / "compositions.csv"
    r = subprocess.run(["sh", "-c", f"{cmd} --format csv > {shlex.quote(str(csv))}"], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    df = pl.read_csv(csv)
    assert [c for c in df.columns if c in documented] == documented
    assert df.height == tables.composition_report(DuckDBData(long_db)).height


def test_piped_csv_loads_in_polars_with_every_row(long_db: Path) -> None:
    r = pmim("report", "compositions", "--min-games", "1", "--format", "csv", "--db", str(long_db))
    assert r.returncode == 0, r.stderr
    df = pl.read_csv(io.StringIO(r.stdout))
    expected = tables.composition_report(DuckDBData(long_db))
    assert df.height == expected.height
    assert df["composition"].to_list() == expected["composition"].to_list()
    assert df["win_rate"].to_list() == pytest.approx(expected["win_rate"].to_list())
    assert "sides" in r.stderr  # the other table is named on stderr, not mixed into the CSV


def _documented() -> list[tuple[str, list[str]]]:
    text = (ROOT / "docs" / "cli-output.md").read_text(encoding="utf-8")
    section = text.split("## CSV columns", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `pmim ([^`]+)` \| ([^|]+) \|$", section, flags=re.M)
    return [(cmd, [c.strip() for c in cols.split(",")]) for cmd, cols in rows]


def test_the_documentation_lists_every_command_with_a_format() -> None:
    documented = {cmd.split()[0] + " " + cmd.split()[1] if cmd.split()[0] in ("report", "rules", "army", "db",
                                                                                 "replay") else cmd.split()[0]
                  for cmd, _ in _documented()}
    for cmd in ("report units", "report survival", "report weapons", "report compositions", "report matchups",
                "report impact", "report costs", "report luck", "report quality", "dice", "rules list",
                "rules show", "rules diff", "army show", "army validate", "replay show", "db info"):
        assert cmd in documented


@pytest.mark.parametrize("command,columns", _documented(), ids=[c for c, _ in _documented()])
def test_csv_has_the_documented_columns(db: Path, command: str, columns: list[str]) -> None:
    args = shlex.split(command)
    if args[0] in ("report", "db"):
        args += ["--db", str(db)]
    r = runner.invoke(app, [*args, "--format", "csv"])
    assert r.exit_code == 0, r.output
    df = pl.read_csv(io.StringIO(r.stdout))
    assert set(columns) <= set(df.columns), (columns, df.columns)
    assert [c for c in df.columns if c in columns] == columns  # in the documented order
    assert df.height > 0


def test_json_holds_every_table_by_name(db: Path) -> None:
    r = runner.invoke(app, ["report", "impact", "--rules", "v3,v3-llaser-rpt4", "--format", "json", "--db", str(db)])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert set(doc) == {"compositions", "units", "pairing", "rules_changes"}
    assert any(c["item"] == "L. Laser" for c in doc["rules_changes"])
    assert all("win_diff" in row for row in doc["compositions"])


def test_markdown_is_a_pipe_table_with_the_same_cells(db: Path) -> None:
    r = runner.invoke(app, ["dice", "--rules", "v3", "--target", "Paladin", "--format", "markdown"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "### Dice maths, v3 against Paladin"
    header = next(line for line in lines if line.startswith("| weapon"))
    assert [c.strip() for c in header.strip("|").split("|")][:4] == ["weapon", "RNG", "inf.", "needs"]
    hpb = next(line for line in lines if line.startswith("| HPB"))
    assert len(hpb.strip("|").split("|")) == len(header.strip("|").split("|"))


def test_a_limit_caps_what_people_read_not_what_csv_holds(db: Path) -> None:
    table = runner.invoke(app, ["report", "units", "--limit", "2", "--db", str(db)])
    csv = runner.invoke(app, ["report", "units", "--limit", "2", "--format", "csv", "--db", str(db)])
    assert "more rows" in table.stdout
    assert pl.read_csv(io.StringIO(csv.stdout)).height > 2


def test_an_unknown_format_is_a_usage_error(db: Path) -> None:
    r = runner.invoke(app, ["report", "units", "--format", "xml", "--db", str(db)])
    assert r.exit_code == 2 and "xml" in r.output


@pytest.mark.parametrize("command", [[], ["report", "units"], ["simulate"], ["sweep"], ["export"], ["dice"],
                                     ["army", "validate"], ["db", "compact"]])
def test_help_is_whole_on_a_narrow_terminal(command: list[str]) -> None:
    r = pmim(*command, "--help")
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout and "Example:" in " ".join(r.stdout.split())
    options = re.findall(r"--[a-z][a-z-]+", r.stdout)
    assert "--help" in options


def test_demo_help_says_how_many_games_the_demo_builds() -> None:
    from pmim_analytics.demo import DEFAULT_RANDOM, count_planned_games, iter_batches, random_pair_batch

    batches = iter_batches()
    simulated = sum(b.games for _, b in batches) + sum(p.pairs * random_pair_batch(p, 0).games for p in DEFAULT_RANDOM)
    assert count_planned_games() == (simulated, len(batches) + len(DEFAULT_RANDOM))
    logs = len(list((ROOT / "data" / "playtests").glob("*.pmimlog")))
    r = runner.invoke(app, ["demo", "--help"], env={"COLUMNS": "200"})
    text = " ".join(r.stdout.split())
    assert f"Build the demo database: {simulated + logs:,} games in all" in text
    assert f"{len(batches) + len(DEFAULT_RANDOM)} batches" in text


def test_help_prose_is_wrapped_by_the_terminal_not_by_the_source() -> None:
    from pmim_analytics.cli import reflow_help

    doc = """First line.

    A paragraph written over
    two source lines.
    - an item that goes on
      over a second line
    - a second item

    Examples:

      pmim play --seed 1
      pmim play --seed 2
    """
    assert reflow_help(doc).split("\n\n") == [
        "First line.",
        "A paragraph written over two source lines.\n- an item that goes on over a second line\n- a second item",
        "Examples:",
        "  pmim play --seed 1\n  pmim play --seed 2",
    ]
    # and every command's help is reflowed: no prose paragraph keeps the source's line breaks
    import typer.main

    def commands(cmd: object) -> list[object]:
        subs = getattr(cmd, "commands", {})
        return [cmd, *(c for sub in subs.values() for c in commands(sub))]

    for cmd in commands(typer.main.get_command(app)):
        for para in (getattr(cmd, "help", None) or "").split("\n\n"):
            lines = para.split("\n")
            for line in lines[1:]:
                assert line.startswith(("- ", "* ", " ")), (cmd, para)
