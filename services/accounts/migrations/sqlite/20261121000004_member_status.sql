-- SQLite twin of migrations/postgres: the same columns and indexes.

-- Registration and unsubscribe: a member is "pending" from RegisterMember until ActivateMember,
-- "active" after, "unsubscribed" once they leave. Only active members count as registered.
-- Existing members are active. Instants are Unix milliseconds.

ALTER TABLE members ADD COLUMN status TEXT NOT NULL DEFAULT 'active'
    CHECK (status IN ('pending', 'active', 'unsubscribed'));
-- Set when the member left; cleared when the same document registers again.
ALTER TABLE members ADD COLUMN unsubscribed_at BIGINT NULL;
-- An id of the unsubscribe reasons list (domain/unsubscribe.rs); text only for "Otro motivo".
ALTER TABLE members ADD COLUMN unsubscribe_reason_id INTEGER NULL;
ALTER TABLE members ADD COLUMN unsubscribe_reason_text TEXT NULL;
-- Set once auth confirmed DisableCredentials; NULL on an unsubscribed member means the
-- background task still has to call auth.
ALTER TABLE members ADD COLUMN credentials_disabled_at BIGINT NULL;

-- "Is this email used by an active member?" (registration), case-insensitively.
CREATE INDEX members_active_email ON members (LOWER(email)) WHERE status = 'active';
-- The unsubscribed members whose credentials auth has not disabled yet.
CREATE INDEX members_credentials_to_disable ON members (unsubscribed_at)
    WHERE status = 'unsubscribed' AND credentials_disabled_at IS NULL;
