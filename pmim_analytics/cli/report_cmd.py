"""``pmim report``, ``pmim dice`` and ``pmim export``: balance tables in the terminal and on disk.

Exit codes: 0 ok (an empty database is not an error: it says so), 1 when a report has
nothing to show for the options given (``matchups`` with every composition under
``--min-games``: a sentence says so), 2 bad usage or no database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from pmim_analytics.analytics.defaults import RESAMPLES
from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.cli.output import FORMAT_OPT, Format, Listing, emit
from pmim_analytics.errors import PmimError, display_path
from pmim_analytics.limits import MAX_RESAMPLES
from pmim_analytics.report.markdown import Col, field, interval, num, pct, points_change, text

if TYPE_CHECKING:  # the analytics, the store and Polars load in the commands, once the options are checked
    import polars as pl

    from pmim_analytics.analytics.levels import LevelChoice
    from pmim_analytics.rules.diff import Change
    from pmim_analytics.store.readers import DuckDBData

app = typer.Typer(help="Balance reports from the games in the database.", no_args_is_help=True)

RULES_OPT = typer.Option(None, "--rules", help="Comma-separated rules ids, e.g. v2,v3 (default: all).")
SOURCE_OPT = typer.Option(None, "--source", help="engine or manual (default: both).")
DB_OPT = typer.Option(None, "--db", help="Database file (default: $PMIM_DB or data/pmim.duckdb).")
LIMIT_OPT = typer.Option(60, "--limit", help="Show at most this many rows.")
MIN_GAMES_OPT = typer.Option(10, "--min-games", min=1, help="Leave out compositions with fewer games (one-off armies).")
BOT_OPT = typer.Option(None, "--bot", help="The bot level to report on, e.g. tactician or search:budget=0 (default: "
                       "the strongest level with enough games under every rules id; the first line says which). "
                       "Levels are never pooled.")
EST_OPT = typer.Option(False, "--include-estimated", help="Include games whose final VP a log estimates (e.g. "
                       "playtest 1's 11-7) in VP margins; left out by default.")


def register(root: typer.Typer) -> None:
    """Add ``report``, ``dice`` and ``export`` to the ``pmim`` app."""
    root.add_typer(app, name="report")
    root.command("dice")(dice_cmd)
    root.command("export")(export_cmd)


def _rules(rules: str | None, option: str = "--rules", db: Path | None = None) -> list[str] | None:
    """The ids of a ``--rules`` list, each a known rules id (else exit 2 naming the valid ones)."""
    from pmim_analytics.cli.ids import parse_rules_ids

    if rules is None:
        return None
    if not [r for r in rules.split(",") if r.strip()]:
        raise typer.BadParameter("give at least one rules id, e.g. --rules v3", param_hint=option)
    return parse_rules_ids(rules, option, db)


def _source(source: str | None) -> str | None:
    if source not in (None, "engine", "manual"):
        raise typer.BadParameter(f"{source!r} is not engine or manual", param_hint="--source")
    return source


def _data(rules: str | None, source: str | None, db: Path | None,
          include_estimated: bool = False, bot: str | None = None) -> DuckDBData | None:
    """The selection at one bot level (``--bot``, else the one :func:`choose_bot_level` picks,
    said on stderr), or ``None`` after saying plainly that it holds no games."""
    from pmim_analytics.analytics.levels import choose_bot_level
    from pmim_analytics.store.readers import DuckDBData, default_db_path

    path = db or default_db_path()
    data = DuckDBData(path, _rules(rules, db=path), _source(source), include_estimated)
    if data.provenance().games == 0:
        what = ", ".join(x for x in (f"rules {rules}" if rules else "", f"source {source}" if source else "") if x)
        err.print(f"The database {display_path(path)} has no games{' for ' + what if what else ''} yet. Simulate "
                  "or log some and load them with `pmim ingest`.", highlight=False)
        return None
    choice = choose_bot_level(data.bot_levels(), bot, data.rules_ids)
    _level_note(choice)
    return data.at_level(choice.key)


def _level_note(choice: LevelChoice) -> None:
    """Say which bot level the report rests on, why, and which rules ids have no games at it."""
    games = ", ".join(f"{r}: {n:,}" for r, n in sorted(choice.games.items()))
    err.print(f"Bot level: {choice.level} ({choice.reason}; games {games or 'none'}).", highlight=False,
              markup=False)
    if choice.missing:
        err.print(f"No games at this level under {', '.join(choice.missing)}: left out (pass --bot to pick a level "
                  "they share).", highlight=False, markup=False)


def _estimated_note(data: DuckDBData) -> None:
    """Say how many games with estimated final VP the VP margins leave out (or include)."""
    n = data.estimated_vp_games()
    if n and data.include_estimated:
        err.print(f"VP margins include {n} game{'s' * (n != 1)} whose final VP are estimated.", highlight=False)
    elif n:
        err.print(f"{n} game{'s' * (n != 1)} whose final VP are estimated left out of VP margins "
                  "(--include-estimated to include them).", highlight=False)


def _prov_note(data: DuckDBData) -> tuple[str, ...]:
    return (data.provenance().caption(),)


@app.command("units")
@guarded
def units_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
              bot: str | None = BOT_OPT,
              loadout: bool = typer.Option(False, "--loadout", help="One row per type and weapons."),
              limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT) -> None:
    """Per unit type: damage, hit rate, kills, survival, VP share, all per point too.

    Example: pmim report units --rules v3 --source engine --loadout
    """
    from pmim_analytics.analytics import tables
    from pmim_analytics.report import sections

    if data := _data(rules, source, db, bot=bot):
        cols = sections.UNIT_COLS if not loadout else [*sections.UNIT_COLS[:3],
                                                        Col("weapons", text("weapons"), "left"),
                                                        *sections.UNIT_COLS[3:]]
        report = tables.unit_report(data, loadout)
        emit([Listing("units", "Units", report, cols, limit, "No unit statistics in these games.",
                      _prov_note(data))], fmt)
        if report.height and (report["combat_not_recorded"].sum() or report["fate_not_recorded"].sum()):
            err.print("Unit-games a log did not record (summary logs) are left out of the combat and survival "
                      "figures, not counted as 0 damage or survived: see the last column; 'not recorded' marks "
                      "a figure with nothing recorded behind it.", highlight=False)


@app.command("survival")
@guarded
def survival_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
                 bot: str | None = BOT_OPT,
                 long: bool = typer.Option(False, "--long", help="One row per unit type and round: at risk, "
                                                                 "destroyed, censored, survival and its limits."),
                 unit: str | None = typer.Option(None, "--unit", help="Only this unit type (name or code)."),
                 limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT) -> None:
    """Kaplan-Meier survival per unit type: share still on the table after each round.

    Each cell reads "survival [95% interval] n=units at risk in that round". A unit alive
    when its game ended counts as at risk up to the game's last round (censored), so long
    games do not make units look sturdier. The limits are Greenwood's, widened by the type's
    game-clustered design effect (units of one game live and die together). csv and json
    always hold one row per unit type and round (as --long).

    Example: pmim report survival --rules v3
    Example: pmim report survival --rules v3 --unit Tyrant --long
    """
    import polars as pl

    from pmim_analytics.analytics import tables
    from pmim_analytics.analytics.units import km_every_round

    if not (data := _data(rules, source, db, bot=bot)):
        return
    curves = km_every_round(tables.survival_report(data))
    if unit:
        key = unit.strip().lower()
        curves = curves.filter((pl.col("code").str.to_lowercase() == key) | (pl.col("type").str.to_lowercase() == key))
    curves = curves.sort("rules_id", "source", "type", "round")
    empty = "No units with a known round of destruction or game length" + (f" for {unit!r}." if unit else ".")
    if long or fmt in (Format.csv, Format.json):
        cols = [Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"),
                Col("unit", text("type"), "left"), Col("round", field("round")), Col("at risk", field("at_risk")),
                Col("destroyed", field("destroyed")), Col("censored", field("censored")),
                Col("survival", lambda r: interval(r["survival"], r["lo"], r["hi"], as_pct=True))]
        emit([Listing("survival", "Kaplan-Meier survival by round", curves, cols, limit, empty)], fmt)
        return
    cells = curves.with_columns(cell=pl.format("{}% [{}–{}] n={}", (pl.col("survival") * 100).round(0).cast(pl.Int64),
                                               (pl.col("lo") * 100).round(0).cast(pl.Int64),
                                               (pl.col("hi") * 100).round(0).cast(pl.Int64), pl.col("at_risk")))
    wide = cells.pivot(on="round", index=["rules_id", "source", "type"], values="cell", sort_columns=True)
    rounds = sorted((c for c in wide.columns if c not in ("rules_id", "source", "type")), key=int)
    cols = [Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"),
            Col("unit", text("type"), "left"), *[Col(f"r{r}", text(r)) for r in rounds]]
    emit([Listing("survival", "Units still on the table after each round (KM): survival [95% interval] n=at risk",
                  curves, cols, limit, empty, display=wide.sort("rules_id", "source", "type"))], fmt)


@app.command("weapons")
@guarded
def weapons_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
                bot: str | None = BOT_OPT,
                by: str = typer.Option("kind", "--by", help="Target class: kind (infantry/vehicle/warmech) or type."),
                limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT) -> None:
    """Per weapon and target: observed hit rate and damage against the exact 2d6 expectation.

    Example: pmim report weapons --rules v3 --by type
    """
    from pmim_analytics.analytics import tables, weapons
    from pmim_analytics.report import sections

    if by not in ("kind", "type"):
        raise typer.BadParameter("use kind or type", param_hint="--by")
    if data := _data(rules, source, db, bot=bot):
        col = f"target_{by}"
        cols = [*sections.WEAPON_COLS[:3], Col("against", text(col), "left"), *sections.WEAPON_COLS[4:]]
        table = tables.weapon_report(data, col).sort("attacks", descending=True)
        note = weapons.dice_test_note(table, col)
        emit([Listing("weapons", "Weapons: observed against the dice", table, cols, limit,
                      "No attack events in these games (summary logs only?).", (note,) if note else ())], fmt)


@app.command("compositions")
@guarded
def compositions_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
                     bot: str | None = BOT_OPT,
                     min_games: int = MIN_GAMES_OPT, limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT,
                     include_estimated: bool = EST_OPT) -> None:
    """Per composition: W/D/L, win rate (Wilson 95%), VP margin, length; then side advantage.

    Example: pmim report compositions --rules v2,v3 --min-games 20 --format csv > compositions.csv
    """
    import polars as pl

    from pmim_analytics.analytics import tables
    from pmim_analytics.report import sections

    if data := _data(rules, source, db, include_estimated, bot=bot):
        _estimated_note(data)
        comps = tables.composition_report(data)
        shown = comps.filter(pl.col("games") >= min_games)
        emit([Listing("compositions", "Compositions (mirror games excluded)", shown, sections.COMP_COLS, limit,
                      f"No composition has {min_games} or more games against others (lower --min-games)."),
              Listing("sides", "Side and first-player advantage", tables.side_report(data), sections.SIDE_COLS)],
             fmt)
        if comps.height > shown.height:
            err.print(f"{comps.height - shown.height} compositions with fewer than {min_games} games left out "
                      "(--min-games).", highlight=False)


def _matchup_cell(score: float | None, n: int, lo: float | None, hi: float | None) -> str:
    """``62% [48–75] n=40``: the row's score (a draw counts half for each side, so the cell and its
    mirror add up to 100%), its Wilson interval and the number of games."""
    if not n or score is None:
        return "—"
    rng = "" if lo is None or hi is None else f" [{100 * lo:.0f}–{100 * hi:.0f}]"
    return f"{score:.0%}{rng} n={n}"


def _field(name: str) -> Callable[[dict[str, Any]], str]:
    """A cell that shows the row's ``name`` as it is (already text)."""
    return lambda r: str(r[name])


def _matrix(grp: pl.DataFrame, key: str) -> tuple[pl.DataFrame, list[Col]]:
    """A matchup group as a matrix: one row per composition (or list), one column per opponent."""
    import polars as pl

    opp = f"opp_{key}"
    cell = {(a, b): (sc, g, lo, hi) for a, b, sc, g, lo, hi in grp.select(key, opp, "score", "games", "score_lo",
                                                                           "score_hi").iter_rows()}
    names = sorted({k for pair in cell for k in pair})
    rows = [{key: a, **{b: _matchup_cell(*cell[(a, b)]) if (a, b) in cell else "—" for b in names}} for a in names]
    frame = pl.DataFrame(rows, schema={key: pl.String, **{n: pl.String for n in names}})
    return frame, [Col(key, text(key), "left"), *[Col(n, _field(n)) for n in names]]


@app.command("matchups")
@guarded
def matchups_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
                 bot: str | None = BOT_OPT,
                 long: bool = typer.Option(False, "--long", help="One row per pairing instead of a matrix."),
                 diff: str | None = typer.Option(None, "--diff", help="Two rules ids A,B: each pairing's change "
                                                                      "of win rate from A to B, with flags."),
                 by: str = typer.Option("composition", "--by", help="composition (list name) or list (content: a "
                                                                    "list and its translation are one)."),
                 min_games: int = MIN_GAMES_OPT, limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT) -> None:
    """The matchup matrix: each row composition's score against each column, with n and interval.

    Every cell reads "score [95% Wilson interval] n=games"; a draw counts half for each
    side, so a cell and its mirror add up to 100%. With --diff A,B each
    pairing played under both gets its change with a Newcombe interval; "saturated" flags
    a pairing won or lost 95-100% of the time under either rules id, where a change cannot
    show (it reads "+0" whatever the rules did). Compositions with fewer than --min-games
    games against others are left out. csv and json always hold one row per pairing (as
    --long). Exit 0 when something is shown, 1 when every composition has fewer than
    --min-games games (a sentence says so), 2 bad usage.

    Example: pmim report matchups --rules v3 --source engine
    Example: pmim report matchups --diff v3,v3-llaser-rpt4 --by list --format csv
    """
    import polars as pl

    from pmim_analytics.analytics import compositions, tables
    from pmim_analytics.report import sections

    if by not in ("composition", "list"):
        raise typer.BadParameter("use composition or list", param_hint="--by")
    pair = _rules(diff, "--diff", db) if diff else None
    if pair is not None and len(pair) != 2:
        raise typer.BadParameter("give exactly two rules ids, e.g. v3,v3-llaser-rpt4", param_hint="--diff")
    if not (data := _data(rules if pair is None else ",".join(pair), source, db, bot=bot)):
        return
    key, opp = by, f"opp_{by}"
    m = tables.matchup_report(data, key=by)
    totals = m.group_by("rules_id", "source", key).agg(pl.col("games").sum().alias("_total"))
    m = m.join(totals, on=["rules_id", "source", key]).join(
        totals.rename({key: opp, "_total": "_opp_total"}), on=["rules_id", "source", opp])
    kept = m.filter((pl.col("_total") >= min_games) & (pl.col("_opp_total") >= min_games)).drop("_total", "_opp_total")
    if kept.height == 0:
        most = int(totals.select(pl.col("_total").max()).item() or 0) if totals.height else 0
        err.print(f"Every composition has fewer than {min_games} games against others (the most is {most}); nothing "
                  f"shown. Lower --min-games (e.g. --min-games {max(1, most)}) or play more games.", highlight=False)
        raise typer.Exit(1)
    if pair is not None:
        d = compositions.matchup_diff(kept, pair[0], pair[1], key=by)
        cols = [Col("source", text("source"), "left"), Col(by, text(key), "left"), Col("against", text(opp), "left"),
                Col("games", lambda r: f"{r['games_a']} / {r['games_b']}"),
                Col("win rate", lambda r: f"{pct(r['win_a'])} → {pct(r['win_b'])}"),
                Col("change", lambda r: points_change(r["diff"], r["diff_lo"], r["diff_hi"])),
                Col("flags", lambda r: ", ".join(x for x, on in (("significant", r["significant"]),
                                                                  ("saturated", r["saturated"])) if on), "left")]
        emit([Listing("matchup_diff", f"Matchups, {pair[0]} → {pair[1]}: change of the row's win rate", d, cols,
                      limit, "No pairing was played under both rules ids (try --by list if the lists were "
                             "translated).")], fmt)
        return
    if long or fmt in (Format.csv, Format.json):
        cols = [*sections.COMP_COLS[:3], Col("against", text(opp), "left"), *sections.COMP_COLS[3:-1]]
        if by == "list":
            cols = [Col("rules", text("rules_id"), "left"), Col("source", text("source"), "left"),
                    Col("list", text("list"), "left"), *cols[3:]]
        emit([Listing("matchups", "Matchups", kept, cols, limit, "Only mirror games.")], fmt)
        return
    listings = []
    for (rid, src), grp in kept.group_by("rules_id", "source", maintain_order=True):
        frame, cols = _matrix(grp, key)
        listings.append(Listing(f"matchups_{rid}_{src}", f"Matchups, {rid} ({src}): row's score against column "
                                "(a draw counts half), [95% interval] n=games", grp, cols, display=frame))
    emit(listings or [Listing("matchups", "Matchups", kept, empty="Only mirror games.")], fmt)


def _changes_frame(changes: Sequence[Change]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame([{"table": c.table, "item": c.item, "change": c.what, "old": c.old, "new": c.new}
                         for c in changes], schema={k: pl.String for k in ("table", "item", "change", "old", "new")})


@app.command("impact")
@guarded
def impact_cmd(rules: str = typer.Option(..., "--rules", help="Exactly two rules ids: before,after."),
               source: str | None = SOURCE_OPT, db: Path | None = DB_OPT, bot: str | None = BOT_OPT,
               unpaired: bool = typer.Option(False, "--unpaired", help="Compare all games, not only those played "
                                                                          "under both with the same lists, "
                                                                          "bots and sides (confounded)."),
               limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT, include_estimated: bool = EST_OPT) -> None:
    """What changed from one rules id to another: per list and per unit type, on paired games.

    A game counts only when a game with the same lists (by content: a v2 list translated
    with `pmim army translate` pairs with its original), the same bots and the same sides
    was played under the other rules id; the first table says how many games were paired
    and why the others were left out. Intervals are 95%, clustered by game; * marks a
    change whose interval excludes 0.

    Example: pmim report impact --rules v3,v3-llaser-rpt4
    Example: pmim report impact --rules v2,v3 --source engine
    """
    from pmim_analytics.analytics import tables
    from pmim_analytics.report import sections
    from pmim_analytics.rules import load_rules
    from pmim_analytics.rules.diff import diff_rules

    ids = _rules(rules, db=db) or []
    if len(ids) != 2:
        raise typer.BadParameter("give exactly two rules ids, e.g. v3,v3-llaser-rpt4", param_hint="--rules")
    if not (data := _data(rules, source, db, include_estimated, bot=bot)):
        return
    _estimated_note(data)
    imp = tables.impact_report(data, ids[0], ids[1], paired=not unpaired)
    listings = [
        Listing("compositions", f"Lists, {ids[0]} → {ids[1]}", imp.compositions, sections.IMPACT_COMP_COLS, limit,
                "No list played the same matchup with the same bots and sides under both rules ids (see the "
                "pairing table; --unpaired compares anyway)."),
        Listing("units", f"Units, {ids[0]} → {ids[1]}", imp.units, sections.IMPACT_UNIT_COLS, limit,
                "No unit type was fielded in paired games under both rules ids."),
        Listing("pairing", "Games paired" + (" (not used: --unpaired)" if unpaired else ""), imp.pairing,
                sections.PAIRING_COLS)]
    try:
        changes = diff_rules(load_rules(ids[0]), load_rules(ids[1]))
        listings.append(Listing("rules_changes", f"Rules changes {ids[0]} → {ids[1]}", _changes_frame(changes)))
    except PmimError:  # a rules id only the database knows
        pass
    emit(listings, fmt)


@app.command("costs")
@guarded
def costs_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
              bot: str | None = BOT_OPT,
              limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT, include_estimated: bool = EST_OPT,
              resamples: int = typer.Option(RESAMPLES, "--resamples", min=20, max=MAX_RESAMPLES,
                                            help="Bootstrap samples of games behind every interval and test.")
              ) -> None:
    """Implied point costs from the VP margin (no type fixed as the yardstick), with bootstrap intervals
    and verdicts tested across every priced type (Benjamini-Hochberg), at one bot level.

    Example: pmim report costs --rules v3 --source engine --bot tactician --resamples 200
    """
    from pmim_analytics.analytics import tables
    from pmim_analytics.analytics.flags import family_note
    from pmim_analytics.analytics.implied_costs import COST_VERDICTS
    from pmim_analytics.report import sections

    if data := _data(rules, source, db, include_estimated, bot=bot):
        _estimated_note(data)
        fit = tables.cost_report(data, resamples)
        said = tuple(f"{r['rules_id']}: {r['message']}." for r in fit.summary.iter_rows(named=True))
        tested = int(fit.table["p"].is_not_null().sum()) if fit.table.height else 0
        if tested:
            said += (family_note(tested, "unit types"),)
        said += ("Verdicts: " + "; ".join(f"{w}: {m}" for w, m in COST_VERDICTS.items()
                                          if w in set(fit.table["verdict"].to_list())) + ".",)
        emit([Listing("costs", "Implied point costs", fit.table, sections.COST_COLS, limit,
                      "No armies known in these games.", said),
              Listing("costs_summary", "What the fit can say", fit.summary,
                      [Col("rules", text("rules_id"), "left"), Col("fit", text("message"), "left")])
              ] if fmt in (Format.json, Format.csv) else
             [Listing("costs", "Implied point costs", fit.table, sections.COST_COLS, limit,
                      "No armies known in these games.", said)], fmt)


@app.command("optional-rules")
@guarded
def optional_rules_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
                       bot: str | None = BOT_OPT,
                       fmt: Format = FORMAT_OPT) -> None:
    """What the optional rules did: overheat rates by excess beside the exact odds, weapons lost
    to heat, initiative wins, rushes (games of variants with optional rules).

    Example: pmim report optional-rules --rules v3-heat,v3-rolled-initiative
    """
    from pmim_analytics.analytics import tables

    if not (data := _data(rules, source, db, bot=bot)):
        return
    rep = tables.optional_rules_report(data)
    rid = Col("rules", text("rules_id"), "left")
    emit([
        Listing("overheat", "Overheat rolls by excess (observed vs exact)", rep.heat,
                [rid, Col("excess", field("excess")), Col("rolls", field("rolls")),
                 Col("overheats", field("overheats")), Col("rate", field("rate", pct)),
                 Col("95% CI", lambda x: f"{pct(x['rate_lo'])}-{pct(x['rate_hi'])}"),
                 Col("exact", field("exact", pct))], None, "No overheat rolls in these games."),
        Listing("weapons_lost", "Weapons lost to heat", rep.weapons_lost,
                [rid, Col("weapon", text("weapon"), "left"), Col("rolls", field("rolls")), Col("lost", field("lost")),
                 Col("self damage", field("self_damage"))], None, "No weapons lost to heat in these games."),
        Listing("initiative", "Rolled initiative: rounds blue went first (exactly 1/2)",
                rep.initiative,
                [rid, Col("rolls", field("rolls")), Col("ties", field("ties")), Col("rounds", field("rounds")),
                 Col("blue first", field("share", pct)),
                 Col("95% CI", lambda x: f"{pct(x['share_lo'])}-{pct(x['share_hi'])}")], None,
                "No initiative rolls in these games."),
        Listing("rushes", "Rushes", rep.rushes,
                [rid, Col("rushes", field("rushes")), Col("games", field("games"))], None,
                "No rushes in these games."),
    ], fmt)


@app.command("luck")
@guarded
def luck_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
             bot: str | None = BOT_OPT,
             games: bool = typer.Option(False, "--games", help="One row per game and side (first in csv)."),
             limit: int = LIMIT_OPT, fmt: Format = FORMAT_OPT) -> None:
    """Dice luck: each side's damage against its exact expectation, and how often luck won.

    Example: pmim report luck --rules v3 --games
    """
    from pmim_analytics.analytics import tables
    from pmim_analytics.report import sections

    if not (data := _data(rules, source, db, bot=bot)):
        return
    lk = tables.luck_report(data)
    summary = Listing("luck", "Luck", lk.summary, sections.LUCK_COLS, None, "No decisive games with attack events.")
    if not games:
        emit([summary], fmt)
        return
    cols = [Col("game", text("game_id"), "left"), Col("side", text("side"), "left"),
            Col("attacks", field("attacks")), Col("damage", field("damage")),
            Col("expected", field("expected_damage", lambda v: num(v, 1))),
            Col("luck z", field("luck_z", lambda v: "" if v is None else f"{v:+.2f}")),
            Col("with optional dice", field("dice_z", lambda v: "" if v is None else f"{v:+.2f}")),
            Col("won", field("won"))]
    sides = Listing("luck_sides", "Luck per game and side", lk.sides, cols, limit)
    emit([summary, sides] if fmt is not Format.csv else [sides, summary], fmt)


@app.command("quality")
@guarded
def quality_cmd(rules: str | None = RULES_OPT, source: str | None = SOURCE_OPT, db: Path | None = DB_OPT,
                bot: str | None = BOT_OPT,
                fmt: Format = FORMAT_OPT) -> None:
    """Game quality: length, draws, round-limit rate, lead changes.

    Example: pmim report quality --rules v2,v3
    """
    from pmim_analytics.analytics import tables
    from pmim_analytics.report import sections

    if data := _data(rules, source, db, bot=bot):
        q = tables.quality_report(data)
        emit([Listing("outcomes", "How games end", q.outcomes, sections.OUTCOME_COLS),
              Listing("leads", "Lead changes (from round-end VP)", q.leads, sections.LEAD_COLS, None,
                      "No round_end events in these games: lead changes unknown.")], fmt)


def dice_cmd(rules: str = typer.Option("v3", "--rules", help="Rules id (a version or a variant)."),
             target: str | None = typer.Option(None, "--target", help="One target type, e.g. Paladin."),
             weapon: str | None = typer.Option(None, "--weapon", help="One weapon, e.g. GG or 'Gauss Gun'."),
             exact: bool = typer.Option(False, "--exact", help="Show exact fractions."),
             overheat: str | None = typer.Option(
                 None, "--overheat", help="Heat rule: exact overheat odds of a Warmech firing weapons in order, "
                 "e.g. 'Timber Wolf:GG,ML' (needs a variant with heat, such as v3-heat)."),
             fmt: Format = FORMAT_OPT) -> None:
    """The dice-maths table: every weapon against every unit type, exactly (no simulation).

    Columns: to-hit roll needed on 2d6, P(hit), damage on a hit, expected damage per attack,
    fewest hits to kill and expected attacks to kill (Warmechs: through their hit-location
    chart, re-rolling destroyed locations). "inf." is the range when infantry or ODA carry
    the weapon. Needs no database.

    With --overheat, the exact chance that each shot of a firing sequence overheats, and that
    any has so far, under the variant's heat rule.

    Example: pmim dice --rules v3 --target Paladin

    Example: pmim dice --rules v3-heat --overheat "Paladin:HL,HAC"
    """
    if overheat:
        _overheat(rules, overheat, exact, fmt)
        return
    _dice(rules, target, weapon, exact, fmt)


def _overheat_faces(row: dict[str, Any]) -> str:
    e = row["excess"]
    return "-" if e <= 0 else "1" if e == 1 else "any" if e >= 6 else f"1-{e}"


@guarded
def _overheat(rules: str, sequence: str, exact: bool, fmt: Format) -> None:
    from pmim_analytics.analytics.dice import warmech_overheat_table
    from pmim_analytics.rules import find_unit, find_weapon, load_rules

    r = load_rules(rules)
    mech_name, sep, weapon_list = sequence.partition(":")
    if not sep or not weapon_list.strip():
        raise PmimError(f"--overheat {sequence!r}: write the Warmech, a colon and its weapons in firing order, "
                        "e.g. 'Timber Wolf:GG,ML'")
    mech = find_unit(r, mech_name.strip())
    if not mech.is_warmech:
        raise PmimError(f"--overheat: {mech.name} is not a Warmech; only Warmechs make heat")
    codes = [find_weapon(r, w.strip()).code for w in weapon_list.split(",") if w.strip()]
    try:
        t = warmech_overheat_table(r, mech.code, codes)
    except ValueError as e:
        raise PmimError(str(e)) from None
    heat = r.optional.heat
    assert heat is not None
    cols = [Col("shot", field("shot")), Col("weapon", text("weapon"), "left"), Col("heat", field("heat")),
            Col("total", field("total_heat")), Col("overheats on", _overheat_faces),
            Col("P(overheat)", text("p_overheat_exact") if exact else field("p_overheat", pct)),
            Col("P(any so far)", text("p_any_overheat_exact") if exact else field("p_any_overheat", pct))]
    emit([Listing("overheat", f"Overheat odds, {mech.name} (heat rating {heat.rating_of(r, mech.code)}), {r.id}",
                  t, cols, notes=("overheats on: the d6 results that overheat the weapon (the heat above the "
                                  "rating so far); in PMIM a Warmech makes at most two attacks an activation",))],
         fmt)


@guarded
def _dice(rules: str, target: str | None, weapon: str | None, exact: bool, fmt: Format) -> None:
    from pmim_analytics.analytics.dice import dice_table
    from pmim_analytics.rules import find_unit, find_weapon, load_rules

    r = load_rules(rules)
    tcode = find_unit(r, target).code if target else None
    wcode = find_weapon(r, weapon).code if weapon else None
    d = dice_table(r, tcode, wcode)
    cols = [] if wcode else [Col("weapon", text("weapon"), "left"), Col("RNG", field("rng")),
                             Col("inf.", field("rng_infantry"))]
    cols += [] if tcode else [Col("target", text("target"), "left")]
    cols += [Col("needs", lambda x: f"{x['roll_needed']}+"),
             Col("P(hit)", text("p_hit_exact") if exact else field("p_hit", pct)),
             Col("dmg", field("damage_on_hit")),
             Col("E[dmg]", text("expected_damage_exact") if exact else field("expected_damage")),
             Col("hits", field("min_hits_to_kill")),
             Col("E[attacks]", (lambda x: x["expected_attacks_to_kill_exact"] or "—") if exact
                 else field("expected_attacks_to_kill", lambda v: "—" if v is None else num(v, 1)))]
    title = (f"Dice maths, {r.id}" + (f", {d['weapon_name'][0]}" if wcode else "")
             + (f" against {d['target'][0]}" if tcode else ""))
    emit([Listing("dice", title, d, cols, notes=(
        "needs: 2d6 roll to hit; dmg: damage of a hit; hits: fewest hits to destroy; E[attacks]: expected "
        "attacks to destroy (Warmechs: hit locations at random, destroyed ones re-rolled); inf.: RNG when "
        "infantry or ODA carry it",))], fmt)


def export_cmd(rules: str | None = RULES_OPT, out_dir: Path = typer.Option(Path("notes"), "--out",
                                                                         help="Folder to write into (created if "
                                                                              "missing)."),
               source: str | None = SOURCE_OPT, db: Path | None = DB_OPT, bot: str | None = BOT_OPT,
               png: bool = typer.Option(True, "--png/--no-png", help="Render the figures as PNG beside the "
                                        "Markdown (needs Chromium; no network)."),
               html: bool = typer.Option(False, "--html", help="Also write report.html: one self-contained page, "
                                         "interactive figures, plotly.js embedded (opens offline)."),
               force: bool = typer.Option(False, "--force", help="Overwrite an export already in --out."),
               plotlyjs: str = typer.Option("cdn", "--plotlyjs", help="How figures/*.html load plotly.js: cdn "
                                            "(small files) or directory (one local copy, offline)."),
               include_estimated: bool = EST_OPT) -> None:
    """Write design notes: a one-screen note with PNG figures, the full report, every table.

    note.md answers the designer's questions (L. Laser RPT 4, heavy Warmechs at DEF 6, the
    Mjolnir's price, v2 → v3), each with its 95% interval and number of games; report.md is
    the same note followed by every table and figure. Figures are PNG files in figures/,
    linked relatively, so a Markdown previewer shows them; tables are CSV and Parquet in
    tables/. The first rules id is the baseline each other one is compared with. Refuses to
    overwrite an earlier export unless --force.

    Example: pmim export --rules v3,v3-llaser-rpt4,v3-heavy-def6,v3-mjolnir-16 --out notes/ --html
    """
    _export(rules, out_dir, source, db, plotlyjs, png, html, force, include_estimated, bot)


@guarded
def _export(rules: str | None, out_dir: Path, source: str | None, db: Path | None, plotlyjs: str, png: bool,
            html: bool, force: bool, include_estimated: bool = False, bot: str | None = None) -> None:
    from pmim_analytics.report.export import check_out_dir, export_report

    if plotlyjs not in ("cdn", "directory"):
        raise typer.BadParameter("use cdn or directory", param_hint="--plotlyjs")
    check_out_dir(out_dir, force)  # before any work: a wrong --out is said at once
    if not (data := _data(rules, source, db, include_estimated, bot=bot)):
        return
    _estimated_note(data)
    with err.status("Writing the export (tables, then figures)…"):
        result = export_report(data, _rules(rules, db=db), out_dir, plotlyjs=plotlyjs, png=png, html=html, force=force)
    kind = "PNG" if png else "HTML"
    assert result.note is not None  # export_report always writes the note
    out.print(f"wrote {display_path(result.note)} and {display_path(result.report)} with {len(result.tables)} "
              f"tables and {len(result.figures)} {kind} figures"
              + (f", and {display_path(result.html)}" if result.html else "")
              + f" ({result.provenance.caption()})", highlight=False, markup=False)
