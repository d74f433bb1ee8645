"""``pmim report meta`` and ``pmim report power``: the equilibrium of compositions, cycles, games needed.

Exit codes: 0 ok, 1 nothing to analyse for the options given (a sentence says why), 2 bad
usage or no database.
"""

from __future__ import annotations

from pathlib import Path

import typer

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.cli.output import FORMAT_OPT, Format, Listing, emit
from pmim_analytics.cli.report_cmd import BOT_OPT, DB_OPT, SOURCE_OPT, _data, _rules, app
from pmim_analytics.report.markdown import Col, field, num, pct, text


@app.command("meta")
@guarded
def meta_cmd(rules: str = typer.Option(..., "--rules", help="Rules id(s), e.g. v3 (one meta each)."),
             source: str | None = SOURCE_OPT, db: Path | None = DB_OPT, bot: str | None = BOT_OPT,
             by: str = typer.Option("composition", "--by", help="composition (list name) or list (content)."),
             min_games: int = typer.Option(10, "--min-games", min=1, help="Leave out pairings with fewer games."),
             fmt: Format = FORMAT_OPT) -> None:
    """The equilibrium mix of compositions (Nash averaging) and rock-paper-scissors cycles.

    Reads the matchup matrix of each rules id as a game: pick a composition, the opponent
    picks one. The mix is the set of shares no composition beats (each scores at most one
    half against it); "vs mix" is a composition's score against the mix, "in mix" how
    often it is in the mix when each pairing's score is redrawn from its own games. A
    cycle is three compositions each beating the next; "clear" when all three intervals
    exclude a coin flip. Pairings with fewer than --min-games games are not guessed: the
    composition missing most of them is left out, and the report says so. Exit 1 when no
    rules id has two compositions that all met.

    Example: pmim report meta --rules v3 --source engine
    Example: pmim report meta --rules v3 --bot tactician
    Example: pmim report meta --rules v3 --format csv > meta.csv
    """
    import polars as pl

    from pmim_analytics.analytics import tables
    from pmim_analytics.analytics.meta import meta_report

    if by not in ("composition", "list"):
        raise typer.BadParameter("use composition or list", param_hint="--by")
    ids = _rules(rules, db=db) or []
    if not (data := _data(rules, source, db, bot=bot)):
        return
    matchups = tables.matchup_report(data, key=by)
    shown = 0
    listings: list[Listing] = []
    for rid in ids:
        for src in sorted(matchups.filter(matchups["rules_id"] == rid)["source"].unique().to_list()):
            m = meta_report(matchups, rid, src, key=by, min_games=min_games)
            if m.left_out:
                err.print(f"{rid} ({src}): left out, not having met every other composition at least "
                          f"{min_games} times: {', '.join(m.left_out)}.", highlight=False)
            if m.mix.height < 2:
                continue
            shown += 1
            how = "exact" if m.exact else f"approximate, exploitability {m.exploitability:.3f}"
            cols = [Col(by, text(by), "left"), Col("games", field("games")),
                    Col("score vs field", field("field_score", pct)), Col("mix share", field("weight", pct)),
                    Col("score vs mix", field("vs_mix", pct)), Col("in mix", field("in_mix_share", pct))]
            listings.append(Listing(f"meta_{rid}_{src}", f"Meta of {rid} ({src}): equilibrium mix ({how})",
                                    m.mix.with_columns(rules_id=pl.lit(rid), source=pl.lit(src)), cols))
            ccols = [Col("a", text("a"), "left"), Col("beats b", text("b"), "left"),
                     Col("beats c, which beats a", text("c"), "left"),
                     Col("scores a-b / b-c / c-a", lambda r: f"{pct(r['ab'])} / {pct(r['bc'])} / {pct(r['ca'])}"),
                     Col("games", field("games")), Col("clear", field("clear", num))]
            listings.append(Listing(f"cycles_{rid}_{src}", f"Rock-paper-scissors cycles, {rid} ({src})",
                                    m.cycles.with_columns(rules_id=pl.lit(rid), source=pl.lit(src)), ccols,
                                    empty=f"No rock-paper-scissors cycle among the compositions of {rid} ({src})."))
    if not shown:
        err.print(f"No rules id of {rules} has two or more compositions that met each other at least {min_games} "
                  "times; lower --min-games or play a round robin (pmim sweep).", highlight=False)
        raise typer.Exit(1)
    emit(listings, fmt)


@app.command("power")
@guarded
def power_cmd(rate: float = typer.Option(0.5, "--rate", help="The win rate now (0-1)."),
              diff: float = typer.Option(..., "--diff", help="The difference to detect, e.g. 0.05 for 5 points."),
              alpha: float = typer.Option(0.05, "--alpha", help="Level of the two-sided test."),
              power: float = typer.Option(0.8, "--power", help="Chance to detect a difference that real."),
              have_a: int = typer.Option(0, "--have-a", help="Games already played for the first win rate."),
              have_b: int = typer.Option(0, "--have-b", help="Games already played for the second."),
              design_effect: float = typer.Option(1.0, "--design-effect",
                                                  help="Variance inflation, e.g. a unit's survival_deff."),
              pair_correlation: float = typer.Option(0.0, "--pair-correlation",
                                                     help="Paired design: the correlation (0-1) of a game's outcome "
                                                          "with its twin's under the other rules id (same lists, "
                                                          "bots, sides and seed); 0 = unpaired."),
              fmt: Format = FORMAT_OPT) -> None:
    """How many games tell two win rates apart: per side, and how many more than played.

    The same count holds for table and engine games; table games are the reference the
    bots are calibrated against, engine games are cheap. A difference of 5 points around
    50% needs about 1,565 games a side; 10 points about 390.

    Example: pmim report power --rate 0.5 --diff 0.05 --have-a 400 --have-b 400
    Example: pmim report power --diff 0.05 --format json
    Example: pmim report power --rate 0.5 --diff 0.05 --pair-correlation 0.6
    """
    import polars as pl

    from pmim_analytics.analytics.meta import games_needed

    try:
        p = games_needed(rate, diff, alpha, power, have_a, have_b, design_effect, pair_correlation)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    said = (f"To tell {pct(p.p1, 1)} from {pct(p.p2, 1)} (two-sided test at {alpha:g}, power {power:g}"
            f"{f', design effect {design_effect:g}' if design_effect != 1 else ''}): {p.per_side:,} games "
            f"for each; {p.more_a:,} more for the first and {p.more_b:,} more for the second.")
    if pair_correlation:
        said += (f" Paired design (pair correlation {pair_correlation:g}): the same test unpaired needs "
                 f"{p.unpaired:,} games for each, so pairing saves {p.saved:,} games a side.")
    if Format(fmt) is Format.table:
        out.print(said, highlight=False, markup=False)
        return
    frame = pl.DataFrame([{"rate_a": p.p1, "rate_b": p.p2, "alpha": alpha, "power": power,
                           "design_effect": design_effect, "pair_correlation": pair_correlation,
                           "design": "paired" if pair_correlation else "unpaired", "games_per_side": p.per_side,
                           "unpaired_games_per_side": p.unpaired, "saved_per_side": p.saved, "more_a": p.more_a,
                           "more_b": p.more_b}])
    emit([Listing("power", "Games needed", frame, notes=(said,))], fmt)
