//! The password throttle: wrong passwords slow down the pair (account, client address), not
//! the account, so a stranger who knows a member's RUT slows only their own address (OWASP
//! ASVS 6.3, NIST SP 800-63B 5.2.2). Every check of a member's password goes through it: the
//! login's password step, the step-up (`VerifyPassword`) and the current password of a change.
//!
//! Counts are taken before the password is checked, so parallel guesses cannot get past the
//! budget: the first `free_failures - 1` attempts of a pair pass; every later attempt must
//! first take the pair's gate (`set_if_absent`, TTL = the wait its failure would earn), so of
//! concurrent attempts one is checked and the others find the gate and are refused with the
//! time left. A right password clears the pair. An account-wide ceiling
//! (`account_daily_failures` wrong passwords in a row in 24 hours, every address together)
//! is the only lockout. A password recovery lifts everything at once by changing the
//! account's generation, which every other key embeds (no key scan).
//!
//! Ephemeral keys (the store adds its own prefix):
//! - `pw:gen:<login_id>`: the account's generation, absent = `0`, replaced by a recovery;
//! - `pw:pair:<gen>:<login_id>:<ip>`: attempts of the pair since its last right password;
//! - `pw:gate:<gen>:<login_id>:<ip>`: present while the pair must wait;
//! - `pw:day:<gen>:<login_id>`: attempts on the account since its last right password.

use std::time::Duration;

use miclub_platform::ephemeral::count_in_window;

use super::Auth;
use super::types::random_token;
use crate::error::{AuthError, AuthResult};

/// Failures of a pair and of the account are forgotten this long after the first.
const FAILURE_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// Life of a generation set by a recovery: longer than any key that embeds it.
const GENERATION_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

fn generation_key(login_id: &str) -> String {
    format!("pw:gen:{login_id}")
}

/// The keys of one (account, address) pair in the account's current generation.
#[derive(Debug)]
pub(super) struct PasswordPair {
    pair: String,
    gate: String,
    day: String,
}

impl PasswordPair {
    fn new(generation: &str, login_id: &str, client_ip: &str) -> Self {
        let ip = if client_ip.is_empty() { "-" } else { client_ip };
        Self {
            pair: format!("pw:pair:{generation}:{login_id}:{ip}"),
            gate: format!("pw:gate:{generation}:{login_id}:{ip}"),
            day: format!("pw:day:{generation}:{login_id}"),
        }
    }
}

impl Auth {
    /// Counts one request under `key` in a fixed `window` and refuses past `limit` with the
    /// time left in the window (`Throttled`, the `Retry-After` the member sees). The plain
    /// request limits (per client address, per user of a recovery) share it; `flow` and `scope`
    /// name the caller and the limit in the log.
    pub(super) async fn count_within_window(
        &self,
        key: &str,
        window: Duration,
        limit: i64,
        flow: &'static str,
        scope: &'static str,
    ) -> AuthResult<()> {
        match count_in_window(self.ephemeral.as_ref(), key, window, limit).await? {
            None => Ok(()),
            Some(over) => {
                tracing::info!(
                    flow,
                    scope,
                    count = over.count,
                    "request refused: too many in the window"
                );
                Err(AuthError::Throttled {
                    retry_after: over.wait,
                })
            }
        }
    }

    /// Counts one password attempt on `login_id` from `client_ip` before the password is
    /// checked; `Throttled` (with the wait) when the pair must wait or the account reached its
    /// ceiling. `flow` names the caller in the log.
    pub(super) async fn take_password_attempt(
        &self,
        login_id: &str,
        client_ip: &str,
        flow: &'static str,
    ) -> AuthResult<PasswordPair> {
        let policy = &self.policy;
        let generation = self
            .ephemeral
            .get(&generation_key(login_id))
            .await?
            .unwrap_or_else(|| "0".to_owned());
        let keys = PasswordPair::new(&generation, login_id, client_ip);
        // A waiting pair is refused without counting: retrying early costs nothing more.
        if let Some(left) = self.ephemeral.ttl(&keys.gate).await? {
            tracing::info!(flow, client_ip, "password refused: the pair must wait");
            return Err(AuthError::Throttled { retry_after: left });
        }
        let ceiling = count_in_window(
            self.ephemeral.as_ref(),
            &keys.day,
            FAILURE_WINDOW,
            policy.account_daily_failures,
        )
        .await?;
        if let Some(over) = ceiling {
            tracing::warn!(
                flow,
                attempts = over.count,
                "password refused: account ceiling of wrong passwords reached"
            );
            return Err(AuthError::Throttled {
                retry_after: over.wait,
            });
        }
        let attempt = self.ephemeral.incr(&keys.pair, FAILURE_WINDOW).await?;
        let wait = policy.delay_after(attempt);
        if !wait.is_zero() && !self.ephemeral.set_if_absent(&keys.gate, "1", wait).await? {
            // A concurrent attempt of the pair took the gate first.
            let left = self.ephemeral.ttl(&keys.gate).await?.unwrap_or(wait);
            tracing::info!(
                flow,
                client_ip,
                attempt,
                "password refused: the pair must wait"
            );
            return Err(AuthError::Throttled { retry_after: left });
        }
        Ok(keys)
    }

    /// The password was right: the pair and the account start again.
    pub(super) async fn password_was_right(&self, keys: &PasswordPair) -> AuthResult<()> {
        self.ephemeral.delete(&keys.pair).await?;
        self.ephemeral.delete(&keys.gate).await?;
        self.ephemeral.delete(&keys.day).await?;
        Ok(())
    }

    /// Lifts every throttle on the account (each pair and the ceiling): its keys now name a
    /// generation nobody counts in.
    pub(super) async fn lift_password_throttles(&self, login_id: &str) -> AuthResult<()> {
        self.ephemeral
            .set(&generation_key(login_id), &random_token(16), GENERATION_TTL)
            .await?;
        Ok(())
    }
}
