-- pmim-analytics schema, migration 4: unknown stays unknown, estimated facts are flagged.
--
-- A manual log may not record everything: a summary log written after the fact gives the
-- result and maybe some losses, not the attacks, and not every unit destroyed. What it did
-- not record is NULL, not 0 damage and "survived". A log may also reconstruct a fact the
-- players did not give (the designer's playtest 1 final score); it is stored flagged, and
-- VP margins leave it out unless a report is asked to include it.

-- What the game's log did not record: 'combat' (attacks, hits, damage, kills) and/or
-- 'losses' (which units were destroyed beyond those listed), space-separated; NULL when
-- everything was recorded (every engine game).
ALTER TABLE games ADD COLUMN IF NOT EXISTS not_recorded VARCHAR;
-- The final VP (blue_vp, red_vp, sides.vp) are reconstructed, not reported.
ALTER TABLE games ADD COLUMN IF NOT EXISTS vp_estimated BOOLEAN DEFAULT false;
UPDATE games SET vp_estimated = false WHERE vp_estimated IS NULL;

-- Combat figures and the unit's fate may now be unknown.
ALTER TABLE unit_game_stats ALTER COLUMN attacks DROP NOT NULL;
ALTER TABLE unit_game_stats ALTER COLUMN hits DROP NOT NULL;
ALTER TABLE unit_game_stats ALTER COLUMN damage_dealt DROP NOT NULL;
ALTER TABLE unit_game_stats ALTER COLUMN overkill DROP NOT NULL;
ALTER TABLE unit_game_stats ALTER COLUMN damage_taken DROP NOT NULL;
ALTER TABLE unit_game_stats ALTER COLUMN kills DROP NOT NULL;
ALTER TABLE unit_game_stats ALTER COLUMN destroyed DROP NOT NULL;

-- Backfill: a manual game without a single play event (deployment, activation, move,
-- attack, VP line) was a summary log, which records neither combat nor every loss. Its
-- units' fate is unknown as a whole (a survival rate needs every loss, not only the ones
-- listed); a listed loss keeps its round_destroyed and its unit_destroyed event.
UPDATE games SET not_recorded = 'combat losses'
WHERE source = 'manual' AND not_recorded IS NULL
  AND game_id NOT IN (SELECT game_id FROM events
                      WHERE type IN ('deploy', 'activate', 'move', 'attack', 'round_end'));
UPDATE unit_game_stats SET attacks = NULL, hits = NULL, damage_dealt = NULL, overkill = NULL,
                           damage_taken = NULL, kills = NULL, destroyed = NULL
WHERE game_id IN (SELECT game_id FROM games WHERE not_recorded IS NOT NULL);

-- Rollups: unit-games whose combat and whose fate are known; estimated VP margins apart.
-- (pmim_analytics.store.migrate rebuilds every rollup after this migration.)
ALTER TABLE rollup_unit_sums ADD COLUMN IF NOT EXISTS combat_n BIGINT;
ALTER TABLE rollup_unit_sums ADD COLUMN IF NOT EXISTS fate_n BIGINT;
ALTER TABLE rollup_matchup_cells ADD COLUMN IF NOT EXISTS est_margin_n BIGINT;
ALTER TABLE rollup_matchup_cells ADD COLUMN IF NOT EXISTS est_margin_sum BIGINT;
ALTER TABLE rollup_matchup_cells ADD COLUMN IF NOT EXISTS est_margin_sq BIGINT;
ALTER TABLE rollup_game_cells ADD COLUMN IF NOT EXISTS est_margin_n BIGINT;
ALTER TABLE rollup_game_cells ADD COLUMN IF NOT EXISTS est_margin_sum BIGINT;
ALTER TABLE rollup_game_cells ADD COLUMN IF NOT EXISTS est_margin_sq BIGINT;

