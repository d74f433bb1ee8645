"""A manual log's tags: rules, scenario, date, players and both armies.

Armies are given by file (a path relative to the log, or a file of ``data/armies``, the
``.yaml`` may be left out) or inline, as ``Type(WEAPONS)`` entries with an optional
count: ``blue army: TW(GG ML) VI(MPC MAC) 2xTY(HAC) 3xIN(LL)``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pmim_analytics.errors import Location, PmimError, ReplayError
from pmim_analytics.replay.manual.notation import ErrorHook, Tag, Token, tokenize, unquote_value
from pmim_analytics.rules import (
    DEFAULT_SCENARIO,
    Roster,
    army_violations,
    data_dir,
    load_army,
    load_rules,
    load_scenario,
)
from pmim_analytics.rules.army import ArmyList, parse_army
from pmim_analytics.rules.models import RulesVersion
from pmim_analytics.rules.scenario import Scenario

SIDES = ("blue", "red")
SIDE_PREFIX = {"blue": "B", "red": "R"}
HEADER_TAGS = ("date", "rules", "scenario", "blue player", "red player", "blue army", "red army",
               "blue army name", "red army name", "notes", "not recorded", "estimated")
#: Values of ``not recorded:`` (``nothing`` says everything was recorded) and ``estimated:``.
NOT_RECORDED_VALUES = ("combat", "losses")
ESTIMATED_VALUES = ("vp",)
#: Tags read in line order with the body: they close the game.
FOOTER_TAGS = ("rounds", "result")
_ENTRY_RE = re.compile(r"\s*(?:(\d+)\s*[xX]\s*)?([A-Za-z][A-Za-z .'-]*?)\s*\(([^()]*)\)\s*,?")
_DATE_RE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


@dataclass(frozen=True)
class SideSpec:
    """One side as the header gives it: army name, player and the resolved roster."""

    name: str
    player: str | None
    roster: Roster


@dataclass(frozen=True)
class LogHeader:
    """Everything the tags say about the game."""

    rules: RulesVersion
    scenario: Scenario
    played: str | None
    notes: str | None
    sides: dict[str, SideSpec]
    not_recorded: tuple[str, ...] | None = None  # None: not said, the log's form decides
    estimated: tuple[str, ...] = ()
    estimated_tag: Tag | None = None


def _err(tok: Token, source: str, message: str) -> ReplayError:
    return ReplayError(message, Location(source, tok.line, tok.column))


def find_army_file(value: str, base_dir: Path | None) -> Path | None:
    """The army file a tag names: a path relative to the log, then a file of ``data/armies``.
    Only files inside the log's folder or ``data/armies`` are ever read: an absolute path,
    or one leading anywhere else (``../../x``), finds nothing."""
    names = [value] if value.endswith((".yaml", ".yml")) else [value, value + ".yaml"]
    base = base_dir or Path.cwd()
    armies = data_dir() / "armies"
    allowed = [base.resolve(), armies.resolve()]
    for root in (base, armies):
        for name in names:
            rel = Path(name)
            if rel.is_absolute():
                return None
            p = root / rel
            if p.is_file() and any(p.resolve().is_relative_to(a) for a in allowed):
                return p
    return None


def parse_inline_army(tok: Token, rules_id: str, name: str, source: str) -> ArmyList:
    """``TW(GG ML) 2xTY(HAC)`` -> an :class:`ArmyList`; raises a positioned :class:`ReplayError`."""
    text, pos, entries = tok.text, 0, []
    while pos < len(text):
        m = _ENTRY_RE.match(text, pos)
        if m is None or m.end() == pos:
            bad = text[pos:].split()[0] if text[pos:].split() else text[pos:]
            col = tok.column + pos + (len(text[pos:]) - len(text[pos:].lstrip()))
            raise ReplayError(f"expected an army entry such as 'TW(GG ML)' or '3xIN(LL)', got {bad!r}",
                              Location(source, tok.line, col))
        count, utype, weapons = m.group(1), m.group(2).strip(), m.group(3).replace(",", " ").split()
        entries.append({"type": utype, "weapons": weapons, "count": int(count or 1)})
        pos = m.end()
    if not entries:
        raise ReplayError("an inline army needs at least one entry such as 'TW(GG ML)'",
                          Location(source, tok.line, tok.column))
    try:
        return parse_army({"name": name, "rules": rules_id, "units": entries}, source)
    except PmimError as e:
        raise ReplayError(f"inline army {tok.text!r} is malformed: {e.message}",
                          Location(source, tok.line, tok.column)) from None


def read_header(tags: Iterable[Tag], source: str, base_dir: Path | None, on_error: ErrorHook) -> LogHeader | None:
    """Check the header tags and resolve rules, scenario and armies.

    Every problem goes to ``on_error``; returns ``None`` when the game cannot be built
    (no usable rules version, scenario or army).
    """
    seen: dict[str, Tag] = {}
    notes: list[str] = []
    for tag in tags:
        name = tag.name
        if name in FOOTER_TAGS:
            continue
        if name not in HEADER_TAGS:
            on_error(_err(tag.key, source, f"unknown tag {tag.key.text!r}; the tags are "
                          f"{', '.join(HEADER_TAGS + FOOTER_TAGS)}"))
            continue
        if not tag.value.text:
            on_error(_err(tag.key, source, f"tag {tag.key.text!r} has no value"))
            continue
        if name == "notes":
            try:
                notes.append(unquote_value(tag.value, source))
            except ReplayError as e:
                on_error(e)
            continue
        if name in seen:
            on_error(_err(tag.key, source, f"tag {tag.key.text!r} is given twice (first on line {seen[name].line})"))
            continue
        seen[name] = tag

    ok = True
    rules = scenario = None
    if "rules" not in seen:
        on_error(ReplayError("the log names no rules version; add a line such as 'rules: v3'", Location(source, 1, 1)))
        ok = False
    else:
        tok = seen["rules"].value
        try:
            rules = load_rules(tok.text)
        except PmimError as e:
            on_error(_err(tok, source, e.message))
            ok = False
    scen_tok = seen["scenario"].value if "scenario" in seen else None
    try:
        scenario = load_scenario(scen_tok.text if scen_tok else DEFAULT_SCENARIO)
    except PmimError as e:
        on_error(_err(scen_tok, source, e.message) if scen_tok else ReplayError(e.message, Location(source, 1, 1)))
        ok = False

    played = None
    if "date" in seen:
        tok = seen["date"].value
        if not _valid_date(tok.text):
            on_error(_err(tok, source, f"date {tok.text!r} is not an ISO date (YYYY-MM-DD, YYYY-MM or YYYY)"))
        else:
            played = tok.text

    sides: dict[str, SideSpec] = {}
    for side in SIDES:
        army_tag = seen.get(f"{side} army")
        if army_tag is None:
            on_error(ReplayError(f"the log names no {side} army; add a line such as '{side} army: v3-balanced'",
                                 Location(source, 1, 1)))
            ok = False
            continue
        if rules is None or scenario is None:
            continue
        spec = _read_side(side, army_tag.value, seen, rules, scenario, source, base_dir, on_error)
        if spec is None:
            ok = False
        else:
            sides[side] = spec
    not_recorded = _read_list(seen.get("not recorded"), NOT_RECORDED_VALUES, "nothing", source, on_error)
    estimated = _read_list(seen.get("estimated"), ESTIMATED_VALUES, None, source, on_error) or ()
    if not ok or rules is None or scenario is None:
        return None
    return LogHeader(rules, scenario, played, " ".join(notes) or None, sides, not_recorded, estimated,
                     seen.get("estimated"))


def _read_list(tag: Tag | None, allowed: tuple[str, ...], none_word: str | None, source: str,
               on_error: ErrorHook) -> tuple[str, ...] | None:
    """The words of ``not recorded: combat losses`` / ``estimated: vp`` (commas allowed), checked
    against ``allowed``; ``none_word`` (``nothing``) stands for the empty list; ``None`` without a tag."""
    if tag is None:
        return None
    toks = tokenize(tag.value.text.replace(",", " "), tag.line, tag.value.column - 1)
    words = [t.text.lower() for t in toks]
    if none_word is not None and words == [none_word]:
        return ()
    for tok, word in zip(toks, words, strict=True):
        if word not in allowed:
            choices = " or ".join(f"{a!r}" for a in (*allowed, *([none_word] if none_word else [])))
            on_error(_err(tok, source, f"{tag.key.text!r} takes {choices}, got {tok.text!r}"))
            return None
    return tuple(sorted(set(words)))


def _valid_date(text: str) -> bool:
    if not _DATE_RE.match(text):
        return False
    try:
        dt.date.fromisoformat(text if len(text) == 10 else (text + "-01-01")[:10])
    except ValueError:
        return False
    return True


def _read_side(side: str, tok: Token, seen: dict[str, Tag], rules: RulesVersion, scenario: Scenario,
               source: str, base_dir: Path | None, on_error: ErrorHook) -> SideSpec | None:
    name_tag = seen.get(f"{side} army name")
    player_tag = seen.get(f"{side} player")
    try:
        given_name = unquote_value(name_tag.value, source) if name_tag else None
        player = unquote_value(player_tag.value, source) if player_tag else None
        if "(" in tok.text:
            army = parse_inline_army(tok, rules.id, given_name if given_name is not None else f"{side} (inline)",
                                     source)
        else:
            path = find_army_file(tok.text, base_dir)
            if path is None:
                raise _err(tok, source, f"army file {tok.text!r} not found beside the log or in data/armies")
            army = load_army(path)
    except ReplayError as e:
        on_error(e)
        return None
    except PmimError as e:
        on_error(_err(tok, source, f"army file {tok.text!r} cannot be read: {e.render()}"))
        return None
    roster, violations = army_violations(army, rules.id, scenario)
    for v in violations:
        on_error(_err(tok, source, f"{side} army {army.name!r} breaks the rules of {rules.id}: {v}"))
    name = given_name if given_name is not None else army.name
    return SideSpec(name, player, roster)
