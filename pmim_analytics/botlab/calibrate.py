"""Calibration of the bots against games logged at a table (``pmim calibrate``).

For every manual game in the database, the same two armies are simulated under the same
rules and scenario with each bot playing both sides (army A = the logged blue army, blue
in even games and red in odd ones, so the first-player edge cancels: which side a table
game's army was on is often our convention). A bot's **forecast** for the logged game is
the share of the blue army's simulated wins, smoothed (wins + ½ draws + 1) / (games + 2)
so it is never exactly 0 or 1. The forecasts are graded against the real results with the
Brier score and log loss (:func:`~pmim_analytics.analytics.ratings.forecast_scores`).
Detailed logs also give decision agreement (:mod:`pmim_analytics.replay.agreement`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pmim_analytics.analytics.ratings import forecast_scores, smoothed_share
from pmim_analytics.engine.agreement import Agreement, decision_agreement
from pmim_analytics.engine.driver import make_header
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.errors import InvalidArmyError, PmimError
from pmim_analytics.limits import check_calibrate_games
from pmim_analytics.model.record import GameRecord
from pmim_analytics.rules.army import ArmyEntry, ArmyList, Roster, RosterUnit, validate_army
from pmim_analytics.sim.batch import BatchSpec
from pmim_analytics.sim.runner import run_batch
from pmim_analytics.store.games import read_stored_game
from pmim_analytics.store.ladder import read_manual_games


def roster_from_units(units: pl.DataFrame, side: str, name: str, rules_id: str, scenario: str) -> Roster:
    """A side's roster rebuilt from its stored unit rows (ids kept, mounts from the army rules).

    Raises :class:`PmimError` when the stored army is not legal under its rules.
    """
    rows = units.filter(pl.col("side") == side).sort("unit_id").to_dicts()
    army = ArmyList(name=name, rules=rules_id, units=tuple(
        ArmyEntry(type=r["code"], weapons=tuple(r["weapons"].split())) for r in rows))
    try:
        legal = validate_army(army, rules_id, scenario)
    except InvalidArmyError as e:
        raise PmimError(f"the {side} army of a logged game is not legal under {rules_id}: "
                        + "; ".join(e.violations)) from None
    pool = list(legal.units)
    out = []
    for r in rows:
        weapons = tuple(r["weapons"].split())
        k = next(i for i, u in enumerate(pool) if u.code == r["code"] and u.weapons == weapons)
        u = pool.pop(k)
        out.append(RosterUnit(id=r["unit_id"][2:], code=u.code, type=u.type, kind=u.kind, weapons=u.weapons,
                              mounts=u.mounts, pts=u.pts, entry=u.entry))
    return Roster(name, rules_id, tuple(out))


@dataclass(frozen=True)
class CalibrationReport:
    """What ``pmim calibrate`` prints: forecasts per game and bot, scores per bot, the caveat."""

    bots: tuple[str, ...]
    forecasts: pl.DataFrame  # bot, game_id, p, outcome
    per_game: pl.DataFrame   # label, rules_id, blue, red, result, one column per bot
    scores: pl.DataFrame     # bot, games, brier, log_loss, brier_min, brier_max, moves.., targets..
    caveat: str


def _seed(seed: int, *parts: object) -> int:
    return int(hashlib.sha256(":".join(str(p) for p in (seed, *parts)).encode()).hexdigest()[:12], 16)


def caveat_text(n: int, games: int) -> str:
    """How much ``n`` logged games, each forecast from ``games`` simulations, can prove."""
    sim = 1.96 * math.sqrt(0.25 / games)
    if n == 0:
        return "No logged games: nothing to calibrate against."
    terms = "a single term, anywhere" if n == 1 else f"the mean of {n} terms, each anywhere"
    return (f"{n} logged game{'s' if n != 1 else ''}: a Brier score is {terms} "
            f"between 0 and 1, so one more game can move it by up to {1 / (n + 1):.2f}; the range of single-game "
            "terms above is all the data bound. Telling a bot that scores 0.20 from one that scores 0.25 takes "
            "on the order of a hundred logged games. Each forecast itself is uncertain by up to "
            f"±{sim:.0%} from its {games} simulated games. Read these figures as a sanity check (is any bot "
            "confidently wrong about a real game?), not as a ranking; they sharpen as more games are logged.")


def calibrate(bots: Sequence[str], games: int = 40, seed: int = 0, workers: int = 1, db: str | Path | None = None,
              progress: Callable[[int, int], None] | None = None, only: str | None = None) -> CalibrationReport:
    """Simulate every manual game's armies with each bot and grade the forecasts (see the module).

    ``only`` keeps the games whose log file name contains it. Raises :class:`PmimError` for
    fewer than 2 games, and :class:`StoreError` without a database.
    """
    check_calibrate_games(games)
    manual, units = read_manual_games(db)
    if only:
        manual = manual.filter(pl.col("file").fill_null("").str.split("/").list.last().str.contains(only, literal=True))
    total = manual.height * len(bots) * games
    done = 0
    rows = []
    agreement = {b: Agreement() for b in bots}
    for g in manual.iter_rows(named=True):
        gunits = units.filter(pl.col("game_id") == g["game_id"])
        blue = roster_from_units(gunits, "blue", g["blue"], g["rules_id"], g["scenario"])
        red = roster_from_units(gunits, "red", g["red"], g["rules_id"], g["scenario"])
        outcome = 1.0 if g["winner"] == "blue" else 0.0 if g["winner"] == "red" else 0.5
        for bot in bots:
            batch = BatchSpec(g["rules_id"], g["scenario"], blue, red, bot, bot, _seed(seed, g["game_id"], bot), games,
                              name=f"calibrate:{g['game_id']}", played="calibration")
            base = done

            def step(n: int, _t: int, base: int = base) -> None:
                if progress:
                    progress(base + n, total)

            summary = run_batch(batch, workers=workers, progress_callback=step)
            done += games
            rows.append({"bot": bot, "game_id": g["game_id"], "wins": summary.wins_a, "draws": summary.draws,
                         "games": summary.games, "outcome": outcome})
        if g["n_events"] and g["n_events"] > 2:
            stored = read_stored_game(g["game_id"], db)
            spec = GameSpec.create(g["rules_id"], g["scenario"], blue, red)
            header = make_header(spec, (None, None), None, None, None, g["played"], list(stored.events),
                                 source="manual")
            for bot, counts in decision_agreement(GameRecord(header, stored.events), bots, seed).items():
                agreement[bot].add(counts)
    schema = {"bot": pl.String, "game_id": pl.String, "wins": pl.Int64, "draws": pl.Int64, "games": pl.Int64,
              "outcome": pl.Float64}
    sims = pl.DataFrame(rows, schema=schema)
    forecasts = sims.with_columns(p=smoothed_share(pl.col("wins"), pl.col("draws"), pl.col("games")))
    scores = forecast_scores(forecasts.select("bot", "p", "outcome"))
    agree = pl.DataFrame([{"bot": b, "moves": a.moves, "moves_agreed": a.moves_agreed, "targets": a.targets,
                           "targets_agreed": a.targets_agreed} for b, a in agreement.items()],
                         schema={"bot": pl.String, "moves": pl.Int64, "moves_agreed": pl.Int64,
                                 "targets": pl.Int64, "targets_agreed": pl.Int64})
    scores = scores.join(agree, on="bot", how="left") if scores.height else scores
    labels = manual.select(
        "game_id", "rules_id", "blue", "red",
        label=pl.col("file").str.split("/").list.last().fill_null(pl.col("game_id")),
        result=pl.when(pl.col("winner").is_null()).then(pl.lit("draw"))
        .otherwise(pl.col("winner") + pl.lit(" won")
                   + (pl.lit(" ") + pl.col("blue_vp").cast(pl.String) + pl.lit("-") + pl.col("red_vp").cast(pl.String)
                      + pl.when(pl.col("vp_estimated")).then(pl.lit(" (estimated)")).otherwise(pl.lit("")))
                   .fill_null("")))
    wide = forecasts.select("game_id", "bot", "p").pivot(on="bot", index="game_id", values="p") if rows else None
    per_game = labels.join(wide, on="game_id", how="left") if wide is not None else labels
    caveat = caveat_text(manual.height, games)
    if manual.height and not any(a.moves or a.targets for a in agreement.values()):
        caveat += (" None of these logs records moves and targets, so decision agreement cannot be measured; "
                   "log a match in the detailed notation (docs/manual-logs.md) to get it.")
    return CalibrationReport(tuple(bots), forecasts.select("bot", "game_id", "p", "outcome"), per_game, scores,
                             caveat)
