//! Password recovery: a code by email to whoever holds the member's mailbox, then a new
//! password with it, and every session of the member ends.
//!
//! The answers never tell who is a member: an unknown, disabled or capped user gets a decoy
//! reset stored like a real one (its code digest is random, so no code opens it) and no mail;
//! resend and complete behave the same for both. Limits per client address and per user
//! string apply whether or not the member exists.
//!
//! Ephemeral keys (the store adds its own prefix):
//! - `reset:ip:<ip>`, `reset:user:<login_id>`: recovery requests, counted before anything else;
//! - `reset:challenge:<id>`: the pending reset (member or decoy, code digest, expiry);
//! - `reset:tries:<id>`: codes tried, counted before the code is compared;
//! - `reset:cooldown:<id>`: the resend cooldown;
//! - `reset:daily:<member_id>`: recovery codes sent to the member in 24 hours, a budget of
//!   its own: recoveries asked by a stranger cannot use up the member's login codes.

use std::time::Duration;

use miclub_platform::calendar::member_date_time;
use miclub_platform::identity::LoginId;
use miclub_platform::notify::{Notice, Outgoing};
use miclub_platform::storage::now_millis;
use serde::{Deserialize, Serialize};

use super::Auth;
use super::code_attempts::StoredChallenge;
use super::login::{CodeBudget, CodeSent};
use super::password_change::PasswordChanged;
use super::password_rules::NewPassword;
use super::security::EventKind;
use super::types::{ChallengeId, MemberId, OtpCode, random_token, same_digest, stored_member_id};
use crate::error::{AuthError, AuthResult};

fn ip_key(ip: &str) -> String {
    format!("reset:ip:{ip}")
}

fn user_key(login_id: &str) -> String {
    format!("reset:user:{login_id}")
}

fn challenge_key(id: &ChallengeId) -> String {
    format!("reset:challenge:{}", id.as_str())
}

fn tries_key(id: &ChallengeId) -> String {
    format!("reset:tries:{}", id.as_str())
}

fn cooldown_key(id: &ChallengeId) -> String {
    format!("reset:cooldown:{}", id.as_str())
}

/// A pending reset as the ephemeral store keeps it. The code itself is never stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ResetChallenge {
    /// `None` for a decoy: nobody's reset, opened by no code.
    #[serde(default, with = "stored_member_id::option")]
    member_id: Option<MemberId>,
    code_digest: String,
    /// Milliseconds since the epoch; the key's TTL ends it too.
    expires_at: i64,
    /// Milliseconds since the epoch, when the reset was asked for, kept across resends:
    /// credentials replaced since then (a rejoin) end the reset, as a password change ends a
    /// pending login. Resets written before this field existed read as 0.
    #[serde(default)]
    started_at: i64,
}

impl StoredChallenge for ResetChallenge {
    const FLOW: &'static str = "reset";

    fn expires_at(&self) -> i64 {
        self.expires_at
    }
}

/// A recovery was asked for: the same for members and strangers.
#[derive(Debug, Clone)]
pub struct ResetStarted {
    pub reset_id: ChallengeId,
    pub expires_in_secs: i64,
    pub resend_after_secs: i64,
}

impl Auth {
    /// Asks for a recovery code for `login_id`. `client_ip` may be empty for internal callers;
    /// `user_agent` goes with the member's event.
    pub async fn start_password_reset(
        &self,
        login_id: &LoginId,
        client_ip: &str,
        user_agent: &str,
    ) -> AuthResult<ResetStarted> {
        let login = login_id.canonical();
        let policy = &self.policy;
        let started_at = now_millis();
        if !client_ip.is_empty() {
            self.count_within_window(
                &ip_key(client_ip),
                policy.ip_window(),
                policy.ip_recoveries,
                "recovery",
                "client address",
            )
            .await?;
        }
        self.count_within_window(
            &user_key(&login),
            policy.account_window(),
            policy.account_attempts,
            "recovery",
            "user",
        )
        .await?;
        let id = ChallengeId::generate();
        let record = self
            .store
            .credentials_by_login_id(&login)
            .await?
            .filter(|record| !record.disabled);
        match record {
            Some(record) if self.may_send(&record.member_id).await? => {
                self.send_reset_code(&id, &record.member_id, &record.email, started_at)
                    .await?;
                self.record_event(&record.member_id, EventKind::RecoveryRequested, user_agent)
                    .await;
                tracing::info!(member_id = %record.member_id, "recovery code sent");
            }
            _ => {
                self.store_decoy(&id).await?;
                tracing::info!("recovery asked for an unknown, disabled or capped user");
            }
        }
        if !policy.resend_cooldown().is_zero() {
            self.ephemeral
                .set(&cooldown_key(&id), "1", policy.resend_cooldown())
                .await?;
        }
        Ok(ResetStarted {
            reset_id: id,
            expires_in_secs: policy.otp_ttl_secs as i64,
            resend_after_secs: policy.resend_cooldown_secs as i64,
        })
    }

    /// A new code for a pending reset; the previous one stops working.
    pub async fn resend_password_reset(
        &self,
        reset_id: Option<ChallengeId>,
    ) -> AuthResult<CodeSent> {
        let id = reset_id.ok_or(AuthError::OtpExpired)?;
        let raw = self
            .ephemeral
            .get(&challenge_key(&id))
            .await?
            .ok_or(AuthError::OtpExpired)?;
        let challenge = ResetChallenge::decode(&raw)?;
        let cooldown = self.policy.resend_cooldown();
        if !cooldown.is_zero()
            && !self
                .ephemeral
                .set_if_absent(&cooldown_key(&id), "1", cooldown)
                .await?
        {
            return Err(AuthError::OtpResendCooldown);
        }
        self.ephemeral.delete(&tries_key(&id)).await?;
        let member = match &challenge.member_id {
            Some(member_id) => self
                .store
                .credentials_by_member_id(member_id)
                .await?
                .filter(|record| {
                    !record.disabled && !record.password_changed_since(challenge.started_at)
                }),
            None => None,
        };
        match member {
            Some(record) if self.may_send(&record.member_id).await? => {
                self.send_reset_code(&id, &record.member_id, &record.email, challenge.started_at)
                    .await?;
                tracing::info!(member_id = %record.member_id, "recovery code sent again");
            }
            _ => self.store_decoy(&id).await?,
        }
        Ok(CodeSent {
            expires_in_secs: self.policy.otp_ttl_secs as i64,
            resend_after_secs: self.policy.resend_cooldown_secs as i64,
        })
    }

    /// Sets `new` as the member's password with the code; single use, limited tries. The
    /// member's mailbox is proven, so the email counts as verified; every session ends.
    /// `user_agent` goes with the member's events (a wrong code, the reset).
    pub async fn complete_password_reset(
        &self,
        reset_id: Option<ChallengeId>,
        code: &OtpCode,
        new: &NewPassword,
        user_agent: &str,
    ) -> AuthResult<PasswordChanged> {
        let id = reset_id.ok_or(AuthError::OtpExpired)?;
        let (challenge, tries) = self
            .counted_try::<ResetChallenge>(&challenge_key(&id), &tries_key(&id), "recovery")
            .await?;
        let digest = code.digest(self.keys.codes(), &id);
        if !same_digest(&digest, &challenge.code_digest) {
            tracing::info!(tries, "wrong recovery code");
            // A decoy's wrong codes are nobody's events.
            if let Some(member_id) = &challenge.member_id {
                self.record_event(member_id, EventKind::WrongRecoveryCode, user_agent)
                    .await;
            }
            return Err(AuthError::OtpInvalid);
        }
        // Single use: of two concurrent right answers only one takes the reset.
        let taken = self
            .ephemeral
            .take(&challenge_key(&id))
            .await?
            .ok_or(AuthError::OtpExpired)?;
        let raw = taken;
        let taken = ResetChallenge::decode(&raw)?;
        let started_at = taken.started_at;
        let member_id = match taken.member_id {
            Some(member_id) if same_digest(&digest, &taken.code_digest) => member_id,
            // A resend replaced the code between our read and our take: put the new one back.
            _ => {
                self.put_back_taken(&challenge_key(&id), &raw, taken.expires_at)
                    .await?;
                return Err(AuthError::OtpInvalid);
            }
        };
        self.ephemeral.delete(&tries_key(&id)).await?;
        self.ephemeral.delete(&cooldown_key(&id)).await?;

        let record = self
            .store
            .credentials_by_member_id(&member_id)
            .await?
            .filter(|record| !record.disabled && !record.password_changed_since(started_at))
            .ok_or(AuthError::OtpExpired)?;
        let families = self
            .set_password_ending_sessions(&member_id, new, |at| reset_notice(&record.email, at))
            .await?
            .ok_or(AuthError::OtpExpired)?;
        if let Err(err) = self
            .store
            .set_login_email(&member_id, &record.email, now_millis())
            .await
        {
            tracing::error!(member_id = %member_id, error = %err, "cannot mark the email verified after a password reset");
        }
        // Whoever proved the mailbox is the member: every password throttle on the account
        // (a stranger's included) ends.
        if let Err(err) = self.lift_password_throttles(&record.login_id).await {
            tracing::error!(member_id = %member_id, error = %err, "cannot lift the password throttles after a reset");
        }
        self.record_event(&member_id, EventKind::PasswordReset, user_agent)
            .await;
        tracing::info!(
            member_id = %member_id,
            revoked_sessions = families.len(),
            "password reset, every session revoked"
        );
        Ok(PasswordChanged {
            revoked_sessions: families.len(),
        })
    }

    /// Whether one more code may go to the member today. Past the cap the reset quietly
    /// becomes a decoy, so the answer stays the same as for a stranger.
    async fn may_send(&self, member_id: &MemberId) -> AuthResult<bool> {
        match self.count_send(CodeBudget::Recovery, member_id).await {
            Ok(()) => Ok(true),
            Err(AuthError::OtpDailyLimit) => Ok(false),
            Err(err) => Err(err),
        }
    }

    async fn store_decoy(&self, id: &ChallengeId) -> AuthResult<()> {
        let ttl = self.policy.otp_ttl();
        let decoy = ResetChallenge {
            member_id: None,
            code_digest: random_token(32),
            expires_at: now_millis() + ttl.as_millis() as i64,
            started_at: now_millis(),
        };
        self.ephemeral
            .set(&challenge_key(id), &decoy.encode()?, ttl)
            .await?;
        Ok(())
    }

    async fn send_reset_code(
        &self,
        id: &ChallengeId,
        member_id: &MemberId,
        email: &str,
        started_at: i64,
    ) -> AuthResult<()> {
        let code = OtpCode::generate(self.policy.otp_length);
        let ttl = self.policy.otp_ttl();
        let challenge = ResetChallenge {
            member_id: Some(member_id.clone()),
            code_digest: code.digest(self.keys.codes(), id),
            expires_at: now_millis() + ttl.as_millis() as i64,
            started_at,
        };
        self.ephemeral
            .set(&challenge_key(id), &challenge.encode()?, ttl)
            .await?;
        // A failed mail is logged, not answered: an error only members could get would tell
        // who is one. The reset stays pending and a resend tries again.
        if let Err(err) = self.notifier.send(reset_message(email, &code, ttl)).await {
            tracing::error!(member_id = %member_id, error = %err, "cannot send a recovery code");
        }
        Ok(())
    }
}

/// The email with a recovery code (es-CL).
fn reset_message(to: &str, code: &OtpCode, ttl: Duration) -> Outgoing {
    let minutes = ttl.as_secs().div_ceil(60).max(1);
    Outgoing {
        to: to.to_owned(),
        subject: "Código para recuperar tu contraseña de Mi Club".to_owned(),
        body: format!(
            "Tu código para crear una nueva contraseña de Mi Club es {}. Vence en {minutes} \
             minuto{}. Si no lo pediste, ignora este mensaje: tu contraseña no cambia.",
            code.as_str(),
            if minutes == 1 { "" } else { "s" }
        ),
        code: Some(code.as_str().to_owned()),
    }
}

/// The email telling a member their password was reset with a recovery code at `at` (es-CL).
/// No code and no link that does anything: only what happened, when (the outbox may hold it
/// through a mail relay outage) and what to do.
fn reset_notice(to: &str, at: i64) -> Notice {
    let when = member_date_time(at).unwrap_or_default();
    Notice {
        to: to.to_owned(),
        subject: "Tu contraseña de Mi Club fue restablecida".to_owned(),
        body: format!(
            "El {when} (hora de Chile) la contraseña de tu cuenta Mi Club fue restablecida con \
             un código de recuperación enviado a este correo, y cerramos todas tus sesiones. \
             Si fuiste tú, no necesitas hacer nada. Si no fuiste tú, recupera tu contraseña \
             ahora en Mi Club, en la opción Recuperar contraseña (/recuperar-contrasena), y \
             cambia también la contraseña de tu correo."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reset_notice_is_in_spanish_and_carries_no_code() {
        let mail = reset_notice("diego@example.cl", 1_795_479_300_000);
        assert_eq!(mail.to, "diego@example.cl");
        assert_eq!(mail.subject, "Tu contraseña de Mi Club fue restablecida");
        assert!(mail.body.contains("Si no fuiste tú"));
        assert!(
            mail.body
                .starts_with("El 23 de noviembre de 2026 a las 21:15 (hora de Chile)"),
            "{}",
            mail.body
        );
        // No code: the only digits are the date's and the time's, none six in a row.
        let longest_digit_run = mail
            .body
            .split(|c: char| !c.is_ascii_digit())
            .map(str::len)
            .max()
            .unwrap_or(0);
        assert!(longest_digit_run < 6, "{}", mail.body);
    }

    #[test]
    fn the_recovery_email_is_in_spanish_and_carries_the_code() {
        let code = OtpCode::parse("012345", 6).unwrap();
        let mail = reset_message("diego@example.cl", &code, Duration::from_secs(300));
        assert_eq!(
            mail.subject,
            "Código para recuperar tu contraseña de Mi Club"
        );
        assert!(mail.body.contains("012345") && mail.body.contains("5 minutos"));
        assert_eq!(mail.code.as_deref(), Some("012345"));
    }
}
