"""Load rules versions, variants and scenarios from ``data/``.

The data folder is the repository's ``data/`` unless ``PMIM_DATA`` names another. Every
rules id (``v1``, ``v2``, ``v3``, or a variant such as ``v3-llaser-rpt4``) resolves through
:func:`load_rules`; variants are merged onto their base version and validated like any
other version.
"""

from __future__ import annotations

import os
import threading
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from pmim_analytics.errors import DataFileError, Location, UnknownNameError, display_path
from pmim_analytics.limits import MAX_YAML_DEPTH, MAX_YAML_VALUES
from pmim_analytics.rules.knobs import with_stats
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


class YamlLimitError(yaml.MarkedYAMLError):  # type: ignore[misc]  # PyYAML has no type hints here: its classes are Any
    """A YAML file beyond :data:`MAX_YAML_DEPTH` or :data:`MAX_YAML_VALUES`, or one whose
    aliases refer to themselves: refused before any value is built."""


class BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML has no type hints here: its classes are Any
    """PyYAML's safe loader with bounds: nesting over :data:`MAX_YAML_DEPTH` levels is refused
    while the file is read (never a ``RecursionError``), and before any value is built the
    document's size with every alias expanded is counted, so an alias bomb (a few lines that
    stand for billions of values) or an alias inside the value it names is refused at once."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        if self._depth >= MAX_YAML_DEPTH:
            raise YamlLimitError(problem=f"nested deeper than {MAX_YAML_DEPTH} levels (MAX_YAML_DEPTH)",
                                 problem_mark=self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        check_expanded(node)
        return self.construct_document(node)


def check_expanded(root: yaml.Node) -> None:
    """Refuse a composed document whose alias-expanded form is over :data:`MAX_YAML_VALUES`
    values or :data:`MAX_YAML_DEPTH` levels deep, or holds a cycle of aliases.

    Each node is measured once (an alias shares its node), so the work is the size of the
    text, not of the expansion.
    """
    measured: dict[int, tuple[int, int]] = {}  # node id -> (values, levels below it)
    open_nodes: set[int] = set()

    def walk(node: yaml.Node, depth: int) -> tuple[int, int]:
        key = id(node)
        if key in open_nodes:
            raise YamlLimitError(problem="an alias refers to the value that holds it (a cycle of aliases)",
                                 problem_mark=node.start_mark)
        if key not in measured:
            if isinstance(node, yaml.ScalarNode):
                measured[key] = (1, 0)
            else:
                children = (node.value if isinstance(node, yaml.SequenceNode)
                            else [part for pair in node.value for part in pair])
                open_nodes.add(key)
                size, below = 1, 0
                for child in children:
                    s, b = walk(child, depth + 1)
                    size, below = size + s, max(below, b + 1)
                    if size > MAX_YAML_VALUES:
                        raise YamlLimitError(problem=f"with its aliases expanded it holds over "
                                             f"{MAX_YAML_VALUES:,} values (MAX_YAML_VALUES)",
                                             problem_mark=child.start_mark)
                open_nodes.discard(key)
                measured[key] = (size, below)
        size, below = measured[key]
        if depth + below > MAX_YAML_DEPTH:
            raise YamlLimitError(problem=f"with its aliases expanded it nests deeper than {MAX_YAML_DEPTH} "
                                 "levels (MAX_YAML_DEPTH)", problem_mark=node.start_mark)
        return size, below

    walk(root, 0)


def load_yaml_text(text: str) -> Any:
    """``yaml.safe_load`` bounded by :class:`BoundedLoader` (raises ``yaml.YAMLError``)."""
    loader = BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def read_yaml(path: Path) -> Any:
    """Read a YAML file, raising :class:`DataFileError` with the line of a syntax error, or of
    nesting, an alias expansion or an alias cycle beyond the limits (docs/limits.md)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError("file not found; check the path", Location(display_path(path))) from None
    except UnicodeDecodeError as e:
        raise DataFileError(f"not UTF-8 text (byte {e.start})", Location(display_path(path))) from None
    except OSError as e:
        raise DataFileError(f"cannot be read ({e.strerror})", Location(display_path(path))) from None
    try:
        return load_yaml_text(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = Location(display_path(path), mark.line + 1 if mark else None, mark.column + 1 if mark else None)
        problem = getattr(e, "problem", None) or str(e)
        if isinstance(e, YamlLimitError):
            raise DataFileError(f"is refused: {problem}; see docs/limits.md", where) from None
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


def usable_rules_ids() -> tuple[list[str], dict[str, DataFileError]]:
    """The rules ids that load (as :func:`list_rules_ids` orders them), and each id whose file
    does not, with the reason: one bad variant file is skipped, never fatal to a picker."""
    ids: list[str] = []
    skipped: dict[str, DataFileError] = {}
    for rid in list_rules_ids():
        try:
            load_rules(rid)
        except DataFileError as e:
            skipped[rid] = e
            continue
        ids.append(rid)
    return ids, skipped


def _deep_merge(base: dict[str, Any], overrides: dict[str, Any], path: Path) -> dict[str, Any]:
    """Apply a variant's ``overrides`` (keyed by table then unit/weapon code) onto ``base``."""
    merged = dict(base)
    if not isinstance(overrides or {}, dict):
        raise DataFileError("overrides must be a mapping of tables (chassis, weapons, warmechs)",
                            Location(display_path(path), field="overrides"))
    for table, changes in (overrides or {}).items():
        if table not in ("chassis", "weapons", "warmechs"):
            raise DataFileError(
                f"overrides.{table} is not a table; use chassis, weapons or warmechs",
                Location(display_path(path), field=f"overrides.{table}"),
            )
        rows = [dict(r) for r in merged[table]]
        by_code = {r["code"]: r for r in rows}
        if not isinstance(changes or {}, dict):
            raise DataFileError(f"overrides.{table} must be a mapping of codes to stats",
                                Location(display_path(path), field=f"overrides.{table}"))
        for code, stats in (changes or {}).items():
            if not isinstance(stats or {}, dict):
                raise DataFileError(f"overrides.{table}.{code} must be a mapping of stats to values",
                                    Location(display_path(path), field=f"overrides.{table}.{code}"))
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


_resolving = threading.local()


@cache
def _raw_rules(rules_id: str) -> dict[str, Any]:
    chain: list[str] = _resolving.__dict__.setdefault("chain", [])
    if rules_id in chain:
        loop = chain[chain.index(rules_id):] + [rules_id]
        path = _rules_files()[chain[-1]]
        steps = ", ".join(f"which is based on {x}" for x in loop[2:])
        raise DataFileError(
            f"the bases form a cycle: {loop[0]} is based on {loop[1]}{', ' if steps else ''}{steps}; "
            "base one of them on a version "
            f"({', '.join(p.stem for p in sorted((data_dir() / 'rules').glob('*.yaml')))})",
            Location(display_path(path), field="base"))
    chain.append(rules_id)
    try:
        return _read_raw_rules(rules_id)
    finally:
        chain.pop()


def _read_raw_rules(rules_id: str) -> dict[str, Any]:
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
        if not isinstance(base, str):
            raise DataFileError("base must be a rules id such as v3", Location(display_path(path), field="base"))
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
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=BoundedLoader)
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


@lru_cache(maxsize=64)
def rules_with_stats(rules_id: str, stats: tuple[tuple[str, int], ...]) -> RulesVersion:
    """:func:`~pmim_analytics.rules.knobs.with_stats` of the rules id ``rules_id`` (cached: a worker
    plays many games of one table)."""
    return with_stats(load_rules(rules_id), dict(stats))


def clear_caches() -> None:
    """Forget loaded rules and scenarios (tests that point ``PMIM_DATA`` elsewhere)."""
    _raw_rules.cache_clear()
    load_rules.cache_clear()
    load_scenario.cache_clear()
    rules_with_stats.cache_clear()
