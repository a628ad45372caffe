-- The member's security view. `sessions`: one row per session (refresh family), written when
-- the code step opens it; `last_seen_at` moves on every renewal (in the rotation's
-- transaction) and `user_agent` is what the client sent at the code step (at most 256
-- characters). A session is open while its family holds a live refresh token; the row goes
-- with the family's last token (the hourly purge).
CREATE TABLE sessions (
    session_id   TEXT PRIMARY KEY,
    member_id    TEXT NOT NULL REFERENCES credentials (member_id),
    started_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    user_agent   TEXT NOT NULL DEFAULT ''
);

CREATE INDEX sessions_member_idx ON sessions (member_id);

-- Families stored before this table: their start and last renewal, no user agent.
INSERT INTO sessions (session_id, member_id, started_at, last_seen_at, user_agent)
SELECT family_id, MIN(member_id), MIN(COALESCE(session_started_at, created_at)), MAX(created_at), ''
FROM refresh_tokens
GROUP BY family_id;

-- What happened to the member's account, kept 90 days (the hourly purge deletes older rows):
-- kind is one of login_succeeded, wrong_password, wrong_code, password_changed,
-- password_reset, email_changed, session_ended, other_sessions_ended, all_sessions_ended.
CREATE TABLE security_events (
    event_id    TEXT PRIMARY KEY,
    member_id   TEXT NOT NULL REFERENCES credentials (member_id),
    kind        TEXT NOT NULL,
    occurred_at BIGINT NOT NULL,
    user_agent  TEXT NOT NULL DEFAULT ''
);

CREATE INDEX security_events_member_idx ON security_events (member_id, occurred_at);
CREATE INDEX security_events_occurred_idx ON security_events (occurred_at);
