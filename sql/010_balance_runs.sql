-- pmim-analytics schema, migration 10: `pmim balance propose` runs and every candidate table they evaluated.
--
-- A run's id is a hash of what it plays (rules, bot level, seed, budget, pairs a round, the start
-- table), so running the same search again replaces it. A run is written whole, in one transaction,
-- after its variant file: an interrupted run stores nothing.

CREATE TABLE IF NOT EXISTS balance_runs (
    run_id          VARCHAR PRIMARY KEY,
    rules_id        VARCHAR NOT NULL,
    bot             VARCHAR NOT NULL,   -- the bot level of the search, skill included
    seed            BIGINT NOT NULL,
    budget          INTEGER NOT NULL,
    pairs_per_round INTEGER NOT NULL,
    games           INTEGER NOT NULL,   -- games the search played
    rounds          INTEGER NOT NULL,
    stopped         VARCHAR NOT NULL,   -- converged | cycle | budget
    variant         VARCHAR NOT NULL,   -- the rules id of the variant file written
    changes         INTEGER NOT NULL,   -- prices changed
    net_points      INTEGER NOT NULL,   -- their net sum
    created_at      TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- One row per round and priced item: the candidate table (listed), the fit on every game of the
-- pool so far (implied cost with its 95% interval, p, BH q) and the price the round proposed.
CREATE TABLE IF NOT EXISTS balance_candidates (
    run_id    VARCHAR NOT NULL,
    round     INTEGER NOT NULL,
    item      VARCHAR NOT NULL,         -- chassis.TY, warmechs.PA, weapons.LL
    listed    INTEGER NOT NULL,
    games     INTEGER NOT NULL,         -- games in which the sides field different numbers of it
    implied   DOUBLE,
    lo        DOUBLE,
    hi        DOUBLE,
    p         DOUBLE,
    q         DOUBLE,
    proposed  INTEGER NOT NULL,
    note      VARCHAR,                  -- why it is not priced
    PRIMARY KEY (run_id, round, item)
);

-- The held-out check: each archetype's score against the field, per bot level and table.
CREATE TABLE IF NOT EXISTS balance_checks (
    run_id    VARCHAR NOT NULL,
    level     VARCHAR NOT NULL,
    tbl       VARCHAR NOT NULL,         -- before | after
    archetype VARCHAR NOT NULL,
    score     DOUBLE,
    lo        DOUBLE,
    hi        DOUBLE,
    games     INTEGER NOT NULL,
    PRIMARY KEY (run_id, level, tbl, archetype)
);
