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
    first_player: Literal["alternate", "blue", "red"] = "alternate"

    @model_validator(mode="after")
    def _on_map(self) -> Scenario:
        for c, r in (*self.objectives.hexes, *self.map.impassable):
            if not (0 <= c < self.map.columns and 0 <= r < self.map.rows):
                raise ValueError(f"hex ({c}, {r}) lies off the {self.map.columns}x{self.map.rows} map")
        if self.deployment.blue.edge == self.deployment.red.edge:
            raise ValueError("the two sides must deploy from opposite edges")
        return self
