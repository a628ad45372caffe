-- When each member last changed their password (milliseconds since the Unix epoch), NULL if
-- never. A login whose password step came before it cannot complete.
ALTER TABLE credentials ADD COLUMN password_changed_at BIGINT;
