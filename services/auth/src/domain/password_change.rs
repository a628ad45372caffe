//! A member changes their password: the current one is checked (counted by the password
//! throttle of the pair (account, client address), as a login's is), the new one must meet [`password_rules`](super::password_rules), and on
//! success every session of the member ends, so whoever held an old session is out.
//!
//! Ending every session means, in one SQL transaction with the new hash, revoking every live
//! refresh token of the member (each family is a session), then marking each of those
//! sessions revoked in the ephemeral store for as long as an access token could live, which
//! is what every service's `TokenVerifier` checks. Logins still waiting for their one-time
//! code were started with the old password: `verify_otp` and `resend_otp` refuse them
//! (`CredentialRecord::password_changed_since`). The notice to the member is best effort: the
//! change stands when the mail cannot be sent.
//!
//! Also here: the step-up check of the current password before another sensitive change
//! (`verify_password`) and ending every session of a member on demand (`end_member_sessions`).

use std::collections::BTreeSet;

use miclub_platform::calendar::member_date_time;
use miclub_platform::notify::Notice;
use miclub_platform::storage::now_millis;

use super::Auth;
use super::password_rules::NewPassword;
use super::security::EventKind;
use super::types::{MemberId, Password};
use crate::error::{AuthError, AuthResult};

/// The password was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordChanged {
    /// Sessions that were live and are now revoked, the caller's included.
    pub revoked_sessions: usize,
}

impl Auth {
    /// Replaces the password of `member_id` (the subject of a verified member token) and
    /// revokes every session of the member. `agent` is the user agent of the session asking,
    /// kept with the member's security events.
    pub async fn change_password(
        &self,
        member_id: &MemberId,
        current: &Password,
        new: &NewPassword,
        client_ip: &str,
        agent: &str,
    ) -> AuthResult<PasswordChanged> {
        let record = self
            .check_current_password(member_id, current, client_ip, "password change", agent)
            .await?;
        new.differs_from(current)
            .map_err(AuthError::weak_new_password)?;

        let families = self
            .set_password_ending_sessions(member_id, new, |at| changed_notice(&record.email, at))
            .await?
            .ok_or(AuthError::Unauthenticated)?;
        self.record_event(member_id, EventKind::PasswordChanged, agent)
            .await;
        tracing::info!(
            member_id = %member_id,
            revoked_sessions = families.len(),
            "password changed, every session revoked"
        );
        Ok(PasswordChanged {
            revoked_sessions: families.len(),
        })
    }
}

impl Auth {
    /// The step-up before a sensitive change: whether `password` is the member's, counted by
    /// the password throttle of (account, `client_ip`). Changes nothing else.
    pub async fn verify_password(
        &self,
        member_id: &MemberId,
        password: &Password,
        client_ip: &str,
    ) -> AuthResult<()> {
        // A service asks (accounts, before a sensitive change): no session of the member's
        // to take a user agent from.
        self.check_current_password(member_id, password, client_ip, "step-up", "")
            .await?;
        tracing::info!(member_id = %member_id, "step-up password accepted");
        Ok(())
    }

    /// Ends every session of the member without touching the password (a restored email).
    /// Idempotent: with no live session it ends none.
    pub async fn end_member_sessions(&self, member_id: &MemberId) -> AuthResult<usize> {
        // The SQL revocation is what must not fail silently; the helper's second pass and the
        // revocation marks follow.
        let revoked = self
            .store
            .revoke_member_sessions(member_id, now_millis())
            .await?;
        let ended = self.end_sessions(member_id, revoked).await;
        self.record_event(member_id, EventKind::AllSessionsEnded, "")
            .await;
        tracing::info!(
            member_id = %member_id,
            revoked_sessions = ended.len(),
            "every session ended on request"
        );
        Ok(ended.len())
    }

    /// The member's usable credentials when `current` is their password; counted by the
    /// throttle before the check, a right one clears the pair. `flow` names it in the log;
    /// `agent` goes with the event of a wrong one.
    async fn check_current_password(
        &self,
        member_id: &MemberId,
        current: &Password,
        client_ip: &str,
        flow: &'static str,
        agent: &str,
    ) -> AuthResult<crate::store::CredentialRecord> {
        let record = self
            .store
            .credentials_by_member_id(member_id)
            .await?
            .filter(|record| !record.disabled)
            .ok_or_else(|| {
                tracing::info!(
                    member_id = %member_id,
                    flow,
                    "password check refused: no usable credentials"
                );
                AuthError::Unauthenticated
            })?;
        let pair = self
            .take_password_attempt(&record.login_id, client_ip, flow)
            .await?;
        let checked = self
            .hasher
            .check(current, record.hash_scheme, &record.password_hash)
            .await?;
        if !checked.matches {
            tracing::info!(
                member_id = %member_id,
                flow,
                "password check refused: wrong current password"
            );
            self.record_event(member_id, EventKind::WrongCurrentPassword, agent)
                .await;
            return Err(AuthError::WrongPassword);
        }
        self.password_was_right(&pair).await?;
        Ok(record)
    }

    /// Stores `new` as the member's password and ends every session of the member: the one
    /// way a password is replaced by the member (change or recovery). `None` when the member
    /// has no credentials. Returns the sessions (refresh families) that were revoked.
    pub(super) async fn set_password_ending_sessions(
        &self,
        member_id: &MemberId,
        new: &NewPassword,
        notice: impl FnOnce(i64) -> Notice,
    ) -> AuthResult<Option<BTreeSet<String>>> {
        let hash = self.hasher.hash(&new.as_password()).await?;
        let now = now_millis();
        let Some(revoked) = self
            .store
            .change_password(member_id, &hash, &notice(now), now)
            .await?
        else {
            return Ok(None);
        };
        self.outbox.ring();
        Ok(Some(self.end_sessions(member_id, revoked).await))
    }

    /// Ends every session of a member after a committed transaction changed what a session
    /// needs (the password, the credentials, enabled or not) and revoked the member's refresh
    /// tokens (`revoked`, their families): the one way sessions end together, shared by the
    /// password change, recovery, rejoining and unsubscribing. Returns every session revoked.
    pub(super) async fn end_sessions(
        &self,
        member_id: &MemberId,
        revoked: Vec<String>,
    ) -> BTreeSet<String> {
        let mut families: BTreeSet<String> = revoked.into_iter().collect();
        // A login completing during the change may have checked the credentials before our
        // commit and stored its token after our revocation read the table: this second pass,
        // after the commit, catches it. No login can complete on the changed credentials yet.
        match self
            .store
            .revoke_member_sessions(member_id, now_millis())
            .await
        {
            Ok(late) => families.extend(late),
            Err(err) => {
                tracing::error!(member_id = %member_id, error = %err, "cannot recheck sessions after ending them")
            }
        }
        for family in &families {
            // The credentials are changed and the refresh tokens revoked already; a failure
            // here leaves access tokens that end within the access TTL. Keep marking the others.
            if let Err(err) = self.mark_revoked(family).await {
                tracing::error!(member_id = %member_id, sid = %family, error = %err, "cannot mark a session revoked");
            }
        }
        families
    }
}

/// The email telling a member their password changed at `at` (es-CL). It names when: the
/// outbox may hold it through a mail relay outage.
fn changed_notice(to: &str, at: i64) -> Notice {
    let when = member_date_time(at).unwrap_or_default();
    Notice {
        to: to.to_owned(),
        subject: "Tu contraseña de Mi Club fue cambiada".to_owned(),
        body: format!(
            "El {when} (hora de Chile) la contraseña de tu cuenta Mi Club fue cambiada y \
             cerramos todas tus sesiones. Si fuiste tú, no necesitas hacer nada. Si no fuiste \
             tú, recupera tu contraseña ahora en Mi Club, en la opción Recuperar contraseña \
             (/recuperar-contrasena), y cambia también la contraseña de tu correo."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_says_what_happened_and_what_to_do_if_it_was_not_the_member() {
        // 2026-11-24 00:15 UTC: the evening before in Santiago (UTC-3 in summer).
        let mail = changed_notice("ana@example.cl", 1_795_479_300_000);
        assert_eq!(mail.to, "ana@example.cl");
        assert_eq!(mail.subject, "Tu contraseña de Mi Club fue cambiada");
        assert!(
            mail.body
                .starts_with("El 23 de noviembre de 2026 a las 21:15 (hora de Chile)"),
            "{}",
            mail.body
        );
        assert!(mail.body.contains("Si no fuiste tú"));
        assert!(mail.body.contains("/recuperar-contrasena"));
    }
}
