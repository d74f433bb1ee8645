-- pmim-analytics schema, migration 2: what ingest refused, and why.
-- Like DuckDB's CSV reject tables: one row per rejected game, naming the file, the line
-- (row of a Parquet file), the field, the kind of error and the offending raw text.

CREATE TABLE IF NOT EXISTS ingest_rejects (
    run_id      VARCHAR NOT NULL,   -- one id per `pmim ingest` run
    file        VARCHAR NOT NULL,
    line        INTEGER,            -- 1-based line (JSON Lines, manual log) or row (Parquet)
    field       VARCHAR,
    error_type  VARCHAR NOT NULL,   -- syntax | type | header | rules | roster | roll | damage | sequence | identity | ...
    message     VARCHAR NOT NULL,
    raw         VARCHAR,            -- the offending line or row, shortened
    rejected_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Small facts about the database itself, e.g. the fingerprint of the rules files the
-- rules tables were loaded from (so they are reloaded only when those files change).
CREATE TABLE IF NOT EXISTS store_meta (
    key         VARCHAR PRIMARY KEY,
    value       VARCHAR NOT NULL
);
