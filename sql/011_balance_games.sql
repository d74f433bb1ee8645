-- pmim-analytics schema, migration 11: the games of a `pmim balance propose` run, kept as they are
-- played so that the same command run again after an interruption resumes instead of replaying.
--
-- One row per pair of games (two games on one seed, sides swapped) and bot level: the key names
-- both armies' content hashes, the seed and the bot; the outcomes are each game's winner and VP.

CREATE TABLE IF NOT EXISTS balance_games (
    run_id    VARCHAR NOT NULL,
    pair_key  VARCHAR NOT NULL,
    outcomes  VARCHAR NOT NULL,   -- JSON: [[game_index, winner, reason, rounds, vp_a, vp_b], ...]
    PRIMARY KEY (run_id, pair_key)
);
