"""``pmim army``: validate and show army lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.cli.output import FORMAT_OPT, Format, Listing, emit
from pmim_analytics.errors import PmimError, display_path
from pmim_analytics.report.markdown import Col, field, text
from pmim_analytics.rules import DEFAULT_SCENARIO, army_violations, build_roster, load_army, load_rules, load_scenario
from pmim_analytics.rules.catalogue import find_unit
from pmim_analytics.rules.translate import default_output, format_army_yaml, translate_army

app = typer.Typer(help="Army lists: validate, show, and translate them to another rules version.", no_args_is_help=True)


@app.command("validate")
@guarded
def validate_cmd(
    files: list[Path] = typer.Argument(..., help="Army list YAML files."),
    rules: str | None = typer.Option(None, "--rules", help="Check against this rules id instead of the file's own."),
    scenario: str = typer.Option(DEFAULT_SCENARIO, "--scenario", help="Scenario whose limits apply."),
    fmt: Format | None = typer.Option(None, "--format", case_sensitive=False,
                                      help="csv, json, markdown or table: one row per file (default: a line "
                                           "per file and per violation)."),
) -> None:
    """Check army lists: points, Warmech count, tonnage, weapons per body type, names.

    Prints every violation with the unit at fault. Exit 0 when all are valid, 1 when any
    breaks a rule, 2 when a file cannot be read.

    Example: pmim army validate data/armies/*.yaml --rules v3
    """
    scen = load_scenario(scenario)
    worst = 0
    rows: list[dict[str, Any]] = []
    for path in files:
        name = display_path(path)
        try:
            army = load_army(path)
            roster, violations = army_violations(army, rules, scen)
        except PmimError as e:
            err.print(f"[bold red]error:[/] {e.render()}", highlight=False, soft_wrap=True)
            worst = max(worst, 2)
            continue
        worst = max(worst, 1 if violations else 0)
        rows.append({"file": name, "army": army.name, "rules_id": roster.rules_id, "valid": not violations,
                     "points": roster.points, "warmechs": roster.warmech_count, "units": len(roster.units),
                     "violations": "; ".join(violations)})
        if fmt is not None:
            continue
        if violations:
            out.print(f"[red]INVALID[/] {escape(name)} ({escape(army.name)}, rules {roster.rules_id}):",
                      highlight=False, soft_wrap=True)
            for v in violations:
                out.print(f"  - {v}", highlight=False, markup=False, soft_wrap=True)
        else:
            out.print(f"[green]valid[/]   {escape(name)} ({escape(army.name)}, rules {roster.rules_id}): "
                      f"{roster.points} points, {roster.warmech_count} Warmechs, {len(roster.units)} units",
                      highlight=False, soft_wrap=True)
    if fmt is not None:
        import polars as pl

        frame = pl.DataFrame(rows, schema={"file": pl.String, "army": pl.String, "rules_id": pl.String,
                                           "valid": pl.Boolean, "points": pl.Int64, "warmechs": pl.Int64,
                                           "units": pl.Int64, "violations": pl.String})
        emit([Listing("armies", "Army lists", frame)], fmt)
    raise typer.Exit(worst)


@app.command("show")
@guarded
def show_cmd(
    file: Path = typer.Argument(..., help="An army list YAML file."),
    rules: str | None = typer.Option(None, "--rules", help="Show against this rules id instead of the file's own."),
    fmt: Format = FORMAT_OPT,
) -> None:
    """Show an army's expanded roster with unit ids, stats and points.

    Example: pmim army show data/armies/v3-balanced.yaml --format csv
    """
    army = load_army(file)
    roster = build_roster(army, rules)
    r = load_rules(roster.rules_id)
    rows = []
    for u in roster.units:
        spec = find_unit(r, u.code)
        hp = "/".join(f"{k[0].upper()}{v}" for k, v in spec.hp.model_dump().items() if v) \
            if spec.is_warmech and not isinstance(spec.hp, int) \
            else str(spec.hp)
        rows.append({"id": u.id, "type": u.type, "weapons": " ".join(u.weapons), "hp": hp, "mov": spec.mov,
                     "def": spec.def_, "arm": spec.arm, "pts": u.pts})
    import polars as pl

    frame = pl.DataFrame(rows, schema={"id": pl.String, "type": pl.String, "weapons": pl.String, "hp": pl.String,
                                       "mov": pl.Int64, "def": pl.Int64, "arm": pl.Int64, "pts": pl.Int64})
    cols = [Col(h, text(c), "left") for h, c in (("id", "id"), ("type", "type"), ("weapons", "weapons"),
                                                 ("HP", "hp"))]
    cols += [Col(h, field(c)) for h, c in (("MOV", "mov"), ("DEF", "def"), ("ARM", "arm"), ("PTS", "pts"))]
    emit([Listing("roster", f"{army.name} ({r.id}): {roster.points} points", frame, cols)], fmt)
    for v in roster.violations:
        err.print(f"[yellow]warning:[/] {escape(v)}", highlight=False)


@app.command("translate")
@guarded
def translate_cmd(
    file: Path = typer.Argument(..., help="An army list YAML file."),
    to: str = typer.Option(..., "--to", help="Target rules id, e.g. v3."),
    out_file: Path | None = typer.Option(None, "--out", help="Where to write the translated list (default: beside "
                                                             "the input, v2-x.yaml -> v3-x.yaml)."),
    scenario: str = typer.Option(DEFAULT_SCENARIO, "--scenario", help="Scenario whose limits the result must fit."),
    force: bool = typer.Option(False, "--force", help="Overwrite the output file if it exists."),
) -> None:
    """Carry a list to another rules version: new names, new points, what no longer exists or fits.

    Units and weapons keep their codes across versions, so renames (Mastodon -> Tyrant,
    L. Particle Cannon -> L. Particle Beam) carry over and points are re-priced. Each unit
    or weapon the target lacks is a finding (that entry is left out), and so is every limit
    the list no longer fits. The YAML records the list it came from (`translated_from`),
    and reports pair the two as the same list when nothing was lost. Exit 0 exact, 1 with
    findings (the file is still written when anything carried over), 2 unreadable input or
    an existing output without --force.

    Example: pmim army translate data/armies/v2-playtest-balanced.yaml --to v3
    """
    army = load_army(file)
    result = translate_army(army, to, scenario, display_path(file))
    for c in result.changes:
        out.print(f"  {escape(c)}", highlight=False)
    for f in result.findings:
        out.print(f"[yellow]finding:[/] {escape(f)}", highlight=False)
    if result.army is army:  # nothing carried over
        raise typer.Exit(1)
    dest = out_file or default_output(file, army.rules, to)
    if dest.exists() and not force:
        err.print(f"[bold red]error:[/] {display_path(dest)} exists; pass --force to overwrite it or --out to write "
                  "elsewhere", highlight=False)
        raise typer.Exit(2)
    try:
        dest.write_text(format_army_yaml(result.army), encoding="utf-8")
    except OSError as e:
        err.print(f"[bold red]error:[/] cannot write {display_path(dest)} ({e.strerror})", highlight=False)
        raise typer.Exit(2) from None
    out.print(f"wrote {display_path(dest)}: {army.name!r} {army.rules} -> {to}, {result.points_before} -> "
              f"{result.points_after} points, {len(result.findings)} finding"
              f"{'' if len(result.findings) == 1 else 's'}", highlight=False)
    raise typer.Exit(1 if result.findings else 0)
