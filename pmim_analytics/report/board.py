"""The Take and Hold board as a Plotly figure: hexes, zones, objectives, units, attacks.

Flat-topped hexes in the odd-q layout of the scenario (odd columns half a hex lower), north
(red's edge) at the top, with the coordinates the events use (``col,row``: column numbers along
the top and bottom edges, row numbers down both sides, and each hex's on hover). Used by the
dashboard's replay viewer and by exports.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from pmim_analytics.model.hexes import Hex
from pmim_analytics.replay.fold import BoardView
from pmim_analytics.rules.mechanics import deployment_rows, in_capture_zone
from pmim_analytics.rules.scenario import Scenario

SIDE_COLOURS = {"blue": "#1f5fbf", "red": "#c8322a"}
#: Destroyed units keep their side's hue, paler, drawn as a cross.
DESTROYED_COLOURS = {"blue": "#7fa6e0", "red": "#e59590"}
ZONE_TINTS = {"blue": "rgba(31,95,191,0.10)", "red": "rgba(200,50,42,0.10)"}
SQRT3 = math.sqrt(3)


def hex_center(col: int, row: int) -> tuple[float, float]:
    """Screen position of a hex centre (unit hex size; y grows southwards)."""
    return 1.5 * col, SQRT3 * (row + 0.5 * (col & 1))


def _outline(col: int, row: int) -> tuple[list[float | None], list[float | None]]:
    cx, cy = hex_center(col, row)
    xs: list[float | None] = []
    ys: list[float | None] = []
    for k in range(7):
        a = math.radians(60 * k)
        xs.append(cx + math.cos(a))
        ys.append(cy + math.sin(a))
    xs.append(None)
    ys.append(None)
    return xs, ys


def _hex_trace(hexes: list[tuple[int, int]], fill: str, line: str, name: str, width: float = 0.6) -> go.Scatter:
    xs: list[float | None] = []
    ys: list[float | None] = []
    for c, r in hexes:
        hx, hy = _outline(c, r)
        xs += hx
        ys += hy
    return go.Scatter(x=xs, y=ys, mode="lines", fill="toself", fillcolor=fill, hoverinfo="skip",
                      line={"color": line, "width": width}, name=name, showlegend=fill != "rgba(0,0,0,0)")


def zone_rows(scenario: Scenario, side: str, kind: str) -> range:
    """Rows a side may deploy a kind of unit in (the rows nearest its edge)."""
    return deployment_rows(scenario, side, kind)


def objective_zone(scenario: Scenario, index: int) -> list[tuple[int, int]]:
    """The hexes within the capture radius of objective ``index`` (offset coordinates)."""
    oc, orow = scenario.objectives.hexes[index]
    out = []
    for c in range(scenario.map.columns):
        for r in range(scenario.map.rows):
            if in_capture_zone(scenario, Hex(c, r).distance((oc, orow))):
                out.append((c, r))
    return out


def board_figure(scenario: Scenario, board: BoardView | None = None, unit_labels: dict[str, str] | None = None,
                 title: str | None = None) -> go.Figure:
    """Draw the map with deployment zones and objectives, and the units of ``board``."""
    cols, rows = scenario.map.columns, scenario.map.rows
    fig = go.Figure()
    all_hexes = [(c, r) for c in range(cols) for r in range(rows)]
    fig.add_trace(_hex_trace(all_hexes, "rgba(0,0,0,0)", "#c9c9c9", "hex"))
    for side in ("blue", "red"):
        zone = [(c, r) for c in range(cols) for r in zone_rows(scenario, side, "infantry")]
        fig.add_trace(_hex_trace(zone, ZONE_TINTS[side], "#c9c9c9", f"{side} deployment: infantry"))
        near = [(c, r) for c in range(cols) for r in zone_rows(scenario, side, "vehicle")]
        fig.add_trace(_hex_trace(near, ZONE_TINTS[side], "#c9c9c9", f"{side} deployment: vehicles and Warmechs"))
    capture = sorted({h for i in range(len(scenario.objectives.hexes)) for h in objective_zone(scenario, i)})
    fig.add_trace(_hex_trace(capture, "rgba(214,170,40,0.18)", "#d6aa28", "objective capture zone"))
    fig.add_trace(_hex_trace(list(scenario.objectives.hexes), "rgba(214,170,40,0.65)", "#8a6d12",
                             "objective", width=1.5))
    if scenario.map.impassable:
        fig.add_trace(_hex_trace(list(scenario.map.impassable), "#555555", "#333333", "impassable"))
    for i, (c, r) in enumerate(scenario.objectives.hexes):
        x, y = hex_center(c, r)
        fig.add_annotation(x=x, y=y + 0.55, text=f"O{i + 1}", showarrow=False, font={"size": 9, "color": "#5a4708"})
    _draw_coordinates(fig, cols, rows)
    if board is not None:
        _draw_units(fig, board, unit_labels or {})
    fig.update_xaxes(visible=False, range=[-2.6, 1.5 * (cols - 1) + 2.6])
    fig.update_yaxes(visible=False, autorange="reversed", scaleanchor="x", scaleratio=1)
    fig.update_layout(
        title=title or f"{scenario.name}: {cols}x{rows} hexes, red's edge at the top, blue's at the bottom",
        plot_bgcolor="white", margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=620,
        legend={"orientation": "h", "y": -0.02},
    )
    return fig


def _draw_coordinates(fig: go.Figure, cols: int, rows: int) -> None:
    """Column numbers above and below the map, row numbers on both sides, ``col,row`` on hover."""
    top = -SQRT3 * 0.85
    bottom = SQRT3 * (rows - 0.5) + SQRT3 * 0.85
    xs = [1.5 * c for c in range(cols)] * 2
    ys = [top] * cols + [bottom + SQRT3 * 0.5 * (c & 1) for c in range(cols)]
    right = cols - 1
    xs += [-1.85] * rows + [1.5 * right + 1.85] * rows
    ys += [SQRT3 * r for r in range(rows)] + [hex_center(right, r)[1] for r in range(rows)]
    labels = [str(c) for c in range(cols)] * 2 + [str(r) for r in range(rows)] * 2
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="text", text=labels, textfont={"size": 9, "color": "#888"},
                             hoverinfo="skip", showlegend=False, name="coordinates"))
    centres = [(c, r) for c in range(cols) for r in range(rows)]
    fig.add_trace(go.Scatter(x=[hex_center(c, r)[0] for c, r in centres], y=[hex_center(c, r)[1] for c, r in centres],
                             mode="markers", marker={"size": 14, "opacity": 0}, showlegend=False, name="hex",
                             hovertext=[f"hex {c},{r}" for c, r in centres], hoverinfo="text"))


def _draw_units(fig: go.Figure, board: BoardView, labels: dict[str, str]) -> None:
    for a in board.last_attacks:
        src, dst = board.units.get(a.unit), board.units.get(a.target)
        if not src or not dst or src.hex is None or dst.hex is None:
            continue
        (x0, y0), (x1, y1) = hex_center(*src.hex), hex_center(*dst.hex)
        colour = SIDE_COLOURS[src.side]
        fig.add_trace(go.Scatter(x=[x0, x1], y=[y0, y1], mode="lines", showlegend=False, hoverinfo="text",
                                 text=f"{a.unit} {a.weapon} -> {a.target}: {'hit' if a.hit else 'miss'}"
                                 f"{f', {a.damage} dmg' if a.hit else ''}",
                                 line={"color": colour, "width": 2 if a.hit else 1,
                                       "dash": "solid" if a.hit else "dot"}))
    for side in ("blue", "red"):
        alive = [u for u in board.units.values() if u.side == side and u.hex is not None and not u.destroyed]
        dead = [u for u in board.units.values() if u.side == side and u.hex is not None and u.destroyed]
        for group, symbol, colour, suffix in ((alive, "circle", SIDE_COLOURS[side], ""),
                                              (dead, "x", DESTROYED_COLOURS[side], " (destroyed)")):
            if not group:
                continue
            placed = [(u, u.hex) for u in group if u.hex is not None]  # all of the group
            xs, ys = zip(*(hex_center(*h) for _, h in placed), strict=True)
            hover = [f"{u.id} {labels.get(u.id, '')} at {h[0]},{h[1]}<br>damage taken {u.damage_taken}"
                     + (f"<br>lost: {', '.join(u.lost_locations)}" if u.lost_locations else "")
                     + ("<br>immobilized" if u.immobilized else "") for u, h in placed]
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="markers+text", name=f"{side} units{suffix}",
                marker={"symbol": symbol, "size": 17, "color": colour, "line": {"color": "white", "width": 1}},
                text=[u.id.split(":")[1] for u in group], textfont={"size": 8, "color": "white" if not suffix
                                                                     else "#444"},
                hovertext=hover, hoverinfo="text"))
