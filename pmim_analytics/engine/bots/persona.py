"""Bot personas: a playing style as four weights in a small YAML file under ``data/bots/``.

A persona scales the terms of the search bot's evaluation of a position (see
:mod:`pmim_analytics.engine.bots.search`): ``objectives`` (the VP lead and units in
capture zones), ``damage`` (enemy points removed), ``preservation`` (own points kept) and
``aggression`` (being close to the enemy; negative keeps away). A designer describes a
human style by editing numbers, no code; a field left out takes the ``balanced`` weight.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmim_analytics.errors import DataFileError, Location, UnknownNameError, display_path
from pmim_analytics.rules.catalogue import data_dir, read_yaml, validation_message

#: The persona used when a bot spec names none.
DEFAULT_PERSONA = "balanced"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class Persona(BaseModel):
    """The weights of one playing style (validated; unknown fields are refused)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = DEFAULT_PERSONA
    description: str = ""
    objectives: float = Field(1.0, ge=0, le=10)
    damage: float = Field(2.0, ge=0, le=10)
    preservation: float = Field(0.5, ge=0, le=10)
    aggression: float = Field(1.0, ge=-5, le=5)


def personas_dir() -> Path:
    """The folder of persona files: ``data/bots/`` of the data folder."""
    return data_dir() / "bots"


def persona_names() -> list[str]:
    """Every persona available, sorted."""
    return sorted(p.stem for p in personas_dir().glob("*.yaml"))


@cache
def _load(path: Path, mtime_ns: int) -> Persona:
    raw = read_yaml(path)
    where = display_path(path)
    if not isinstance(raw, dict):
        raise DataFileError("a persona file is a mapping of weights (objectives, damage, preservation, "
                            "aggression)", Location(where))
    try:
        return Persona(name=path.stem, **{k: v for k, v in raw.items() if k != "name"})
    except ValidationError as e:
        field, reason = validation_message(e)
        raise DataFileError(f"{reason}; see data/bots/balanced.yaml for the fields",
                            Location(where, field=field)) from None
    except TypeError:
        raise DataFileError("field names must be text", Location(where)) from None


def load_persona(name: str | None) -> Persona:
    """The persona called ``name`` (``None`` gives the default).

    Raises :class:`UnknownNameError` for a name with no file (listing those there are) and
    :class:`DataFileError` naming the file and field for a malformed one.
    """
    name = DEFAULT_PERSONA if name is None else name
    if not _NAME.match(name):
        raise UnknownNameError(f"{name!r} is not a persona name (lower-case letters, digits, - and _); "
                               f"choose one of {', '.join(persona_names())}")
    path = personas_dir() / f"{name}.yaml"
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        raise UnknownNameError(f"unknown persona {name!r}; choose one of {', '.join(persona_names())} "
                               f"(files in {display_path(personas_dir())})") from None
    return _load(path, mtime)


__all__ = ["DEFAULT_PERSONA", "Persona", "load_persona", "persona_names", "personas_dir"]
