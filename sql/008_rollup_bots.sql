-- pmim-analytics schema, migration 8: the bots of each game in the rollups, so every report
-- can keep to one bot level (pmim_analytics/analytics/levels.py).
--
-- Results at different bot levels answer different questions; a report pools none of them.
-- The rollups that keep no game id get the game's two recorded bot labels as keys (the
-- matchup cells already had them). Applying this migration to a database that holds games
-- rebuilds every rollup (pmim_analytics/store/rollups.py).

ALTER TABLE rollup_unit_sums ADD COLUMN IF NOT EXISTS blue_bot VARCHAR;
ALTER TABLE rollup_unit_sums ADD COLUMN IF NOT EXISTS red_bot VARCHAR;
ALTER TABLE rollup_unit_games ADD COLUMN IF NOT EXISTS blue_bot VARCHAR;
ALTER TABLE rollup_unit_games ADD COLUMN IF NOT EXISTS red_bot VARCHAR;
ALTER TABLE rollup_survival ADD COLUMN IF NOT EXISTS blue_bot VARCHAR;
ALTER TABLE rollup_survival ADD COLUMN IF NOT EXISTS red_bot VARCHAR;
ALTER TABLE rollup_attack_strata ADD COLUMN IF NOT EXISTS blue_bot VARCHAR;
ALTER TABLE rollup_attack_strata ADD COLUMN IF NOT EXISTS red_bot VARCHAR;
ALTER TABLE rollup_game_cells ADD COLUMN IF NOT EXISTS blue_bot VARCHAR;
ALTER TABLE rollup_game_cells ADD COLUMN IF NOT EXISTS red_bot VARCHAR;
