-- When the member unsubscribed (milliseconds since the Unix epoch), NULL while the credentials
-- are enabled. Set once by the first DisableCredentials; a rejoin clears it.
ALTER TABLE credentials ADD COLUMN disabled_at BIGINT;
