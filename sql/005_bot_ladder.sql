-- pmim-analytics schema, migration 5: the bot ladder (`pmim bots ladder`).
--
-- A run is a round robin of bots over the sample armies of one rules version; its id is a
-- hash of what it plays (rules, scenario, bots, armies, games per pairing, seed), so running
-- the same plan again replaces it. A run is written whole, in one transaction.

CREATE TABLE IF NOT EXISTS ladder_runs (
    run_id            VARCHAR PRIMARY KEY,
    rules_id          VARCHAR NOT NULL,
    scenario          VARCHAR NOT NULL,
    bots              VARCHAR NOT NULL,   -- bot specs in the order given, comma-separated
    armies            VARCHAR NOT NULL,   -- army file stems, comma-separated
    games_per_pairing INTEGER NOT NULL,
    seed              BIGINT NOT NULL,
    games             INTEGER NOT NULL,
    seconds           DOUBLE NOT NULL,    -- wall time of the run
    workers           INTEGER NOT NULL,
    created_at        TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- One row per bot per run: Bradley-Terry rating on the Elo scale (first bot at 0) with its
-- bootstrap 95% interval, speed and objective adherence.
CREATE TABLE IF NOT EXISTS ladder_ratings (
    run_id          VARCHAR NOT NULL,
    bot             VARCHAR NOT NULL,
    rating          DOUBLE NOT NULL,
    lo              DOUBLE,
    hi              DOUBLE,
    games           INTEGER NOT NULL,
    score           DOUBLE,             -- points per game (win 1, draw 1/2)
    decisions       BIGINT,
    ms_per_decision DOUBLE,
    games_per_s     DOUBLE,             -- estimated self-play games per second on one core
    adherence       DOUBLE,             -- share of reachable objective-rounds contested
    vp_per_round    DOUBLE,
    PRIMARY KEY (run_id, bot)
);

-- One row per ladder game (the games themselves are not kept: the seed replays them).
CREATE TABLE IF NOT EXISTS ladder_games (
    run_id       VARCHAR NOT NULL,
    game_no      INTEGER NOT NULL,
    batch        VARCHAR NOT NULL,
    game_index   INTEGER NOT NULL,
    blue_bot     VARCHAR NOT NULL,
    red_bot      VARCHAR NOT NULL,
    blue_army    VARCHAR NOT NULL,
    red_army     VARCHAR NOT NULL,
    winner       VARCHAR,
    reason       VARCHAR NOT NULL,
    rounds       INTEGER NOT NULL,
    blue_vp      INTEGER NOT NULL,
    red_vp       INTEGER NOT NULL,
    PRIMARY KEY (run_id, game_no)
);

INSERT INTO schema_version (version) VALUES (5) ON CONFLICT DO NOTHING;
