"""Versioned schema migrations (``sql/NNN_*.sql``) and the rules tables.

Each migration file is applied once, in number order, inside its own transaction, and
recorded in ``schema_version``. The rules tables mirror ``data/rules`` (versions and
variants) so queries can join unit and weapon stats; they are refreshed on the first
write of every process, so an edited variant shows up without a migration.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pmim_analytics.errors import Location, PmimError, StoreError, display_path
from pmim_analytics.rules.catalogue import REPO_ROOT, clear_caches, data_dir, list_rules_ids, load_rules
from pmim_analytics.rules.rows import unit_rows, version_row, weapon_rows
from pmim_analytics.store.rollback import rollback_quietly
from pmim_analytics.store.rollups import ROLLUP_VERSIONS, rebuild_rollups

SQL_DIR = REPO_ROOT / "sql"
#: The schema version from which unknown figures are NULL and rollups count known ones.
UNKNOWN_SINCE = 4
_NAME = re.compile(r"^(\d{3})_[\w-]+\.sql$")


@cache
def list_migrations() -> tuple[tuple[int, Path], ...]:
    """Every migration as (version, file), in order.

    Raises :class:`StoreError` when two files share a number (branches merged without
    renumbering): only one of them would ever be applied.
    """
    found: dict[int, Path] = {}
    for p in sorted(SQL_DIR.glob("*.sql")):
        m = _NAME.match(p.name)
        if not m:
            continue
        version = int(m.group(1))
        if version in found:
            raise StoreError(f"migrations {found[version].name} and {p.name} share the number {version}; "
                             "renumber one of them", Location(display_path(SQL_DIR)))
        found[version] = p
    return tuple(sorted(found.items()))


def latest_version() -> int:
    """The schema version this code expects."""
    migrations = list_migrations()
    return migrations[-1][0] if migrations else 0


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The highest migration applied to the database (0 for an empty one)."""
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchall()[0][0]
    if not exists:
        return 0
    return int(con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchall()[0][0])


def migrate(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Apply every pending migration; return the versions applied.

    Raises :class:`StoreError` naming the migration file that failed (nothing of it stays).
    """
    have = schema_version(con)
    applied = []
    for version, path in list_migrations():
        if version <= have:
            continue
        try:
            con.execute("BEGIN TRANSACTION")
            con.execute(path.read_text(encoding="utf-8"))
            con.execute("INSERT INTO schema_version (version) VALUES (?) ON CONFLICT DO NOTHING", [version])
            con.execute("COMMIT")
        except duckdb.Error as e:
            rollback_quietly(con)
            raise StoreError(f"migration {version} failed: {str(e).splitlines()[0]}",
                             Location(display_path(path))) from e
        applied.append(version)
    upto = applied[-1] if applied else have
    if have and any(have < v <= upto for v in (*ROLLUP_VERSIONS, UNKNOWN_SINCE)):
        # rollups added or changed since (4: unknown figures counted apart): rebuild them for the games held
        rebuild_rollups(con)
    return applied


def _rules_rows(rules_id: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    rules = load_rules(rules_id)
    return version_row(rules), unit_rows(rules), weapon_rows(rules)


def rules_fingerprint() -> str:
    """A hash of every rules file (versions and variants): names and contents."""
    h = hashlib.sha256()
    root = data_dir() / "rules"
    for p in sorted([*root.glob("*.yaml"), *(root / "variants").glob("*.yaml")]):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def load_rules_tables(con: duckdb.DuckDBPyConnection, *, force: bool = False) -> list[str]:
    """Upsert every rules version and variant into the rules tables, unless the rules files
    are unchanged since the last load; return warnings for rules files that could not be
    loaded (they are skipped, the others still load)."""
    fingerprint = rules_fingerprint()
    stored = con.execute("SELECT value FROM store_meta WHERE key = 'rules_fingerprint'").fetchall()
    if stored and stored[0][0] == fingerprint and not force:
        return []
    if stored:
        clear_caches()  # the files changed since they were last read
    versions, units, weapons, warnings = [], [], [], []
    for rid in list_rules_ids():
        try:
            v, u, w = _rules_rows(rid)
        except PmimError as e:
            warnings.append(f"rules {rid!r} skipped: {e.render()}")
            continue
        versions.append(v)
        units.extend(u)
        weapons.extend(w)
    tables = {"rules_versions": versions, "rules_units": units, "rules_weapons": weapons}
    try:
        con.execute("BEGIN TRANSACTION")
        for name, rows in tables.items():
            if not rows:
                continue
            cols = ", ".join(f'"{c}"' for c in rows[0])
            # typed as the table's columns: pyarrow would load pandas (most of a start-up) to infer types
            schema = con.sql(f"SELECT {cols} FROM {name} LIMIT 0").to_arrow_table().schema
            con.register("_rules_rows", pa.Table.from_pylist(rows, schema=schema))
            con.execute(f"INSERT OR REPLACE INTO {name} ({cols}) SELECT {cols} FROM _rules_rows")
            con.unregister("_rules_rows")
        con.execute("INSERT OR REPLACE INTO store_meta VALUES ('rules_fingerprint', ?)", [fingerprint])
        con.execute("COMMIT")
    except duckdb.Error as e:
        rollback_quietly(con)
        raise StoreError(f"the rules tables could not be loaded: {str(e).splitlines()[0]}") from e
    return warnings
