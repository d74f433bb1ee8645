"""Variants made from edits: what the dashboard's What-if page saves under ``data/rules/variants/``.

An edit is a set of overrides keyed like a variant file's ``overrides:`` block
(``{"weapons": {"LL": {"rpt": 4}}}``). :func:`build_variant` applies them to the base version
and validates the result with the same pydantic models as every rules file, so a bad value is
refused with the field it concerns (:class:`VariantFieldError`); :func:`write_variant` then
writes the file, which loads like any other variant.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from pmim_analytics.errors import DataFileError, Location, UnknownNameError
from pmim_analytics.rules.army import Roster
from pmim_analytics.rules.catalogue import _raw_rules, clear_caches, data_dir, list_rules_ids
from pmim_analytics.rules.models import RulesVersion

#: Editable stats per table, by the file's key, with the label players know.
EDITABLE: dict[str, dict[str, str]] = {
    "weapons": {"rng": "RNG", "acc": "ACC", "rpt": "RPT", "str": "STR", "ton": "TON"},
    "chassis": {"hp": "HP", "mov": "MOV", "def": "DEF", "arm": "ARM", "spt": "SPT", "pts": "PTS"},
    "warmechs": {"mov": "MOV", "def": "DEF", "arm": "ARM", "spt": "SPT", "pts": "PTS",
                 "hp.arm": "HP arm", "hp.leg": "HP leg", "hp.torso": "HP torso", "hp.center": "HP center"},
}
#: The models' attribute for a file key where they differ.
_ATTR = {"def": "def_", "str": "strength"}
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,47}$")


class VariantFieldError(DataFileError):
    """An edit the rules models refuse; ``field`` is the override's path (``weapons.LL.rpt``)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message, Location(field=field))


def current_value(rules: RulesVersion, table: str, code: str, key: str) -> int | None:
    """The value of one editable stat (``hp.arm`` for a Warmech's arm HP) in ``rules``."""
    row = next((r for r in getattr(rules, table) if r.code == code), None)
    if row is None:
        return None
    if key.startswith("hp."):
        value = getattr(row.hp, key[3:])
    else:
        value = getattr(row, _ATTR.get(key, key))
    return None if value is None else int(value)


def nest_overrides(edits: dict[tuple[str, str, str], int]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{(table, code, key): value}`` -> the ``overrides:`` mapping of a variant file."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for (table, code, key), value in sorted(edits.items()):
        stats = out.setdefault(table, {}).setdefault(code, {})
        if key.startswith("hp."):
            stats.setdefault("hp", {})[key[3:]] = value
        else:
            stats[key] = value
    return out


def is_pricing_only(overrides: dict[str, dict[str, dict[str, Any]]]) -> bool:
    """True when every override changes points only (the dice maths stay those of the base)."""
    keys = [k for codes in overrides.values() for stats in codes.values() for k in stats]
    return bool(keys) and all(k == "pts" for k in keys)


def _field_of(err: ValidationError, merged: dict[str, Any]) -> tuple[str, str]:
    """(override path, message) of the first problem, the row named by its code."""
    first = err.errors()[0]
    loc = list(first["loc"])
    msg = first["msg"]
    if len(loc) >= 2 and loc[0] in EDITABLE and isinstance(loc[1], int):
        code = merged[loc[0]][loc[1]]["code"]
        key = ".".join(str(p) for p in loc[2:]) or "row"
        return f"{loc[0]}.{code}.{key}", msg
    return ".".join(str(p) for p in loc) or "(top level)", msg


def build_variant(base: str, variant_id: str, name: str, overrides: dict[str, dict[str, dict[str, Any]]],
                  description: str | None = None, replace: bool = False) -> RulesVersion:
    """The validated variant ``variant_id`` of ``base`` with ``overrides`` (not written).

    Raises :class:`VariantFieldError` naming the field at fault: the id (format, taken), an
    unknown code or stat, a value the rules models refuse (RPT 0, a negative DEF, ...), or
    an edit that changes nothing.
    """
    if not ID_PATTERN.match(variant_id or ""):
        raise VariantFieldError("id", f"the variant id {variant_id!r} must be 2-48 lower-case letters, digits or "
                                "dashes, starting with a letter or digit (e.g. v3-llaser-rpt4)")
    if variant_id in list_rules_ids() and not replace:
        raise VariantFieldError("id", f"{variant_id!r} is already a rules version or variant; choose another id")
    if not (name or "").strip():
        raise VariantFieldError("name", "give the variant a name (e.g. 'v3 with L. Laser RPT 4')")
    raw = _raw_rules(base)
    if raw.get("base"):
        raise VariantFieldError("base", f"{base!r} is itself a variant; start from a rules version "
                                f"({raw['base']})")
    merged = {k: v for k, v in raw.items()}
    changed = False
    for table, codes in overrides.items():
        if table not in EDITABLE:
            raise VariantFieldError(table, f"{table!r} is not an editable table; use {', '.join(EDITABLE)}")
        rows = [dict(r) for r in merged[table]]
        by_code = {r["code"]: r for r in rows}
        for code, stats in codes.items():
            if code not in by_code:
                raise VariantFieldError(f"{table}.{code}", f"{code!r} is not in {base}'s {table}")
            row = by_code[code]
            for key, value in stats.items():
                pairs = [(f"hp.{k}", v) for k, v in value.items()] if key == "hp" and isinstance(value, dict) \
                    else [(key, value)]
                for k, v in pairs:
                    if k not in EDITABLE[table]:
                        raise VariantFieldError(f"{table}.{code}.{k}", f"{k!r} cannot be edited; editable: "
                                                f"{', '.join(EDITABLE[table])}")
                    if isinstance(v, bool) or not isinstance(v, int):
                        raise VariantFieldError(f"{table}.{code}.{k}", f"{EDITABLE[table][k]} must be a whole "
                                                f"number, got {v!r}")
                    if k.startswith("hp.") and isinstance(row.get("hp"), dict):
                        old = row["hp"].get(k[3:])
                        row["hp"] = {**row["hp"], k[3:]: v}
                    else:
                        old = row.get(k)
                        row[k] = v
                    changed = changed or old != v
        merged[table] = rows
    if not changed:
        raise VariantFieldError("overrides", f"the edits change nothing in {base}; edit at least one stat")
    merged.update(id=variant_id, name=name.strip(), base=base, parent=base,
                  description=(description or "").strip() or None, renames=[])
    try:
        return RulesVersion.model_validate(merged)
    except ValidationError as e:
        field, msg = _field_of(e, merged)
        raise VariantFieldError(field, msg) from None


def format_variant(variant: RulesVersion, overrides: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The YAML text of a variant file (id, name, base, description, overrides)."""
    doc: dict[str, Any] = {"id": variant.id, "name": variant.name, "base": variant.base}
    if variant.description:
        doc["description"] = variant.description
    doc["overrides"] = overrides
    return str(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def write_variant(base: str, variant_id: str, name: str, overrides: dict[str, dict[str, dict[str, Any]]],
                  description: str | None = None, replace: bool = False) -> Path:
    """Validate (:func:`build_variant`) and write ``data/rules/variants/<id>.yaml``; return its path.

    The rules caches are cleared so the new variant loads at once. Raises
    :class:`VariantFieldError` before anything is written.
    """
    variant = build_variant(base, variant_id, name, overrides, description, replace)
    folder = data_dir() / "rules" / "variants"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{variant_id}.yaml"
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(format_variant(variant, overrides), encoding="utf-8")
    tmp.replace(path)
    clear_caches()
    return path


def edited_codes_fielded(roster: Roster, overrides: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """The edited unit types and weapons (codes) an army fields: an edit elsewhere cannot change its games
    except through what its opponent fields."""
    units = {u.code for u in roster.units}
    weapons = {w for u in roster.units for w in u.weapons}
    out = []
    for table, codes in overrides.items():
        have = weapons if table == "weapons" else units
        out += [c for c in codes if c in have]
    return sorted(set(out))


def variant_overrides(rules_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The ``overrides:`` block of a variant file ({} for a rules version).

    Raises :class:`~pmim_analytics.errors.UnknownNameError` for an unknown id.
    """
    from pmim_analytics.rules.catalogue import _rules_files, read_yaml

    files = _rules_files()
    if rules_id not in files:
        raise UnknownNameError(f"unknown rules version {rules_id!r}; choose one of {', '.join(list_rules_ids())}")
    raw = read_yaml(files[rules_id])
    return dict(raw.get("overrides") or {}) if isinstance(raw, dict) and raw.get("base") else {}
