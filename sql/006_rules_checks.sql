-- pmim-analytics schema, migration 6: which stored games were replayed through the rules.
-- One row per game, written in the ingest's transaction together with the game. A game
-- without a row was stored before this migration (not checked by the ingest).

CREATE TABLE IF NOT EXISTS game_checks (
    game_id       VARCHAR PRIMARY KEY,
    rules_checked BOOLEAN NOT NULL,   -- true: replayed through the rules before it was stored
    checked_by    VARCHAR NOT NULL,   -- engine replay | manual log reader | skipped: written by this installation
    checked_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
);
