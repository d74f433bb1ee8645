-- pmim-analytics schema, migration 12: what the design notes of a `pmim balance propose` run need
-- (`pmim export` and the dashboard's Rules A -> B page read them back).
--
-- The band the run was judged against, which candidate prices a round actually applied (with
-- --knobs a round may find an item off that it may not change), and the held-out check's verdict
-- on each criterion of "balanced" for each table and bot level, with what was measured.

ALTER TABLE balance_runs ADD COLUMN IF NOT EXISTS band_low DOUBLE;
ALTER TABLE balance_runs ADD COLUMN IF NOT EXISTS band_high DOUBLE;
ALTER TABLE balance_candidates ADD COLUMN IF NOT EXISTS applied BOOLEAN;  -- NULL in runs stored before

CREATE TABLE IF NOT EXISTS balance_verdicts (
    run_id    VARCHAR NOT NULL,
    level     VARCHAR NOT NULL,         -- the bot level of the held-out games, skill included
    tbl       VARCHAR NOT NULL,         -- before | after
    criterion VARCHAR NOT NULL,         -- archetypes in the band | largest matchup | equilibrium mix | ...
    position  INTEGER NOT NULL,         -- the criterion's number in the definition
    holds     BOOLEAN NOT NULL,
    measured  VARCHAR NOT NULL,         -- what was measured, in words (e.g. "2 of 5 within 45%-55%")
    PRIMARY KEY (run_id, level, tbl, criterion)
);
