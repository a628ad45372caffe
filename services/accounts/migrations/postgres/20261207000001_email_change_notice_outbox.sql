-- The "Tu correo de Mi Club cambió" notice as a durable outbox (issue #16's takeover control):
-- the restore row written in the transaction that confirms the new address also says its notice
-- is due, and accounts' notice relay mails it, retrying until the relay takes it. Before, the
-- notice left through an in-memory queue, so a process that died (OOM kill, node loss) or a relay
-- down for longer than the queue's retries lost it, and with it the only restore link.
--
-- The restore token is minted when the relay sends the notice, and the row's token_hash replaced
-- by its SHA-256 in the same guarded UPDATE that claims the row: the token itself is still never
-- stored, and the link in the last notice mailed is the one that works. Instants are Unix ms.

-- When the notice's next try is due; NULL once it is sent or given up. While a relay sends, it
-- holds the row by moving this past the send's longest wait (its lease).
ALTER TABLE email_restores ADD COLUMN notice_due_at BIGINT NULL;
-- When the mail relay took the notice.
ALTER TABLE email_restores ADD COLUMN notice_sent_at BIGINT NULL;
-- Tries so far, for the backoff between them.
ALTER TABLE email_restores ADD COLUMN notice_tries INTEGER NOT NULL DEFAULT 0;

-- Rows from before this migration were mailed (or lost) through the queue: none is due, since
-- a new token would void a link the previous address may already hold.
CREATE INDEX email_restores_notice_due ON email_restores (notice_due_at)
    WHERE notice_due_at IS NOT NULL;
