-- pmim-analytics schema, migration 3: rollups, so reports stay fast at a million games.
--
-- Each rollup holds partial aggregates of the reduced frames the reports read
-- (pmim_analytics.analytics.load): the ingest adds one set of rows per batch of new games,
-- in the batch's transaction, and readers re-aggregate (GROUP BY the keys, sum the values).
-- Games are only ever added whole and once, so the partial sums add up exactly, distinct
-- game counts included. `pmim db check` recomputes every rollup from the tables; the
-- definitions are in pmim_analytics/store/rollups.py, which also backfills them once when
-- this migration is applied to a database that already holds games.

-- Per unit type and loadout: the sums behind `pmim report units` and `impact`.
CREATE TABLE IF NOT EXISTS rollup_unit_sums (
    rules_id VARCHAR, source VARCHAR, code VARCHAR, weapons VARCHAR, type VARCHAR, kind VARCHAR,
    n BIGINT, pts_sum BIGINT, attacks BIGINT, hits BIGINT, damage_dealt BIGINT, damage_sq BIGINT,
    overkill BIGINT, damage_taken BIGINT, kills BIGINT, destroyed BIGINT, round_n BIGINT, round_sum BIGINT,
    vp_n BIGINT, vp_sum DOUBLE, vp_sq DOUBLE, dpp_n BIGINT, dpp_sum DOUBLE, dpp_sq DOUBLE,
    vpp_n BIGINT, vpp_sum DOUBLE, vpp_sq DOUBLE,
    games BIGINT                        -- games fielding this type and loadout
);

-- Games fielding a unit type (any loadout): distinct counts do not add up over loadouts.
CREATE TABLE IF NOT EXISTS rollup_unit_games (
    rules_id VARCHAR, source VARCHAR, code VARCHAR, games BIGINT
);

-- Units still on the table or destroyed, per round: `pmim report survival`.
CREATE TABLE IF NOT EXISTS rollup_survival (
    rules_id VARCHAR, source VARCHAR, code VARCHAR, type VARCHAR, kind VARCHAR, weapons VARCHAR,
    round BIGINT, destroyed BOOLEAN, n BIGINT
);

-- Attacks per weapon, target, number needed and outcome: `pmim report weapons`.
CREATE TABLE IF NOT EXISTS rollup_attack_strata (
    rules_id VARCHAR, source VARCHAR, weapon VARCHAR, target_code VARCHAR, threshold BIGINT, hit BOOLEAN,
    damage BIGINT, target_type VARCHAR, target_kind VARCHAR, n BIGINT, overkill BIGINT
);

-- The same per game and side: `pmim report luck` (one row set per game with attacks).
CREATE TABLE IF NOT EXISTS rollup_side_attack_strata (
    game_id VARCHAR, rules_id VARCHAR, source VARCHAR, side VARCHAR, weapon VARCHAR, target_code VARCHAR,
    threshold BIGINT, n BIGINT, hits BIGINT, damage BIGINT, overkill BIGINT
);

-- Results per composition and opponent: `pmim report compositions|matchups|sides|impact`.
CREATE TABLE IF NOT EXISTS rollup_matchup_cells (
    rules_id VARCHAR, source VARCHAR, composition VARCHAR, army_hash VARCHAR, bot VARCHAR, side VARCHAR,
    opp_composition VARCHAR, opp_army_hash VARCHAR, opp_bot VARCHAR, first BOOLEAN, result VARCHAR,
    n BIGINT, margin_n BIGINT, margin_sum BIGINT, margin_sq BIGINT, rounds_n BIGINT, rounds_sum BIGINT,
    rounds_sq BIGINT
);

-- Results per pair of armies: `pmim report costs`.
CREATE TABLE IF NOT EXISTS rollup_game_cells (
    rules_id VARCHAR, source VARCHAR, blue_hash VARCHAR, red_hash VARCHAR, n BIGINT, blue_wins BIGINT,
    red_wins BIGINT, draws BIGINT, margin_n BIGINT, margin_sum BIGINT, margin_sq BIGINT
);

-- What each army fields, once per rules id, source and army hash: `pmim report costs`.
CREATE TABLE IF NOT EXISTS rollup_army_rosters (
    rules_id VARCHAR, source VARCHAR, army_hash VARCHAR, code VARCHAR, type VARCHAR, kind VARCHAR,
    count BIGINT, pts_sum BIGINT
);

-- VP after each round of every game with events: `pmim report quality` (lead changes).
CREATE TABLE IF NOT EXISTS rollup_round_scores (
    game_id VARCHAR, rules_id VARCHAR, source VARCHAR, round BIGINT, blue_vp BIGINT, red_vp BIGINT
);
