"""Plotly figures of the report tables, shared by the export and the dashboard.

Each builder takes a table from :mod:`pmim_analytics.analytics.tables` (and optionally the
:class:`~pmim_analytics.analytics.dataset.Provenance` it rests on, printed under the plot)
and returns a ``plotly.graph_objects.Figure`` with a title, labelled axes with units and a
legend. Blue and red always mean the two sides.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import polars as pl

from pmim_analytics.analytics.dataset import Provenance
from pmim_analytics.analytics.stats import wilson_interval

SIDE_COLOURS = {"blue": "#1f5fbf", "red": "#c8102e"}
#: Compositions with fewer games than this are left out of figures (one-off random armies).
MIN_GAMES = 10
#: Colours for rules ids (never blue/red, which mean sides).
SERIES_COLOURS = ("#2a9d8f", "#e9a23b", "#6d597a", "#8ab17d", "#264653", "#b56576", "#7f7f7f", "#4d908e")
_FONT = {"family": "Inter, Helvetica, Arial, sans-serif", "size": 13}


def _finish(fig: go.Figure, title: str, provenance: Provenance | None, height: int = 520) -> go.Figure:
    """Title, the provenance as its subtitle, legend on the right, one template for all."""
    head: dict[str, Any] = {"text": title, "x": 0.01, "xanchor": "left"}
    if provenance is not None:
        head["subtitle"] = {"text": f"Source: {provenance.caption()}", "font": {"size": 11, "color": "#666"}}
    fig.update_layout(title=head, font=_FONT, template="plotly_white", height=height,
                      margin={"l": 70, "r": 30, "t": 90, "b": 60}, legend={"title": {"text": ""}})
    return fig


def main_source(df: pl.DataFrame) -> str | None:
    """The source a figure shows when a table has several: engine games if any, else the first."""
    sources = df["source"].unique().to_list() if "source" in df.columns and df.height else []
    return "engine" if "engine" in sources else (sorted(sources)[0] if sources else None)


def _empty(title: str, provenance: Provenance | None, text: str = "No games to show") -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(text=text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return _finish(fig, title, provenance, 300)


def win_rate_figure(compositions: pl.DataFrame, provenance: Provenance | None = None,
                    key: str = "composition", source: str | None = None, min_games: int = MIN_GAMES,
                    no_common: str | None = None) -> go.Figure:
    """Win rate per composition with Wilson 95% bars, one bar per rules id (mirrors excluded).

    Shows one source (default: engine games when there are any) and compositions with at
    least ``min_games`` games; each bar is labelled with its games, the subtitle names the bot
    level (the provenance's). ``no_common``: the sentence shown instead of bars when the rules
    ids compared share no bot level.
    """
    source = source or main_source(compositions)
    title = f"Win rate by composition ({source} games, mirrors excluded)"
    if no_common:
        return _empty(title, provenance, no_common)
    c = compositions.filter(pl.col("source") == source) if source else compositions
    most = int(c.select(pl.col("games").max()).item() or 0) if c.height else 0
    c = c.filter(pl.col("games") >= min_games)
    if c.height == 0:
        fig = _empty(title, provenance)
        if most:  # there are games, too few to chart: say how many are needed
            fig.layout.annotations[0].text = (f"The chart needs {min_games} games of a composition; the most here "
                                              f"is {most} (the table lists them)")
        return fig
    order = c.group_by(key).agg(pl.col("win_rate").mean()).sort("win_rate")[key].to_list()
    fig = go.Figure()
    for i, rid in enumerate(sorted(c["rules_id"].unique().to_list())):
        t = c.filter(pl.col("rules_id") == rid)
        fig.add_trace(go.Bar(
            x=(t["win_rate"] * 100).to_list(), y=t[key].to_list(), orientation="h", name=f"rules {rid}",
            marker={"color": SERIES_COLOURS[i % len(SERIES_COLOURS)]},
            error_x={"type": "data", "symmetric": False, "array": ((t["win_hi"] - t["win_rate"]) * 100).to_list(),
                     "arrayminus": ((t["win_rate"] - t["win_lo"]) * 100).to_list(), "thickness": 1.5,
                     "color": "#333"},
            text=[f"{n:,} games" for n in t["games"].to_list()], textposition="inside", insidetextanchor="start",
            textfont={"size": 10, "color": "white"},
            customdata=list(zip(t["games"].to_list(), t["wins"].to_list(), t["draws"].to_list(), strict=True)),
            hovertemplate="%{y}: %{x:.1f}% wins<br>%{customdata[1]} wins, %{customdata[2]} draws in "
                          "%{customdata[0]} games<extra>" + rid + "</extra>",
        ))
    fig.add_vline(x=50, line={"dash": "dot", "color": "#555"})
    fig.update_layout(barmode="group", bargap=0.25)
    fig.update_xaxes(title="win rate, % of games (bars: Wilson 95% interval)", range=[0, 100])
    fig.update_yaxes(title="composition", automargin=True, categoryorder="array", categoryarray=order)
    n_rules = c["rules_id"].n_unique()
    return _finish(fig, title, provenance, 180 + 22 * len(order) * max(1, n_rules))


def matchup_heatmap(matchups: pl.DataFrame, rules_id: str, provenance: Provenance | None = None,
                    key: str = "composition", source: str | None = None, min_games: int = MIN_GAMES) -> go.Figure:
    """Row composition's win rate against each column composition under one rules id and source.

    Compositions with fewer than ``min_games`` games in all are left out.
    """
    m = matchups.filter(pl.col("rules_id") == rules_id)
    source = source or main_source(m)
    m = m.filter(pl.col("source") == source) if source else m
    total = m.group_by(key).agg(pl.col("games").sum())
    keep = total.filter(pl.col("games") >= min_games)[key].to_list()
    m = m.filter(pl.col(key).is_in(keep) & pl.col(f"opp_{key}").is_in(keep))
    title = f"Matchups under {rules_id} ({source} games): win rate of the row against the column"
    if m.height == 0:
        return _empty(title, provenance)
    m = m.group_by(key, f"opp_{key}").agg(pl.col("wins").sum(), pl.col("games").sum())
    names = sorted(set(m[key].to_list()) | set(m[f"opp_{key}"].to_list()))
    cell = {(a, b): (w, g) for a, b, w, g in m.select(key, f"opp_{key}", "wins", "games").iter_rows()}
    z = [[(cell[(a, b)][0] / cell[(a, b)][1] * 100) if (a, b) in cell and cell[(a, b)][1] else None
          for b in names] for a in names]
    labels = [[(f"{cell[(a, b)][0] / cell[(a, b)][1]:.0%}<br>n={cell[(a, b)][1]}" if (a, b) in cell else "")
               for b in names] for a in names]

    def hover(a: str, b: str) -> list[object]:
        if (a, b) not in cell or not cell[(a, b)][1]:
            return ["", "", ""]
        w, n = cell[(a, b)]
        lo, hi = wilson_interval(w, n)
        return [n, f"{100 * lo:.0f}", f"{100 * hi:.0f}"]

    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, text=labels, texttemplate="%{text}", zmin=0, zmax=100, zmid=50,
        customdata=[[hover(a, b) for b in names] for a in names],
        colorscale=[[0, "#b35806"], [0.5, "#f7f7f7"], [1, "#542788"]],  # not blue/red: rows are not sides
        colorbar={"title": "row wins, %"},
        hovertemplate="%{y} vs %{x}: %{z:.1f}% wins [%{customdata[1]}–%{customdata[2]}%], n=%{customdata[0]}"
                      "<extra></extra>",
    ))
    fig.update_xaxes(title="opponent composition", side="bottom", tickangle=-30)
    fig.update_yaxes(title="composition", autorange="reversed", automargin=True)
    return _finish(fig, title, provenance, 220 + 45 * len(names))


def km_figure(curves: pl.DataFrame, rules_id: str, provenance: Provenance | None = None,
              codes: list[str] | None = None, source: str | None = None) -> go.Figure:
    """Kaplan-Meier survival by round, one step line per unit type, under one rules id and source."""
    c = curves.filter(pl.col("rules_id") == rules_id)
    source = source or main_source(c)
    c = c.filter(pl.col("source") == source) if source else c
    title = f"Unit survival by round under {rules_id} ({source} games; Kaplan-Meier, alive at the end = censored)"
    if codes:
        c = c.filter(pl.col("code").is_in(codes))
    if c.height == 0:
        return _empty(title, provenance)
    c = c.select("type", "round", "survival", "at_risk", "lo", "hi").sort("type", "round")
    fig = go.Figure()
    for i, name in enumerate(c["type"].unique(maintain_order=True).to_list()):
        t = c.filter(pl.col("type") == name)
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        x = t["round"].to_list()
        # the 95% band first (upper edge, then lower edge filled up to it), then the curve
        fig.add_trace(go.Scatter(x=x, y=(t["hi"] * 100).to_list(), mode="lines", line_shape="hv",
                                 line={"width": 0, "color": colour}, showlegend=False, hoverinfo="skip",
                                 legendgroup=name))
        fig.add_trace(go.Scatter(x=x, y=(t["lo"] * 100).to_list(), mode="lines", line_shape="hv",
                                 line={"width": 0, "color": colour}, fill="tonexty", opacity=0.15,
                                 showlegend=False, hoverinfo="skip", legendgroup=name))
        fig.add_trace(go.Scatter(
            x=x, y=(t["survival"] * 100).to_list(), mode="lines", line_shape="hv", name=name, legendgroup=name,
            line={"color": colour, "dash": "solid" if i < 8 else "dash"},
            customdata=list(zip(t["at_risk"].to_list(), (t["lo"] * 100).round(0).to_list(),
                                (t["hi"] * 100).round(0).to_list(), strict=True)),
            hovertemplate=name + ": %{y:.0f}% [%{customdata[1]:.0f}–%{customdata[2]:.0f}%] still on the table "
                                 "after round %{x} (%{customdata[0]} at risk)<extra></extra>",
        ))
    fig.update_xaxes(title="round", dtick=1)
    fig.update_yaxes(title="units still on the table, %", range=[0, 102])
    return _finish(fig, title, provenance)


def dice_heatmap(dice: pl.DataFrame, value: str = "expected_attacks_to_kill",
                 provenance: Provenance | None = None) -> go.Figure:
    """Weapons against targets of one rules version: expected attacks to kill (or another column)."""
    rid = dice["rules_id"][0] if dice.height else "?"
    labels = {"expected_attacks_to_kill": ("Expected attacks to destroy the target", "attacks"),
              "expected_damage": ("Expected damage per attack", "damage"),
              "p_hit": ("Chance to hit", "P(hit)")}
    title, unit = labels.get(value, (value, value))
    title = f"{title}, rules {rid} (exact 2d6 maths)"
    if dice.height == 0:
        return _empty(title, provenance)
    targets = dice["target"].unique(maintain_order=True).to_list()
    weapons = dice["weapon_name"].unique(maintain_order=True).to_list()
    cell = {(w, t): v for w, t, v in dice.select("weapon_name", "target", value).iter_rows()}
    z = [[cell.get((w, t)) for t in targets] for w in weapons]
    text = [["—" if v is None else f"{v:.1f}" if value != "p_hit" else f"{v:.0%}" for v in row] for row in z]
    reverse = value == "expected_attacks_to_kill"
    fig = go.Figure(go.Heatmap(
        z=z, x=targets, y=weapons, text=text, texttemplate="%{text}", colorscale="Viridis", reversescale=reverse,
        colorbar={"title": unit}, hoverongaps=False,
        hovertemplate="%{y} against %{x}: %{z:.2f} " + unit + "<extra></extra>",
    ))
    fig.update_xaxes(title="target", tickangle=-40)
    fig.update_yaxes(title="weapon", autorange="reversed", automargin=True)
    foot = "— = the weapon cannot damage it" if value == "expected_attacks_to_kill" else None
    if foot:
        fig.add_annotation(text=foot, xref="paper", yref="paper", x=1, y=1.06, showarrow=False, xanchor="right",
                           font={"size": 11, "color": "#666"})
    return _finish(fig, title, provenance, 160 + 30 * len(weapons))


def vp_by_round_figure(vp: pl.DataFrame, provenance: Provenance | None = None, source: str | None = None
                       ) -> go.Figure:
    """Mean VP of blue and red after each round, one line style per rules id (one source)."""
    source = source or main_source(vp)
    title = f"Mean VP after each round ({source} games still running)"
    vp = vp.filter(pl.col("source") == source) if source else vp
    if vp.height == 0:
        return _empty(title, provenance)
    v = vp.group_by("rules_id", "round").agg(
        (pl.col("blue_vp") * pl.col("games")).sum() / pl.col("games").sum(),
        (pl.col("red_vp") * pl.col("games")).sum() / pl.col("games").sum(),
        pl.col("games").sum()).sort("rules_id", "round")
    fig = go.Figure()
    dashes = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
    for i, rid in enumerate(v["rules_id"].unique(maintain_order=True).to_list()):
        t = v.filter(pl.col("rules_id") == rid)
        for side in ("blue", "red"):
            fig.add_trace(go.Scatter(
                x=t["round"].to_list(), y=t[f"{side}_vp"].to_list(), mode="lines+markers",
                name=f"{side}, {rid}", line={"color": SIDE_COLOURS[side], "dash": dashes[i % len(dashes)]},
                customdata=t["games"].to_list(),
                hovertemplate=f"{side} ({rid})" + ": %{y:.1f} VP after round %{x} (%{customdata} games)"
                                                  "<extra></extra>",
            ))
    fig.update_xaxes(title="round", dtick=1)
    fig.update_yaxes(title="victory points (mean)", rangemode="tozero")
    return _finish(fig, title, provenance)


def hit_rate_figure(weapons: pl.DataFrame, provenance: Provenance | None = None, by: str = "target_kind",
                    source: str | None = None) -> go.Figure:
    """Observed against expected hit rate per weapon and target class, with Wilson bars (one source)."""
    source = source or main_source(weapons)
    title = f"Observed against expected hit rate, {source} games (on the line: dice as the rules expect)"
    w = weapons.filter(pl.col("attacks") > 0)
    w = w.filter(pl.col("source") == source) if source else w
    if w.height == 0:
        return _empty(title, provenance)
    fig = go.Figure()
    for i, kind in enumerate(sorted(w[by].drop_nulls().unique().to_list())):
        t = w.filter(pl.col(by) == kind)
        fig.add_trace(go.Scatter(
            x=(t["expected_hit_rate"] * 100).to_list(), y=(t["hit_rate"] * 100).to_list(), mode="markers",
            name=f"against {kind}", marker={"size": 9, "color": SERIES_COLOURS[i % len(SERIES_COLOURS)]},
            error_y={"type": "data", "symmetric": False,
                     "array": ((t["hit_rate_hi"] - t["hit_rate"]) * 100).to_list(),
                     "arrayminus": ((t["hit_rate"] - t["hit_rate_lo"]) * 100).to_list(), "thickness": 1},
            customdata=list(zip(t["weapon"].to_list(), t["rules_id"].to_list(), t["attacks"].to_list(),
                                t["hit_p"].to_list(), strict=True)),
            hovertemplate="%{customdata[0]} (%{customdata[1]}): %{y:.1f}% hit, %{x:.1f}% expected, "
                          "%{customdata[2]} attacks, p=%{customdata[3]:.3g}<extra></extra>",
        ))
    fig.add_trace(go.Scatter(x=[0, 100], y=[0, 100], mode="lines", name="as expected",
                             line={"color": "#999", "dash": "dot"}, hoverinfo="skip"))
    fig.update_xaxes(title="expected hit rate, %", range=[0, 101])
    fig.update_yaxes(title="observed hit rate, % (bars: Wilson 95%)", range=[0, 101])
    return _finish(fig, title, provenance)
