"""Each rule has one home: docs/architecture.md's table names the one function that holds it,
and no other code in the package writes the rule again.

The table's rows are read from the doc; each names a rule and its home as
``module.path.function``. For each rule, :data:`FINGERPRINTS` are patterns of code (string
literals and comments left out) that write it out; outside the home function, none may match
anywhere in ``pmim_analytics``. The two must list the same rules, so a row cannot go stale.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "pmim_analytics"
DOC = ROOT / "docs" / "architecture.md"

#: rule -> patterns of code that write it (matched on code with strings and comments removed,
#: ``def`` lines left out so a function's own name is no match).
FINGERPRINTS: dict[str, tuple[str, ...]] = {
    # an attack adds its heat to the activation's and the excess over the rating is its roll's target
    "heat per activation": (r"\boverheat_excess\(", r"\bheat\s*\+=", r"\.heat\s*\+\s*\w+\.heat\b"),
    # the higher initiative die goes first
    "rolled initiative": (r"\bblue(_roll)?\s*[<>]=?\s*[\w.]*\bred(_roll)?\b",
                          r"\bred(_roll)?\s*[<>]=?\s*[\w.]*\bblue(_roll)?\b"),
    # attacks per activation, and none after a rush
    "attacks left in an activation (none after a rush)": (r"\battacks\s*(>=|<=|>|<)",
                                                          r"(>=|<=|==|>|<)\s*[\w.]*\bmax_attacks\b"),
    # a rush gives up the activation's attacks: no rush once the unit has attacked
    "no rush after an attack": (r"\battacks(_made)?\s*(==|>|!=)\s*0\b",),
    # what a lost location leads to: destroyed, immobilized, disarmed
    "damage -> destroyed / immobilized / disarmed": (r"\bis_mech_destroyed\(", r"\bis_mech_immobilized\(",
                                                     r"\bis_disarmed\("),
    # a unit within the radius of an objective counts for it
    "capture zone": (r"<=\s*[\w.]*\bradius\b", r"\bradius\s*>="),
    # the side with more units in a zone scores it
    "objective scoring": (r"\blen\(\s*blue\w*\s*\)\s*[<>]", r"\bblue_holders\s*[<>]"),
    # more than the target and ahead wins on VP
    "victory on VP": (r"[<>]=?\s*[\w.]*\bvp_to_win\b", r"\bvp_to_win\s*[<>]"),
    # how far a move goes: the shortest walk past no enemy and no impassable hex
    "move length (shortest legal path)": (r"\bgrid\.neighbours\b",),
    # a unit kind deploys within its depth of its side's edge
    "deployment zone": (r"\bdeployment\.depth\b", r"\.depth\s*,\s*kind\b"),
    # a unit moves once an activation, and not when immobilized
    "may move now": (r"\breturn\s+IMMOBILIZED\b", r"\bif\s+self\.moved\s*:", r"\bif\s+\w+\.immobilized\s*:",
                     r"\bmoves\s*>=\s*1\b"),
    # where a move may end: on the map, free, passable, within MOV by a legal walk
    "move destination": (r"\bdist\b(\[[^\]]*\])+\s*>\s*[\w.]*\blimit\b", r"\bpath\s*>\s*[\w.]*\blimit\b",
                         r"\bif\s+[\w.]*\bimpassable\[\s*\w+\s*\]\s*:"),
    # an attack: one left, each weapon once, the weapon usable, an enemy standing, within range
    "attack legality": (r"\bdist(ance)?\b(\[[^\]]*\])*\s*>\s*[\w.]*\brng\b",),
    # a hit takes HP, never below 0; taking the last destroys the unit or the location
    "a hit's damage taken": (r"\babsorb\(",),
    # a side with no unit left has lost
    "wipeout": (r"\bliving\b(\[[^\]]*\])?\s*(==|<=)\s*0\b", r"\ball\(\s*\w+\.is_destroyed\b"),
    # blue in odd rounds, red in even ones (or the side drawn)
    "the first side of a round": (r"%\s*2\s*==\s*1\s+else\b",),
    # the sides take turns; a catch-up turn has more activations; a side with none left passes
    "whose turn it is": (r"\bturn_left\s*>\s*1\b", r"\bwaiting\[\s*1\s*-\s*\w+\s*\]\s*>\s*0"),
    # the scenario's round limit: the last round, and no round after it
    "round limit": (r"\bround_limit\s*(<=|>=|==|!=|<|>|-)", r"(<=|>=|==|!=|<|>|-)\s*[\w.]*\bround_limit\b"),
    # VP totals only grow, and each objective gives at most one VP a round
    "a table log's VP totals (only grow, at most one VP an objective a round)": (
        r"\b(n_obj|objectives)\s*\*\s*rounds(_since)?\b", r"\bblue\s*<\s*b0\b"),
    # a result's winner cannot be wiped out; a wipeout needs the loser wiped out
    "a logged result (its winner, reason, final VP and rounds)": (r"\bwinner\s+in\s+wiped\b",
                                                                 r"\bnot\s+in\s+wiped\b"),
}


#: Tokens that are no code: strings, comments, line structure.
SKIP = {tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}


#: Code outside a rule's home that writes it anyway, on purpose: (rule, file) -> why.
KNOWN_COPIES: dict[tuple[str, str], str] = {
    ("capture zone", "pmim_analytics/analytics/adherence.py"):
        "a Polars expression over whole columns of positions cannot call the function per row",
}


def _table() -> dict[str, str]:
    """The one-home table of docs/architecture.md: rule -> ``module.function``."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### One function per rule", 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[1].startswith("`") and cells[0] not in ("rule", ""):
            rows[cells[0]] = cells[1].strip("`")
    return rows


@cache
def _code_lines(path: Path) -> dict[int, str]:
    """Each line's code with string literals and comments removed (line number -> text)."""
    out: dict[int, str] = {}
    first: dict[int, str] = {}
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type in SKIP:
            continue
        n = tok.start[0]
        words = prev is not None and prev.start[0] == n and prev.type in (tokenize.NAME, tokenize.NUMBER) \
            and tok.type in (tokenize.NAME, tokenize.NUMBER)
        out[n] = out.get(n, "") + (" " if words else "") + tok.string
        first.setdefault(n, tok.string)
        prev = tok
    return {n: code for n, code in out.items() if first[n] != "def"}


def _span(module: str, name: str) -> tuple[Path, int, int]:
    path = PKG.joinpath(*module.split(".")[1:]).with_suffix(".py")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return path, node.lineno, node.end_lineno or node.lineno
    raise AssertionError(f"{module} has no function {name}")


def test_the_table_and_the_fingerprints_name_the_same_rules() -> None:
    assert set(_table()) == set(FINGERPRINTS)


@pytest.mark.parametrize("rule", sorted(FINGERPRINTS))
def test_each_rule_is_written_in_its_home_function_only(rule: str) -> None:
    home = _table()[rule]
    module, name = home.rsplit(".", 1)
    assert callable(getattr(importlib.import_module(module), name)), home
    home_path, first, last = _span(module, name)
    patterns = [re.compile(p) for p in FINGERPRINTS[rule]]
    found_at_home = False
    elsewhere = []
    for path in sorted(PKG.rglob("*.py")):
        for n, code in _code_lines(path).items():
            if not any(p.search(code) for p in patterns):
                continue
            if path == home_path and first <= n <= last:
                found_at_home = True
            elif (rule, str(path.relative_to(ROOT))) not in KNOWN_COPIES:
                elsewhere.append(f"{path.relative_to(ROOT)}:{n}: {code}")
    assert found_at_home, f"{home} does not write the rule {rule!r} (the fingerprints are stale)"
    assert not elsewhere, f"{rule!r} is written outside {home}:\n" + "\n".join(elsewhere)


def test_each_known_copy_is_still_there() -> None:
    # a copy that went away leaves its excuse behind: drop it from KNOWN_COPIES
    for (rule, file), _ in KNOWN_COPIES.items():
        code = _code_lines(ROOT / file).values()
        assert any(re.search(p, line) for p in FINGERPRINTS[rule] for line in code), (rule, file)
