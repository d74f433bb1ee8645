"""The game's words, defined once: sides, unit ids, end reasons, hit locations, mounts.

Every layer (engine, replay formats, store, analytics, reports) names these things the
same way; this module is where the names live. Nothing here knows a rules version.

* Sides are ``blue`` and ``red``; code that indexes per side uses ``BLUE = 0``, ``RED = 1``.
* A unit's game-wide id is its side's letter, a colon and its roster id: ``B:TW1``, ``R:TY3``.
* A game ends for one of :data:`END_REASONS`.
* Hit locations have a name (``left_arm``, the rules files') and a code (``LA``, replays and
  logs'); a basic unit's weapons sit on the :data:`HULL` mount.
"""

from __future__ import annotations

from typing import Final, Literal

from pmim_analytics.model.hexes import Hex

Side = Literal["blue", "red"]
#: The two sides, in index order (blue deploys and is listed first).
SIDES: Final[tuple[Side, Side]] = ("blue", "red")
BLUE: Final = 0
RED: Final = 1
#: Each side's letter in unit ids and manual logs.
SIDE_LETTER: Final[dict[str, str]] = {"blue": "B", "red": "R"}
#: Each side's unit-id prefix, by side index: ``B:`` and ``R:``.
SIDE_PREFIX: Final[tuple[str, str]] = ("B:", "R:")

EndReason = Literal["vp", "wipeout", "round_limit", "manual"]
#: Why a game ended: ``vp`` (more than the VP target and ahead at a round's end),
#: ``wipeout`` (the other side has no units left), ``round_limit`` (the scenario's limit was
#: reached), ``manual`` (a result logged by players without one of the above).
END_REASONS: Final[tuple[EndReason, ...]] = ("vp", "wipeout", "round_limit", "manual")

LocationName = Literal[
    "left_arm", "right_arm", "left_leg", "right_leg", "left_torso", "right_torso", "center_torso"
]
#: Hit-location codes in a fixed order; a Warmech's location HP list follows it.
LOCATIONS: Final[tuple[str, ...]] = ("LA", "RA", "LL", "RL", "LT", "RT", "CT")
#: Each location's index in :data:`LOCATIONS`.
LOC_INDEX: Final[dict[str, int]] = {code: i for i, code in enumerate(LOCATIONS)}
#: Rules-file location name -> code.
LOCATION_CODES: Final[dict[str, str]] = {
    "left_arm": "LA",
    "right_arm": "RA",
    "left_leg": "LL",
    "right_leg": "RL",
    "left_torso": "LT",
    "right_torso": "RT",
    "center_torso": "CT",
}
#: Code -> rules-file location name.
LOCATION_BY_CODE: Final[dict[str, str]] = {v: k for k, v in LOCATION_CODES.items()}
#: Code -> words for people ("left arm").
LOCATION_WORDS: Final[dict[str, str]] = {code: name.replace("_", " ") for name, code in LOCATION_CODES.items()}
#: The mount of a basic unit's weapons (a Warmech's are location codes).
HULL: Final = "HULL"


def game_unit_id(side: int, roster_id: str) -> str:
    """The game-wide id of a roster unit: ``B:TW1`` for blue's (side 0) TW1, ``R:TW1`` for red's."""
    return SIDE_PREFIX[side] + roster_id


def side_of_unit(unit_id: str) -> Side | None:
    """``blue`` for ``B:...``, ``red`` for ``R:...``, ``None`` for an id with neither prefix."""
    if unit_id.startswith(SIDE_PREFIX[BLUE]):
        return "blue"
    if unit_id.startswith(SIDE_PREFIX[RED]):
        return "red"
    return None


def roster_id_of(unit_id: str) -> str:
    """The roster id of a game-wide unit id (``B:TW1`` -> ``TW1``); an id without a prefix is returned as is."""
    return unit_id[2:] if side_of_unit(unit_id) else unit_id


__all__ = [
    "BLUE",
    "END_REASONS",
    "HULL",
    "LOCATIONS",
    "LOCATION_BY_CODE",
    "LOCATION_CODES",
    "LOCATION_WORDS",
    "LOC_INDEX",
    "RED",
    "SIDES",
    "SIDE_LETTER",
    "SIDE_PREFIX",
    "EndReason",
    "Hex",
    "LocationName",
    "Side",
    "game_unit_id",
    "roster_id_of",
    "side_of_unit",
]
