"""Calibration from a panel of players (``pmim calibrate --panel``, issue #29).

A single bot forecasts a table game as if both players played flawlessly, under one
reading of the rules. A **panel member** is a way the table might have played instead: a
skill for each army's player (the bot's ``skill`` setting, 1 = flawless) and a set of
readings in doubt (:mod:`pmim_analytics.rules.readings`). For every logged game and every
member, the logged armies are simulated under the member's readings with its skills
(army A = the logged blue army, blue in even games, red in odd ones; every member plays
the same dice seeds, so members differ only by what they change).

Per member the panel reports the **likelihood** of the logged results: the product over
the logged games of the smoothed chance of what happened ((k + 1) / (n + 2) for k games of
n ending as the table game did, a draw counting half for either side). The member with the
highest likelihood is the skill and reading that best explains the table; two games say
little, and the report says so. Per game it gives one sentence: the member under which
the logged result is likeliest, and how likely. A result whose upper 95% Wilson limit is
below 5% at **every** member is flagged as a question for the designer (a reading, the
list, or the dice), not a balance signal.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pmim_analytics.botlab.calibrate import roster_from_units
from pmim_analytics.engine.bots.skill import SkillCounter
from pmim_analytics.engine.driver import game_departures
from pmim_analytics.engine.spec import GameSpec
from pmim_analytics.errors import InvalidArmyError, PmimError
from pmim_analytics.limits import check_calibrate_games
from pmim_analytics.rules.army import ArmyList, Roster, build_roster, load_army, validate_army, with_weapon_option
from pmim_analytics.rules.catalogue import data_dir
from pmim_analytics.rules.readings import AS_WRITTEN, Readings
from pmim_analytics.sim.backends import open_backend
from pmim_analytics.sim.base import Backend
from pmim_analytics.sim.batch import BatchSpec, wilson_interval
from pmim_analytics.sim.runner import run_batch
from pmim_analytics.store.ladder import read_manual_games

#: The readings the designer's post suggests, all together: the other objective parity,
#: 10 VP to win, a hit must beat DEF, and the Balanced list's contradicted weapons replaced.
POST_READINGS = Readings(objective_rows="6/7", vp_to_win=10, hit="beat", weapons="alt1")
#: Skill pairs of the default panel: (the logged blue army's player, the red army's player).
DEFAULT_SKILLS: tuple[tuple[float, float], ...] = ((1.0, 1.0), (1.0, 0.75), (0.75, 1.0), (0.75, 0.75), (1.0, 0.5))
#: Below this upper Wilson limit a logged result counts as ruled out by a member.
FLAG_LIMIT = 0.05


@dataclass(frozen=True)
class Member:
    """One panel member: the skill of each logged army's player and the readings."""

    name: str
    skills: tuple[float, float]
    readings: Readings

    def bot_specs(self, bot: str) -> tuple[str, str]:
        """The bot specs of the blue army's and the red army's player (``bot`` at each skill)."""
        return with_skill(bot, self.skills[0]), with_skill(bot, self.skills[1])

    def describe(self) -> str:
        """``skill 1 vs 0.75, readings as written``."""
        return f"skill {_num(self.skills[0])} vs {_num(self.skills[1])}, readings {self.readings.label()}"


def _num(x: float) -> str:
    return f"{x:g}"


def with_skill(bot: str, skill: float) -> str:
    """``bot`` at ``skill`` as a bot spec (``search:skill=0.75``); skill 1 is the bot itself."""
    if skill >= 1:
        return bot
    return f"{bot}{',' if ':' in bot else ':'}skill={_num(skill)}"


def default_panel(skills: Sequence[tuple[float, float]] = DEFAULT_SKILLS,
                  readings: Sequence[Readings] = (AS_WRITTEN, POST_READINGS)) -> tuple[Member, ...]:
    """The panel: every skill pair under every set of readings, named M1, M2, ..."""
    members = [(s, r) for r in readings for s in skills]
    return tuple(Member(f"M{k}", s, r) for k, (s, r) in enumerate(members, 1))


def army_file_for(roster: Roster, rules_id: str) -> ArmyList | None:
    """The army list in ``data/armies`` that fields exactly ``roster``'s units (its list
    key), so its uncertain weapons are known; ``None`` when no file does."""
    key = roster.list_key()
    for path in sorted((data_dir() / "armies").glob("*.yaml")):
        try:
            army = load_army(path)
        except PmimError:
            continue
        if army.rules == rules_id and build_roster(army, rules_id).list_key() == key:
            return army
    return None


def roster_under(roster: Roster, army: ArmyList | None, weapons: str | None, scenario: str) -> Roster:
    """``roster`` with its uncertain weapons read as ``weapons`` (unchanged without an army
    file or a weapons reading). Raises :class:`PmimError` for an illegal alternative."""
    if army is None or weapons in (None, "listed") or not any(e.weapon_options for e in army.units):
        return roster
    try:
        return validate_army(with_weapon_option(army, weapons), roster.rules_id, scenario)
    except InvalidArmyError as e:
        raise PmimError(f"the weapons={weapons} alternative of {army.name} is not legal: "
                        + "; ".join(e.violations)) from None


@dataclass(frozen=True)
class PanelReport:
    """What ``pmim calibrate --panel`` prints."""

    bot: str
    games: int
    members: tuple[Member, ...]
    #: member, game_id, label, observed (blue/red/draw), k (games ending as logged), n,
    #: p (smoothed chance of the logged result), lo, hi (its Wilson interval), share_blue
    forecasts: pl.DataFrame
    #: member, skills, readings, log10_likelihood, relative (likelihood / the best one's), flagged
    per_member: pl.DataFrame
    best: Member | None
    sentences: tuple[str, ...]
    caveat: str


def _seed(seed: int, *parts: object) -> int:
    return int(hashlib.sha256(":".join(str(p) for p in (seed, *parts)).encode()).hexdigest()[:12], 16)


def _observed(winner: str | None) -> str:
    return winner if winner in ("blue", "red") else "draw"


def departure_rate(spec: GameSpec, bots: tuple[str, str], side: int, seed: int, games: int) -> SkillCounter:
    """Activations and departures from its own choice of the skill bot on ``side`` (0 blue, 1
    red) over ``games`` games of ``spec`` with ``bots`` (blue's, red's), seeded like a batch."""
    total = SkillCounter()
    for i in range(games):
        total.add(game_departures(spec, bots, side, seed, i))
    return total


def misplay_words(counter: SkillCounter, skill: float) -> str:
    """``skill 0.75, misplaying about 1 activation in 3``, from the misplay count: a departure
    from the bot's own choice that costs at least ``MISPLAY`` VP by its evaluation (departures
    that swap moves worth the same are not misplays)."""
    if counter.misplays == 0:
        return f"skill {_num(skill)} (no misplay seen in {counter.activations} activations)"
    rate = counter.misplay_rate
    if rate > 0.5:
        return f"skill {_num(skill)}, misplaying about {round(10 * rate)} activations in 10"
    return f"skill {_num(skill)}, misplaying about 1 activation in {round(1 / rate)}"


def run_panel(bot: str = "search", members: Sequence[Member] | None = None, games: int = 40, seed: int = 0,
              workers: int = 1, db: str | Path | None = None, only: str | None = None,
              progress: Callable[[int, int], None] | None = None, rate_games: int = 4) -> PanelReport:
    """Forecast every manual game from every panel member and score the members (see the module).

    The sentences word a skill below 1 by how often it departs from the bot's own choice,
    counted over ``rate_games`` games of the member that explains the game best.
    Raises :class:`PmimError` for fewer than 2 games or more than ``MAX_CALIBRATE_GAMES`` and
    :class:`StoreError` without a database.
    """
    check_calibrate_games(games, 'panel member')
    members = tuple(members) if members is not None else default_panel()
    manual, units = read_manual_games(db)
    if only:
        manual = manual.filter(pl.col("file").fill_null("").str.split("/").list.last().str.contains(only, literal=True))
    total, done = manual.height * len(members) * games, 0
    rows: list[dict[str, Any]] = []
    specs: dict[tuple[str, str], tuple[GameSpec, tuple[str, str]]] = {}  # (game, member) -> spec, bots
    with open_backend("local", workers) as pool:
        for g in manual.iter_rows(named=True):
            done = _forecast_game(g, units, members, bot, games, seed, pool, workers, rows, specs, done, total,
                                  progress)
    schema = {"member": pl.String, "game_id": pl.String, "label": pl.String, "blue": pl.String, "red": pl.String,
              "observed": pl.String, "k": pl.Int64, "n": pl.Int64, "p": pl.Float64, "lo": pl.Float64,
              "hi": pl.Float64, "share_blue": pl.Float64}
    forecasts = pl.DataFrame(rows, schema=schema)
    per_member, best = _score_members(members, forecasts)
    by_name = {m.name: m for m in members}

    def describe(game_id: str, member: str, side: int) -> str:
        spec, bots = specs[(game_id, member)]
        counted = departure_rate(spec, bots, side, _seed(seed, game_id), rate_games)
        return misplay_words(counted, by_name[member].skills[side])

    sentences = tuple(_game_sentences(members, forecasts, describe))
    return PanelReport(bot, games, members, forecasts, per_member, best, sentences,
                       panel_caveat(manual.height, games))


def _forecast_game(g: dict[str, Any], units: pl.DataFrame, members: Sequence[Member], bot: str, games: int,
                   seed: int, pool: Backend | None, workers: int, rows: list[dict[str, Any]],
                   specs: dict[tuple[str, str], tuple[GameSpec, tuple[str, str]]], done: int, total: int,
                   progress: Callable[[int, int], None] | None) -> int:
    """Simulate logged game ``g`` for every member; append its rows; return the games done."""
    gunits = units.filter(pl.col("game_id") == g["game_id"])
    logged = {side: roster_from_units(gunits, side, g[side], g["rules_id"], g["scenario"])
              for side in ("blue", "red")}
    files = {side: army_file_for(r, g["rules_id"]) for side, r in logged.items()}
    label = (g["file"] or g["game_id"]).split("/")[-1].removesuffix(".pmimlog")
    observed = _observed(g["winner"])
    for m in members:
        blue, red = (roster_under(logged[s], files[s], m.readings.weapons, g["scenario"]) for s in ("blue", "red"))
        bots = m.bot_specs(bot)
        readings = m.readings if m.readings.settings() else None
        batch = BatchSpec(g["rules_id"], g["scenario"], blue, red, bots[0], bots[1], _seed(seed, g["game_id"]),
                          games, name=f"panel:{g['game_id']}:{m.name}", played="calibration", readings=readings)
        specs[(g["game_id"], m.name)] = (GameSpec.create(g["rules_id"], g["scenario"], blue, red,
                                                         readings=readings), bots)
        base = done

        def step(n: int, _t: int, base: int = base) -> None:
            if progress:
                progress(base + n, total)

        s = run_batch(batch, workers=workers, progress_callback=step, part_size=max(1, -(-games // workers)),
                      backend=pool)
        done += games
        k = {"blue": s.wins_a, "red": s.wins_b, "draw": s.draws}[observed]
        half = 0.0 if observed == "draw" else 0.5 * s.draws
        lo, hi = wilson_interval(k, s.games)
        rows.append({"member": m.name, "game_id": g["game_id"], "label": label, "blue": g["blue"],
                     "red": g["red"], "observed": observed, "k": k, "n": s.games,
                     "p": (k + half + 1.0) / (s.games + 2.0), "lo": lo, "hi": hi,
                     "share_blue": (s.wins_a + 0.5 * s.draws) / s.games})
    return done


def _score_members(members: Sequence[Member], forecasts: pl.DataFrame) -> tuple[pl.DataFrame, Member | None]:
    by_name = {m.name: m for m in members}
    out = []
    for m in members:
        mine = forecasts.filter(pl.col("member") == m.name)
        log10 = float(sum(math.log10(p) for p in mine["p"])) if mine.height else 0.0
        out.append({"member": m.name, "skills": f"{_num(m.skills[0])} vs {_num(m.skills[1])}",
                    "readings": m.readings.label(), "log10_likelihood": log10,
                    "flagged": int((mine["hi"] < FLAG_LIMIT).sum()) if mine.height else 0})
    frame = pl.DataFrame(out, schema={"member": pl.String, "skills": pl.String, "readings": pl.String,
                                      "log10_likelihood": pl.Float64, "flagged": pl.Int64})
    if not forecasts.height:
        return frame.with_columns(relative=pl.lit(None, pl.Float64)), None
    top = float(frame.select(pl.col("log10_likelihood").max()).item())
    frame = frame.with_columns(relative=10 ** (pl.col("log10_likelihood") - top))
    best_name = frame.sort("log10_likelihood", descending=True, maintain_order=True)["member"][0]
    return frame, by_name[best_name]


def _who(m: Member, blue: str, red: str, describe_side: Callable[[int], str]) -> str:
    """How the member's players play, in words: ``Heavy at skill 0.75, misplaying ...``."""
    parts = [f"{name} plays at {describe_side(side)}"
             for side, (name, s) in enumerate(((blue, m.skills[0]), (red, m.skills[1]))) if s < 1]
    if not parts:
        return "both players play flawlessly (skill 1)"
    return " and ".join(parts) + (", the other flawlessly" if len(parts) == 1 else "")


def _game_sentences(members: Sequence[Member], forecasts: pl.DataFrame,
                    describe: Callable[[str, str, int], str]) -> list[str]:
    by_name = {m.name: m for m in members}
    out = []
    for gid in forecasts["game_id"].unique(maintain_order=True):
        rows = forecasts.filter(pl.col("game_id") == gid)
        first = rows.row(0, named=True)
        obs = first["observed"]
        what = "a draw" if obs == "draw" else f"{first[obs]} wins"
        top = rows.sort("p", descending=True, maintain_order=True).row(0, named=True)
        m = by_name[top["member"]]
        who = _who(m, first["blue"], first["red"], functools.partial(describe, str(gid), m.name))
        text = (f"{first['label']}: {what} {top['k'] / top['n']:.0%} [{top['lo']:.0%}, {top['hi']:.0%}] of "
                f"{top['n']} games if {who}, readings {m.readings.label()} ({m.name}, the likeliest member "
                "for this game).")
        if bool((rows["hi"] < FLAG_LIMIT).all()):
            text += (f" Every member rates it under {FLAG_LIMIT:.0%} (upper 95% limit): a question for the "
                     "designer (a reading, the list, or the dice), not a balance signal.")
        else:
            lowest = rows.sort("hi").row(0, named=True)
            text += (f" No member rules it out (the lowest upper 95% limit is {lowest['hi']:.0%}, "
                     f"{lowest['member']}).")
        out.append(text)
    return out


def zero_of_n_upper(n: int) -> float:
    """The upper 95% Wilson limit of 0 successes in ``n``: the least a forecast from ``n``
    games can rule out."""
    return wilson_interval(0, n)[1]


def panel_caveat(n_logged: int, games: int) -> str:
    """How much the panel can say from ``n_logged`` games with ``games`` simulations each."""
    if n_logged == 0:
        return "No logged games: nothing to calibrate against."
    need = next(k for k in range(2, 100_000) if zero_of_n_upper(k) < FLAG_LIMIT)
    return (f"{n_logged} logged game{'s' if n_logged != 1 else ''}: the likelihood of so few results separates "
            "members only when one of them makes a logged result nearly impossible, so read the best member as "
            "the skill and reading that fit the table best among those tried, not as a measurement. Each "
            f"forecast rests on {games} simulated games; a result none of them produced still has an upper "
            f"95% limit of {zero_of_n_upper(games):.0%}, so the under-{FLAG_LIMIT:.0%} flag needs at least "
            f"{need} games per forecast (--games).")


__all__ = ["DEFAULT_SKILLS", "FLAG_LIMIT", "POST_READINGS", "Member", "PanelReport", "army_file_for",
           "default_panel", "departure_rate", "misplay_words", "panel_caveat", "roster_under", "run_panel",
           "with_skill", "zero_of_n_upper"]
