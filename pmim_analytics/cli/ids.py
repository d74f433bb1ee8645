"""Ids named on the command line (rules ids, bots, scenarios) checked against what exists.

An unknown id is one sentence naming the option and the valid ids, exit 2, in every
command, before any work: a misspelt id in a list is never dropped in silence, and an id
with no games is not mistaken for an empty database.
"""

from __future__ import annotations

from pathlib import Path

from pmim_analytics.errors import PmimError, UnknownNameError
from pmim_analytics.rules import list_rules_ids


def _stored_rules_ids(db: Path | None) -> list[str]:
    """Rules ids of the games in the database (a variant file since removed included); none
    when there is no readable database."""
    from pmim_analytics.store.readers import DuckDBData, default_db_path

    path = db or default_db_path()
    if not Path(path).exists():
        return []
    try:
        return list(DuckDBData(path).provenance().rules_ids)
    except PmimError:
        return []


def check_rules_ids(ids: list[str], option: str = "--rules", db: Path | None = None) -> list[str]:
    """``ids`` if each is a rules id of the catalogue or of the games stored in ``db``.

    Raises :class:`UnknownNameError` (exit 2) naming the first unknown id, the option and
    every valid id.
    """
    known = list_rules_ids()
    unknown = [r for r in ids if r not in known]
    if unknown:
        stored = _stored_rules_ids(db)
        unknown = [r for r in unknown if r not in stored]
        known += [r for r in stored if r not in known]
    if unknown:
        raise UnknownNameError(f"unknown rules id {unknown[0]!r} in {option}; choose from {', '.join(known)}")
    return ids


def parse_rules_ids(text: str | None, option: str = "--rules", db: Path | None = None) -> list[str] | None:
    """A comma-separated ``--rules`` list, each id checked (``None`` when not given)."""
    if text is None:
        return None
    ids = [r.strip() for r in text.split(",") if r.strip()]
    if not ids:
        raise UnknownNameError(f"give at least one rules id in {option}, e.g. {option} v3")
    return check_rules_ids(ids, option, db)
