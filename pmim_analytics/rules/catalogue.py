"""Load rules versions, variants and scenarios from ``data/``.

The data folder is the repository's ``data/`` unless ``PMIM_DATA`` names another. Every
rules id (``v1``, ``v2``, ``v3``, or a variant such as ``v3-llaser-rpt4``) resolves through
:func:`load_rules`; variants are merged onto their base version and validated like any
other version.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from pmim_analytics.errors import DataFileError, Location, UnknownNameError, display_path
from pmim_analytics.rules.models import (
    Chassis,
    RulesVersion,
    Warmech,
    Weapon,
    normalize_name,
)
from pmim_analytics.rules.optional import OPTIONAL_RULE_NAMES, SETTING_MODELS, check_optional_rules
from pmim_analytics.rules.scenario import Scenario

REPO_ROOT = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    """Return the data folder: ``$PMIM_DATA`` or the repository's ``data/``."""
    return Path(os.environ.get("PMIM_DATA", REPO_ROOT / "data"))


def read_yaml(path: Path) -> Any:
    """Read a YAML file, raising :class:`DataFileError` with the line of a syntax error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError("file not found; check the path", Location(display_path(path))) from None
    except UnicodeDecodeError as e:
        raise DataFileError(f"not UTF-8 text (byte {e.start})", Location(display_path(path))) from None
    except OSError as e:
        raise DataFileError(f"cannot be read ({e.strerror})", Location(display_path(path))) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = Location(display_path(path), mark.line + 1 if mark else None, mark.column + 1 if mark else None)
        problem = getattr(e, "problem", None) or str(e)
        raise DataFileError(f"is not valid YAML: {problem}", where) from None


def validation_message(err: ValidationError) -> tuple[str, str]:
    """Return (field path, reason) of the first problem in a pydantic error."""
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
    msg = first["msg"]
    return loc, msg[len("Value error, "):] if msg.startswith("Value error, ") else msg


def _rules_files() -> dict[str, Path]:
    root = data_dir() / "rules"
    files = {p.stem: p for p in sorted(root.glob("*.yaml"))}
    files.update({p.stem: p for p in sorted((root / "variants").glob("*.yaml"))})
    return files


def list_rules_ids() -> list[str]:
    """Every rules id available: the versions first, then the variants, each sorted."""
    root = data_dir() / "rules"
    return [p.stem for p in sorted(root.glob("*.yaml"))] + [
        p.stem for p in sorted((root / "variants").glob("*.yaml"))
    ]


def _deep_merge(base: dict[str, Any], overrides: dict[str, Any], path: Path) -> dict[str, Any]:
    """Apply a variant's ``overrides`` (keyed by table then unit/weapon code) onto ``base``."""
    merged = dict(base)
    for table, changes in (overrides or {}).items():
        if table not in ("chassis", "weapons", "warmechs"):
            raise DataFileError(
                f"overrides.{table} is not a table; use chassis, weapons or warmechs",
                Location(display_path(path), field=f"overrides.{table}"),
            )
        rows = [dict(r) for r in merged[table]]
        by_code = {r["code"]: r for r in rows}
        for code, stats in (changes or {}).items():
            if code not in by_code:
                raise DataFileError(
                    f"{code!r} is not a {table[:-1] if table != 'chassis' else 'chassis'} code of "
                    f"{merged['id']}; known: {', '.join(by_code)}",
                    Location(display_path(path), field=f"overrides.{table}.{code}"),
                )
            row = by_code[code]
            for key, value in (stats or {}).items():
                if key == "hp" and isinstance(value, dict):
                    row["hp"] = {**row["hp"], **value}
                else:
                    row[key] = value
        merged[table] = rows
    return merged


@cache
def _raw_rules(rules_id: str) -> dict[str, Any]:
    files = _rules_files()
    if rules_id not in files:
        raise UnknownNameError(
            f"unknown rules version {rules_id!r}; choose one of {', '.join(list_rules_ids())}"
        )
    path = files[rules_id]
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise DataFileError("must be a mapping of fields", Location(display_path(path)))
    if raw.get("id") != rules_id:
        raise DataFileError(
            f"id {raw.get('id')!r} does not match the file name {rules_id!r}",
            Location(display_path(path), field="id"),
        )
    if "base" in raw:
        base = raw["base"]
        if base == rules_id:
            raise DataFileError("a variant cannot be its own base", Location(display_path(path), field="base"))
        base_raw = _raw_rules(base)
        merged = _deep_merge(base_raw, raw.get("overrides", {}), path)
        merged["optional_rules"] = _merge_optional(base_raw.get("optional_rules"), raw.get("optional_rules"), path)
        merged.update(
            id=rules_id,
            name=raw.get("name", rules_id),
            base=base,
            parent=base,
            description=raw.get("description"),
            renames=[],
        )
        return merged
    return raw


def _merge_optional(base: Any, own: Any, path: Path) -> dict[str, Any] | None:
    """A variant's optional rules: its base's, with the variant's own block laid over them rule by rule."""
    if own is not None and not isinstance(own, dict):
        raise DataFileError("optional_rules must be a mapping of rule names to settings",
                            Location(display_path(path), yaml_key_line(path, ("optional_rules",)),
                                     field="optional_rules"))
    merged = {**(base or {}), **(own or {})}
    return merged or None


def yaml_key_line(path: Path, keys: tuple[str | int, ...]) -> int | None:
    """The line of the deepest key of ``keys`` found in the YAML file at ``path`` (1-based).

    ``keys`` is a path of mapping keys and list indices, as pydantic reports it. Returns
    ``None`` when the file cannot be read or not even the first key is there.
    """
    try:
        node = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    line = None
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if str(k.value) == str(key)), None)
            if found is None:
                return line
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _known_keys(loc: tuple[str | int, ...]) -> list[str]:
    """The keys allowed where ``loc`` (an optional-rules key path) points."""
    if len(loc) == 2:
        return list(OPTIONAL_RULE_NAMES)
    if len(loc) == 3 and loc[1] in SETTING_MODELS:
        return list(SETTING_MODELS[str(loc[1])].model_fields)
    return []


def _rules_error(err: ValidationError, path: Path) -> DataFileError:
    """A rules file's first validation problem as one positioned sentence."""
    first = err.errors()[0]
    loc = tuple(first["loc"])
    field = ".".join(str(p) for p in loc) or None
    reason = first["msg"]
    if loc[:1] == ("optional_rules",):
        if first["type"] == "extra_forbidden":
            what = "optional rule" if len(loc) == 2 else f"setting of {loc[1]}"
            reason = f"unknown {what} {loc[-1]!r}; known: {', '.join(_known_keys(loc))}"
        elif first["type"] == "model_type" and len(loc) == 2:
            reason = (f"the settings of {loc[1]} must be a mapping, e.g. {loc[1]}: {{}} for its defaults "
                      f"(got {first.get('input')!r})")
        else:
            reason = f"{reason} (got {first.get('input')!r})"
    return DataFileError(reason, Location(display_path(path), yaml_key_line(path, loc), field=field))


@cache
def load_rules(rules_id: str) -> RulesVersion:
    """Return the validated rules version ``rules_id`` (a version or a variant).

    Raises :class:`UnknownNameError` for an id with no file and :class:`DataFileError`
    naming the file, line, field and reason for a malformed one (an unknown optional rule
    or setting, a bad value, a Warmech with no heat rating, ...).
    """
    raw = _raw_rules(rules_id)
    path = _rules_files()[rules_id]
    try:
        rules = RulesVersion.model_validate(raw)
    except ValidationError as e:
        raise _rules_error(e, path) from None
    problems = check_optional_rules(rules)
    if problems:
        loc, reason = problems[0]
        raise DataFileError(reason, Location(display_path(path), yaml_key_line(path, loc),
                                             field=".".join(str(p) for p in loc)))
    return rules


def rules_label(rules_id: str) -> str:
    """A rules id as a picker shows it: with the optional rules it switches on, if any
    (``v3-heat (optional: heat)``). An id that does not load is shown as it is."""
    try:
        names = load_rules(rules_id).optional.names()
    except (DataFileError, UnknownNameError):
        return rules_id
    return f"{rules_id} (optional: {', '.join(n.replace('_', ' ') for n in names)})" if names else rules_id


def find_unit(rules: RulesVersion, name: str) -> Chassis | Warmech:
    """Look up a unit type by code or name (case, dots and spaces ignored).

    Raises :class:`UnknownNameError`, mentioning a rename when the name is an old one.
    """
    key = normalize_name(name)
    for unit in rules.iter_units():
        if key in (normalize_name(unit.code), normalize_name(unit.name)):
            return unit
    hint = _rename_hint(rules, key, "unit", [u.code for u in rules.iter_units()])
    raise UnknownNameError(f"unit {name!r} does not exist in rules {rules.id}{hint}")


def find_weapon(rules: RulesVersion, name: str) -> Weapon:
    """Look up a weapon by acronym, name or alias (case, dots and spaces ignored)."""
    key = normalize_name(name)
    for weapon in rules.weapons:
        names = (weapon.code, weapon.name, *weapon.aliases)
        if key in {normalize_name(n) for n in names}:
            return weapon
    hint = _rename_hint(rules, key, "weapon", [w.code for w in rules.weapons])
    raise UnknownNameError(f"weapon {name!r} does not exist in rules {rules.id}{hint}")


def _rename_hint(rules: RulesVersion, key: str, kind: str, codes: list[str]) -> str:
    """Explain a name that belongs to another version: renamed later, or named otherwise here."""
    for rid in ("v1", "v2", "v3"):
        other = load_rules(rid)
        for r in other.renames:
            if r.kind != kind or r.code not in codes:
                continue
            if normalize_name(r.old) == key:
                return f" (renamed {r.new!r} in {other.id})"
            if normalize_name(r.new) == key:
                here = next((u.name for u in (*rules.iter_units(), *rules.weapons) if u.code == r.code), r.old)
                return f" (in {rules.id} it is called {here!r})"
    return ""


#: The scenario a game, an army check or a simulation uses unless told otherwise (the only one
#: the sources describe).
DEFAULT_SCENARIO = "take-and-hold"


@cache
def load_scenario(scenario_id: str) -> Scenario:
    """Return the scenario ``scenario_id`` from ``data/scenarios/``.

    The id is looked up among the files there, never used as a path: anything else
    (``../x``, an absolute path) is an unknown id. Raises :class:`UnknownNameError`.
    """
    files = {p.stem: p for p in sorted((data_dir() / "scenarios").glob("*.yaml"))}
    path = files.get(scenario_id) if isinstance(scenario_id, str) else None
    if path is None:
        raise UnknownNameError(f"unknown scenario {scenario_id!r}; choose one of {', '.join(files)}")
    raw = read_yaml(path)
    try:
        return Scenario.model_validate(raw)
    except ValidationError as e:
        field, reason = validation_message(e)
        raise DataFileError(reason, Location(display_path(path), field=field)) from None


def clear_caches() -> None:
    """Forget loaded rules and scenarios (tests that point ``PMIM_DATA`` elsewhere)."""
    _raw_rules.cache_clear()
    load_rules.cache_clear()
    load_scenario.cache_clear()
