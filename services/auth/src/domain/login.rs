//! The two steps of a login: the password, then the one-time code sent by email.
//!
//! Ephemeral keys (the store adds its own prefix):
//! - `login:ip:<ip>`: password attempts from an address (any account), counted atomically
//!   before the password is checked; the (account, address) throttle is
//!   [`throttle`](super::throttle)'s;
//! - `otp:challenge:<id>`: the pending login (member, code digest, expiry, legacy flag), TTL of
//!   the code;
//! - `otp:tries:<id>`: codes tried on that challenge, counted before the code is compared;
//! - `otp:cooldown:<id>`: the resend cooldown (`set_if_absent`);
//! - `otp:daily:<member_id>`: login codes sent to the member in the last 24 hours (recovery
//!   counts its own, `reset:daily:<member_id>`, so a stranger asking for recoveries cannot use
//!   up the member's login codes).

use std::time::Duration;

use miclub_platform::identity::LoginId;
use miclub_platform::notify::Outgoing;
use miclub_platform::storage::now_millis;
use serde::{Deserialize, Serialize};

use super::Auth;
use super::code_attempts::StoredChallenge;
use super::hashing::HashScheme;
use super::security::EventKind;
use super::sessions::IssuedSession;
use super::types::{
    ChallengeId, MemberId, OtpCode, Password, mask_email, same_digest, stored_member_id,
};
use crate::error::{AuthError, AuthResult};

const DAILY_WINDOW: Duration = Duration::from_secs(24 * 3600);

fn ip_key(ip: &str) -> String {
    format!("login:ip:{ip}")
}

fn ip_failures_key(ip: &str) -> String {
    format!("login:ip-failures:{ip}")
}

fn challenge_key(id: &ChallengeId) -> String {
    format!("otp:challenge:{}", id.as_str())
}

fn tries_key(id: &ChallengeId) -> String {
    format!("otp:tries:{}", id.as_str())
}

fn cooldown_key(id: &ChallengeId) -> String {
    format!("otp:cooldown:{}", id.as_str())
}

/// Which daily budget of codes a send counts toward.
#[derive(Debug, Clone, Copy)]
pub(super) enum CodeBudget {
    Login,
    Recovery,
}

fn daily_key(budget: CodeBudget, member_id: &MemberId) -> String {
    match budget {
        CodeBudget::Login => format!("otp:daily:{member_id}"),
        CodeBudget::Recovery => format!("reset:daily:{member_id}"),
    }
}

/// A pending login as the ephemeral store keeps it. The code itself is never stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Challenge {
    #[serde(with = "stored_member_id")]
    member_id: MemberId,
    /// `OtpCode::digest` of the code sent last.
    code_digest: String,
    /// Milliseconds since the epoch; the key's TTL ends it too.
    expires_at: i64,
    /// The password step used a legacy hash: this login is the member's migration.
    legacy: bool,
    /// Milliseconds since the epoch, taken before the password was checked and kept across
    /// resends: a password changed since then ends the login. Challenges written before this
    /// field existed read as 0, the oldest possible.
    #[serde(default)]
    started_at: i64,
}

impl StoredChallenge for Challenge {
    const FLOW: &'static str = "login";

    fn expires_at(&self) -> i64 {
        self.expires_at
    }
}

/// Whose login a code is for, as a challenge carries it from send to send.
struct Pending<'a> {
    member_id: &'a MemberId,
    legacy: bool,
    started_at: i64,
}

/// The password step succeeded and a code is on its way.
#[derive(Debug, Clone)]
pub struct LoginStarted {
    pub challenge_id: ChallengeId,
    pub masked_destination: String,
    pub expires_in_secs: i64,
    pub resend_after_secs: i64,
}

/// A new code was sent for a pending login.
#[derive(Debug, Clone, Copy)]
pub struct CodeSent {
    pub expires_in_secs: i64,
    pub resend_after_secs: i64,
}

/// The code was right: the member has a session.
#[derive(Debug, Clone)]
pub struct LoginCompleted {
    pub member_id: MemberId,
    pub session: IssuedSession,
    pub is_user_migrating: bool,
}

impl Auth {
    /// The password step. `client_ip` may be empty for internal callers (no address limit);
    /// `user_agent` (may be empty) goes with a wrong password into the member's events.
    pub async fn start_login(
        &self,
        login_id: &LoginId,
        password: &Password,
        client_ip: &str,
        user_agent: &str,
    ) -> AuthResult<LoginStarted> {
        let login = login_id.canonical();
        let policy = &self.policy;
        // Before the password is read: a change committed after this instant ends the login.
        let started_at = now_millis();
        // Per address, every password checked counts, and so does every wrong one: one is taken
        // before the check and given back once the password is right, so parallel guesses
        // cannot pass that limit and members behind one shared address (a carrier's NAT) do not
        // use it up by logging in.
        let failures = (!client_ip.is_empty()).then(|| ip_failures_key(client_ip));
        if let Some(failures) = &failures {
            self.count_within_window(
                &ip_key(client_ip),
                policy.ip_window(),
                policy.ip_attempts,
                "login",
                "client address",
            )
            .await?;
            self.count_within_window(
                failures,
                policy.ip_window(),
                policy.ip_failures,
                "login",
                "client address's wrong passwords",
            )
            .await?;
        }
        let give_back_failure = || async {
            if let Some(failures) = &failures {
                self.ephemeral.give_back(failures).await?;
            }
            AuthResult::Ok(())
        };
        let pair = match self.take_password_attempt(&login, client_ip, "login").await {
            Ok(pair) => pair,
            Err(err) => {
                // The pair must wait: no password was checked, so nothing failed.
                give_back_failure().await?;
                return Err(err);
            }
        };

        let Some(record) = self.store.credentials_by_login_id(&login).await? else {
            self.hasher.check_dummy(password).await?;
            return Err(AuthError::InvalidCredentials);
        };
        let checked = self
            .hasher
            .check(password, record.hash_scheme, &record.password_hash)
            .await?;
        if !checked.matches {
            tracing::info!(member_id = %record.member_id, disabled = record.disabled, "login refused: credentials");
            self.record_event(&record.member_id, EventKind::WrongPassword, user_agent)
                .await;
            return Err(AuthError::InvalidCredentials);
        }
        give_back_failure().await?;
        // Only the right password learns that the member left; a wrong one says nothing more
        // than for anyone else. The failures before it keep counting.
        if record.disabled {
            tracing::info!(member_id = %record.member_id, "login refused: member unsubscribed");
            return Err(AuthError::MemberUnsubscribed {
                disabled_at: record.disabled_at,
            });
        }
        // The password is right: the failures before it no longer count.
        self.password_was_right(&pair).await?;
        if !record.email_verified {
            return Err(AuthError::EmailNotVerified);
        }

        let legacy = record.hash_scheme == HashScheme::LegacyBcrypt;
        if checked.needs_rehash {
            self.rehash(&record.member_id, password, legacy).await;
        }

        self.count_send(CodeBudget::Login, &record.member_id)
            .await?;
        let challenge_id = ChallengeId::generate();
        let pending = Pending {
            member_id: &record.member_id,
            legacy,
            started_at,
        };
        self.send_code(&challenge_id, &pending, &record.email)
            .await?;
        if !policy.resend_cooldown().is_zero() {
            self.ephemeral
                .set(&cooldown_key(&challenge_id), "1", policy.resend_cooldown())
                .await?;
        }
        tracing::info!(member_id = %record.member_id, legacy, "password accepted, one-time code sent");
        Ok(LoginStarted {
            challenge_id,
            masked_destination: mask_email(&record.email),
            expires_in_secs: policy.otp_ttl_secs as i64,
            resend_after_secs: policy.resend_cooldown_secs as i64,
        })
    }

    /// Sends a new code for a pending login; the previous code stops working.
    pub async fn resend_otp(&self, challenge_id: Option<ChallengeId>) -> AuthResult<CodeSent> {
        let id = challenge_id.ok_or(AuthError::OtpExpired)?;
        let raw = self
            .ephemeral
            .get(&challenge_key(&id))
            .await?
            .ok_or(AuthError::OtpExpired)?;
        let challenge = Challenge::decode(&raw)?;
        let cooldown = self.policy.resend_cooldown();
        if !cooldown.is_zero()
            && !self
                .ephemeral
                .set_if_absent(&cooldown_key(&id), "1", cooldown)
                .await?
        {
            return Err(AuthError::OtpResendCooldown);
        }
        self.count_send(CodeBudget::Login, &challenge.member_id)
            .await?;
        let record = self
            .store
            .credentials_by_member_id(&challenge.member_id)
            .await?
            .filter(|record| {
                !record.disabled && !record.password_changed_since(challenge.started_at)
            })
            .ok_or(AuthError::OtpExpired)?;
        // Take the old challenge before writing the new one: a concurrent right answer with
        // the old code either won already (and we stop here) or finds no challenge.
        self.ephemeral
            .take(&challenge_key(&id))
            .await?
            .ok_or(AuthError::OtpExpired)?;
        self.ephemeral.delete(&tries_key(&id)).await?;
        let pending = Pending {
            member_id: &challenge.member_id,
            legacy: challenge.legacy,
            started_at: challenge.started_at,
        };
        self.send_code(&id, &pending, &record.email).await?;
        tracing::info!(member_id = %challenge.member_id, "one-time code sent again");
        Ok(CodeSent {
            expires_in_secs: self.policy.otp_ttl_secs as i64,
            resend_after_secs: self.policy.resend_cooldown_secs as i64,
        })
    }

    /// The code step: ends the challenge and opens a session, stored with `user_agent` (may be
    /// empty). A wrong code and a completed login go into the member's events.
    pub async fn verify_otp(
        &self,
        challenge_id: Option<ChallengeId>,
        code: &OtpCode,
        user_agent: &str,
    ) -> AuthResult<LoginCompleted> {
        let id = challenge_id.ok_or(AuthError::OtpExpired)?;
        let (challenge, tries) = self
            .counted_try::<Challenge>(&challenge_key(&id), &tries_key(&id), "login")
            .await?;
        let digest = code.digest(self.keys.codes(), &id);
        if !same_digest(&digest, &challenge.code_digest) {
            tracing::info!(member_id = %challenge.member_id, tries, "wrong one-time code");
            self.record_event(&challenge.member_id, EventKind::WrongCode, user_agent)
                .await;
            return Err(AuthError::OtpInvalid);
        }
        // Single use: of two concurrent right answers only one takes the challenge.
        let taken = self
            .ephemeral
            .take(&challenge_key(&id))
            .await?
            .ok_or(AuthError::OtpExpired)?;
        let raw = taken;
        let taken = Challenge::decode(&raw)?;
        if !same_digest(&digest, &taken.code_digest) {
            // A resend replaced the code between our read and our take: put the new one back.
            self.put_back_taken(&challenge_key(&id), &raw, taken.expires_at)
                .await?;
            return Err(AuthError::OtpInvalid);
        }
        self.ephemeral.delete(&tries_key(&id)).await?;
        self.ephemeral.delete(&cooldown_key(&id)).await?;
        let session = self.open_session(&taken.member_id, user_agent).await?;
        // Checked after the session exists: a password change that commits later revokes it
        // with the member's other sessions (`change_password` makes sure of it), one that
        // committed earlier is seen here.
        let record = self
            .store
            .credentials_by_member_id(&taken.member_id)
            .await?;
        if record.is_none_or(|r| r.disabled || r.password_changed_since(taken.started_at)) {
            self.revoke_session(&session.sid).await?;
            tracing::info!(member_id = %taken.member_id, "login refused: credentials changed or disabled since the password step");
            return Err(AuthError::OtpExpired);
        }
        self.record_event(&taken.member_id, EventKind::LoginSucceeded, user_agent)
            .await;
        tracing::info!(member_id = %taken.member_id, sid = %session.sid, migrating = taken.legacy, "login completed");
        Ok(LoginCompleted {
            member_id: taken.member_id,
            session,
            is_user_migrating: taken.legacy,
        })
    }

    /// Counts one code towards the member's daily cap of `budget`; refuses past it.
    pub(super) async fn count_send(
        &self,
        budget: CodeBudget,
        member_id: &MemberId,
    ) -> AuthResult<()> {
        let sent = self
            .ephemeral
            .incr(&daily_key(budget, member_id), DAILY_WINDOW)
            .await?;
        if sent > self.policy.daily_send_cap {
            tracing::info!(
                member_id = %member_id,
                sent,
                ?budget,
                "one-time code refused: daily cap reached"
            );
            return Err(AuthError::OtpDailyLimit);
        }
        Ok(())
    }

    /// Stores a challenge with a fresh code under `id` (expiry restarts) and mails the code.
    async fn send_code(
        &self,
        id: &ChallengeId,
        pending: &Pending<'_>,
        email: &str,
    ) -> AuthResult<()> {
        let code = OtpCode::generate(self.policy.otp_length);
        let ttl = self.policy.otp_ttl();
        let challenge = Challenge {
            member_id: pending.member_id.clone(),
            code_digest: code.digest(self.keys.codes(), id),
            expires_at: now_millis() + ttl.as_millis() as i64,
            legacy: pending.legacy,
            started_at: pending.started_at,
        };
        self.ephemeral
            .set(&challenge_key(id), &challenge.encode()?, ttl)
            .await?;
        self.notifier
            .send(code_message(email, &code, ttl))
            .await
            .map_err(AuthError::Notify)
    }

    /// Replaces a legacy or outdated hash with a current argon2id one. A failure is logged and
    /// the login goes on: the next one tries again.
    async fn rehash(&self, member_id: &MemberId, password: &Password, legacy: bool) {
        let hash = match self.hasher.hash(password).await {
            Ok(hash) => hash,
            Err(err) => {
                tracing::error!(member_id = %member_id, error = %err, "cannot rehash a password");
                return;
            }
        };
        match self
            .store
            .replace_password_hash(member_id, &hash, HashScheme::Argon2id, now_millis())
            .await
        {
            Ok(()) => {
                tracing::info!(member_id = %member_id, legacy, "password rehashed with argon2id")
            }
            Err(err) => {
                tracing::error!(member_id = %member_id, error = %err, "cannot store a rehashed password")
            }
        }
    }
}

/// The email with a login code (es-CL).
fn code_message(to: &str, code: &OtpCode, ttl: Duration) -> Outgoing {
    let minutes = ttl.as_secs().div_ceil(60).max(1);
    let validity = if minutes == 1 {
        "1 minuto".to_owned()
    } else {
        format!("{minutes} minutos")
    };
    Outgoing {
        to: to.to_owned(),
        subject: "Tu código de acceso a Mi Club".to_owned(),
        body: format!(
            "Tu código para ingresar a Mi Club es {}. Vence en {validity}. \
             Si no intentaste ingresar, ignora este mensaje.",
            code.as_str()
        ),
        code: Some(code.as_str().to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_email_is_in_spanish_and_carries_the_code() {
        let code = OtpCode::parse("012345", 6).unwrap();
        let mail = code_message("ana@example.cl", &code, Duration::from_secs(300));
        assert_eq!(mail.subject, "Tu código de acceso a Mi Club");
        assert_eq!(
            mail.body,
            "Tu código para ingresar a Mi Club es 012345. Vence en 5 minutos. \
             Si no intentaste ingresar, ignora este mensaje."
        );
        assert_eq!(mail.code.as_deref(), Some("012345"));
    }
}
