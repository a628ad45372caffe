-- When the session (refresh family) began: the code step. A session ends at this instant plus
-- the absolute limit (auth.policy.session_absolute_secs), whatever its refreshes; every
-- rotation copies it. Existing rows take the oldest created_at of their family still stored.
ALTER TABLE refresh_tokens ADD COLUMN session_started_at BIGINT;

UPDATE refresh_tokens
SET session_started_at = (
    SELECT MIN(f.created_at) FROM refresh_tokens f WHERE f.family_id = refresh_tokens.family_id
);
