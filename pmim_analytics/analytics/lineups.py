"""Who played whom: army lists by content, and each game's line-up.

An army list's identity is what it fields, not its name. Within one rules id that is the
store's ``army_hash`` (a hash of the unit types and their weapons, and the rules id). Across
rules ids a list keeps its identity through translation (``pmim army translate``): unit
and weapon *codes* stay the same when the rules rename them (Mastodon -> Tyrant keeps ``TY``),
so the **list key** is a hash of the sorted ``code:weapons`` of its units, whatever the rules
id. Two armies with the same list key field the same units with the same weapons; a list
translated from v2 to v3 has the v2 list's key unless translation had to drop or change a
unit (then it is another list, and the translation said so).

:func:`army_contents` reduces ``sides`` x ``units`` to the units of one game-side per army
(the loader computes the same in SQL); :func:`list_keys` turns them into keys and labels.
"""

from __future__ import annotations

import polars as pl

from pmim_analytics.rules.army import list_key_of

LINEUP_COLS = ("game_id", "rules_id", "source", "blue_hash", "blue_composition", "blue_bot", "red_hash",
               "red_composition", "red_bot", "winner", "blue_vp", "red_vp", "seed", "game_index")


def game_lineups(games: pl.DataFrame, sides: pl.DataFrame) -> pl.DataFrame:
    """One row per game: rules id, source, each side's army hash, name and bot, winner, VP, and
    the game's seed and index in its batch (what pairs it with its twin under other rules)."""
    def side(name: str) -> pl.DataFrame:
        return sides.filter(pl.col("side") == name).select(
            "game_id", pl.col("army_hash").alias(f"{name}_hash"), pl.col("composition").alias(f"{name}_composition"),
            pl.col("bot").alias(f"{name}_bot"))

    return (
        games.select("game_id", "rules_id", "source", "winner", "blue_vp", "red_vp", "seed", "game_index")
        .join(side("blue"), on="game_id").join(side("red"), on="game_id")
        .with_columns(pl.col("blue_vp", "red_vp", "seed", "game_index").cast(pl.Int64))
        .select(LINEUP_COLS).sort("game_id")
    )


def army_contents(sides: pl.DataFrame, units: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """The units of each army (one game-side per rules id and army hash: the same hash, the same units).

    Columns: ``rules_id army_hash composition code weapons`` (one row per unit; ``composition``
    is the smallest name the army was fielded under).
    """
    me = sides.join(games.select("game_id", "rules_id"), on="game_id")
    rep = (me.sort("game_id", "side").group_by("rules_id", "army_hash")
           .agg(pl.col("game_id").first(), pl.col("side").first(), composition=pl.col("composition").min()))
    return (
        rep.join(units.select("game_id", "side", "code", "weapons"), on=["game_id", "side"])
        .select("rules_id", "army_hash", "composition", "code", "weapons")
        .sort("rules_id", "army_hash", "code", "weapons")
    )


def list_keys(contents: pl.DataFrame) -> pl.DataFrame:
    """Per rules id and army hash: ``list_key`` and a ``list`` label shared across rules ids.

    The label is the list's most used name (over every rules id; the smallest on ties),
    with the key's first characters appended when another list shares that name.
    """
    schema = {"rules_id": pl.Utf8, "army_hash": pl.Utf8, "list_key": pl.Utf8, "list": pl.Utf8}
    if contents.height == 0:
        return pl.DataFrame(schema=schema)
    per_army = contents.group_by("rules_id", "army_hash").agg(
        pl.col("composition").first(), pl.concat_list("code", "weapons").alias("_u"))
    keys = [list_key_of([(u[0], u[1] or "") for u in units]) for units in per_army["_u"].to_list()]
    per_army = per_army.with_columns(list_key=pl.Series(keys, dtype=pl.Utf8)).drop("_u")
    names = (per_army.group_by("list_key", "composition").len()
             .sort(["list_key", "len", "composition"], descending=[False, True, False])
             .group_by("list_key", maintain_order=True).first().select("list_key", name="composition"))
    shared = names.group_by("name").len().filter(pl.col("len") > 1).select("name")
    names = names.with_columns(
        list=pl.when(pl.col("name").is_in(shared["name"].implode()))
        .then(pl.col("name") + " #" + pl.col("list_key").str.slice(0, 4)).otherwise(pl.col("name")))
    return per_army.join(names.select("list_key", "list"), on="list_key").select(list(schema)).sort(
        "rules_id", "army_hash")


def with_list_keys(lineups: pl.DataFrame, keys: pl.DataFrame) -> pl.DataFrame:
    """Add ``blue_list_key``/``red_list_key`` and ``blue_list``/``red_list`` to :func:`game_lineups` rows."""
    out = lineups
    for side in ("blue", "red"):
        out = out.join(keys.select("rules_id", pl.col("army_hash").alias(f"{side}_hash"),
                                   pl.col("list_key").alias(f"{side}_list_key"), pl.col("list").alias(f"{side}_list")),
                       on=["rules_id", f"{side}_hash"], how="left")
    return out
