"""``pmim rules``: list, show and diff rules versions and variants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.cli.output import FORMAT_OPT, Format, Listing, emit
from pmim_analytics.errors import DataFileError
from pmim_analytics.report.markdown import Col, field, text
from pmim_analytics.rules import find_unit, list_rules_ids, load_rules
from pmim_analytics.rules.diff import diff_rules, format_diff_markdown, format_settings
from pmim_analytics.rules.models import RulesVersion, Warmech

if TYPE_CHECKING:  # Polars loads once the rules have loaded: a bad variant file is refused without it
    import polars as pl

app = typer.Typer(help="The rules catalogue: versions v1, v2, v3 and their variants.", no_args_is_help=True)


@app.command("list")
@guarded
def list_cmd(fmt: Format = FORMAT_OPT) -> None:
    """List every rules version and variant.

    Example: pmim rules list --format csv
    """
    rows = []
    for rid in list_rules_ids():
        try:
            r = load_rules(rid)
        except DataFileError as e:  # one bad variant file must not hide the others
            err.print(f"[yellow]warning:[/] rules {rid!r} skipped: {e.render()}", highlight=False, soft_wrap=True)
            continue
        rows.append({"id": r.id, "name": r.name, "based_on": r.base or r.parent or None, "chassis": len(r.chassis),
                     "weapons": len(r.weapons), "warmechs": len(r.warmechs),
                     "optional_rules": " ".join(r.optional.names()) or None})
    import polars as pl

    frame = pl.DataFrame(rows, schema={"id": pl.String, "name": pl.String, "based_on": pl.String,
                                       "chassis": pl.Int64, "weapons": pl.Int64, "warmechs": pl.Int64,
                                       "optional_rules": pl.String})
    cols = [Col("id", text("id"), "left"), Col("name", text("name"), "left"),
            Col("based on", lambda x: x["based_on"] or "-", "left"), Col("chassis", field("chassis")),
            Col("weapons", field("weapons")), Col("Warmechs", field("warmechs")),
            Col("optional rules", lambda x: (x["optional_rules"] or "-").replace("_", " "), "left")]
    emit([Listing("rules", "PMIM rules catalogue", frame, cols)], fmt)


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pl.DataFrame:
    """A frame of plain rows, every column kept even when there are no rows."""
    import polars as pl

    return pl.DataFrame(rows, schema=list(columns), orient="row") if rows else pl.DataFrame(
        schema={c: pl.String for c in columns})


def _unit_listings(r: RulesVersion) -> list[Listing]:
    chassis = _frame([{"code": c.code, "chassis": c.name, "hp": c.hp, "mov": c.mov, "def": c.def_, "arm": c.arm,
                       "spt": c.spt, "pts": c.pts} for c in r.chassis],
                     ("code", "chassis", "hp", "mov", "def", "arm", "spt", "pts"))
    weapons = _frame([{"code": w.code, "weapon": w.name, "rng": w.rng, "acc": w.acc, "rpt": w.rpt,
                       "strength": w.strength, "ton": w.ton} for w in r.weapons],
                     ("code", "weapon", "rng", "acc", "rpt", "strength", "ton"))
    mechs = _frame([{"code": m.code, "warmech": m.name, "body": m.body, "class": r.weight_class(m), "tons": m.tons,
                     "spt": m.spt, "mov": m.mov, "def": m.def_, "arm": m.arm, "hp_arm": m.hp.arm, "hp_leg": m.hp.leg,
                     "hp_torso": m.hp.torso, "hp_center": m.hp.center, "pts": m.pts} for m in r.warmechs],
                   ("code", "warmech", "body", "class", "tons", "spt", "mov", "def", "arm", "hp_arm", "hp_leg",
                    "hp_torso", "hp_center", "pts"))
    charts = _frame([{"d6": face + 1, **{b: r.hit_charts[b][face].replace("_", " ") for b in r.hit_charts}}
                     for face in range(6)], ("d6", *r.hit_charts))

    def cols(df: pl.DataFrame, headers: dict[str, str]) -> list[Col]:
        return [Col(headers.get(c, c), field(c, lambda v: "-" if v is None else str(v)),
                    "right" if df.schema[c].is_numeric() else "left") for c in df.columns]

    stat = {"hp": r.labels.hp, "mov": "MOV", "def": "DEF", "arm": "ARM", "spt": "SPT", "pts": "PTS", "rng": "RNG",
            "acc": "ACC", "rpt": "RPT", "strength": r.labels.strength, "ton": "TON", "tons": "TONS",
            "warmech": "Warmech", "hp_arm": "arm", "hp_leg": "leg", "hp_torso": "torso", "hp_center": "center"}
    optional = _frame([{"rule": name, "settings": format_settings(settings)}
                       for name, settings in r.optional.settings().items()], ("rule", "settings"))
    return [Listing("chassis", f"Chassis ({r.id})", chassis, cols(chassis, stat)),
            Listing("weapons", f"Weapons ({r.id})", weapons, cols(weapons, stat)),
            Listing("warmechs", f"Warmechs ({r.id})", mechs, cols(mechs, stat)),
            Listing("hit_charts", f"Hit location charts ({r.id})", charts, cols(charts, {})),
            Listing("optional_rules", f"Optional rules ({r.id})", optional, cols(optional, {}))]


@app.command("show")
@guarded
def show_cmd(
    rules_id: str = typer.Argument(..., help="Rules id, e.g. v3 or v3-llaser-rpt4."),
    unit: str | None = typer.Option(None, "--unit", help="Show one unit type only (name or code)."),
    fmt: Format = FORMAT_OPT,
) -> None:
    """Show the tables of one rules version or variant and its optional rules (csv: the chassis
    table; json: all of them).

    Example: pmim rules show v3 --unit "Timber Wolf"
    """
    r = load_rules(rules_id)
    if unit:
        import polars as pl

        u = find_unit(r, unit)
        pairs = [(key, ", ".join(f"{k} {v}" for k, v in value.items() if v is not None) if isinstance(value, dict)
                  else str(value)) for key, value in u.model_dump(by_alias=True).items()]
        if isinstance(u, Warmech):
            pairs += [("class", r.weight_class(u)),
                      ("hit chart", ", ".join(x.replace("_", " ") for x in r.hit_charts[u.body]))]
        frame = pl.DataFrame(pairs, schema={"field": pl.String, "value": pl.String}, orient="row")
        emit([Listing("unit", f"{u.name} ({r.id})", frame, show_header=fmt is not Format.table)], fmt)
        return
    if fmt is Format.table:
        out.print(f"[bold]{r.id}[/]: {r.name}" + (f" (variant of {r.base})" if r.base else ""))
        if r.description:
            out.print(r.description.strip(), markup=False, highlight=False)
    emit(_unit_listings(r), fmt)


@app.command("diff")
@guarded
def diff_cmd(
    a: str = typer.Argument(..., help="The older rules id."),
    b: str = typer.Argument(..., help="The newer rules id."),
    markdown: bool = typer.Option(False, "--markdown", help="Same as --format markdown (kept for scripts)."),
    fmt: Format = FORMAT_OPT,
) -> None:
    """Show what changed between two rules versions, stat by stat, renames included.

    Example: pmim rules diff v2 v3 --format markdown
    """
    ra, rb = load_rules(a), load_rules(b)
    changes = diff_rules(ra, rb)
    import polars as pl

    if markdown or fmt is Format.markdown:
        typer.echo(format_diff_markdown(ra, rb, changes), nl=False)
        return
    frame = pl.DataFrame([{"table": c.table, "item": c.item, "change": c.what, "old": c.old, "new": c.new}
                          for c in changes], schema={k: pl.String for k in ("table", "item", "change", "old", "new")})
    emit([Listing("changes", f"{ra.id} -> {rb.id}: {len(changes)} changes", frame)], fmt)
