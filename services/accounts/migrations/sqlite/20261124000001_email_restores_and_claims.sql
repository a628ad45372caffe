-- SQLite twin of migrations/postgres: the same statements.

-- Account security (issue #16): the last confirmed address of each member, the links that
-- restore a previous address after an email change, and the claims that keep two members from
-- confirming the same address. Instants are Unix milliseconds.

-- The address auth sends one-time codes to (the last one the member confirmed); NULL before the
-- first confirmation and after unsubscribing. `email` may be a newer, unconfirmed one.
ALTER TABLE members ADD COLUMN confirmed_email TEXT NULL;
UPDATE members SET confirmed_email = email WHERE email_confirmed AND email <> '';

-- Links of the "Tu correo de Mi Club cambió" notice, mailed to the previous address when a new
-- one is confirmed. Only the SHA-256 of a token is stored; a link works once, for 7 days.
CREATE TABLE email_restores (
    -- Lowercase hex SHA-256 of the token (32 random bytes, base64url).
    token_hash      TEXT PRIMARY KEY,
    member_id       TEXT NOT NULL REFERENCES members (member_id),
    -- The address the notice went to, which the link makes the confirmed email again.
    previous_email  TEXT NOT NULL,
    -- The address that replaced it.
    new_email       TEXT NOT NULL,
    expires_at      BIGINT NOT NULL,
    -- Set when the link restored the address, or when another restore of the member was used.
    used_at         BIGINT NULL,
    created_at      BIGINT NOT NULL
);

CREATE INDEX email_restores_member ON email_restores (member_id);

-- One row per lowercased address being confirmed or confirmed: the primary key serialises two
-- members confirming the same address at once. A claim whose member no longer has the address
-- (nor a usable restore link for it) is stale and may be taken over.
CREATE TABLE email_claims (
    email       TEXT PRIMARY KEY,
    member_id   TEXT NOT NULL REFERENCES members (member_id),
    claimed_at  BIGINT NOT NULL
);

-- Existing confirmed addresses are claimed by one of their members (existing data may hold
-- duplicates; the lowest member id keeps the claim, the others keep their address).
INSERT INTO email_claims (email, member_id, claimed_at)
SELECT LOWER(email), MIN(member_id), 0 FROM members
WHERE email_confirmed AND status = 'active' AND email <> ''
GROUP BY LOWER(email);
