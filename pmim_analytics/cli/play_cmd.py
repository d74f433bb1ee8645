"""``pmim play``, ``pmim simulate`` and ``pmim replay verify|show``: engine games and their replays."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.table import Table

from pmim_analytics.cli._common import err, guarded, out
from pmim_analytics.engine.bots import bot_names, check_bot_name
from pmim_analytics.engine.driver import play_game
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.errors import InvalidArmyError, PmimError, display_path
from pmim_analytics.limits import MAX_WORKERS
from pmim_analytics.model.events import GameEnd
from pmim_analytics.replay.format import write_game
from pmim_analytics.rules import DEFAULT_SCENARIO, load_army, load_rules, validate_army
from pmim_analytics.rules.army import Roster, with_weapon_option
from pmim_analytics.rules.readings import READINGS_HELP, parse_readings
from pmim_analytics.sim import FIRST_PLAYER_HELP
from pmim_analytics.sim.backends import open_backend
from pmim_analytics.sim.batch import BatchSpec, BatchSummary, wilson_interval
from pmim_analytics.sim.runner import check_batch, check_out_folder

_BOT_HELP = (f"Bot for this side: {', '.join(bot_names())}, with settings after a colon, "
             "e.g. search:budget=400 or search:budget=800,persona=aggressive.")


def load_side(path: Path, rules: str | None, scenario: str, weapons: str | None = None) -> Roster:
    """Load and validate an army list, its uncertain weapons read as ``weapons`` (the
    ``weapons`` reading); an illegal army is bad input here (exit 2).

    Raises :class:`PmimError` naming the file and every violation.
    """
    army = with_weapon_option(load_army(path), weapons)
    rules_id = rules or army.rules
    load_rules(rules_id)
    try:
        return validate_army(army, rules_id, scenario, source=display_path(path))
    except InvalidArmyError as e:
        raise PmimError(f"the army is not legal under {rules_id}: " + "; ".join(e.violations),
                        e.where) from None


def _result_line(winner: str | None, reason: str, rounds: int | None, blue_vp: int | None, red_vp: int | None) -> str:
    what = f"{winner} wins ({reason})" if winner else f"draw ({reason})"
    return f"{what} after {rounds} rounds, VP blue {blue_vp} - red {red_vp}"


_FIRST_HELP = f"{FIRST_PLAYER_HELP} Default: the scenario's setting."


@guarded
def play(
    rules: str | None = typer.Option(None, "--rules", help="Rules id (default: the blue army's own)."),
    blue: Path = typer.Option(..., "--blue", help="Blue army list (YAML)."),
    red: Path = typer.Option(..., "--red", help="Red army list (YAML)."),
    blue_bot: str = typer.Option("greedy", "--blue-bot", help=_BOT_HELP),
    red_bot: str = typer.Option("greedy", "--red-bot", help=_BOT_HELP),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed: the same seed plays the same game."),
    scenario: str = typer.Option(DEFAULT_SCENARIO, "--scenario", help="Scenario id."),
    first_player: str | None = typer.Option(None, "--first-player", help=_FIRST_HELP),
    out_file: Path | None = typer.Option(None, "--out", help="Write the replay (JSON Lines) here."),
    reading: list[str] | None = typer.Option(None, "--reading", help=READINGS_HELP),
    ingest: bool = typer.Option(False, "--ingest", help="Then ingest the replays written to --out into --db."),
    db: Path | None = typer.Option(None, "--db", help="Database for --ingest (default: $PMIM_DB or "
                                   "data/pmim.duckdb)."),
) -> None:
    """Play one bot-vs-bot game, print the result and optionally write its replay.

    The game equals game 0 of `pmim simulate` with the same seed, armies and bots.
    Exit 2 for an unreadable or illegal army, an unknown rules id or bot.

    Example: pmim play --blue data/armies/v3-balanced.yaml --red data/armies/v3-tank-heavy.yaml --seed 7

    Example: pmim play --blue data/armies/v3-balanced.yaml --red data/armies/v3-tank-heavy.yaml --first-player random

    Example: pmim play --blue data/armies/v3-balanced.yaml --red data/armies/v3-mech-heavy.yaml --reading hit=beat
    """
    blue_bot = check_bot_name(blue_bot)
    red_bot = check_bot_name(red_bot)
    readings = parse_readings(reading)
    blue_roster = load_side(blue, rules, scenario, readings.weapons)
    rules_id = rules or blue_roster.rules_id
    red_roster = load_side(red, rules_id, scenario, readings.weapons)
    spec = GameSpec.create(rules_id, scenario, blue_roster, red_roster, first_player, readings=readings)
    record = play_game(spec, blue_bot, red_bot, seed, 0)
    end = record.events[-1]
    assert isinstance(end, GameEnd)  # a played game ends with its game_end event
    out.print(_result_line(end.winner, end.reason, end.rounds, end.blue_vp, end.red_vp),
              highlight=False)
    out.print(f"game {record.header.game_id}: {blue_roster.name} ({blue_bot}) vs {red_roster.name} ({red_bot}), "
              f"rules {rules_id}, seed {seed}, {len(record.events)} events"
              + (f", readings {spec.readings.label()}" if spec.readings.settings() else ""), highlight=False)
    if out_file is not None:
        write_game(record, out_file)
        err.print(f"replay written to {display_path(out_file)}", highlight=False)


def _summary_table(summary: BatchSummary, name_a: str, name_b: str, bot_a: str, bot_b: str) -> Table:
    n = summary.games
    t = Table(title=f"{n} games (army A plays blue in even games, red in odd games)")
    for col in ("army", "bot", "wins", "win rate", "95% interval"):
        t.add_column(col)
    for label, name, bot, wins in (("A", name_a, bot_a, summary.wins_a), ("B", name_b, bot_b, summary.wins_b)):
        lo, hi = wilson_interval(wins, n)
        t.add_row(f"{label}: {name}", bot, str(wins), f"{wins / n:.1%}", f"{lo:.1%} - {hi:.1%}")
    lo, hi = wilson_interval(summary.draws, n)
    t.add_row("draws", "", str(summary.draws), f"{summary.draws / n:.1%}", f"{lo:.1%} - {hi:.1%}")
    return t


@guarded
def simulate(
    rules: str | None = typer.Option(None, "--rules", help="Rules id (default: the blue army's own)."),
    blue: Path = typer.Option(..., "--blue", help="Army A (blue in even games)."),
    red: Path = typer.Option(..., "--red", help="Army B (red in even games)."),
    games: int = typer.Option(100, "--games", min=1, help="Number of games."),
    seed: int = typer.Option(0, "--seed", min=0, help="Batch seed: same seed, same games, whatever --workers."),
    workers: int = typer.Option(min(os.cpu_count() or 1, MAX_WORKERS), "--workers", min=1, max=MAX_WORKERS,
                                help="Worker processes."),
    out_dir: Path | None = typer.Option(None, "--out", help="Folder for the replays (omit to write nothing)."),
    allow_existing: bool = typer.Option(False, "--allow-existing", help="Write into a --out folder that already "
                                        "holds replays (only the files this run writes are signed)."),
    fmt: str | None = typer.Option(None, "--format", help="jsonl (a file a game) or parquet; "
                                   "default parquet from 200 games on."),
    blue_bot: str = typer.Option("greedy", "--blue-bot", help="Bot of army A. " + _BOT_HELP),
    red_bot: str = typer.Option("greedy", "--red-bot", help="Bot of army B. " + _BOT_HELP),
    scenario: str = typer.Option(DEFAULT_SCENARIO, "--scenario", help="Scenario id."),
    first_player: str | None = typer.Option(None, "--first-player", help=_FIRST_HELP),
    backend: str = typer.Option("local", "--backend", help="local (process pool) or ray."),
    address: str | None = typer.Option(None, "--address", help="Ray cluster: auto or ray://host:port "
                                       "(default: start a local Ray instance with --workers CPUs)."),
    reading: list[str] | None = typer.Option(None, "--reading", help=READINGS_HELP),
    ingest: bool = typer.Option(False, "--ingest", help="Then ingest the replays written to --out into --db."),
    db: Path | None = typer.Option(None, "--db", help="Database for --ingest (default: $PMIM_DB or "
                                   "data/pmim.duckdb)."),
) -> None:
    """Play a batch of games on all cores and print win rates with 95% (Wilson) intervals.

    Sides swap every other game (each army keeps its bot). The same seed gives the same
    games whatever --workers and --backend. Ctrl-C stops cleanly: finished parts stay, no
    half-written file is left. The files written are signed (DIR/pmim-signed.json, with
    this installation's key), so `pmim ingest --trust-own` may skip their rules check; a
    folder that already holds replays is refused unless --allow-existing, and even then only
    the files this run wrote are signed. With --ingest the games are then loaded into the
    database (as `pmim ingest OUT` would).
    Exit 2 for bad input, 1 when the ingest rejected a game.

    Example: pmim simulate --blue data/armies/v3-balanced.yaml --red data/armies/v3-tank-heavy.yaml --games 1000

    Example: pmim simulate --blue data/armies/v3-balanced.yaml --red data/armies/v3-mech-heavy.yaml --reading hit=beat
    """
    if ingest and out_dir is None:
        raise PmimError("--ingest needs --out: the folder the replays are written to and ingested from")
    if db is not None and not ingest:
        raise PmimError("--db is the database of --ingest: add --ingest, or leave --db out")
    blue_bot = check_bot_name(blue_bot)
    red_bot = check_bot_name(red_bot)
    if out_dir is not None:
        check_out_folder(out_dir, allow_existing)
    fmt = fmt or ("parquet" if games >= 200 else "jsonl")
    if fmt not in ("jsonl", "parquet"):
        raise PmimError(f"unknown format {fmt!r}; choose jsonl or parquet")
    readings = parse_readings(reading)
    army_a = load_side(blue, rules, scenario, readings.weapons)
    rules_id = rules or army_a.rules_id
    army_b = load_side(red, rules_id, scenario, readings.weapons)
    # an unknown setting or reading fails here, exit 2
    GameSpec.create(rules_id, scenario, army_a, army_b, first_player, readings=readings)
    batch = BatchSpec(rules_id, scenario, army_a, army_b, blue_bot, red_bot, seed, games,
                      name=out_dir.resolve().name if out_dir is not None else None, first_player=first_player,
                      readings=readings if readings.settings() else None)
    check_batch(batch, fmt)  # counts and bots, before the store and the progress bar load
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from pmim_analytics.pipeline import SimRun, simulate_and_ingest
    from pmim_analytics.store.connection import resolve_db_path

    with open_backend(backend, workers, address) as runner, \
            Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                     console=err, transient=True, auto_refresh=False) as progress:
        task = progress.add_task("games", total=games)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done)
            progress.refresh()

        def ingesting() -> None:
            progress.update(task, description="ingesting")
            progress.refresh()

        # what this run wrote is signed, and only that: `pmim ingest --trust-own` may skip its check
        done = simulate_and_ingest([SimRun(batch, out_dir)], db, ingest=ingest, workers=workers, backend=runner,
                                   fmt=fmt, progress=lambda _, played, total: advance(played, total),
                                   sign=out_dir is not None, keep_outcomes=False, before_ingest=ingesting)
    summary = done.summaries[0]
    assert summary is not None
    out.print(_summary_table(summary, army_a.name, army_b.name, blue_bot, red_bot))
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(summary.reasons.items()))
    out.print(f"mean rounds {summary.mean_rounds:.2f}; game ends: {reasons}", highlight=False)
    if readings.settings():
        out.print(f"readings: {readings.label()}", highlight=False)
    if out_dir is not None:
        err.print(f"{games} games written to {display_path(out_dir)} ({fmt})", highlight=False)
    if done.ingest is not None:
        assert out_dir is not None
        for r in done.ingest.rejected:
            err.print(f"[bold red]rejected:[/] {r.render()}", highlight=False, soft_wrap=True)
        out.print(done.ingest.summary() + f" into {resolve_db_path(db)}", highlight=False, soft_wrap=True)
        if done.ingest.interrupted:
            err.print("[yellow]interrupted:[/] the ingest's batch in flight was rolled back; run "
                      f"`pmim ingest {display_path(out_dir)}` to finish")
            raise typer.Exit(130)
        if not done.ingest.ok:
            raise typer.Exit(1)
