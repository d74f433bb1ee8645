"""Bot levels: which player strength a figure rests on, one level per figure, never pooled.

A game is *at a level* when both sides were played at it. A level is keyed by the bot's
canonical behaviour (:func:`~pmim_analytics.engine.bots.spec.canonical_bot_key`): specs
that play identical games (``search:budget=0`` and ``search:budget=0,persona=balanced``)
are one level. Games with no bot on either side (table play) are the level ``human``; a
game whose sides played at different levels (a ladder pairing) is ``mixed`` and at no level.

Results at different levels answer different questions (how lists fare under random play,
under a scripted tactician, under search), so pooling them mixes the answers in whatever
proportions the database happens to hold. Every report therefore computes on one level:
the one asked for (``--bot``), else the one :func:`choose_bot_level` picks, the strongest
level with enough games under every rules id compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import polars as pl

from pmim_analytics.engine.bots.spec import canonical_bot_key, parse_bot_spec
from pmim_analytics.errors import PmimError

#: The level of games with no bot on either side (table play, manual logs).
HUMAN = "human"
#: Games whose two sides played at different levels: at no level, left out of every figure.
MIXED = "mixed"
#: A level needs this many games under a rules id to be chosen by default.
MIN_GAMES = 10
_ORDER = ("random", "greedy", "tactician", "search")
LEVELS_SCHEMA = {"rules_id": pl.String, "source": pl.String, "level": pl.String, "games": pl.Int64}


class BotLevelError(PmimError):
    """No games at the bot level asked for, or no level at all (exit 2)."""


@lru_cache(maxsize=4096)
def level_of(bot: str | None) -> str:
    """The level a side's recorded bot label plays at (``None`` or ``human``: table play)."""
    if bot is None or bot.strip() in ("", HUMAN):
        return HUMAN
    return canonical_bot_key(bot)


def game_level(blue_bot: str | None, red_bot: str | None) -> str:
    """The level of a game: its sides' common level, else :data:`MIXED`."""
    a, b = level_of(blue_bot), level_of(red_bot)
    return a if a == b else MIXED


def level_strength(key: str) -> tuple[int, float, float, str]:
    """Weakest to strongest by design: random, greedy, tactician, search by budget, and within
    one of these by skill (a skill below 1 is weaker than the bot's best play); a bot this
    code does not know sorts below them all. ``human`` and ``mixed`` are not bot strengths and
    sort apart (below everything); :func:`choose_bot_level` treats ``human`` on its own."""
    if key in (HUMAN, MIXED):
        return (-2, 0.0, 0.0, key)
    name = key.partition(":")[0]
    if name not in _ORDER:
        return (-1, 0.0, 0.0, key)
    budget, skill = 0.0, 1.0
    try:
        spec = parse_bot_spec(key)
        budget, skill = float(spec.params.get("budget", 0)), spec.skill
    except PmimError:
        pass
    return (_ORDER.index(name), budget, skill, key)


def level_label(key: str) -> str:
    """How a figure names a level: the full spec with every setting (``search:budget=100``),
    ``human (table play)`` for table games."""
    if key == HUMAN:
        return "human (table play)"
    if key == MIXED:
        return "mixed (sides at different levels)"
    try:
        return parse_bot_spec(key).label()
    except PmimError:
        return key


def level_name(key: str) -> str:
    """How a figure names a level with its skill: ``search:budget=100, skill 1`` (the bot at its
    best play), ``search:budget=100, skill 0.75``, ``tactician (no skill setting)`` for a bot
    that takes none, ``human (table play)``."""
    if key in (HUMAN, MIXED):
        return level_label(key)
    try:
        spec = parse_bot_spec(key)
    except PmimError:
        return key
    from pmim_analytics.engine.bots.registry import BOTS
    from pmim_analytics.engine.bots.skill import format_skill

    if not BOTS[spec.name].takes_skill:
        return f"{spec.label()} (no skill setting)"
    return f"{replace(spec, skill=1.0).label()}, skill {format_skill(spec.skill)}"


def game_levels(sides: pl.DataFrame) -> pl.DataFrame:
    """``game_id, level`` for every game of a ``sides`` frame (columns game_id, side, bot)."""
    pairs = (sides.group_by("game_id")
             .agg(blue_bot=pl.col("bot").filter(pl.col("side") == "blue").first(),
                  red_bot=pl.col("bot").filter(pl.col("side") == "red").first()))
    levels = [game_level(b, r) for b, r in pairs.select("blue_bot", "red_bot").iter_rows()]
    return pairs.select("game_id").with_columns(level=pl.Series(levels, dtype=pl.String))


def levels_from_pairs(pairs: pl.DataFrame) -> pl.DataFrame:
    """Games per rules id, source and level from games counted per recorded bot pair
    (columns rules_id, source, blue_bot, red_bot, games)."""
    if pairs.height == 0:
        return pl.DataFrame(schema=LEVELS_SCHEMA)
    levels = [game_level(b, r) for b, r in pairs.select("blue_bot", "red_bot").iter_rows()]
    return (pairs.with_columns(level=pl.Series(levels, dtype=pl.String))
            .group_by("rules_id", "source", "level").agg(pl.col("games").sum().cast(pl.Int64))
            .sort("rules_id", "source", "level"))


def labels_at(key: str, labels: Iterable[str | None]) -> tuple[str, ...]:
    """The recorded bot labels (``None`` read as ``human``) that play at level ``key``."""
    return tuple(sorted({HUMAN if lb is None else lb for lb in labels if level_of(lb) == key}))


@dataclass(frozen=True)
class LevelChoice:
    """The bot level a figure rests on: ``key`` (canonical), ``level`` (its full name),
    ``reason`` (why it was chosen), its games per rules id, and the rules ids selected that
    have no games at it (``missing``; a comparison across rules ids then has no common level)."""

    key: str
    level: str
    reason: str
    games: dict[str, int] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    requested: bool = False

    @property
    def common(self) -> bool:
        """Every rules id selected has games at this level."""
        return not self.missing

    def text(self) -> str:
        """``bot level search:budget=100 (the strongest level with ...)``."""
        return f"bot level {self.level} ({self.reason})"


def _per_rules(levels: pl.DataFrame) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for rid, lv, n in levels.group_by("rules_id", "level").agg(pl.col("games").sum()).iter_rows():
        out.setdefault(lv, {})[rid] = int(n)
    return out


def _games_text(games: dict[str, int]) -> str:
    return ", ".join(f"{r} {n:,}" for r, n in sorted(games.items()))


def present_text(levels: pl.DataFrame) -> str:
    """``random (80), tactician (200)``: the levels in a selection with their games, weakest first."""
    per = _per_rules(levels.filter(pl.col("level") != MIXED))
    return ", ".join(f"{k} ({sum(v.values()):,})" for k, v in sorted(per.items(), key=lambda kv: level_strength(kv[0])))


def choose_bot_level(levels: pl.DataFrame, requested: str | None = None,
                     rules_ids: Sequence[str] | None = None, min_games: int = MIN_GAMES) -> LevelChoice:
    """The level a figure rests on, from a selection's games per level (``GameData.bot_levels()``).

    ``requested`` (``--bot``, any spelling of a spec) wins when the selection has games at it.
    Otherwise the strongest bot level with at least ``min_games`` games under every rules id
    of ``rules_ids`` (default: every rules id in ``levels``); table play (``human``) only when
    no bot level has games. Without such a common level, the strongest level covering the most
    rules ids; its ``missing`` names the others. Raises :class:`BotLevelError` when the level
    asked for has no games, or when every game is ``mixed``.
    """
    ids = sorted(set(rules_ids) if rules_ids is not None else set(levels["rules_id"].to_list()))
    per = {k: v for k, v in _per_rules(levels).items() if k != MIXED}

    def choice(key: str, reason: str, requested: bool = False) -> LevelChoice:
        games = {r: n for r, n in per.get(key, {}).items() if r in ids} if ids else per.get(key, {})
        missing = tuple(r for r in ids if games.get(r, 0) == 0)
        return LevelChoice(key, level_label(key), reason, games, missing, requested)

    if requested is not None:
        key = level_of(requested)
        if key not in per:
            have = present_text(levels) or "none"
            raise BotLevelError(f"no games at bot level {requested!r} ({key}) in this selection; levels with games: "
                                f"{have}; pass one of them to --bot")
        return choice(key, "asked for with --bot", requested=True)
    if levels.height == 0 or levels["games"].sum() == 0:
        raise BotLevelError("no games in this selection, so no bot level to report on; ingest some with `pmim ingest`")
    if not per:
        raise BotLevelError("every game in this selection was played by two different bots (no bot level to report "
                            "on); select games where both sides played the same bot")
    bots = [k for k in per if k != HUMAN] or [HUMAN]
    enough = {k: [r for r in ids if per[k].get(r, 0) >= min_games] for k in bots}
    common = [k for k in bots if len(enough[k]) == len(ids)]
    if common:
        key = max(common, key=level_strength)
        which = "every rules id selected" if len(ids) > 1 else ids[0] if ids else "the selection"
        return choice(key, f"the strongest level with at least {min_games} games under {which}")
    if any(enough.values()):
        key = max(bots, key=lambda k: (len(enough[k]), level_strength(k)))
        return choice(key, f"no level has {min_games} games under every rules id; the strongest of those covering "
                           f"the most ({', '.join(enough[key])})")
    key = max(bots, key=lambda k: (sum(per[k].values()), level_strength(k)))
    return choice(key, f"no level has {min_games} games; the one with the most games")


__all__ = ["HUMAN", "MIN_GAMES", "MIXED", "BotLevelError", "LevelChoice", "choose_bot_level", "game_level",
           "game_levels", "labels_at", "level_label", "level_name", "level_of", "level_strength", "levels_from_pairs",
           "present_text"]
