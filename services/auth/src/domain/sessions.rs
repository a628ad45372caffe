//! Sessions: a short-lived access JWT plus an opaque refresh token, both tied to a session id.
//!
//! The session id (`sid` claim) is the refresh-token family. Each renewal marks the presented
//! token used and issues its successor in the same family; presenting a used or revoked token
//! again means it was stolen (or raced), so the whole family is revoked: every refresh token in
//! SQL, and the `sid` in the ephemeral store's revocation list so live access tokens die too.
//!
//! Sessions end. Absolute: every token of a family carries the instant of its code step, a
//! refresh past `session_absolute_secs` from it is refused and no token is issued that
//! outlives it. Idle: the gateway marks a session seen on every member request (at most once a
//! minute per session and process; a refresh is not a request of the member), auth marks it
//! when it opens it, and a refresh is refused when the mark is older than `session_idle_secs`
//! (or gone). Only auth holds the limits.
//!
//! Ephemeral keys (the store adds its own prefix):
//! - `seen:sid:<sid>`: the session's last member request, milliseconds since the epoch (the
//!   gateway's `activity` module writes the same key).

use std::time::Duration;

use miclub_platform::storage::now_millis;
use miclub_platform::tokens::{Claims, TokenKind, revocation_key, seen_key};

use super::Auth;
use super::security::stored_user_agent;
use super::types::{MemberId, RefreshToken};
use crate::error::{AuthError, AuthResult};
use crate::store::NewRefresh;

/// Extra life of a revocation mark beyond the access-token TTL (clock skew, verifier leeway).
const REVOCATION_MARGIN: Duration = Duration::from_secs(60);

/// Life of the mark auth writes when a session opens, beyond the absolute limit.
const SEEN_MARGIN: Duration = Duration::from_secs(3600);

/// A session's tokens as handed to the client.
#[derive(Debug, Clone)]
pub struct IssuedSession {
    pub sid: String,
    pub access_token: String,
    pub access_expires_in_secs: i64,
    pub refresh_token: RefreshToken,
    pub refresh_expires_in_secs: i64,
}

impl Auth {
    /// Opens a new session (a new family) for a member who just proved who they are, from a
    /// client that sent `user_agent` (stored for the member's list of sessions).
    pub(crate) async fn open_session(
        &self,
        member_id: &MemberId,
        user_agent: &str,
    ) -> AuthResult<IssuedSession> {
        let sid = uuid::Uuid::new_v4().to_string();
        let now = now_millis();
        self.store
            .insert_session(&sid, member_id, now, &stored_user_agent(user_agent))
            .await?;
        self.ephemeral
            .set(
                &seen_key(&sid),
                &now.to_string(),
                self.policy.session_absolute() + SEEN_MARGIN,
            )
            .await?;
        self.issue(member_id, &sid, now, now, None).await
    }

    /// Renews a session: the presented refresh token is spent and a new pair is issued.
    pub async fn refresh_session(&self, token: Option<RefreshToken>) -> AuthResult<IssuedSession> {
        let token = token.ok_or(AuthError::Unauthenticated)?;
        let hash = token.digest();
        let record = self
            .store
            .refresh_by_hash(&hash)
            .await?
            .ok_or(AuthError::Unauthenticated)?;
        if record.used_at.is_some() || record.revoked_at.is_some() {
            tracing::warn!(
                member_id = %record.member_id,
                sid = %record.family_id,
                "refresh token reused: revoking its session"
            );
            self.revoke_session(&record.family_id).await?;
            return Err(AuthError::Unauthenticated);
        }
        let now = now_millis();
        if record.expires_at <= now || record.member_disabled {
            return Err(AuthError::Unauthenticated);
        }
        let ends_at = record.session_started_at + self.policy.session_absolute().as_millis() as i64;
        if now >= ends_at {
            tracing::info!(member_id = %record.member_id, sid = %record.family_id, "refresh refused: session past its absolute limit");
            return Err(AuthError::Unauthenticated);
        }
        let seen = self
            .ephemeral
            .get(&seen_key(&record.family_id))
            .await?
            .and_then(|raw| raw.parse::<i64>().ok());
        let idle_limit = self.policy.session_idle().as_millis() as i64;
        match seen {
            Some(seen) if now - seen <= idle_limit => {}
            Some(seen) => {
                tracing::info!(member_id = %record.member_id, sid = %record.family_id, idle_secs = (now - seen) / 1000, "refresh refused: session idle past its limit");
                return Err(AuthError::Unauthenticated);
            }
            None => {
                tracing::info!(member_id = %record.member_id, sid = %record.family_id, "refresh refused: no activity mark for the session");
                return Err(AuthError::Unauthenticated);
            }
        }
        let session = self
            .issue(
                &record.member_id,
                &record.family_id,
                record.session_started_at,
                now,
                Some(&hash),
            )
            .await;
        match session {
            Err(AuthError::Unauthenticated) => {
                // Another renewal spent the token between our read and our update.
                tracing::warn!(sid = %record.family_id, "refresh token spent concurrently: revoking its session");
                self.revoke_session(&record.family_id).await?;
                Err(AuthError::Unauthenticated)
            }
            other => other,
        }
    }

    /// Revokes the session of `access_token` (and of `refresh`, when it belongs to the same
    /// member). Idempotent: a session already revoked stays revoked and the call succeeds.
    pub async fn logout(
        &self,
        access_token: Option<&str>,
        refresh: Option<RefreshToken>,
    ) -> AuthResult<()> {
        let claims = match access_token {
            Some(token) => match self.verifier.verify(token).await {
                Ok(claims) if claims.kind == TokenKind::Member => Some(claims),
                Ok(_) => None,
                Err(err) => {
                    tracing::info!(reason = %err, "logout with an unusable access token");
                    None
                }
            },
            None => None,
        };
        let mut families = Vec::with_capacity(2);
        if let Some(claims) = &claims {
            families.push(claims.sid.clone());
        }
        if let Some(refresh) = refresh
            && let Some(record) = self.store.refresh_by_hash(&refresh.digest()).await?
            && claims
                .as_ref()
                .is_none_or(|c| c.sub == record.member_id.as_str())
            && !families.contains(&record.family_id)
        {
            families.push(record.family_id);
        }
        if families.is_empty() {
            return Err(AuthError::Unauthenticated);
        }
        for family in &families {
            self.revoke_session(family).await?;
        }
        tracing::info!(sessions = families.len(), "logged out");
        Ok(())
    }

    /// Revokes every refresh token of a family and marks its `sid` revoked for as long as an
    /// access token of it could live.
    pub(super) async fn revoke_session(&self, family_id: &str) -> AuthResult<()> {
        self.store.revoke_family(family_id, now_millis()).await?;
        self.mark_revoked(family_id).await
    }

    /// Marks session `sid` revoked in the ephemeral store, which every verifier checks, for as
    /// long as an access token of it could live.
    pub(super) async fn mark_revoked(&self, sid: &str) -> AuthResult<()> {
        let ttl = self.policy.access_ttl() + REVOCATION_MARGIN;
        self.ephemeral.set(&revocation_key(sid), "1", ttl).await?;
        Ok(())
    }

    /// Issues at `now` (the caller's instant, so a session opened and its first tokens share
    /// one) an access token and a refresh token in family `sid`, which began at `started_at`;
    /// neither outlives the session's absolute limit. With `spend`, the refresh token of that
    /// hash is marked used in the same transaction; `Unauthenticated` when it was already spent.
    async fn issue(
        &self,
        member_id: &MemberId,
        sid: &str,
        started_at: i64,
        now: i64,
        spend: Option<&str>,
    ) -> AuthResult<IssuedSession> {
        let refresh = RefreshToken::generate();
        let refresh_hash = refresh.digest();
        let ends_at = started_at + self.policy.session_absolute().as_millis() as i64;
        let left = Duration::from_millis((ends_at - now).max(0) as u64);
        let refresh_ttl = self.policy.refresh_ttl().min(left);
        let new = NewRefresh {
            token_hash: &refresh_hash,
            family_id: sid,
            member_id,
            created_at: now,
            expires_at: now + refresh_ttl.as_millis() as i64,
            session_started_at: started_at,
        };
        match spend {
            None => self.store.insert_refresh(&new).await?,
            Some(old_hash) => {
                if !self.store.rotate_refresh(old_hash, &new).await? {
                    return Err(AuthError::Unauthenticated);
                }
            }
        }
        let access_ttl = self.policy.access_ttl().min(left);
        let issued_at = now / 1000;
        let claims = Claims {
            iss: self.tokens.issuer.clone(),
            aud: self.tokens.audience.clone(),
            sub: member_id.as_str().to_owned(),
            sid: sid.to_owned(),
            kind: TokenKind::Member,
            iat: issued_at,
            nbf: issued_at,
            exp: issued_at + access_ttl.as_secs() as i64,
            jti: uuid::Uuid::new_v4().to_string(),
            scope: String::new(),
        };
        let access_token = self.keys.sign(&claims)?;
        Ok(IssuedSession {
            sid: sid.to_owned(),
            access_token,
            access_expires_in_secs: access_ttl.as_secs() as i64,
            refresh_token: refresh,
            refresh_expires_in_secs: refresh_ttl.as_secs() as i64,
        })
    }
}
