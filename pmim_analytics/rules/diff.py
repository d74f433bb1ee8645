"""The changelog between two rules versions, stat by stat, following renames."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel

from pmim_analytics.rules.models import Chassis, RulesVersion, Warmech, Weapon
from pmim_analytics.rules.optional import OPTIONAL_RULE_NAMES

_UNIT_STATS = ("hp", "mov", "def_", "arm", "spt", "pts")
_MECH_STATS = ("tons", "spt", "mov", "def_", "arm", "pts")
_WEAPON_STATS = ("rng", "acc", "rpt", "strength", "ton", "pts")


@dataclass(frozen=True)
class Change:
    """One line of the changelog."""

    table: str  # chassis | weapon | warmech | hit chart | special rule | optional rule | stat name
    item: str  # the unit or weapon as named in the newer version
    what: str  # the stat, or "added" / "removed" / "renamed"
    old: str
    new: str


def _stat_label(rules: RulesVersion, stat: str) -> str:
    return {"hp": rules.labels.hp, "strength": rules.labels.strength, "def_": "DEF"}.get(stat, stat.upper())


def _fmt(v: object) -> str:
    return "-" if v is None else str(v)


def _compare_rows(
    a: RulesVersion, b: RulesVersion, table: str, rows_a: Mapping[str, Chassis | Warmech | Weapon],
    rows_b: Mapping[str, Chassis | Warmech | Weapon],
    stats: tuple[str, ...],
) -> list[Change]:
    out: list[Change] = []
    for code, new in rows_b.items():
        old = rows_a.get(code)
        if old is None:
            out.append(Change(table, new.name, "added", "", _describe(new, b)))
            continue
        if old.name != new.name:
            out.append(Change(table, new.name, "renamed", old.name, new.name))
        for stat in stats:
            va, vb = getattr(old, stat), getattr(new, stat)
            if va != vb:
                out.append(Change(table, new.name, _stat_label(b, stat), _fmt(va), _fmt(vb)))
        if isinstance(old, Warmech) and isinstance(new, Warmech):
            for part in ("arm", "leg", "torso", "center"):
                va, vb = getattr(old.hp, part), getattr(new.hp, part)
                if va != vb:
                    out.append(Change(table, new.name, f"HP {part}", _fmt(va), _fmt(vb)))
    for code, old in rows_a.items():
        if code not in rows_b:
            out.append(Change(table, old.name, "removed", _describe(old, a), ""))
    return out


def _describe(row: object, rules: RulesVersion) -> str:
    if isinstance(row, Weapon):
        pts = f" PTS {row.pts}" if row.pts else ""
        return f"RNG {row.rng} ACC {row.acc} RPT {row.rpt} {rules.labels.strength} {row.strength} TON {row.ton}{pts}"
    if isinstance(row, Warmech):
        hp = "/".join(str(v) for v in (row.hp.arm, row.hp.leg, row.hp.torso, row.hp.center) if v is not None)
        return f"{row.body} {row.tons}t SPT {row.spt} MOV {row.mov} DEF {row.def_} ARM {row.arm} HP {hp} PTS {row.pts}"
    if isinstance(row, Chassis):
        return (f"{rules.labels.hp} {row.hp} MOV {row.mov} DEF {row.def_} ARM {row.arm} SPT {row.spt} PTS {row.pts}")
    return str(row)


def diff_rules(a: RulesVersion, b: RulesVersion) -> list[Change]:
    """Everything that changed from ``a`` to ``b``: stats, additions, removals, renames,
    stat names, hit charts and special rules."""
    changes: list[Change] = []
    for stat in ("hp", "strength"):
        la, lb = getattr(a.labels, stat), getattr(b.labels, stat)
        if la != lb:
            changes.append(Change("stat name", stat, "renamed", la, lb))
    changes += _compare_rows(a, b, "chassis", {c.code: c for c in a.chassis}, {c.code: c for c in b.chassis},
                             _UNIT_STATS)
    changes += _compare_rows(a, b, "weapon", {w.code: w for w in a.weapons}, {w.code: w for w in b.weapons},
                             _WEAPON_STATS)
    changes += _compare_rows(a, b, "warmech", {m.code: m for m in a.warmechs}, {m.code: m for m in b.warmechs},
                             _MECH_STATS)
    for body in sorted(set(a.hit_charts) | set(b.hit_charts)):
        ca, cb = a.hit_charts.get(body), b.hit_charts.get(body)
        if ca != cb:
            changes.append(Change("hit chart", body, "chart", _chart(ca), _chart(cb)))
    for rule in ("small_arms", "cheap_mammoth", "light_weapon_units"):
        ra, rb = getattr(a.special_rules, rule), getattr(b.special_rules, rule)
        if ra != rb:
            changes.append(Change("special rule", rule.replace("_", " "), "rule",
                                  _rule(ra), _rule(rb)))
    oa, ob = a.optional.settings(), b.optional.settings()
    for name in OPTIONAL_RULE_NAMES:
        sa, sb = oa.get(name), ob.get(name)
        if sa != sb:
            what = "switched on" if sa is None else "switched off" if sb is None else "settings"
            changes.append(Change("optional rule", name.replace("_", " "), what, format_settings(sa),
                                  format_settings(sb)))
    return changes


def format_settings(settings: dict[str, object] | None) -> str:
    """An optional rule's settings on one line (``-`` when the rule is off)."""
    if settings is None:
        return "-"
    parts = []
    for key, value in settings.items():
        if isinstance(value, dict):
            value = " ".join(f"{k}:{v}" for k, v in value.items()) or "none"
        parts.append(f"{key}={value}")
    return ", ".join(parts) or "on"


def _chart(chart: tuple[str, ...] | None) -> str:
    if chart is None:
        return "-"
    return " ".join(f"{i + 1}:{loc}" for i, loc in enumerate(chart))


def _rule(rule: BaseModel | None) -> str:
    if rule is None:
        return "-"
    return ", ".join(f"{k}={v}" for k, v in rule.model_dump().items())


def format_diff_markdown(a: RulesVersion, b: RulesVersion, changes: list[Change]) -> str:
    """The changelog as a Markdown table, ready to paste into a design-notes post."""
    lines = [f"## Rules changes: {a.id} ({a.name}) -> {b.id} ({b.name})", "",
             "| table | item | change | old | new |", "|---|---|---|---|---|"]
    for c in changes:
        lines.append(f"| {c.table} | {c.item} | {c.what} | {c.old} | {c.new} |")
    if not changes:
        lines.append("| | | no changes | | |")
    return "\n".join(lines) + "\n"
