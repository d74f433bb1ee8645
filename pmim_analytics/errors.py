"""The one family of errors the library raises.

Every error a user can cause derives from :class:`PmimError`; the CLI renders these as a
single sentence and never as a traceback. Subclasses say what kind of problem it is and
carry where it happened (file, line, column, unit) so messages can point at it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


@dataclass(frozen=True)
class Location:
    """Where a problem sits: a file and optionally a line, a column and a field."""

    file: str | None = None
    line: int | None = None
    column: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.column is not None:
            parts.append(f"column {self.column}")
        if self.field:
            parts.append(f"field {self.field!r}")
        return ", ".join(parts)


class PmimError(Exception):
    """Base of every error the library raises on purpose.

    ``exit_code`` is what the CLI exits with: 2 for unreadable or unusable input,
    1 for findings (an invalid army, rejected games).
    """

    exit_code = 2

    def __init__(self, message: str, where: Location | None = None) -> None:
        self.message = message
        self.where = where
        super().__init__(self.render())

    def render(self) -> str:
        """Return the one-sentence message, prefixed with where it happened."""
        if self.where and str(self.where):
            return f"{self.where}: {self.message}"
        return self.message


class DataFileError(PmimError):
    """A data file (rules, variant, scenario, army) could not be read or is malformed."""


class UnknownNameError(PmimError):
    """A rules id, unit, weapon, scenario or bot name that does not exist."""


class InvalidArmyError(PmimError):
    """An army list breaks the rules of its version or scenario; ``violations`` lists all."""

    exit_code = 1

    def __init__(self, violations: list[str], where: Location | None = None) -> None:
        self.violations = list(violations)
        super().__init__("; ".join(self.violations), where)


class ReplayError(PmimError):
    """A replay or manual log that cannot be read (syntax, types, missing fields)."""


class IllegalActionError(PmimError):
    """An action or event that the rules do not allow in the current game state."""


class StoreError(PmimError):
    """The database could not be opened, migrated, read or written."""


def display_path(path: str | Path) -> str:
    """Return ``path`` relative to the working directory when it lies below it."""
    p = Path(path)
    try:
        cwd = os.getcwd()
        if p.is_symlink():
            return str(p.resolve().relative_to(_resolved(cwd, cwd)))
        return str((_resolved(cwd, str(p.parent)) / p.name).relative_to(_resolved(cwd, cwd)))
    except (ValueError, OSError):
        return str(p)


@lru_cache(maxsize=64)
def _resolved(cwd: str, folder: str) -> Path:
    # a folder resolved once (an ingest names a thousand files of a few folders), relative
    # ones against the working directory they were named in
    return (Path(cwd) / folder).resolve()


class BotSpecError(PmimError, ValueError):
    """A bot spec (``search:budget=400``) with a bad parameter, value or persona."""
