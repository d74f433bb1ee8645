"""Hard limits on every input: named sizes beyond which an input is refused, not read.

No input may make a command or the dashboard allocate without bound. Each limit is far
above anything a real game, army or log reaches, and each refusal is one sentence naming
the limit. ``pmim replay verify`` and ``pmim ingest`` share the file-size limits, so a file
one refuses the other refuses too. docs/limits.md lists them with their reasons.
"""

from __future__ import annotations

import json
import os
import re
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any

from pmim_analytics.errors import Location, PmimError, ReplayError, display_path

MAX_REPLAY_BYTES = 16 * 1024 * 1024
"""A JSON Lines replay: a 20-round game of two large armies is well under 1 MB."""
MAX_LOG_BYTES = 4 * 1024 * 1024
"""A manual playtest log (``.pmimlog``): a fully written-out 20-round game is under 200 KB."""
MAX_ARMY_BYTES = 1024 * 1024
"""An army list file (YAML)."""
MAX_LINE_BYTES = 1024 * 1024
"""One line of a replay or a log: a header of 200 units is about 40 KB."""
MAX_JSON_DEPTH = 32
"""Nesting of a JSON value: a replay header nests 4 deep (sides, a side, units, a unit's weapons)."""
MAX_UNITS_PER_ARMY = 200
"""Units in one army (after counts are expanded): a 100-point army fields at most a few dozen."""
MAX_COUNT_PER_ENTRY = 50
"""The ``count`` of one army entry (or ``N x`` in a log's inline army)."""
MAX_NAME_CHARS = 200
"""An army, side, player or unit name."""
MAX_PASTE_BYTES = 1024 * 1024
"""Text pasted or uploaded into the dashboard (a log or an army)."""
MAX_YAML_DEPTH = 32
"""Nesting of a YAML file (rules, variant, scenario, army, persona, sweep), aliases expanded:
a rules file nests 4 deep."""
MAX_YAML_VALUES = 100_000
"""Values in a YAML file once its aliases are expanded (a rules file holds about 1,000):
caps an alias bomb, whose few lines stand for billions of values."""
MAX_STAT = 1000
"""Any unit or weapon statistic of a rules file (HP, MOV, DEF, ARM, SPT, points, range,
accuracy either way, repeats, strength, tons): the real ones stay below 100."""
MAX_OPTIONAL_FACTOR = 10
"""An optional rule's multiplier or count (rush factor, catch-up activations); the catch-up
ratio only compares counts and is capped by ``MAX_STAT``."""
MAX_HEAT = 100
"""A heat rating or a heat cost of the optional heat rule."""
MAX_MAP_CELLS = 100
"""Columns or rows of a map in a replay header (a real map is under 20 by 20)."""

# Counts a command is asked for: each is checked before any work starts.
MAX_GAMES = 1_000_000
"""Games of one simulation (``pmim simulate --games``): its parts stream to disk, so this
bounds the time, not the memory."""
MAX_GAMES_PER_PAIRING = 1000
"""``pmim bots ladder --games-per-pairing`` (and a sweep file's ``games_per_pairing``,
which may be larger: see MAX_GAMES)."""
MAX_LADDER_GAMES = 20_000
"""Games of one bot ladder in all: its games are rated together, so they are held in memory."""
MAX_CALIBRATE_GAMES = 10_000
"""``pmim calibrate --games``: simulated games per logged game and bot."""
MAX_BOOTSTRAP = 100_000
"""Bootstrap resamples of a rating interval (``--bootstrap``)."""
MAX_RESAMPLES = 5000
"""Bootstrap samples of an implied-cost fit (``--resamples``): each refits the whole chain."""
MAX_WORKERS = 256
"""Worker processes (``--workers``)."""


class LimitError(ReplayError):
    """An input beyond one of the hard limits, or not a regular file (exit 2: unusable input).
    A :class:`ReplayError`, so every reader that refuses a bad replay or log refuses it too."""


def _mb(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n >= 2**20 else f"{n / 1024:.0f} KB"


def check_regular_file(path: str | Path, limit: int, what: str) -> int:
    """The size of ``path`` if it is a regular file no bigger than ``limit``.

    Raises :class:`LimitError` for anything else (a FIFO, a device such as ``/dev/zero``
    behind a link, a folder) or a file over the limit, before a byte is read; a FIFO is
    never opened, so this cannot block.
    """
    try:
        st = os.stat(path)
    except OSError as e:
        raise PmimError(f"cannot be read ({e.strerror})", Location(display_path(path))) from None
    if not stat.S_ISREG(st.st_mode):
        raise LimitError(f"not a regular file; only regular files are read as {what}s", Location(display_path(path)))
    if st.st_size > limit:
        article = "an" if what[0] in "aeiou" else "a"
        raise LimitError(f"{_mb(st.st_size)} is too large: over the {_mb(limit)} limit for {article} {what} "
                         "(pmim_analytics.limits); split or shorten it", Location(display_path(path)))
    return st.st_size


#: A JSON string (valid JSON: escapes are a backslash and the character after it).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep valid JSON ``text`` nests (a scalar is 0): the most brackets open at once,
    counting only those outside strings. Works on the text, so a replay header's hundred
    containers cost two regular-expression passes instead of a walk of the parsed value."""
    # without a backslash no string holds an escaped quote: every other piece between quotes
    # is outside the strings (a split is several times quicker than the string pattern)
    outside = _JSON_STRING.sub("", text) if "\\" in text else "".join(text.split('"')[::2])
    brackets = _NOT_BRACKET.sub("", outside)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def loads_json(text: str | bytes, where: Location, *, check_depth: bool = False) -> Any:
    """``json.loads`` that turns a line too long or too deep into a :class:`LimitError`
    (never a ``RecursionError``) and bad JSON into ``json.JSONDecodeError`` as usual."""
    if len(text) > MAX_LINE_BYTES:
        raise LimitError(f"the line is {_mb(len(text))} long, over the {_mb(MAX_LINE_BYTES)} limit", where)
    try:
        obj = json.loads(text)
    except RecursionError:
        raise LimitError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", where) from None
    if check_depth:
        if isinstance(text, bytes):
            text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads read it
        if json_depth(text) > MAX_JSON_DEPTH:
            raise LimitError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", where)
    return obj


def check_name(name: object, where: Location, what: str = "name") -> None:
    """Refuse a name over :data:`MAX_NAME_CHARS` characters."""
    if isinstance(name, str) and len(name) > MAX_NAME_CHARS:
        raise LimitError(f"the {what} is {len(name)} characters long, over the {MAX_NAME_CHARS}-character limit",
                         where)


# The count options of the commands, checked here (a module that loads nothing heavy) so a
# command refuses a count before it loads the analytics, Polars or DuckDB it would work with.
def check_games_per_pairing(games_per_pairing: int) -> None:
    """Refuse ``--games-per-pairing`` below 1 or over :data:`MAX_GAMES_PER_PAIRING`."""
    if games_per_pairing < 1:
        raise PmimError(f"--games-per-pairing must be at least 1, got {games_per_pairing}")
    if games_per_pairing > MAX_GAMES_PER_PAIRING:
        raise PmimError(f"--games-per-pairing {games_per_pairing:,} is over the ceiling of {MAX_GAMES_PER_PAIRING:,} "
                        "(MAX_GAMES_PER_PAIRING, docs/limits.md)")


def check_bootstrap(bootstrap: int) -> None:
    """Refuse a bootstrap count below 0 or over :data:`MAX_BOOTSTRAP`, before any game is played."""
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise PmimError(f"--bootstrap {bootstrap:,} is out of range; use 0 to {MAX_BOOTSTRAP:,} (MAX_BOOTSTRAP, "
                        "docs/limits.md)")


def check_calibrate_games(games: int, per: str = "bot") -> None:
    """Refuse ``pmim calibrate --games`` below 2 or over :data:`MAX_CALIBRATE_GAMES` (``per``:
    what each logged game is simulated for: a bot, a panel member)."""
    if games < 2:
        raise PmimError(f"--games must be at least 2, got {games}")
    if games > MAX_CALIBRATE_GAMES:
        raise PmimError(f"--games {games:,} is over the ceiling of {MAX_CALIBRATE_GAMES:,} simulated games per logged "
                        f"game and {per} (MAX_CALIBRATE_GAMES, docs/limits.md)")
