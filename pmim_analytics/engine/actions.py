"""What a player can do: small frozen actions with a one-line text notation.

=======================  ==================================
``place B:TW1 5,12``     put a unit on the map (deployment)
``activate B:TW1``       start a unit's activation
``move B:TW1 5,10``      move the active unit to a hex
``fire B:TW1 LA R:TY2``  attack with the weapon on a mount
``end B:TW1``            end the active unit's activation
``rush B:TW1 5,8``       rush the active unit (optional rule)
=======================  ==================================

:func:`parse_action` reads the notation back; ``str(action)`` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pmim_analytics.errors import PmimError
from pmim_analytics.model.hexes import Hex


@dataclass(frozen=True, slots=True)
class PlaceUnit:
    """Deploy ``unit`` on ``hex`` (deployment phase)."""

    unit: str
    hex: Hex

    def __str__(self) -> str:
        return f"place {self.unit} {self.hex.format()}"


@dataclass(frozen=True, slots=True)
class ActivateUnit:
    """Begin the activation of one of the acting side's units."""

    unit: str

    def __str__(self) -> str:
        return f"activate {self.unit}"


@dataclass(frozen=True, slots=True)
class MoveUnit:
    """Move the active unit to ``to`` (at most its MOV hexes along a legal path)."""

    unit: str
    to: Hex

    def __str__(self) -> str:
        return f"move {self.unit} {self.to.format()}"


@dataclass(frozen=True, slots=True)
class RushUnit:
    """Rush the active unit to ``to`` (optional rule: up to twice its MOV, then no attack)."""

    unit: str
    to: Hex

    def __str__(self) -> str:
        return f"rush {self.unit} {self.to.format()}"


@dataclass(frozen=True, slots=True)
class FireWeapon:
    """Attack ``target`` with the weapon on ``mount`` (LA, RA, CT, or HULL for basic units)."""

    unit: str
    mount: str
    target: str

    def __str__(self) -> str:
        return f"fire {self.unit} {self.mount} {self.target}"


@dataclass(frozen=True, slots=True)
class EndActivation:
    """End the active unit's activation (doing nothing more is always legal)."""

    unit: str

    def __str__(self) -> str:
        return f"end {self.unit}"


Action = PlaceUnit | ActivateUnit | MoveUnit | FireWeapon | EndActivation | RushUnit


def parse_action(text: str) -> Action:
    """Read an action from its notation; raise :class:`PmimError` quoting a bad one."""
    words = text.split()
    verb = words[0].lower() if words else ""
    try:
        if verb == "place" and len(words) == 3:
            return PlaceUnit(words[1], Hex.parse(words[2]))
        if verb == "activate" and len(words) == 2:
            return ActivateUnit(words[1])
        if verb == "move" and len(words) == 3:
            return MoveUnit(words[1], Hex.parse(words[2]))
        if verb == "fire" and len(words) == 4:
            return FireWeapon(words[1], words[2].upper(), words[3])
        if verb == "end" and len(words) == 2:
            return EndActivation(words[1])
        if verb == "rush" and len(words) == 3:
            return RushUnit(words[1], Hex.parse(words[2]))
    except PmimError:
        pass
    raise PmimError(
        f"{text!r} is not an action; write place UNIT C,R | activate UNIT | move UNIT C,R | "
        "fire UNIT MOUNT TARGET | end UNIT | rush UNIT C,R"
    )
