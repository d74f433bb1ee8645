-- pmim-analytics schema, migration 1.
-- Applied by pmim_analytics.store on open; schema_version records what has been applied.

CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    applied_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Rules catalogue, loaded from data/rules (variants included) so queries can join stats.
CREATE TABLE IF NOT EXISTS rules_versions (
    rules_id    VARCHAR PRIMARY KEY,
    name        VARCHAR NOT NULL,
    parent      VARCHAR,            -- previous version, or the base of a variant
    is_variant  BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS rules_units (
    rules_id    VARCHAR NOT NULL,
    code        VARCHAR NOT NULL,   -- stable across versions (TY = Mastodon in v1, Tyrant later)
    name        VARCHAR NOT NULL,
    kind        VARCHAR NOT NULL,   -- infantry | vehicle | warmech
    body        VARCHAR,            -- humanoid | avian | saurian for Warmechs
    weight_class VARCHAR,
    tons        INTEGER,
    hp          INTEGER,            -- basic units; for Warmechs the sum over locations
    mov         INTEGER NOT NULL,
    def         INTEGER NOT NULL,
    arm         INTEGER NOT NULL,
    spt         INTEGER NOT NULL,
    pts         INTEGER NOT NULL,
    PRIMARY KEY (rules_id, code)
);

CREATE TABLE IF NOT EXISTS rules_weapons (
    rules_id    VARCHAR NOT NULL,
    code        VARCHAR NOT NULL,
    name        VARCHAR NOT NULL,
    rng         INTEGER NOT NULL,
    acc         INTEGER NOT NULL,
    rpt         INTEGER NOT NULL,
    strength    INTEGER NOT NULL,
    ton         INTEGER NOT NULL,
    PRIMARY KEY (rules_id, code)
);

-- One row per game. game_id is derived from the game's content (replay.format.compute_game_id).
CREATE TABLE IF NOT EXISTS games (
    game_id     VARCHAR PRIMARY KEY,
    source      VARCHAR NOT NULL,   -- engine | manual
    rules_id    VARCHAR NOT NULL,
    scenario    VARCHAR NOT NULL,
    seed        BIGINT,
    game_index  INTEGER,
    batch       VARCHAR,
    played      VARCHAR,            -- date the game was played (manual) or simulated, ISO text
    winner      VARCHAR,            -- blue | red | NULL for a draw
    reason      VARCHAR NOT NULL,   -- vp | wipeout | round_limit | manual
    rounds      INTEGER,
    blue_vp     INTEGER,
    red_vp      INTEGER,
    first_side  VARCHAR,            -- side that activated first in round 1
    n_events    INTEGER NOT NULL,
    file        VARCHAR,            -- where it was ingested from
    ingested_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Two rows per game.
CREATE TABLE IF NOT EXISTS sides (
    game_id     VARCHAR NOT NULL,
    side        VARCHAR NOT NULL,   -- blue | red
    composition VARCHAR NOT NULL,   -- the army list's name
    army_hash   VARCHAR NOT NULL,   -- same units and weapons -> same hash, whatever the name
    points      INTEGER NOT NULL,
    bot         VARCHAR,
    player      VARCHAR,
    n_units     INTEGER NOT NULL,
    vp          INTEGER,
    result      VARCHAR NOT NULL,   -- win | loss | draw
    PRIMARY KEY (game_id, side)
);

-- One row per unit per game.
CREATE TABLE IF NOT EXISTS units (
    game_id     VARCHAR NOT NULL,
    unit_id     VARCHAR NOT NULL,   -- B:TW1
    side        VARCHAR NOT NULL,
    code        VARCHAR NOT NULL,
    type        VARCHAR NOT NULL,
    kind        VARCHAR NOT NULL,
    weapons     VARCHAR NOT NULL,   -- weapon codes in mount order, space-separated: "GG ML"
    pts         INTEGER NOT NULL
    -- no primary key: ingest inserts a game's rows once (games.game_id is the key) and
    -- `pmim db check` verifies there are no duplicates; the index would cost memory at scale
);

-- Every event, one wide row each (columns = replay.events.EVENT_COLUMNS).
CREATE TABLE IF NOT EXISTS events (
    game_id     VARCHAR NOT NULL,
    seq         INTEGER NOT NULL,
    round       INTEGER,
    type        VARCHAR NOT NULL,
    unit        VARCHAR,
    target      VARCHAR,
    weapon      VARCHAR,
    mount       VARCHAR,
    from_col    SMALLINT,
    from_row    SMALLINT,
    to_col      SMALLINT,
    to_row      SMALLINT,
    path        SMALLINT,
    distance    SMALLINT,
    die1        TINYINT,
    die2        TINYINT,
    acc         TINYINT,
    needed      TINYINT,
    hit         BOOLEAN,
    location    VARCHAR,
    location_rolls VARCHAR,
    damage      SMALLINT,
    overkill    SMALLINT,
    "by"        VARCHAR,
    objective   SMALLINT,
    side        VARCHAR,
    blue_holders VARCHAR,
    red_holders VARCHAR,
    blue_vp     SMALLINT,
    red_vp      SMALLINT,
    reason      VARCHAR,
    rounds      SMALLINT
    -- no primary key, as for units: millions of events would keep a large index in memory
);

-- Per unit per game aggregates, computed at ingest so dashboards never scan raw events.
CREATE TABLE IF NOT EXISTS unit_game_stats (
    game_id         VARCHAR NOT NULL,
    unit_id         VARCHAR NOT NULL,
    side            VARCHAR NOT NULL,
    rules_id        VARCHAR NOT NULL,
    source          VARCHAR NOT NULL,
    code            VARCHAR NOT NULL,
    type            VARCHAR NOT NULL,
    kind            VARCHAR NOT NULL,
    weapons         VARCHAR NOT NULL,
    pts             INTEGER NOT NULL,
    attacks         INTEGER NOT NULL,   -- attacks made
    hits            INTEGER NOT NULL,
    damage_dealt    INTEGER NOT NULL,   -- damage that landed (excludes overkill)
    overkill        INTEGER NOT NULL,   -- damage dealt beyond what the target had left
    damage_taken    INTEGER NOT NULL,   -- landed damage received
    kills           INTEGER NOT NULL,
    destroyed       BOOLEAN NOT NULL,
    round_destroyed INTEGER,            -- NULL when it survived (or unknown in a summary log)
    rounds_played   INTEGER,            -- game length in rounds
    vp_share        DOUBLE,             -- sum over VP scored of 1 / (scoring side's holders); NULL if unknown
    vp_rounds       INTEGER             -- objective-rounds in which it helped score
);

INSERT INTO schema_version (version) VALUES (1) ON CONFLICT DO NOTHING;
