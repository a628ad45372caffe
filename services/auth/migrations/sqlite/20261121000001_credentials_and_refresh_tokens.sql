-- Credentials of each member and the refresh tokens of their sessions.
-- Instants are milliseconds since the Unix epoch (BIGINT), ids are TEXT.
-- SQLite: flags are INTEGER 0/1 (the Any driver cannot decode SQLite BOOLEAN).

CREATE TABLE credentials (
    member_id      TEXT PRIMARY KEY,
    -- Canonical LoginId: RUT as 12345678-5 or an uppercased foreign document number.
    login_id       TEXT NOT NULL UNIQUE,
    -- Where one-time codes go; auth keeps its own copy of the member's address.
    email          TEXT NOT NULL,
    password_hash  TEXT NOT NULL,
    hash_scheme    TEXT NOT NULL CHECK (hash_scheme IN ('argon2id', 'legacy_bcrypt')),
    email_verified INTEGER NOT NULL DEFAULT 0,
    disabled       INTEGER NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE TABLE refresh_tokens (
    -- SHA-256 (hex) of the opaque token; the token itself is never stored.
    token_hash TEXT PRIMARY KEY,
    -- The session id (`sid` of the access tokens); reuse of any token revokes the family.
    family_id  TEXT NOT NULL,
    member_id  TEXT NOT NULL REFERENCES credentials (member_id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT,
    revoked_at BIGINT
);

CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_member_idx ON refresh_tokens (member_id);
CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens (expires_at);
