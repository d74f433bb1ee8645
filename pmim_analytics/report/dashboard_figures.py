"""More Plotly figures of the report tables, for the dashboard (and any export that wants them).

Same conventions as :mod:`.figures`: a title, labelled axes with units, a legend, blue and
red only for the two sides, rules ids in the series colours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import polars as pl

from pmim_analytics.analytics.compositions import matchup_diff
from pmim_analytics.analytics.dataset import Provenance
from pmim_analytics.report.figures import SERIES_COLOURS, SIDE_COLOURS, _empty, _finish, main_source

SOURCE_COLOURS = {"engine": "#2a9d8f", "manual": "#e9a23b"}


def games_figure(by_source_rules: Sequence[tuple[str, str, int]]) -> go.Figure:
    """Games in the database per rules id, stacked by source (engine, manual)."""
    title = "Games in the database by rules version and source"
    if not by_source_rules:
        return _empty(title, None)
    rules = sorted({r for _, r, _ in by_source_rules})
    fig = go.Figure()
    for i, src in enumerate(sorted({s for s, _, _ in by_source_rules})):
        n = {r: g for s, r, g in by_source_rules if s == src}
        fig.add_trace(go.Bar(x=rules, y=[n.get(r, 0) for r in rules], name=f"{src} games",
                             marker={"color": SOURCE_COLOURS.get(src, SERIES_COLOURS[i % len(SERIES_COLOURS)])},
                             text=[n.get(r) or "" for r in rules], textposition="outside",
                             hovertemplate="%{x}: %{y} " + src + " games<extra></extra>"))
    fig.update_layout(barmode="group")
    fig.update_xaxes(title="rules version or variant")
    fig.update_yaxes(title="games", rangemode="tozero")
    return _finish(fig, title, None, 380)


def length_figure(lengths: pl.DataFrame, provenance: Provenance | None = None, source: str | None = None
                  ) -> go.Figure:
    """Share of games ending after each round, one bar series per rules id (one source)."""
    source = source or main_source(lengths)
    title = f"Game length ({source} games)"
    t = lengths.filter(pl.col("source") == source) if source else lengths
    t = t.filter(pl.col("rounds").is_not_null())
    if t.height == 0:
        return _empty(title, provenance)
    fig = go.Figure()
    for i, rid in enumerate(sorted(t["rules_id"].unique().to_list())):
        r = t.filter(pl.col("rules_id") == rid).sort("rounds")
        fig.add_trace(go.Bar(x=r["rounds"].to_list(), y=(r["share"] * 100).to_list(), name=f"rules {rid}",
                             marker={"color": SERIES_COLOURS[i % len(SERIES_COLOURS)]},
                             customdata=r["games"].to_list(),
                             hovertemplate="%{y:.1f}% of games end after round %{x} (%{customdata} games)"
                                           "<extra>" + rid + "</extra>"))
    fig.update_layout(barmode="group")
    fig.update_xaxes(title="rounds played", dtick=1)
    fig.update_yaxes(title="games, % of the rules id's games")
    return _finish(fig, title, provenance, 420)


def matchup_difference_heatmap(matchups: pl.DataFrame, rules_a: str, rules_b: str,
                               provenance: Provenance | None = None, key: str = "composition",
                               source: str | None = None) -> go.Figure:
    """Change of the row's win rate against the column from ``rules_a`` to ``rules_b``, in points.

    Each cell's hover gives both n and the change's Newcombe interval; "~" marks a saturated
    pairing (won or lost 95-100% of the time under either rules id: the change is floored).
    With ``key="list"`` a list and its translation (``pmim army translate``) are one row.
    """
    m = matchups.filter(pl.col("rules_id").is_in([rules_a, rules_b]))
    source = source or main_source(m)
    title = f"Win-rate change from {rules_a} to {rules_b} ({source} games): row against column"
    d = matchup_diff(m, rules_a, rules_b, key=key, source=source)
    if d.height == 0:
        return _empty(title + " — no matchup played under both", provenance)
    names = sorted(set(d[key].to_list()) | set(d[f"opp_{key}"].to_list()))
    cell = {(r[key], r[f"opp_{key}"]): r for r in d.iter_rows(named=True)}

    def value(a: str, b: str) -> float | None:
        return cell[(a, b)]["diff"] * 100 if (a, b) in cell else None

    def label(a: str, b: str) -> str:
        if (a, b) not in cell:
            return ""
        r = cell[(a, b)]
        return f"{r['diff'] * 100:+.0f}" + ("~" if r["saturated"] else "") + ("*" if r["significant"] else "")

    def hover(a: str, b: str) -> list[object]:
        if (a, b) not in cell:
            return ["", "", "", "", ""]
        r = cell[(a, b)]
        return [r["games_a"], r["games_b"], f"{r['diff_lo'] * 100:+.0f}", f"{r['diff_hi'] * 100:+.0f}",
                " — saturated: a change cannot show" if r["saturated"] else ""]

    z = [[value(a, b) for b in names] for a in names]
    lim = max([abs(v) for row in z for v in row if v is not None] + [10])
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, text=[[label(a, b) for b in names] for a in names], texttemplate="%{text}",
        customdata=[[hover(a, b) for b in names] for a in names], zmin=-lim, zmax=lim, zmid=0,
        colorscale=[[0, "#b35806"], [0.5, "#f7f7f7"], [1, "#542788"]], hoverongaps=False,
        colorbar={"title": "change,<br>% points"},
        hovertemplate="%{y} vs %{x}: %{z:+.1f} points of win rate [%{customdata[2]}, %{customdata[3]}], "
                      "n=%{customdata[0]} / %{customdata[1]}%{customdata[4]}<extra></extra>"))
    fig.update_xaxes(title="opponent composition", tickangle=-30)
    fig.update_yaxes(title="composition", autorange="reversed", automargin=True)
    return _finish(fig, title, provenance, 220 + 45 * len(names))


def unit_metric_figure(units: pl.DataFrame, value: str, ci: str | None, title: str, axis: str,
                       provenance: Provenance | None = None, source: str | None = None) -> go.Figure:
    """One unit-table column per unit type, one bar per rules id, with ± ``ci`` error bars."""
    source = source or main_source(units)
    u = units.filter(pl.col("source") == source) if source else units
    u = u.filter(pl.col(value).is_not_null())
    title = f"{title} ({source} games)"
    if u.height == 0:
        return _empty(title, provenance)
    order = u.group_by("type").agg(pl.col(value).mean()).sort(value)["type"].to_list()
    fig = go.Figure()
    for i, rid in enumerate(sorted(u["rules_id"].unique().to_list())):
        t = u.filter(pl.col("rules_id") == rid)
        err = {"type": "data", "array": t[ci].fill_null(0).to_list(), "thickness": 1.5, "color": "#333"} if ci else None
        fig.add_trace(go.Bar(x=t[value].to_list(), y=t["type"].to_list(), orientation="h", name=f"rules {rid}",
                             marker={"color": SERIES_COLOURS[i % len(SERIES_COLOURS)]}, error_x=err,
                             customdata=t["units"].to_list(),
                             hovertemplate="%{y}: %{x:.3g} (%{customdata} unit-games)<extra>" + rid + "</extra>"))
    fig.update_layout(barmode="group", bargap=0.2)
    fig.update_xaxes(title=axis + (" (bars: 95% interval)" if ci else ""))
    fig.update_yaxes(title="unit type", automargin=True, categoryorder="array", categoryarray=order)
    return _finish(fig, title, provenance, 180 + 18 * len(order) * max(1, u["rules_id"].n_unique()))


def _q_text(row: dict[str, Any]) -> str:
    """``(undercosted, q = 0.003 over 20 types) `` for a cost row, or nothing without a test."""
    if row.get("q") is None:
        return ""
    direction = f"{row['direction']}, " if row.get("direction") else ""
    return f"({direction}q = {row['q']:.2g} over {row['family']} types) "


def implied_cost_figure(costs: pl.DataFrame, provenance: Provenance | None = None) -> go.Figure:
    """Current PTS against the points the VP margins imply (unpinned fit, bootstrap intervals), per unit type
    and rules id; the hover gives the verdict and its BH-adjusted q."""
    title = "Implied point cost (from the VP margin) against the current PTS"
    c = costs.filter(pl.col("suggested_pts").is_not_null())
    if c.height == 0:
        fig = _empty(title + " — the games cannot price any unit yet", provenance)
        fig.layout.annotations[0].text = ("No unit type could be priced: the games need army lists that differ "
                                          "unit by unit (random armies); see the notes below")
        return fig
    fig = go.Figure()
    for i, rid in enumerate(sorted(c["rules_id"].unique().to_list())):
        t = c.filter(pl.col("rules_id") == rid)
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        fig.add_trace(go.Scatter(
            x=t["suggested_pts"].to_list(), y=t["type"].to_list(), mode="markers+text", name=f"implied, rules {rid}",
            marker={"size": 10, "color": colour},
            text=[f"{v:.1f} (now {p:g})" for v, p in zip(t["suggested_pts"], t["pts"], strict=True)],
            textposition="top center", textfont={"size": 10, "color": colour},
            error_x={"type": "data", "symmetric": False,
                     "array": (t["suggested_hi"] - t["suggested_pts"]).to_list(),
                     "arrayminus": (t["suggested_pts"] - t["suggested_lo"]).to_list(), "color": colour},
            customdata=list(zip(t["pts"].to_list(), t["verdict"].to_list(), t["games"].to_list(),
                                [_q_text(r) for r in t.iter_rows(named=True)], strict=True)),
            hovertemplate="%{y}: implied %{x:.1f} PTS vs %{customdata[0]} now — %{customdata[1]} "
                          "%{customdata[3]}(%{customdata[2]} games)<extra>" + rid + "</extra>"))
        fig.add_trace(go.Scatter(x=t["pts"].to_list(), y=t["type"].to_list(), mode="markers",
                                 name=f"current PTS, rules {rid}", showlegend=i == 0 or True,
                                 marker={"symbol": "line-ns-open", "size": 16, "color": "#222",
                                         "line": {"width": 2}}, hoverinfo="skip"))
    fig.update_xaxes(title="points per unit (bars: 95% interval)")
    fig.update_yaxes(title="unit type", automargin=True)
    return _finish(fig, title, provenance, 200 + 26 * c["type"].n_unique())


def game_vp_figure(rounds: Sequence[tuple[int, int, int]], current_round: int | None = None) -> go.Figure:
    """One game's VP totals after each round, blue and red, with the round being viewed marked."""
    title = "Victory points after each round"
    if not rounds:
        return _empty(title + " — not logged for this game", None)
    x = [r for r, _, _ in rounds]
    fig = go.Figure()
    for side, k in (("blue", 1), ("red", 2)):
        fig.add_trace(go.Scatter(x=x, y=[r[k] for r in rounds], mode="lines+markers", name=side,
                                 line={"color": SIDE_COLOURS[side], "width": 3},
                                 hovertemplate=side + ": %{y} VP after round %{x}<extra></extra>"))
    fig.add_hline(y=10.5, line={"dash": "dot", "color": "#777"}, annotation_text="more than 10 VP wins",
                  annotation_position="top left")
    if current_round:
        fig.add_vline(x=current_round, line={"color": "#999", "width": 1})
    fig.update_xaxes(title="round", dtick=1)
    fig.update_yaxes(title="victory points", rangemode="tozero")
    fig = _finish(fig, title, None, 320)
    fig.update_layout(margin={"l": 60, "r": 20, "t": 60, "b": 50})
    return fig


def add_top_axis(fig: go.Figure, title: str | None = None) -> go.Figure:
    """Repeat a tall horizontal-bar chart's x axis along its top (readable without scrolling down).

    The top axis has tick labels only unless ``title`` is given (the full title stays at the bottom).
    """
    xs = [x for t in fig.data if getattr(t, "x", None) is not None for x in t.x if x is not None]
    ys = [y for t in fig.data if getattr(t, "y", None) is not None for y in t.y if y is not None]
    if not xs or not ys:
        return fig
    fig.add_trace(go.Scatter(x=[min(xs), max(xs)], y=[ys[0], ys[0]], xaxis="x2", mode="markers",
                             marker={"opacity": 0}, showlegend=False, hoverinfo="skip"))
    fig.update_layout(xaxis2={"matches": "x", "overlaying": "x", "side": "top", "showgrid": False,
                              "title": {"text": title or "", "standoff": 4}})
    fig.update_layout(margin={"t": 130 if title else 115})
    return fig


def most_common_codes(curves: pl.DataFrame, rules_id: str, n: int = 6, source: str | None = None) -> list[str]:
    """The ``n`` unit types with the most unit-games at the start of a survival table (one rules id)."""
    c = curves.filter(pl.col("rules_id") == rules_id)
    source = source or main_source(c)
    c = c.filter(pl.col("source") == source) if source else c
    if c.height == 0:
        return []
    top = c.group_by("code").agg(pl.col("at_risk").max()).sort(["at_risk", "code"], descending=[True, False])
    return top["code"].head(n).to_list()


def kill_curve_figure(curves: pl.DataFrame, base: str, variant: str, variant_label: str | None = None) -> go.Figure:
    """P(kill within n attacks) of one weapon: one panel per target, base dashed, variant solid.

    ``curves`` is :func:`~pmim_analytics.analytics.whatif.kill_curves` output for the rules ids
    ``base`` and ``variant``; ``variant_label`` names the variant in the legend (default its id).
    """
    weapon = curves["weapon"][0] if curves.height else "?"
    label = variant_label or variant
    title = f"{weapon}: chance to destroy the target within n attacks, {base} (dashed) against {label} (solid)"
    if curves.height == 0:
        return _empty(title, None)
    from plotly.subplots import make_subplots

    targets = curves["target"].unique(maintain_order=True).to_list()
    cols = min(3, len(targets))
    rows = (len(targets) + cols - 1) // cols
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=targets, shared_yaxes=True,
                        horizontal_spacing=0.06, vertical_spacing=0.16 if rows > 1 else 0.1)
    for k, target in enumerate(targets):
        r, c = k // cols + 1, k % cols + 1
        for rid, name, dash, colour in ((base, base, "dash", "#7f7f7f"), (variant, label, "solid", SERIES_COLOURS[0])):
            t = curves.filter((pl.col("target") == target) & (pl.col("rules_id") == rid)).sort("attacks")
            if t.height == 0:
                continue
            fig.add_trace(go.Scatter(
                x=t["attacks"].to_list(), y=(t["p_kill"] * 100).to_list(), mode="lines+markers",
                name=name, legendgroup=rid, showlegend=k == 0, line={"dash": dash, "color": colour, "width": 2},
                marker={"size": 5}, customdata=t["p_kill_exact"].to_list(),
                hovertemplate=f"{target}, {name}: " + "%{y:.1f}% within %{x} attacks (exactly %{customdata})"
                                                     "<extra></extra>"), row=r, col=c)
    fig.update_yaxes(range=[0, 102])
    fig.update_yaxes(title="destroyed, %", col=1)
    fig.update_xaxes(title="attacks", dtick=2)
    return _finish(fig, title, None, 140 + 260 * rows)


def impact_figure(impact: pl.DataFrame, source: str | None = None, provenance: Provenance | None = None
                  ) -> go.Figure:
    """Paired win-rate change per list (B minus A), with its 95% interval, one source;
    ``provenance`` (both rules ids at one bot level) is its subtitle."""
    source = source or main_source(impact)
    t = impact.filter(pl.col("source") == source) if source else impact
    rules_a = t["rules_a"][0] if t.height else "A"
    rules_b = t["rules_b"][0] if t.height else "B"
    title = f"Win-rate change from {rules_a} to {rules_b} (paired: same lists, bots and sides; {source} games)"
    if t.height == 0:
        return _empty(title, provenance)
    t = t.sort("win_diff")
    fig = go.Figure(go.Bar(
        x=(t["win_diff"] * 100).to_list(), y=t["list"].to_list(), orientation="h",
        marker={"color": [SERIES_COLOURS[0] if v >= 0 else SERIES_COLOURS[1] for v in t["win_diff"].to_list()]},
        error_x={"type": "data", "symmetric": False, "array": ((t["win_diff_hi"] - t["win_diff"]) * 100).to_list(),
                 "arrayminus": ((t["win_diff"] - t["win_diff_lo"]) * 100).to_list(), "color": "#333"},
        customdata=list(zip(t["games_a"].to_list(), t["games_b"].to_list(), strict=True)),
        hovertemplate="%{y}: %{x:+.1f} points (%{customdata[0]} games under " + rules_a
                      + ", %{customdata[1]} under " + rules_b + ")<extra></extra>", showlegend=False))
    fig.add_vline(x=0, line={"color": "#999"})
    fig.update_xaxes(title="win-rate change, percentage points (bars: 95% interval)")
    fig.update_yaxes(title="list", automargin=True)
    return _finish(fig, title, provenance, 200 + 40 * t.height)


def balance_figure(table: pl.DataFrame, rules_id: str, level: str, provenance: Provenance | None = None
                   ) -> go.Figure:
    """Win rate per composition under one rules id at one bot level, highest first, with 95%
    Wilson bars and the games behind each bar (:func:`~pmim_analytics.analytics.balance.balance_table`);
    ``provenance`` (the selection at that level) is its subtitle."""
    title = f"Win rate by composition, {rules_id}, both sides {level}"
    t = table.filter((pl.col("rules_id") == rules_id) & (pl.col("games") > 0))
    if t.height == 0:
        return _empty(title, provenance)
    t = t.sort("win_rate")  # plotly draws the first bar at the bottom: highest on top
    fig = go.Figure(go.Bar(
        x=(t["win_rate"] * 100).to_list(), y=t["composition"].to_list(), orientation="h",
        marker={"color": SERIES_COLOURS[0]},
        error_x={"type": "data", "symmetric": False, "array": ((t["win_hi"] - t["win_rate"]) * 100).to_list(),
                 "arrayminus": ((t["win_rate"] - t["win_lo"]) * 100).to_list(), "color": "#444"},
        text=[f"{w * 100:.0f}% ({g:,} games)" for w, g in zip(t["win_rate"], t["games"], strict=True)],
        textposition="inside", insidetextanchor="start",
        customdata=list(zip((t["win_lo"] * 100).to_list(), (t["win_hi"] * 100).to_list(), t["games"].to_list(),
                            strict=True)),
        hovertemplate="%{y}: %{x:.0f}% [%{customdata[0]:.0f}, %{customdata[1]:.0f}] of %{customdata[2]} games"
                      "<extra></extra>", showlegend=False))
    fig.add_vline(x=50, line={"dash": "dot", "color": "#888"})
    fig.update_xaxes(title="win % (bars: 95% interval; mirrors left out)", range=[0, 100])
    fig.update_yaxes(title="", automargin=True)
    return _finish(fig, title, provenance, 140 + 30 * t.height)
