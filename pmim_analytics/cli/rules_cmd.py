"""``pmim rules``: list, show and diff rules versions and variants."""

from __future__ import annotations

import typer
from rich.table import Table

from pmim_analytics.cli._common import guarded, out
from pmim_analytics.rules import find_unit, list_rules_ids, load_rules
from pmim_analytics.rules.diff import diff_rules, format_diff_markdown
from pmim_analytics.rules.models import RulesVersion, Warmech

app = typer.Typer(help="The rules catalogue: versions v1, v2, v3 and their variants.", no_args_is_help=True)


@app.command("list")
@guarded
def list_cmd() -> None:
    """List every rules version and variant.

    Example: pmim rules list
    """
    table = Table(title="PMIM rules catalogue")
    for col in ("id", "name", "based on", "chassis", "weapons", "Warmechs"):
        table.add_column(col)
    for rid in list_rules_ids():
        r = load_rules(rid)
        table.add_row(r.id, r.name, r.base or r.parent or "-", str(len(r.chassis)), str(len(r.weapons)),
                      str(len(r.warmechs)))
    out.print(table)


def _unit_tables(r: RulesVersion) -> list[Table]:
    chassis = Table(title=f"Chassis ({r.id})")
    for col in ("code", "chassis", r.labels.hp, "MOV", "DEF", "ARM", "SPT", "PTS"):
        chassis.add_column(col)
    for c in r.chassis:
        chassis.add_row(c.code, c.name, *(str(v) for v in (c.hp, c.mov, c.def_, c.arm, c.spt, c.pts)))
    weapons = Table(title=f"Weapons ({r.id})")
    for col in ("code", "weapon", "RNG", "ACC", "RPT", r.labels.strength, "TON"):
        weapons.add_column(col)
    for w in r.weapons:
        weapons.add_row(w.code, w.name, *(str(v) for v in (w.rng, w.acc, w.rpt, w.strength, w.ton)))
    mechs = Table(title=f"Warmechs ({r.id})")
    for col in ("code", "Warmech", "body", "class", "TONS", "SPT", "MOV", "DEF", "ARM", "arm", "leg", "torso",
                "center", "PTS"):
        mechs.add_column(col)
    for m in r.warmechs:
        mechs.add_row(m.code, m.name, m.body, r.weight_class(m),
                      *(str(v) for v in (m.tons, m.spt, m.mov, m.def_, m.arm)),
                      *("-" if v is None else str(v) for v in (m.hp.arm, m.hp.leg, m.hp.torso, m.hp.center)),
                      str(m.pts))
    charts = Table(title=f"Hit location charts ({r.id})")
    charts.add_column("d6")
    for body in r.hit_charts:
        charts.add_column(body)
    for face in range(6):
        charts.add_row(str(face + 1), *(r.hit_charts[b][face].replace("_", " ") for b in r.hit_charts))
    return [chassis, weapons, mechs, charts]


@app.command("show")
@guarded
def show_cmd(
    rules_id: str = typer.Argument(..., help="Rules id, e.g. v3 or v3-llaser-rpt4."),
    unit: str | None = typer.Option(None, "--unit", help="Show one unit type only (name or code)."),
) -> None:
    """Show the tables of one rules version or variant.

    Example: pmim rules show v3 --unit "Timber Wolf"
    """
    r = load_rules(rules_id)
    if unit:
        u = find_unit(r, unit)
        t = Table(title=f"{u.name} ({r.id})", show_header=False)
        for key, value in u.model_dump(by_alias=True).items():
            t.add_row(key, str(value))
        if isinstance(u, Warmech):
            t.add_row("class", r.weight_class(u))
            t.add_row("hit chart", ", ".join(x.replace("_", " ") for x in r.hit_charts[u.body]))
        out.print(t)
        return
    out.print(f"[bold]{r.id}[/]: {r.name}" + (f" (variant of {r.base})" if r.base else ""))
    if r.description:
        out.print(r.description.strip())
    for table in _unit_tables(r):
        out.print(table)


@app.command("diff")
@guarded
def diff_cmd(
    a: str = typer.Argument(..., help="The older rules id."),
    b: str = typer.Argument(..., help="The newer rules id."),
    markdown: bool = typer.Option(False, "--markdown", help="Print a Markdown table instead."),
) -> None:
    """Show what changed between two rules versions, stat by stat, renames included.

    Example: pmim rules diff v2 v3 --markdown
    """
    ra, rb = load_rules(a), load_rules(b)
    changes = diff_rules(ra, rb)
    if markdown:
        typer.echo(format_diff_markdown(ra, rb, changes), nl=False)
        return
    t = Table(title=f"{ra.id} -> {rb.id}: {len(changes)} changes")
    for col in ("table", "item", "change", "old", "new"):
        t.add_column(col)
    for c in changes:
        t.add_row(c.table, c.item, c.what, c.old, c.new)
    out.print(t)
