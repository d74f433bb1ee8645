"""The scenario model: army-selection limits, map, deployment, objectives, victory."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MapSpec(_Frozen):
    """A rectangular hex map in offset coordinates (column, row)."""

    columns: int = Field(ge=1)
    rows: int = Field(ge=1)
    layout: Literal["odd-q"] = "odd-q"
    impassable: tuple[tuple[int, int], ...] = ()


class SideDeployment(_Frozen):
    """Which long edge a side deploys from."""

    edge: Literal["north", "south"]


class DeploymentDepth(_Frozen):
    """How many rows from its edge each kind of unit may deploy in."""

    infantry: int = Field(ge=1)
    vehicle: int = Field(ge=1)
    warmech: int = Field(ge=1)


class Deployment(_Frozen):
    """Both sides' edges and the deployment depths."""

    blue: SideDeployment
    red: SideDeployment
    depth: DeploymentDepth


class Objectives(_Frozen):
    """Objective hexes and the capture radius around each."""

    hexes: tuple[tuple[int, int], ...]
    radius: int = Field(ge=0)


class Victory(_Frozen):
    """How a game is won, and when it stops."""

    vp_to_win: int = Field(ge=0)
    round_limit: int = Field(ge=1)
    wipeout_loses: bool = True
    #: What a game that reaches ``round_limit`` with no winner under the victory rule is:
    #: ``draw`` (the default: the sources name no other way to win) or ``vp`` (the side
    #: ahead on VP wins, equal VP is a draw), a scenario option.
    at_round_limit: Literal["draw", "vp"] = "draw"


class Scenario(_Frozen):
    """A scenario as data (``data/scenarios/*.yaml``)."""

    id: str
    name: str
    points_limit: int = Field(ge=1)
    warmechs: int = Field(ge=0)
    map: MapSpec
    deployment: Deployment
    objectives: Objectives
    victory: Victory
    #: Who activates first (see docs/rules-notes.md, "Who activates first"): ``alternate``
    #: blue in odd rounds and red in even ones; ``blue`` or ``red`` that side in every
    #: round; ``random`` a die drawn before deployment picks the side that deploys and
    #: activates first in round 1, then the rounds alternate.
    first_player: Literal["alternate", "blue", "red", "random"] = "alternate"

    @model_validator(mode="after")
    def _on_map(self) -> Scenario:
        for c, r in (*self.objectives.hexes, *self.map.impassable):
            if not (0 <= c < self.map.columns and 0 <= r < self.map.rows):
                raise ValueError(f"hex ({c}, {r}) lies off the {self.map.columns}x{self.map.rows} map")
        if self.deployment.blue.edge == self.deployment.red.edge:
            raise ValueError("the two sides must deploy from opposite edges")
        return self
