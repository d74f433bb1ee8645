"""A misspelt id in any command: one sentence naming the valid ids, exit 2, never silence.

The test walks the ``pmim`` app itself, so a command added later with a ``--rules`` (or bot,
or scenario) option is fed a misspelt id too. The walk runs in-process (typer's runner: 30
commands in seconds); the sentences a user reads are also checked on the real ``pmim``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from pmim_analytics.cli import app
from pmim_analytics.engine.bots import bot_names
from pmim_analytics.rules.catalogue import REPO_ROOT, list_rules_ids
from tests.adversarial.test_cli_attacks import good_replays, pmim

__all__ = ["good_replays"]

ARMY = str(REPO_ROOT / "data" / "armies" / "v3-balanced.yaml")
#: what a required parameter of a command is given (anything that lets the command start)
REQUIRED = {"--blue": ARMY, "--red": ARMY, "file": ARMY, "files": ARMY, "--to": "v3"}
ID_OPTIONS = {"--rules": "rules", "--diff": "rules", "--bots": "bot", "--blue-bot": "bot", "--red-bot": "bot",
              "--scenario": "scenario"}
#: options of those names that take something else (a number for `report power --diff`)
NOT_IDS = {("report", "power", "--diff")}
TYPO = {"rules": "v3,v3-laser-rpt4", "bot": "random,gredy", "scenario": "take-and-hld"}
SAID = {"rules": "v3-laser-rpt4'", "bot": "'gredy'", "scenario": "'take-and-hld'"}


def _commands() -> list[tuple[tuple[str, ...], Any]]:
    found = []

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        if hasattr(cmd, "commands"):  # a group (typer may bring its own click)
            for name, sub in cmd.commands.items():
                walk(sub, (*path, name))
        else:
            found.append((path, cmd))

    walk(typer.main.get_command(app), ())
    return found


def _cases() -> list[tuple[tuple[str, ...], str, str]]:
    cases = []
    for path, cmd in _commands():
        for p in cmd.params:
            for opt in getattr(p, "opts", []):
                if opt in ID_OPTIONS and (*path, opt) not in NOT_IDS:
                    cases.append((path, opt, ID_OPTIONS[opt]))
    return cases


CASES = _cases()


def test_the_walk_finds_the_commands_the_issue_names() -> None:
    found = {(" ".join(path), opt) for path, opt, _ in CASES}
    for expected in [("report compositions", "--rules"), ("report impact", "--rules"), ("dice", "--rules"),
                     ("bots ladder", "--bots"), ("simulate", "--scenario"), ("report matchups", "--diff")]:
        assert expected in found
    assert len(found) >= 25


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, good_replays: list[Path]) -> Path:
    path = tmp_path_factory.mktemp("db") / "pmim.duckdb"
    assert pmim("ingest", *map(str, good_replays), "--db", str(path), "-q").code == 0
    return path


@pytest.mark.parametrize(("path", "opt", "kind"), CASES, ids=[f"{' '.join(p)} {o}" for p, o, _ in CASES])
def test_a_misspelt_id_is_refused_with_the_valid_ones(tmp_path: Path, db: Path, path: tuple[str, ...], opt: str,
                                                      kind: str) -> None:
    cmd = next(c for p, c in _commands() if p == path)
    args = [*path]
    names = {o for p in cmd.params for o in getattr(p, "opts", [])}
    for p in cmd.params:
        first = p.opts[0] if getattr(p, "opts", None) else p.name
        if p.required and first != opt:
            value = REQUIRED.get(first) or REQUIRED.get(p.name or "")
            assert value is not None, f"no value for the required {first} of {' '.join(path)}"
            args += [value] if p.param_type_name == "argument" else [first, value]
    if "--db" in names and "--ingest" not in names:  # simulate's --db only goes with --ingest
        args += ["--db", str(db)]
    if "--out" in names and path[0] == "export":
        args += ["--out", str(tmp_path / "out")]
    typo = TYPO[kind]
    if path[-1] == "impact" or opt == "--diff":
        typo = "v3,v3-laser-rpt4"
    if kind == "bot" and opt != "--bots":
        typo = "gredy"
    r = CliRunner().invoke(app, [*args, opt, typo], env={"COLUMNS": "200"})
    said = " ".join(r.output.split())  # the sentence, however the console wrapped it
    assert r.exit_code == 2, (args, r.exit_code, r.output, r.exception)
    assert SAID[kind] in said, said
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception  # no traceback
    valid = {"rules": list_rules_ids(), "bot": bot_names(), "scenario": ["take-and-hold"]}[kind]
    assert all(v in said for v in valid), said  # the valid ids are listed
    assert not (tmp_path / "out").exists()


def test_an_id_with_no_games_says_so_but_an_unknown_one_is_refused(db: Path) -> None:
    known = pmim("report", "compositions", "--rules", "v2", "--db", str(db))
    assert known.code == 0 and "no games" in known.err
    unknown = pmim("report", "compositions", "--rules", "v4", "--db", str(db))
    assert unknown.code == 2 and "unknown rules id 'v4' in --rules" in unknown.err
    assert "v3-llaser-rpt4" in unknown.err and "Traceback" not in unknown.err
    typo = pmim("report", "compositions", "--rules", "v3,v3-laser-rpt4", "--db", str(db))
    assert typo.code == 2 and "'v3-laser-rpt4'" in typo.err
