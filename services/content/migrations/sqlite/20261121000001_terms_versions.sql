-- SQLite twin of migrations/postgres: the same table.

-- Versions of the terms and conditions. A version is never rewritten once stored: a change is a
-- new version with a later published_at, and the current one is the newest already in force.
-- Instants are Unix milliseconds (BIGINT).

CREATE TABLE terms_versions (
    version       TEXT PRIMARY KEY,
    title         TEXT NOT NULL,
    -- Plain text, paragraphs separated by a blank line.
    body          TEXT NOT NULL,
    -- When the version comes into force; may be in the future.
    published_at  BIGINT NOT NULL,
    created_at    BIGINT NOT NULL
);
