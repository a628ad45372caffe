//! One counted try at a code challenge: the first half of checking a login's one-time code and
//! a recovery's code, shared so both flows limit tries and expire challenges the same way. What
//! each flow does with a right code (open a session, set a password) stays in its own module.

use std::time::Duration;

use miclub_platform::storage::now_millis;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Auth;
use crate::error::{AuthError, AuthResult};

/// A pending challenge as a flow stores it in the ephemeral store: JSON, read and written the
/// same way by every flow.
pub(super) trait StoredChallenge: Serialize + DeserializeOwned {
    /// The flow's name in an error: `login`, `reset`.
    const FLOW: &'static str;

    /// Milliseconds since the epoch.
    fn expires_at(&self) -> i64;

    fn decode(raw: &str) -> AuthResult<Self> {
        serde_json::from_str(raw).map_err(|e| {
            AuthError::Internal(anyhow::anyhow!("undecodable {} challenge: {e}", Self::FLOW))
        })
    }

    fn encode(&self) -> AuthResult<String> {
        serde_json::to_string(self).map_err(|e| {
            AuthError::Internal(anyhow::anyhow!("unencodable {} challenge: {e}", Self::FLOW))
        })
    }
}

impl Auth {
    /// Counts one try under `tries_key`. Past the policy's limit the challenge under
    /// `challenge_key` ends (`OtpTooManyAttempts`); a challenge that is gone or past its time is
    /// `OtpExpired` (and removed). Otherwise answers the challenge and the tries so far.
    /// `flow` names the flow in the log.
    pub(super) async fn counted_try<C: StoredChallenge>(
        &self,
        challenge_key: &str,
        tries_key: &str,
        flow: &'static str,
    ) -> AuthResult<(C, i64)> {
        let tries = self
            .ephemeral
            .incr(tries_key, self.policy.otp_ttl())
            .await?;
        if tries > self.policy.otp_max_attempts {
            self.ephemeral.delete(challenge_key).await?;
            tracing::info!(flow, tries, "code refused: too many tries, challenge ended");
            return Err(AuthError::OtpTooManyAttempts);
        }
        let raw = self
            .ephemeral
            .get(challenge_key)
            .await?
            .ok_or(AuthError::OtpExpired)?;
        let challenge = C::decode(&raw)?;
        if challenge.expires_at() <= now_millis() {
            self.ephemeral.delete(challenge_key).await?;
            return Err(AuthError::OtpExpired);
        }
        Ok((challenge, tries))
    }

    /// Puts back a challenge taken by a right answer to the code it replaced: a resend wrote a
    /// new code between the read in [`Auth::counted_try`] and the single-use take, and the
    /// member must still be able to use the new code. Never overwrites a newer one.
    pub(super) async fn put_back_taken(
        &self,
        challenge_key: &str,
        raw: &str,
        expires_at: i64,
    ) -> AuthResult<()> {
        let left = expires_at - now_millis();
        if left > 0 {
            self.ephemeral
                .set_if_absent(challenge_key, raw, Duration::from_millis(left as u64))
                .await?;
        }
        Ok(())
    }
}
