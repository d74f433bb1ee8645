"""A summary log written from a form: what the dashboard's "Log a match" page saves.

The form's answers (armies, result, units destroyed) become the text of a ``.pmimlog`` in
the summary form of ``docs/manual-logs.md``; :func:`~pmim_analytics.replay.manual.parse_log`
then checks it exactly like a typed log. :func:`check_summary_form` maps each error back to
the form field it concerns (the person filling the form never sees the generated log's line
numbers), and units destroyed may be listed in any order: they are written in round order.
The rounds played are written before them, so a loss in a later round is refused at its own
entry (a typed log whose ``rounds:`` line ends it is refused at that line, naming the loss's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pmim_analytics.errors import ReplayError
from pmim_analytics.model.vocab import LOCATION_BY_CODE
from pmim_analytics.replay.format import GameRecord
from pmim_analytics.replay.manual import parse_log
from pmim_analytics.rules.army import ArmyList

WINNERS = ("blue", "red", "draw")
REASONS = ("vp", "wipeout", "round_limit", "manual")


def inline_army(army: ArmyList) -> str:
    """An army list in the log's inline form: ``Timber Wolf(GG ML) 2xTyrant(HAC)``."""
    return " ".join(f"{f'{e.count}x' if e.count > 1 else ''}{e.type}({' '.join(e.weapons)})" for e in army.units)


@dataclass(frozen=True)
class SummaryForm:
    """A match logged after the fact. ``*_army`` is a file of ``data/armies`` (its name) or an
    inline army; ``destroyed`` holds lines such as ``B:GE1`` or ``R4 B:GE1`` (round 4)."""

    rules_id: str
    blue_army: str
    red_army: str
    winner: str
    reason: str = "manual"
    blue_vp: int | None = None
    red_vp: int | None = None
    rounds: int | None = None
    destroyed: tuple[str, ...] = ()
    date: str | None = None
    blue_player: str | None = None
    red_player: str | None = None
    blue_army_name: str | None = None
    red_army_name: str | None = None
    notes: str | None = None


def _one_line(text: str) -> str:
    return " ".join(text.split())


#: Form fields, as the page labels them.
FIELD_LABELS = {
    "rules_id": "Rules version", "date": "Played on", "blue_player": "Blue player", "red_player": "Red player",
    "blue_army": "Blue army", "red_army": "Red army", "blue_army_name": "Blue army name",
    "red_army_name": "Red army name", "notes": "Notes", "destroyed": "Units destroyed", "rounds": "Rounds played",
    "winner": "Winner", "reason": "How", "vp": "VP", "form": "The form",
}
_ROUND = re.compile(r"^[Rr](\d+)\b")


@dataclass(frozen=True)
class FieldError:
    """One problem of a form, at its field; ``entry`` is the 1-based line of a multi-line field."""

    field: str
    message: str
    entry: int | None = None

    @property
    def label(self) -> str:
        """The field as the page names it (``Units destroyed, line 2``)."""
        base = FIELD_LABELS.get(self.field, self.field)
        return f"{base}, line {self.entry}" if self.entry else base


def _destroyed_in_round_order(lines: tuple[str, ...]) -> list[tuple[int, str]]:
    """(1-based entry, text) of the non-empty lines: those without a round first, then by round;
    within a round, lost locations before whole units (a Warmech loses a torso, then dies)."""
    entries = [(i, _one_line(d)) for i, d in enumerate(lines, start=1) if _one_line(d)]

    def key(entry: tuple[int, str]) -> tuple[int, int]:
        m = _ROUND.match(entry[1])
        words = (entry[1][m.end():] if m else entry[1]).split()
        is_location = len(words) > 1 and words[1].upper() in LOCATION_BY_CODE
        return (int(m.group(1)) if m else -1, 0 if is_location else 1)

    return sorted(entries, key=key)


def _summary_lines(form: SummaryForm) -> list[tuple[str, tuple[str, int | None] | None]]:
    """The log's lines, each with the form field (and entry) it comes from."""
    lines: list[tuple[str, tuple[str, int | None] | None]] = [
        ("# Logged in the dashboard (summary form)", None), (f"rules: {form.rules_id}", ("rules_id", None)),
        ("scenario: take-and-hold", None)]
    if form.date:
        lines.append((f"date: {form.date}", ("date", None)))
    for side in ("blue", "red"):
        player = getattr(form, f"{side}_player")
        name = getattr(form, f"{side}_army_name")
        if player:
            lines.append((f"{side} player: {_one_line(player)}", (f"{side}_player", None)))
        if name:
            lines.append((f"{side} army name: {_one_line(name)}", (f"{side}_army_name", None)))
        lines.append((f"{side} army: {_one_line(getattr(form, f'{side}_army'))}", (f"{side}_army", None)))
    if form.notes:
        lines.append((f"notes: {_one_line(form.notes)}", ("notes", None)))
    if form.rounds:  # before the losses: a loss in a later round is refused at its own line
        lines.append((f"rounds: {form.rounds}", ("rounds", None)))
    lines.append(("", None))
    destroyed = _destroyed_in_round_order(form.destroyed)
    for entry, d in destroyed:
        text = d if d.endswith("destroyed") or " destroyed" in d else f"{d} destroyed"
        lines.append((text, ("destroyed", entry)))
    if destroyed:
        lines.append(("", None))
    vp = f" {form.blue_vp}-{form.red_vp}" if form.blue_vp is not None and form.red_vp is not None else ""
    lines.append((f"result: {form.winner} {form.reason}{vp}", ("result", None)))
    return lines


def format_summary_log(form: SummaryForm) -> str:
    """The log text of a summary form (not checked here: :func:`check_summary_form` does)."""
    return "\n".join(text for text, _ in _summary_lines(form)) + "\n"


def _result_field(text: str, column: int | None) -> str:
    """Which part of ``result: WINNER REASON B-R`` a column falls on: winner, reason or vp."""
    words = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", text)][1:]
    field = "winner"
    for (start, _), name in zip(words, ("winner", "reason", "vp"), strict=False):
        if column is not None and column >= start:
            field = name
    return field


def check_summary_form(form: SummaryForm) -> tuple[GameRecord | None, list[FieldError]]:
    """Check a form as its log would be checked; every error at the field it concerns.

    Line numbers in the messages (``destroyed on line 9``) are replaced by the field that line
    came from. Returns the game (``None`` while there are errors) and the errors.
    """
    lines = _summary_lines(form)
    game, errors = parse_log("\n".join(t for t, _ in lines) + "\n", "form", strict=False)

    def where(line: int | None) -> tuple[str, int | None]:
        entry = lines[line - 1][1] if line is not None and 1 <= line <= len(lines) else None
        return ("form", None) if entry is None else entry

    def relabel(m: re.Match[str]) -> str:
        f, entry = where(int(m.group(2)))
        if f == "form":
            return m.group(0)
        return ("in " if m.group(1) else "") + FieldError(f, "", entry).label

    out = []
    for e in errors:
        line = e.where.line if isinstance(e, ReplayError) and e.where else None
        field, entry = where(line)
        if field == "result" and line is not None:
            column = e.where.column if isinstance(e, ReplayError) and e.where else None
            field = _result_field(lines[line - 1][0], column)
        message = re.sub(r"\b(on |at )?line (\d+)", relabel, e.message)
        message = message.replace(f"the log's 'rounds:' line gives ({FIELD_LABELS['rounds']})",
                                  f"given at {FIELD_LABELS['rounds']}")
        out.append(FieldError(field, message, entry))
    return (None if out else game), out
