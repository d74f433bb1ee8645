"""Moving validated games from staging into the database, aggregates included.

Everything is INSERT ... SELECT over the staging tables, in the caller's transaction.
:func:`unit_stats_sql` defines the per-unit-per-game aggregates once; ``pmim db check``
recomputes them with the same SQL from the stored events to prove they match.
"""

from __future__ import annotations

import duckdb

from pmim_analytics.model.events import EVENT_COLUMN_NAMES
from pmim_analytics.store.rollups import Relations, add_rollups, as_written

STATS_COLUMNS = ("game_id", "unit_id", "side", "rules_id", "source", "code", "type", "kind", "weapons", "pts",
                 "attacks", "hits", "damage_dealt", "overkill", "damage_taken", "kills", "destroyed",
                 "round_destroyed", "rounds_played", "vp_share", "vp_rounds")


def unit_stats_sql(events: str, units: str, games: str) -> str:
    """SELECT giving ``unit_game_stats`` rows (columns in :data:`STATS_COLUMNS` order).

    ``events`` needs game_id, type, unit, target, by, hit, damage, overkill, round, side
    and the holders; ``units`` game_id, unit_id, side, code, type, kind, weapons (text),
    pts; ``games`` game_id, rules_id, source, rounds, blue_vp, red_vp, not_recorded.

    What the game did not record is NULL, not zero: with ``combat`` not recorded, attacks,
    hits, damage, overkill and kills; with ``losses`` not recorded, ``destroyed`` of every
    unit: a survival rate needs every loss, and counting only the losses a log happens to
    list would bias it (a listed loss keeps its ``round_destroyed`` and its event).

    Damage dealt and taken count what landed (damage less overkill). A VP is shared among
    the scoring side's holders. VP share and VP rounds are NULL when unknown: the game
    has (or may have) VP but no VP events (a summary log), or a VP event names no holders.
    """
    return f"""
    WITH ev AS (
        SELECT game_id, type, unit, target, "by", hit, damage, overkill, round, side,
               CASE side WHEN 'blue' THEN blue_holders ELSE red_holders END AS scorers
        FROM {events} WHERE type IN ('attack', 'unit_destroyed', 'vp')),
    atk AS (
        SELECT game_id, unit AS unit_id, count(*) AS attacks, count(*) FILTER (WHERE hit) AS hits,
               sum(damage - overkill) AS dealt, sum(overkill) AS ovk
        FROM ev WHERE type = 'attack' GROUP BY ALL),
    tkn AS (
        SELECT game_id, target AS unit_id, sum(damage - overkill) AS taken
        FROM ev WHERE type = 'attack' GROUP BY ALL),
    kil AS (
        SELECT game_id, "by" AS unit_id, count(*) AS kills
        FROM ev WHERE type = 'unit_destroyed' AND "by" IS NOT NULL GROUP BY ALL),
    des AS (
        SELECT game_id, unit AS unit_id, min(round) AS round_destroyed
        FROM ev WHERE type = 'unit_destroyed' GROUP BY ALL),
    vpe AS (
        SELECT game_id, CASE WHEN coalesce(scorers, '') = '' THEN [] ELSE string_split(scorers, ' ') END AS hs
        FROM ev WHERE type = 'vp'),
    vpu AS (
        SELECT game_id, h AS unit_id, sum(1.0 / n) AS share, count(*) AS vp_rounds
        FROM (SELECT game_id, len(hs) AS n, unnest(hs) AS h FROM vpe) GROUP BY ALL),
    vpg AS (
        SELECT game_id, count(*) AS n_vp, count(*) FILTER (WHERE len(hs) = 0) AS n_anonymous
        FROM vpe GROUP BY ALL)
    SELECT u.game_id, u.unit_id, u.side, g.rules_id, g.source, u.code, u.type, u.kind, u.weapons, u.pts,
           CASE WHEN NOT combat_unknown THEN coalesce(atk.attacks, 0) END,
           CASE WHEN NOT combat_unknown THEN coalesce(atk.hits, 0) END,
           CASE WHEN NOT combat_unknown THEN coalesce(atk.dealt, 0) END,
           CASE WHEN NOT combat_unknown THEN coalesce(atk.ovk, 0) END,
           CASE WHEN NOT combat_unknown THEN coalesce(tkn.taken, 0) END,
           CASE WHEN NOT combat_unknown THEN coalesce(kil.kills, 0) END,
           CASE WHEN NOT losses_unknown THEN des.unit_id IS NOT NULL END, des.round_destroyed,
           g.rounds,
           CASE WHEN vp_unknown THEN NULL ELSE coalesce(vpu.share, 0) END,
           CASE WHEN vp_unknown THEN NULL ELSE coalesce(vpu.vp_rounds, 0) END
    FROM {units} u
    JOIN (SELECT gg.*, coalesce(vpg.n_anonymous, 0) > 0
                       OR (coalesce(vpg.n_vp, 0) = 0 AND coalesce(gg.blue_vp + gg.red_vp, 1) > 0)
                       AS vp_unknown,
                       coalesce(contains(gg.not_recorded, 'combat'), false) AS combat_unknown,
                       coalesce(contains(gg.not_recorded, 'losses'), false) AS losses_unknown
          FROM {games} gg LEFT JOIN vpg USING (game_id)) g USING (game_id)
    LEFT JOIN atk USING (game_id, unit_id)
    LEFT JOIN tkn USING (game_id, unit_id)
    LEFT JOIN kil USING (game_id, unit_id)
    LEFT JOIN des USING (game_id, unit_id)
    LEFT JOIN vpu USING (game_id, unit_id)
    """


def load_good_games(con: duckdb.DuckDBPyConnection) -> int:
    """Insert the games listed in ``st_good`` (g, game_id) with their sides, units, events,
    aggregates and rollups; return the number of events inserted. Runs in the caller's transaction."""
    con.execute("""
        CREATE OR REPLACE TEMP TABLE st_new_games AS
        SELECT gd.game_id, sg.source, sg.rules_id, sg.scenario, sg.seed, sg.game_index, sg.batch, sg.played,
               x.winner, x.reason, x.rounds, x.blue_vp, x.red_vp, x.first_side, x.n_events, sg.file, gd.g,
               sg.not_recorded, coalesce(contains(sg.estimated, 'vp'), false) AS vp_estimated, sg.readings
        FROM st_good gd JOIN st_games sg USING (g)
        JOIN (SELECT g, count(*) AS n_events,
                     arg_min(side, seq) FILTER (WHERE type = 'round_start') AS first_side,
                     any_value(side) FILTER (WHERE type = 'game_end') AS winner,
                     any_value(reason) FILTER (WHERE type = 'game_end') AS reason,
                     any_value(rounds) FILTER (WHERE type = 'game_end') AS rounds,
                     any_value(blue_vp) FILTER (WHERE type = 'game_end') AS blue_vp,
                     any_value(red_vp) FILTER (WHERE type = 'game_end') AS red_vp
              FROM st_events SEMI JOIN st_good USING (g) GROUP BY g) x USING (g)""")
    con.execute("""
        CREATE OR REPLACE TEMP VIEW st_new_units AS
        SELECT gd.game_id, u.unit_id, u.side, u.code, u.type, u.kind, array_to_string(u.weapons, ' ') AS weapons,
               u.pts, u.pos
        FROM st_units u JOIN st_good gd USING (g)""")
    ev_cols = ", ".join(f'e."{c}"' for c in EVENT_COLUMN_NAMES if c != "game_id")
    con.execute(f"""
        CREATE OR REPLACE TEMP VIEW st_new_events AS
        SELECT gd.game_id, {ev_cols} FROM st_events e JOIN st_good gd USING (g)""")
    con.execute("""
        INSERT INTO games (game_id, source, rules_id, scenario, seed, game_index, batch, played, winner, reason,
                           rounds, blue_vp, red_vp, first_side, n_events, file, not_recorded, vp_estimated,
                           readings)
        SELECT game_id, source, rules_id, scenario, seed, game_index, batch, played, winner, reason,
               rounds, blue_vp, red_vp, first_side, n_events, file, not_recorded, vp_estimated, readings
        FROM st_new_games ORDER BY g""")
    con.execute("""
        CREATE OR REPLACE TEMP TABLE st_new_sides AS
        SELECT ng.game_id, s.side, s.name AS composition, s.army_hash, s.points, s.bot, s.player,
               (SELECT count(*) FROM st_side_units su WHERE su.sid = s.sid) AS n_units,
               CASE s.side WHEN 'blue' THEN ng.blue_vp ELSE ng.red_vp END AS vp,
               CASE WHEN ng.winner IS NULL THEN 'draw' WHEN ng.winner = s.side THEN 'win' ELSE 'loss' END AS result
        FROM st_sides s JOIN st_new_games ng USING (g)""")
    con.execute("""
        INSERT INTO sides (game_id, side, composition, army_hash, points, bot, player, n_units, vp, result)
        SELECT game_id, side, composition, army_hash, points, bot, player, n_units, vp, result FROM st_new_sides""")
    con.execute("""
        INSERT INTO units (game_id, unit_id, side, code, type, kind, weapons, pts)
        SELECT game_id, unit_id, side, code, type, kind, weapons, pts FROM st_new_units""")
    n_events = con.execute(f"""
        INSERT INTO events ({", ".join(f'"{c}"' for c in EVENT_COLUMN_NAMES)})
        SELECT * FROM st_new_events""").fetchall()[0][0]
    cols = ", ".join(STATS_COLUMNS)
    con.execute(f"CREATE OR REPLACE TEMP TABLE st_new_stats AS SELECT * FROM "
                f"({unit_stats_sql('st_new_events', 'st_new_units', 'st_new_games')}) AS x({cols})")
    con.execute(f"INSERT INTO unit_game_stats ({cols}) SELECT {cols} FROM st_new_stats")
    add_rollups(con, as_written(Relations(games="st_new_games", sides="st_new_sides", units="st_new_units",
                                          stats="st_new_stats", events="st_new_events")))
    return int(n_events)
