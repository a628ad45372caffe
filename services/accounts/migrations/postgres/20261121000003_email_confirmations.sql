-- Links that confirm a member's new email address (`/confirmar-correo?token=…`).
-- Only the SHA-256 of a token is stored; a new link of a member deletes their older unused ones,
-- so at most one link per member is pending. Instants are Unix milliseconds.

CREATE TABLE email_confirmations (
    -- Lowercase hex SHA-256 of the token (32 random bytes, base64url).
    token_hash  TEXT PRIMARY KEY,
    member_id   TEXT NOT NULL REFERENCES members (member_id),
    -- The address the link was sent to; void once the member's email is another one.
    email       TEXT NOT NULL,
    expires_at  BIGINT NOT NULL,
    -- Set when the link confirmed the address; a used link never works again.
    used_at     BIGINT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX email_confirmations_member ON email_confirmations (member_id);
