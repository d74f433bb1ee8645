"""``pmim bots ladder``, ``pmim calibrate`` and ``pmim report robustness``: how good the bots are,
and whether a balance verdict survives stronger play.

Exit codes: 0 ok, 2 bad input (unknown bot, bad budget, unknown rules, no database), 130
interrupted (nothing stored).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from pmim_analytics.botlab.botlist import split_bot_list
from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.errors import PmimError, StoreError, display_path
from pmim_analytics.limits import MAX_WORKERS, check_bootstrap, check_calibrate_games, check_games_per_pairing

if TYPE_CHECKING:  # the botlab, the store and Polars load once the counts are checked
    import polars as pl

    from pmim_analytics.botlab.ladder import LadderPlan, LadderResult

app = typer.Typer(help="Bots: a rated ladder of every bot and search budget.", no_args_is_help=True)

DB_OPT = typer.Option(None, "--db", help="Database file (default: $PMIM_DB or data/pmim.duckdb).")


def register(root: typer.Typer) -> None:
    """Add ``bots`` and ``calibrate`` to the ``pmim`` app."""
    root.add_typer(app, name="bots")
    root.command("calibrate")(calibrate)


def register_robustness() -> None:
    """Add ``report robustness`` to the ``report`` group."""
    from pmim_analytics.cli import report_cmd

    report_cmd.app.command("robustness")(robustness)


def _fmt(x: object, spec: str = ".0f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TimeRemainingColumn(), console=err, transient=False)


@app.command("ladder")
@guarded
def ladder(
    rules: str = typer.Option("v3", "--rules", help="Rules id whose sample armies (data/armies) are played."),
    bots: str | None = typer.Option(None, "--bots", help="Comma-separated bots to rate, weakest first "
                                    "(default: every built-in bot, and search at budgets 0, 100, 400)."),
    games_per_pairing: int = typer.Option(1, "--games-per-pairing", help="Games with each bot as blue and as red, "
                                          "for each bot pair, army pairing and assignment of the armies."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed: the same seed plays the same games."),
    workers: int = typer.Option(2, "--workers", min=1, max=MAX_WORKERS, help="Worker processes."),
    army: list[Path] = typer.Option([], "--army", help="An army list to play instead of the sample armies "
                                    "(repeat the option for each army; at least one)."),
    bootstrap: int = typer.Option(200, "--bootstrap", min=0, help="Bootstrap resamples for the rating intervals."),
    db: Path | None = DB_OPT,
    no_store: bool = typer.Option(False, "--no-store", help="Print the ratings but store nothing."),
) -> None:
    """Play a round robin of bots over the sample armies of a rules version and rate them.

    Every pair of bots meets over every pairing of the armies in data/armies written for the
    rules (an army against itself included), each bot with each army, each bot as blue and
    as red (--games-per-pairing games each way).
    Prints Bradley-Terry ratings on the Elo scale (the first bot at 0) with bootstrap 95%
    intervals, the bots' speed, and objective adherence (share of objectives within reach
    that the side contested, VP per round). The run is stored in the database for the
    dashboard; Ctrl-C stops it and stores nothing.

    Examples:

      pmim bots ladder --rules v3 --bots random,greedy,tactician --games-per-pairing 4

      pmim bots ladder --rules v2-heavy-def6 --seed 7 --workers 2 --db data/pmim.duckdb

      pmim bots ladder --rules v3 --army data/armies/v3-balanced.yaml --army data/armies/v3-tank-heavy.yaml
    """
    check_bootstrap(bootstrap)
    check_games_per_pairing(games_per_pairing)
    if bots is not None:  # each bot and its settings (a search budget), before the ladder's libraries load
        from pmim_analytics.engine.bots import check_bot_name

        for spec in split_bot_list(bots):
            check_bot_name(spec)
    from pmim_analytics.botlab.ladder import ladder_plan, run_ladder
    from pmim_analytics.store.connection import resolve_db_path

    plan = ladder_plan(rules, bots, games_per_pairing, seed, army or None)
    err.print(f"{len(plan.bots)} bots, {len(plan.armies)} armies under {plan.rules_id}: {plan.games} games",
              highlight=False)
    with _progress() as bar:
        task = bar.add_task("playing", total=plan.games)
        result = run_ladder(plan, workers, lambda done, total: bar.update(task, completed=done), bootstrap)
    t = Table(title=f"Bot ladder, {plan.rules_id}: {plan.games} games, run {result.run_id}", title_justify="left")
    for name in ("bot", "rating", "95% interval", "games", "score", "ms/decision", "games/s", "adherence",
                 "VP/round"):
        t.add_column(name, justify="left" if name == "bot" else "right")
    for r in result.ratings.iter_rows(named=True):
        t.add_row(r["bot"], _fmt(r["rating"]), f"{_fmt(r['lo'])} to {_fmt(r['hi'])}", str(r["games"]),
                  _fmt(r["score"], ".2f"), _fmt(r["ms_per_decision"], ".2f"), _fmt(r["games_per_s"], ".1f"),
                  _fmt(r["adherence"], ".0%"), _fmt(r["vp_per_round"], ".2f"))
    out.print(t)
    h2h = result.head_to_head()
    t = Table(title="Head to head: points per game of the row's bot (win 1, draw 1/2), games in brackets",
              title_justify="left")
    t.add_column("bot")
    for b in plan.bots:
        t.add_column(b, justify="right")
    cell = {(r["bot"], r["opponent"]): r for r in h2h.iter_rows(named=True)}
    for a in plan.bots:
        t.add_row(a, *[f"{cell[(a, b)]['score']:.2f} ({cell[(a, b)]['games']})" if (a, b) in cell else "-"
                       for b in plan.bots])
    out.print(t)
    out.print("Rating: Bradley-Terry on the Elo scale, 400 points = 10 to 1 odds, the first bot listed at 0. "
              "games/s: a game of this bot against itself on one core, estimated from its thinking time. "
              "Adherence: share of objectives within its units' reach that the side held a unit at by the "
              "end of the round.", highlight=False, soft_wrap=True)
    if no_store:
        return
    store_ladder(plan, result, workers, db)
    err.print(f"stored as run {result.run_id} in {display_path(resolve_db_path(db))}", highlight=False)


def store_ladder(plan: LadderPlan, result: LadderResult, workers: int, db: Path | None) -> None:
    """Store a ladder run whole (what ``pmim bots ladder`` and the demo's core both do)."""
    from pmim_analytics.store.ladder import save_ladder

    save_ladder({"run_id": result.run_id, "rules_id": plan.rules_id, "scenario": plan.scenario_id,
                 "bots": ",".join(plan.bots), "armies": ",".join(n for n, _ in plan.armies),
                 "games_per_pairing": plan.games_per_pairing, "seed": plan.seed, "games": plan.games,
                 "seconds": result.seconds, "workers": workers}, result.ratings, result.games, db)


@guarded
def robustness(
    rules: str | None = typer.Option(None, "--rules", help="Comma-separated rules ids (default: all)."),
    min_games: int = typer.Option(10, "--min-games", min=1, help="Leave out a bot level with fewer games for a row."),
    all_rows: bool = typer.Option(False, "--all", help="Show every row: matchups that hold and rows with one bot "
                                  "level too (by default: compositions with two levels or more, flagged matchups)."),
    db: Path | None = DB_OPT,
) -> None:
    """Do balance verdicts hold as the bots get stronger?

    For each composition, and each matchup, the score (a draw counts half) with 95% Wilson
    intervals at every bot level (games where both sides played at the same level), from
    random to the strongest search budget, and a flag where the verdict flips, vanishes or
    shrinks at the strongest level: a two-proportion test of the strongest level against the
    weaker ones, adjusted with Benjamini-Hochberg over the rows of the table (q; the family
    size is printed under it, the verdict words explained at the end).

    Examples:

      pmim report robustness --rules v3

      pmim report robustness --rules v2-heavy-def6 --all --min-games 20
    """
    import polars as pl

    from pmim_analytics.analytics.flags import family_note, legend_lines
    from pmim_analytics.analytics.robustness import flag_lines, robustness_tables
    from pmim_analytics.cli.ids import parse_rules_ids
    from pmim_analytics.store.readers import DuckDBData, default_db_path

    ids = parse_rules_ids(rules, db=db)
    cells = DuckDBData(db or default_db_path(), ids, "engine").matchup_cells()
    comps, matches = robustness_tables(cells, min_games)
    if comps.height == 0 and matches.height == 0:
        err.print("No engine games where both sides had the same bot in this selection; run `pmim demo` or "
                  "`pmim simulate` with several --blue-bot/--red-bot levels.", highlight=False)
        return
    for title, df, key in (("Compositions by bot level", comps, "composition"),
                           ("Matchups by bot level", matches, "matchup")):
        if all_rows:
            shown = df
        elif key == "composition":
            shown = df.filter(pl.col("flag") != "one level")
        else:
            shown = df.filter(pl.col("flag").is_in(["flips", "vanishes", "shrinks", "emerges"]))
        if shown.height == 0:
            out.print(f"{title}: no row to show (rows with one bot level only, or matchups that hold, "
                      "are listed with --all).", highlight=False)
            continue
        t = Table(title=title, title_justify="left")
        for name in ("rules", key, "by bot level: score % (draw ½) [95% Wilson] (games)", "verdict", "q"):
            t.add_column(name)
        for r in shown.iter_rows(named=True):
            t.add_row(r["rules_id"], r[key], r["levels"], r["flag"], "" if r["q"] is None else f"{r['q']:.2g}")
        out.print(t)
        families = int(df.select(pl.col("family").max()).item() or 0)
        out.print(family_note(families, f"{key}s with two levels or more"), highlight=False)
    lines = flag_lines(matches)
    if lines:
        out.print("Bot-dependent verdicts:", highlight=False)
        for line in lines:
            out.print(f"  {line}", highlight=False, soft_wrap=True)
    else:
        out.print("No matchup verdict changes with bot strength in this selection.", highlight=False)
    out.print("Verdicts: " + "; ".join(legend_lines(["flips", "vanishes", "shrinks", "grows", "emerges", "unconfirmed",
                                                      "holds", "one level"])), highlight=False, soft_wrap=True)
    _print_skill_axis(cells, min_games, all_rows)


def _print_skill_axis(cells: pl.DataFrame, min_games: int, all_rows: bool) -> None:
    """The skill columns of ``pmim report robustness``: the strongest bot played at several skills."""
    import polars as pl

    from pmim_analytics.analytics.flags import family_note
    from pmim_analytics.analytics.skill_axis import SKILLS, skill_label, skill_lines, skill_tables

    comps, matches = skill_tables(cells, min_games)
    if comps.height == 0:
        out.print("Skill axis: no games of a bot below skill 1 in this selection (the demo plays "
                  "search at skills 0.5, 0.75 and 0.9; or `pmim simulate --blue-bot search:skill=0.75 ...`).",
                  highlight=False)
        return
    for title, df, key in (("Compositions by skill", comps, "composition"), ("Matchups by skill", matches, "matchup")):
        shown = df if all_rows or key == "composition" else df.filter(pl.col("flag") != "holds")
        if shown.height == 0:
            out.print(f"{title}: every matchup's verdict holds at every skill shown (--all lists them).",
                      highlight=False)
            continue
        t = Table(title=f"{title}: score % [95% Wilson] (games), both sides the same bot at the same skill; "
                        "skill 1 = the bot's best play", title_justify="left")
        for name in ("rules", "bot", key, *[skill_label(s) for s in SKILLS], "verdict"):
            t.add_column(name)
        for r in shown.iter_rows(named=True):
            t.add_row(r["rules_id"], r["bot"], r[key], *[r[skill_label(s)] or "-" for s in SKILLS], r["flag"])
        out.print(t)
        out.print(family_note(int(df.select(pl.col("family").max()).item() or 0)), highlight=False)
    lines = skill_lines(matches)
    if lines:
        out.print("Skill-dependent verdicts:", highlight=False)
        for line in lines:
            out.print(f"  {line}", highlight=False, soft_wrap=True)


@guarded
def calibrate(
    bots: str | None = typer.Option(None, "--bots", help="Comma-separated bots to calibrate (default: search for "
                                    "the panel; with --per-bot every built-in bot, and search at budgets 0, 100, "
                                    "400)."),
    games: int = typer.Option(40, "--games", min=2, help="Simulated games per logged game and bot."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the simulations."),
    workers: int = typer.Option(2, "--workers", min=1, max=MAX_WORKERS, help="Worker processes."),
    only: str | None = typer.Option(None, "--only", help="Only the logs whose file name contains this text."),
    db: Path | None = DB_OPT,
    panel: bool | None = typer.Option(None, "--panel/--per-bot", help="--panel (the default with no --bots or "
                                      "one bot): forecast from a panel of players, the bot (default search) at "
                                      "skill pairs 1/1, 1/0.75, 0.75/1, 0.75/0.75 and 1/0.5, under the readings as "
                                      "written and the post's readings (10 members). --per-bot (the default with "
                                      "two bots or more): each bot's Brier score and log loss."),
) -> None:
    """Compare the bots with the games logged at a table.

    By default, a panel of players forecasts each logged game: a panel member is a skill for
    each army's player and a set of readings in doubt (docs/rules-notes.md). The table gives
    each member's likelihood of the logged results, the best-explaining member, and a
    sentence per logged game saying what its result would take. A result under 5% (upper
    95% limit) at every member is flagged as a question for the designer.

    With two bots or more in --bots (or --per-bot), the same armies are simulated under the
    same rules with each bot on both sides (sides alternating); the share of simulated wins
    is the bot's forecast for the logged game. Prints per bot the Brier score and log loss
    of those forecasts against the real results and, for detailed logs, the share of logged
    moves and targets the bot would also have chosen. Says how little a few games can prove.

    Examples:

      pmim calibrate --only playtest-

      pmim calibrate --only playtest --bots greedy,tactician --games 100 --db data/pmim.duckdb

      pmim calibrate --per-bot
    """
    if panel is None:  # the panel for no --bots or one bot (counted here, checked below)
        panel = bots is None or len(split_bot_list(bots)) == 1
    check_calibrate_games(games, "panel member" if panel else "bot")
    from pmim_analytics.botlab.calibrate import calibrate as run_calibration
    from pmim_analytics.botlab.ladder import parse_bot_list
    from pmim_analytics.store.connection import resolve_db_path

    given = parse_bot_list(bots, min_bots=1) if bots is not None else None
    labels = given if given is not None else ["search"] if panel else parse_bot_list(None, min_bots=1)
    if panel and len(labels) != 1:
        raise PmimError(f"--panel plays one bot at several skills; give one bot to --bots, not {len(labels)}")
    path = resolve_db_path(db)
    if not path.exists():
        raise StoreError(f"no database at {display_path(path)}; build one with `make run` or `pmim ingest` your logs")
    if panel:
        _calibrate_panel(labels[0], games, seed, workers, db, only)
        return
    with _progress() as bar:
        task = bar.add_task("simulating", total=None)
        report = run_calibration(labels, games, seed, workers, db,
                                 lambda done, total: bar.update(task, completed=done, total=total), only)
    if report.forecasts.height == 0:
        out.print("The database holds no manual games to calibrate against; log a match with `pmim log` and "
                  "`pmim ingest` it.", highlight=False)
        return
    t = Table(title="Forecasts for each logged game (chance that blue wins)", title_justify="left")
    for name in ("game", "rules", "blue vs red", "result", *report.bots):
        t.add_column(name, justify="right" if name in report.bots else "left")
    for row in report.per_game.iter_rows(named=True):
        t.add_row(row["label"], row["rules_id"], f"{row['blue']} vs {row['red']}", row["result"],
                  *[_fmt(row[b], ".0%") for b in report.bots])
    out.print(t)
    t = Table(title="Calibration per bot (lower is better; always saying 50% scores 0.250 and 0.693)",
              title_justify="left")
    for name in ("bot", "logged games", "Brier", "single-game Brier range", "log loss", "moves agreed",
                 "targets agreed"):
        t.add_column(name, justify="left" if name == "bot" else "right")
    for r in report.scores.iter_rows(named=True):
        t.add_row(r["bot"], str(r["games"]), _fmt(r["brier"], ".3f"),
                  f"{_fmt(r['brier_min'], '.3f')} to {_fmt(r['brier_max'], '.3f')}", _fmt(r["log_loss"], ".3f"),
                  _agree(r["moves_agreed"], r["moves"]), _agree(r["targets_agreed"], r["targets"]))
    out.print(t)
    out.print(report.caveat, highlight=False, soft_wrap=True)


def _calibrate_panel(bot: str, games: int, seed: int, workers: int, db: Path | None, only: str | None) -> None:
    """``pmim calibrate`` (``--panel``): run the panel and print its table, best member and sentences."""
    import polars as pl

    from pmim_analytics.botlab.panel import run_panel

    with _progress() as bar:
        task = bar.add_task("panel", total=None)
        report = run_panel(bot, None, games, seed, workers, db, only,
                           lambda done, total: bar.update(task, completed=done, total=total))
    f = report.forecasts
    if f.height == 0:
        out.print("The database holds no manual games to calibrate against; log a match with `pmim log` and "
                  "`pmim ingest` it.", highlight=False)
        return
    labels = list(f["label"].unique(maintain_order=True))
    t = Table(title=f"Panel of players: {bot} at two skills (blue's player vs red's) and readings, {games} games "
                    "per logged game and member; each game column is the share of simulated games ending as "
                    "the table game did", title_justify="left")
    for name in ("member", "skill", "readings", *labels, "log10 likelihood", "vs best", "flagged"):
        t.add_column(name, justify="left" if name in ("member", "readings") else "right")
    for r in report.per_member.iter_rows(named=True):
        cells = []
        for label in labels:
            row = f.filter((pl.col("member") == r["member"]) & (pl.col("label") == label)).row(0, named=True)
            cells.append(f"{row['k']}/{row['n']} [{row['lo']:.0%}, {row['hi']:.0%}]")
        t.add_row(r["member"], r["skills"], r["readings"], *cells, f"{r['log10_likelihood']:.2f}",
                  f"{r['relative']:.2f}", str(r["flagged"]) if r["flagged"] else "-")
    out.print(t)
    if report.best is not None:
        out.print(f"Best explains the logged games: {report.best.name} ({report.best.describe()}).",
                  highlight=False, soft_wrap=True)
    for line in report.sentences:
        out.print(line, highlight=False, soft_wrap=True)
    out.print(report.caveat, highlight=False, soft_wrap=True)


def _agree(k: int | None, n: int | None) -> str:
    if not n or k is None:
        return "-"
    return f"{k}/{n} ({k / n:.0%})"
