"""Where the games come from: frames in memory, or the database (:mod:`.load`).

Every report needs a few reduced frames (sums, counts, strata); a :class:`GameData` gives
them. :class:`FrameData` computes them with the Polars reducers of this package from
table-shaped frames; the database implementation computes the very same frames in SQL, so a
report over 100,000 games never pulls millions of rows into Python. A test checks that the
two agree on the same games.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

import polars as pl

from pmim_analytics.analytics import compositions, costs, lineups, luck, optional_rules, quality, units, weapons
from pmim_analytics.analytics.frames import Frames, content_hash
from pmim_analytics.analytics.levels import game_levels, level_name, levels_from_pairs
from pmim_analytics.analytics.rules_frames import complete_rules_frames


@dataclass(frozen=True)
class Provenance:
    """What a table or figure rests on: the games, their rules ids, bot level, the database state, the date."""

    origin: str  # database path, or "frames"
    rules_ids: tuple[str, ...]  # present in the selection, sorted
    games: int
    games_by_rules: dict[str, int] = field(default_factory=dict)
    source: str | None = None
    content_hash: str = ""  # of every game in the database (see frames.content_hash)
    date: str = field(default_factory=lambda: dt.date.today().isoformat())
    bot_level: str | None = None  # canonical key; None: every level (a comparison of levels)
    other_readings: int = 0  # games of the selection played under other readings in doubt, left out

    @property
    def level_text(self) -> str:
        """``bot level search:budget=100, skill 1`` (the level and its skill, :func:`~.levels.level_name`),
        or ``every bot level`` when the selection keeps them all."""
        return f"bot level {level_name(self.bot_level)}" if self.bot_level else "every bot level"

    def caption(self) -> str:
        """One line for under a table or figure."""
        per = ", ".join(f"{r}: {n}" for r, n in sorted(self.games_by_rules.items())) or "none"
        src = f", source {self.source}" if self.source else ""
        other = (f"; {self.other_readings} games played under other readings in doubt left out (as written only)"
                 if self.other_readings else "")
        return (f"{self.level_text}; {self.games} games ({per}){src}{other}; database {self.content_hash[:12] or '-'}; "
                f"generated {self.date}")


class GameData(Protocol):
    """A selection of games (rules ids, source) able to produce every reduced frame."""

    rules_ids: tuple[str, ...] | None
    source: str | None
    include_estimated: bool  # VP margins include games whose final VP are estimated
    bot_level: str | None  # the canonical bot level kept (None: every level)

    def provenance(self) -> Provenance: ...
    def bot_levels(self) -> pl.DataFrame: ...
    def at_level(self, bot_level: str | None) -> GameData: ...
    def session(self) -> contextlib.AbstractContextManager[GameData]: ...
    def unit_sums(self, by_loadout: bool = False, count_games: bool = True) -> pl.DataFrame: ...
    def survival_counts(self, by_loadout: bool = False) -> pl.DataFrame: ...
    def unit_game_sums(self, by_loadout: bool = False) -> pl.DataFrame: ...
    def game_lineups(self) -> pl.DataFrame: ...
    def army_contents(self) -> pl.DataFrame: ...
    def attack_strata(self) -> pl.DataFrame: ...
    def side_attack_strata(self) -> pl.DataFrame: ...
    def side_luck_sums(self, rules_units: pl.DataFrame, rules_weapons: pl.DataFrame) -> pl.DataFrame: ...
    def matchup_cells(self) -> pl.DataFrame: ...
    def game_cells(self) -> pl.DataFrame: ...
    def estimated_vp_games(self) -> int: ...
    def army_rosters(self) -> pl.DataFrame: ...
    def game_counts(self) -> pl.DataFrame: ...
    def round_scores(self) -> pl.DataFrame: ...
    def game_winners(self) -> pl.DataFrame: ...
    def rules_tables(self) -> tuple[pl.DataFrame, pl.DataFrame]: ...
    def optional_rule_events(self) -> pl.DataFrame: ...


class FrameData:
    """:class:`GameData` over a :class:`Frames` bundle, filtered to ``rules_ids``, ``source`` and
    ``bot_level`` (a canonical key, see :mod:`.levels`; every level if ``None``)."""

    def __init__(self, frames: Frames, rules_ids: tuple[str, ...] | list[str] | None = None,
                 source: str | None = None, include_estimated: bool = False, bot_level: str | None = None) -> None:
        self.all = frames
        self.rules_ids = tuple(rules_ids) if rules_ids is not None else None
        self.source = source
        self.include_estimated = include_estimated
        self.bot_level = bot_level
        self.frames = frames.filtered(self.rules_ids, source)
        if bot_level is not None:
            keep = game_levels(self.frames.sides).filter(pl.col("level") == bot_level)["game_id"].to_list()
            self.frames = self.frames.filtered(game_ids=keep)

    def at_level(self, bot_level: str | None) -> FrameData:
        """The same selection at one bot level (``None``: every level)."""
        return FrameData(self.all, self.rules_ids, self.source, self.include_estimated, bot_level)

    def bot_levels(self) -> pl.DataFrame:
        """Games per rules id, source and bot level of the selection (every level, whatever
        ``bot_level`` is): columns rules_id, source, level, games."""
        base = self.all.filtered(self.rules_ids, self.source)
        pairs = (base.games.select("game_id", "rules_id", "source")
                 .join(base.sides.filter(pl.col("side") == "blue").select("game_id", blue_bot="bot"), on="game_id",
                       how="left")
                 .join(base.sides.filter(pl.col("side") == "red").select("game_id", red_bot="bot"), on="game_id",
                       how="left")
                 .group_by("rules_id", "source", "blue_bot", "red_bot").agg(games=pl.len().cast(pl.Int64)))
        return levels_from_pairs(pairs)

    @contextmanager
    def session(self) -> Iterator[FrameData]:
        """Nothing to open for frames; here for symmetry with the database."""
        yield self

    def provenance(self) -> Provenance:
        """Counts of the selected games; the hash covers every game in the bundle."""
        counts = self.frames.games.group_by("rules_id").len()
        by_rules = dict(zip(counts["rules_id"].to_list(), counts["len"].to_list(), strict=True))
        return Provenance("frames", tuple(sorted(by_rules)), self.frames.games.height, by_rules, self.source,
                          content_hash(self.all.games["game_id"].to_list()), bot_level=self.bot_level)

    def unit_sums(self, by_loadout: bool = False, count_games: bool = True) -> pl.DataFrame:
        return units.unit_sums(self.frames.unit_game_stats, by_loadout, count_games)

    def survival_counts(self, by_loadout: bool = False) -> pl.DataFrame:
        return units.survival_counts(self.frames.unit_game_stats, by_loadout)

    def unit_game_sums(self, by_loadout: bool = False) -> pl.DataFrame:
        return units.unit_game_sums(self.frames.unit_game_stats, by_loadout)

    def game_lineups(self) -> pl.DataFrame:
        return lineups.game_lineups(self.frames.games, self.frames.sides)

    def army_contents(self) -> pl.DataFrame:
        return lineups.army_contents(self.frames.sides, self.frames.units, self.frames.games)

    def attack_strata(self) -> pl.DataFrame:
        return weapons.attack_strata(self.frames.events, self.frames.units, self.frames.games)

    def side_attack_strata(self) -> pl.DataFrame:
        return luck.side_attack_strata(self.frames.events, self.frames.units, self.frames.games)

    def optional_rule_events(self) -> pl.DataFrame:
        return optional_rules.optional_rule_events(self.frames.events, self.frames.games)

    def side_luck_sums(self, rules_units: pl.DataFrame, rules_weapons: pl.DataFrame) -> pl.DataFrame:
        strata = self.side_attack_strata()
        return luck.side_sums(strata, luck.stratum_expectations(strata, rules_units, rules_weapons), self.frames.games)

    def matchup_cells(self) -> pl.DataFrame:
        cells = compositions.matchup_cells(self.frames.sides, self.frames.games)
        return compositions.fold_estimated(cells, self.include_estimated)

    def game_cells(self) -> pl.DataFrame:
        return compositions.fold_estimated(costs.game_cells(self.frames.games, self.frames.sides),
                                           self.include_estimated)

    def estimated_vp_games(self) -> int:
        """Selected games whose final VP are estimated (left out of VP margins unless included)."""
        return int(self.frames.games["vp_estimated"].fill_null(False).sum())

    def army_rosters(self) -> pl.DataFrame:
        return costs.army_rosters(self.frames.sides, self.frames.units, self.frames.games)

    def game_counts(self) -> pl.DataFrame:
        return quality.game_counts(self.frames.games)

    def round_scores(self) -> pl.DataFrame:
        return quality.round_scores(self.frames.events, self.frames.games)

    def game_winners(self) -> pl.DataFrame:
        return self.frames.games.select("game_id", "winner")

    def rules_tables(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The rules stats of the selected rules ids (the bundle's, completed from the catalogue)."""
        ids = self.frames.games["rules_id"].unique().to_list()
        return complete_rules_frames(ids, self.frames.rules_units, self.frames.rules_weapons)
