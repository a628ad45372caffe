//! The member's security view: their open sessions (list, end one, end the others) and the
//! security events of the last 90 days.
//!
//! Every use case takes the claims of the member's verified access token and acts on its
//! subject only: a session id of another member is looked up with the caller's member id and
//! so is "not found", exactly like an id nobody has. Ending a session revokes what a logout
//! does ([`Auth::revoke_session`]): the family's refresh tokens in SQL and the `sid` in the
//! revocation list that the gateway and every service check, so its access token is refused at
//! both hops from the next request on; here the mark goes first (see [`Auth::end_session`]).
//!
//! Events are recorded by the flows they describe through [`Auth::record_event`]; a failure to
//! record one is logged and never fails the flow (the member's login matters more than its
//! trace).

use std::collections::BTreeSet;

use miclub_platform::storage::now_millis;
use miclub_platform::tokens::{Claims, seen_key};

use super::Auth;
use super::types::MemberId;
use crate::error::{AuthError, AuthResult, Field, Problem};
use crate::store::{SecurityEventRecord, SessionRecord};

/// How long security events are kept and shown.
pub const EVENTS_KEPT_DAYS: i64 = 90;

/// The most events one list returns.
pub const EVENTS_LISTED: i64 = 200;

/// The longest user agent stored, in characters.
pub const USER_AGENT_MAX_CHARS: usize = 256;

/// What happened to a member's account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    LoginSucceeded,
    /// A wrong password at login.
    WrongPassword,
    /// A wrong one-time code at login.
    WrongCode,
    /// A wrong current password confirming a sensitive change (a step-up or a password
    /// change): somebody inside a session who does not know the password.
    WrongCurrentPassword,
    PasswordChanged,
    /// A recovery code sent to the member's mailbox (asked by whoever knew the RUT).
    RecoveryRequested,
    /// A wrong recovery code.
    WrongRecoveryCode,
    /// A new password set through recovery.
    PasswordReset,
    /// A new login email, once accounts saw it confirmed.
    EmailChanged,
    /// The member ended one of their sessions.
    SessionEnded,
    /// The member ended every session but the current one.
    OtherSessionsEnded,
    /// Every session ended on accounts' request (the previous email restored).
    AllSessionsEnded,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::LoginSucceeded => "login_succeeded",
            EventKind::WrongPassword => "wrong_password",
            EventKind::WrongCode => "wrong_code",
            EventKind::WrongCurrentPassword => "wrong_current_password",
            EventKind::PasswordChanged => "password_changed",
            EventKind::RecoveryRequested => "recovery_requested",
            EventKind::WrongRecoveryCode => "wrong_recovery_code",
            EventKind::PasswordReset => "password_reset",
            EventKind::EmailChanged => "email_changed",
            EventKind::SessionEnded => "session_ended",
            EventKind::OtherSessionsEnded => "other_sessions_ended",
            EventKind::AllSessionsEnded => "all_sessions_ended",
        }
    }
}

/// A user agent as stored: control characters dropped, trimmed, at most
/// [`USER_AGENT_MAX_CHARS`] characters.
pub fn stored_user_agent(raw: &str) -> String {
    raw.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .chars()
        .take(USER_AGENT_MAX_CHARS)
        .collect()
}

/// A session id as the member names it: the UUID of a `sid`, or refused on field `id`.
fn session_id(raw: &str) -> AuthResult<String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(AuthError::InvalidInput {
            field: Field::SessionId,
            problem: Problem::Empty,
        });
    }
    uuid::Uuid::parse_str(raw)
        .map(|id| id.hyphenated().to_string())
        .map_err(|_| AuthError::InvalidInput {
            field: Field::SessionId,
            problem: Problem::Malformed,
        })
}

/// One open session as the member sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenSession {
    pub record: SessionRecord,
    pub current: bool,
}

impl Auth {
    /// Records `kind` for `member_id`; logs instead of failing.
    pub(crate) async fn record_event(
        &self,
        member_id: &MemberId,
        kind: EventKind,
        user_agent: &str,
    ) {
        let agent = stored_user_agent(user_agent);
        if let Err(err) = self
            .store
            .insert_security_event(member_id, kind.as_str(), now_millis(), &agent)
            .await
        {
            tracing::error!(member_id = %member_id, kind = kind.as_str(), error = %err, "cannot record a security event");
        }
    }

    /// The member of a verified member token.
    fn member_of(claims: &Claims) -> AuthResult<MemberId> {
        MemberId::parse(&claims.sub).map_err(|_| AuthError::Unauthenticated)
    }

    /// The earliest start of a session still within the absolute limit at `now`.
    fn open_since(&self, now: i64) -> i64 {
        now - self.policy.session_absolute().as_millis() as i64
    }

    /// The open sessions of the caller's member, the most recently seen first. A session
    /// whose activity mark is gone or older than the idle limit cannot be renewed and is not
    /// listed (the caller's own always is); a newer mark is its last sighting.
    pub async fn list_sessions(&self, caller: &Claims) -> AuthResult<Vec<OpenSession>> {
        let member_id = Self::member_of(caller)?;
        let now = now_millis();
        let records = self
            .store
            .open_sessions(&member_id, self.open_since(now), now)
            .await?;
        let idle_limit = self.policy.session_idle().as_millis() as i64;
        let mut sessions = Vec::with_capacity(records.len());
        for mut record in records {
            let current = record.session_id == caller.sid;
            let seen = self
                .ephemeral
                .get(&seen_key(&record.session_id))
                .await?
                .and_then(|raw| raw.parse::<i64>().ok());
            match seen {
                Some(seen) if now - seen <= idle_limit => {
                    record.last_seen_at = record.last_seen_at.max(seen);
                }
                _ if current => record.last_seen_at = now,
                _ => continue,
            }
            sessions.push(OpenSession { record, current });
        }
        sessions.sort_by(|a, b| {
            b.current
                .cmp(&a.current)
                .then(b.record.last_seen_at.cmp(&a.record.last_seen_at))
        });
        Ok(sessions)
    }

    /// Ends the caller's member's open session `raw_id`; `true` when it was the caller's own.
    /// `SessionNotFound` when no open session of this member has that id.
    pub async fn end_session(&self, caller: &Claims, raw_id: &str) -> AuthResult<bool> {
        let member_id = Self::member_of(caller)?;
        let id = session_id(raw_id)?;
        let now = now_millis();
        let Some(found) = self
            .store
            .open_session_of(&member_id, &id, self.open_since(now), now)
            .await?
        else {
            tracing::info!(member_id = %member_id, "end session refused: no such open session of the member");
            return Err(AuthError::SessionNotFound);
        };
        // The revocation mark before the refresh tokens: when the ephemeral store fails, the
        // member is told the close failed and the session is still listed for another try,
        // instead of a session gone from the list whose access token goes on working.
        self.mark_revoked(&found.session_id).await?;
        self.store.revoke_family(&found.session_id, now).await?;
        let current = found.session_id == caller.sid;
        let agent = self.session_agent(&caller.sid).await;
        self.record_event(&member_id, EventKind::SessionEnded, &agent)
            .await;
        tracing::info!(member_id = %member_id, sid = %found.session_id, current, "session ended by the member");
        Ok(current)
    }

    /// Ends every open session of the caller's member except the caller's; returns how many.
    /// Each is marked revoked (what both hops check) before its refresh tokens are revoked in
    /// SQL, so a failure of the ephemeral store answers an error while the sessions are still
    /// open and listed, and the member's retry finds them again.
    pub async fn end_other_sessions(&self, caller: &Claims) -> AuthResult<usize> {
        let member_id = Self::member_of(caller)?;
        let now = now_millis();
        let others: BTreeSet<String> = self
            .store
            .open_sessions(&member_id, self.open_since(now), now)
            .await?
            .into_iter()
            .map(|session| session.session_id)
            .filter(|sid| *sid != caller.sid)
            .collect();
        for sid in &others {
            self.mark_revoked(sid).await?;
        }
        let revoked = self
            .store
            .revoke_other_sessions(&member_id, &caller.sid, now_millis())
            .await?;
        // A session opened between the list and the revocation is revoked in SQL only: mark it.
        for sid in revoked.iter().filter(|sid| !others.contains(*sid)) {
            self.mark_revoked(sid).await?;
        }
        if !revoked.is_empty() {
            let agent = self.session_agent(&caller.sid).await;
            self.record_event(&member_id, EventKind::OtherSessionsEnded, &agent)
                .await;
        }
        tracing::info!(member_id = %member_id, revoked_sessions = revoked.len(), "other sessions ended by the member");
        Ok(revoked.len())
    }

    /// The user agent session `sid` was opened with, for an event done inside it; empty when
    /// it cannot be read (the event matters more than its device).
    pub(crate) async fn session_agent(&self, sid: &str) -> String {
        match self.store.session_user_agent(sid).await {
            Ok(agent) => agent.unwrap_or_default(),
            Err(err) => {
                tracing::warn!(sid, error = %err, "cannot read the user agent of a session");
                String::new()
            }
        }
    }

    /// The caller's member's security events of the last [`EVENTS_KEPT_DAYS`] days, newest
    /// first, at most [`EVENTS_LISTED`].
    pub async fn list_security_events(
        &self,
        caller: &Claims,
    ) -> AuthResult<Vec<SecurityEventRecord>> {
        let member_id = Self::member_of(caller)?;
        let since = now_millis() - EVENTS_KEPT_DAYS * 24 * 3600 * 1000;
        Ok(self
            .store
            .security_events(&member_id, since, EVENTS_LISTED)
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_user_agent_has_no_control_characters_and_at_most_256_characters() {
        assert_eq!(
            stored_user_agent("  Mozilla/5.0\r\n(X11)\t "),
            "Mozilla/5.0(X11)"
        );
        let long = "ñ".repeat(1000);
        assert_eq!(
            stored_user_agent(&long).chars().count(),
            USER_AGENT_MAX_CHARS
        );
        assert_eq!(stored_user_agent(""), "");
    }

    #[test]
    fn a_session_id_must_be_a_uuid_and_is_refused_on_its_field_otherwise() {
        let id = "0b7f4c1e-8f4a-4a57-9a40-5d0f3c1b2a11";
        assert_eq!(session_id(&format!(" {} ", id.to_uppercase())).unwrap(), id);
        for bad in ["", "  ", "sid-1", "' OR 1=1 --", "../../etc"] {
            let err = session_id(bad).unwrap_err();
            assert!(matches!(
                err,
                AuthError::InvalidInput {
                    field: Field::SessionId,
                    ..
                }
            ));
        }
    }

    #[test]
    fn every_event_kind_has_its_own_name() {
        let kinds = [
            EventKind::LoginSucceeded,
            EventKind::WrongPassword,
            EventKind::WrongCode,
            EventKind::WrongCurrentPassword,
            EventKind::PasswordChanged,
            EventKind::RecoveryRequested,
            EventKind::WrongRecoveryCode,
            EventKind::PasswordReset,
            EventKind::EmailChanged,
            EventKind::SessionEnded,
            EventKind::OtherSessionsEnded,
            EventKind::AllSessionsEnded,
        ];
        let names: std::collections::BTreeSet<_> = kinds.iter().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), kinds.len());
    }
}
