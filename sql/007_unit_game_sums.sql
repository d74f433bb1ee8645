-- pmim-analytics schema, migration 7: per-game unit sums, for game-clustered intervals and
-- paired rules impact.
--
-- The units of one game are not independent (they shoot at each other, score together), so
-- an interval for a unit type's mean needs each game's own sums: one row per game, unit type
-- and loadout. The ingest appends the rows of each batch's new games (as for every rollup in
-- pmim_analytics/store/rollups.py); applying this migration to a database that already holds
-- games backfills it.

CREATE TABLE IF NOT EXISTS rollup_unit_game_sums (
    game_id VARCHAR, rules_id VARCHAR, source VARCHAR, code VARCHAR, weapons VARCHAR, type VARCHAR, kind VARCHAR,
    n BIGINT, pts_sum BIGINT, attacks BIGINT, hits BIGINT, damage_dealt BIGINT, kills BIGINT, destroyed BIGINT,
    vp_n BIGINT, vp_sum DOUBLE, dpp_n BIGINT, dpp_sum DOUBLE, vpp_n BIGINT, vpp_sum DOUBLE,
    -- unit-games whose combat / fate the log recorded (a summary log records neither)
    combat_n BIGINT, fate_n BIGINT
);
