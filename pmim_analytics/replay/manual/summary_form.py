"""A summary log written from a form: what the dashboard's "Log a match" page saves.

The form's answers (armies, result, units destroyed) become the text of a ``.pmimlog`` in
the summary form of ``docs/manual-logs.md``; :func:`~pmim_analytics.replay.manual.parse_log`
then checks it exactly like a typed log, so the page shows the same errors with line numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def format_summary_log(form: SummaryForm) -> str:
    """The log text of a summary form (not checked here: parse it to validate)."""
    lines = ["# Logged in the dashboard (summary form)", f"rules: {form.rules_id}", "scenario: take-and-hold"]
    if form.date:
        lines.append(f"date: {form.date}")
    for side in ("blue", "red"):
        player = getattr(form, f"{side}_player")
        name = getattr(form, f"{side}_army_name")
        if player:
            lines.append(f"{side} player: {_one_line(player)}")
        if name:
            lines.append(f"{side} army name: {_one_line(name)}")
        lines.append(f"{side} army: {_one_line(getattr(form, f'{side}_army'))}")
    if form.notes:
        lines.append(f"notes: {_one_line(form.notes)}")
    lines.append("")
    for d in form.destroyed:
        d = _one_line(d)
        if d:
            lines.append(d if d.endswith("destroyed") or " destroyed" in d else f"{d} destroyed")
    if form.destroyed:
        lines.append("")
    if form.rounds:
        lines.append(f"rounds: {form.rounds}")
    vp = f" {form.blue_vp}-{form.red_vp}" if form.blue_vp is not None and form.red_vp is not None else ""
    lines.append(f"result: {form.winner} {form.reason}{vp}")
    return "\n".join(lines) + "\n"
