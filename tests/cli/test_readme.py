"""The README is a front door: at most 150 lines, and what it tells a new user to run exists.

Every ``pmim`` command line in it names a real command and only options that command takes;
every ``make`` target is in the Makefile; every relative link and script it names is in the
repository."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import typer

from pmim_analytics.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 150


def _command_lines(text: str) -> list[str]:
    """The ``pmim`` and ``make`` commands of the README: ``$ `` lines of console blocks (with their
    continuation lines) and the lines of ``sh`` blocks, comments dropped."""
    found: list[str] = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S):
        if lang not in ("console", "sh"):
            continue
        joined = body.replace("\\\n", " ")
        for line in joined.splitlines():
            line = line.split("#", 1)[0].strip()
            if lang == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            if line.startswith(("pmim ", "make ")):
                found.append(line)
    return found


def _check_pmim(args: list[str]) -> list[str]:
    """Problems with one ``pmim`` command line: an unknown command or option."""
    cmd = typer.main.get_command(app)  # typer's own click: a group has a dict of commands
    words = args[1:]
    while getattr(cmd, "commands", None) is not None and words and not words[0].startswith("-"):
        sub = cmd.commands.get(words[0])
        if sub is None:
            return [f"{' '.join(args)}: no command {words[0]!r}"]
        cmd, words = sub, words[1:]
    if getattr(cmd, "commands", None) is not None:
        return [f"{' '.join(args)}: names a group, not a command"]
    options = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
    return [f"{' '.join(args)}: {cmd.name} has no option {w.split('=')[0]}" for w in words
            if w.startswith("-") and w.split("=")[0] not in options]


def test_the_readme_is_at_most_150_lines() -> None:
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"README.md has {n} lines: move the long material to docs/ (tour.md, findings.md)"


def test_the_readme_commands_exist() -> None:
    text = README.read_text(encoding="utf-8")
    lines = _command_lines(text)
    assert any(line.startswith("make run") for line in lines) and any(line.startswith("make test") for line in lines)
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), flags=re.M))
    problems: list[str] = []
    for line in lines:
        words = shlex.split(line)
        if words[0] == "make":
            problems += [f"{line}: no make target {t!r}" for t in words[1:] if "=" not in t and t not in targets]
        else:
            problems += _check_pmim(words)
    # commands quoted inline (`pmim demo --status`, `make dashboard DASH_ADDRESS=...`)
    for inline in re.findall(r"`((?:pmim|make) [^`]*)`", text):
        words = shlex.split(inline)
        if words[0] == "make":
            problems += [f"{inline}: no make target {t!r}" for t in words[1:] if "=" not in t and t not in targets]
        else:
            problems += _check_pmim(words)
    assert not problems, "\n".join(problems)


def test_the_checker_catches_an_unknown_command_or_option() -> None:
    assert _check_pmim(["pmim", "report", "units", "--rules", "v3"]) == []
    assert _check_pmim(["pmim", "report", "unitz"]) and _check_pmim(["pmim", "simulate", "--gamez", "3"])


def test_the_readme_links_and_scripts_exist() -> None:
    text = README.read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)]+)\)", text) if "://" not in t]
    targets += re.findall(r"\b(scripts/[\w./-]+\.(?:sh|py))", text)
    missing = [t for t in targets if t and not (ROOT / t).exists()]
    assert not missing, missing
    for doc in ("docs/tour.md", "docs/findings.md"):
        assert doc in text
