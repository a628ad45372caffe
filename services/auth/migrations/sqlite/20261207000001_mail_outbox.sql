-- SQLite twin of migrations/postgres: the same table and index.
--
-- The outbox of the notices of a password changed or reset (platform::notify::outbox): the
-- row is written in the change's own transaction and deleted once the mail relay took it, so a
-- process that dies, or a relay down for longer than the in-memory queue's retries, no longer
-- loses the notice. It holds no code and no link. Instants are Unix ms.
CREATE TABLE mail_outbox (
    id         TEXT PRIMARY KEY,
    member_id  TEXT NOT NULL,
    to_address TEXT NOT NULL,
    subject    TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    -- When the next try is due; while a relay sends, past the send's longest wait (its lease).
    due_at     BIGINT NOT NULL,
    tries      BIGINT NOT NULL
);

CREATE INDEX mail_outbox_due ON mail_outbox (due_at);
