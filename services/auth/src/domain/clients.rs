//! The client-credentials grant: internal callers (store systems, other services) trade a
//! client id and secret for a short-lived access token of kind `service` whose subject is the
//! client id and whose audience is `tokens.service_audience`, so it never passes as a member's.
//!
//! Each client id may ask `service_token_attempts` times per `service_token_window_secs` from one
//! caller address, right secret or wrong: a caller guessing `pos`'s secret is stopped, and stops
//! only `pos` from its own address, so a flood from one pod cannot lock the real `pos` (or
//! `accounts`) out of its tokens (every unknown id shares one budget per address). Well-behaved
//! callers cache their token for most of its life (`platform::tokens::ServiceTokens`) and ask
//! every few minutes. If the ephemeral store is
//! down the grant is not throttled (logged): secrets are high-entropy, and internal calls must
//! keep working while Redis is out.
//!
//! The token's `scope` is the client's grant (`crate::grants`), which `platform::access` checks
//! on every port.
//!
//! Only the SHA-256 of each secret is configured (`auth.service_clients`), so the config holds
//! nothing that can call us. Secrets are generated, high-entropy strings, which is why a plain
//! hash is enough where a member's password needs argon2id. The presented secret's digest is
//! compared in constant time, and an unknown client is compared against a dummy digest, so the
//! answer takes the same time whether the client or the secret was wrong.

use std::collections::BTreeMap;
use std::time::Duration;

use miclub_platform::ephemeral::{SharedStore, count_in_window};
use miclub_platform::storage::now_millis;
use miclub_platform::tokens::{Claims, TokenKind};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use super::Auth;
use super::types::{hex, same_digest};
use crate::config::Settings;
use crate::error::{AuthError, AuthResult};

/// The lowercase hex SHA-256 of a client secret: what `auth.service_clients` holds for it.
pub fn secret_digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// The configured internal callers and the life of the tokens they get.
#[derive(Clone)]
pub struct ServiceClients {
    /// Client id → `secret_digest` of its secret (validated by `Settings::validate`).
    digests: BTreeMap<String, String>,
    /// Client id → its granted methods, space-separated: the `scope` of its tokens.
    scopes: BTreeMap<String, String>,
    ttl: Duration,
    /// Token requests per client id in `window`, refused beyond.
    attempts: i64,
    window: Duration,
}

impl std::fmt::Debug for ServiceClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceClients")
            .field("clients", &self.digests.keys().collect::<Vec<_>>())
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl ServiceClients {
    pub fn from_settings(settings: &Settings) -> Self {
        Self {
            digests: settings.service_clients.clone(),
            scopes: crate::grants::grants(&settings.client_methods)
                .into_iter()
                .map(|(client, methods)| (client, methods.join(" ")))
                .collect(),
            ttl: Duration::from_secs(settings.service_token_ttl_secs),
            attempts: settings.service_token_attempts,
            window: Duration::from_secs(settings.service_token_window_secs),
        }
    }

    /// Counts one token request of `client_id` from `caller` (its address) and tells whether it
    /// is within the budget.
    async fn within_budget(
        &self,
        store: &SharedStore,
        client_id: &str,
        caller: &str,
        logged: &str,
    ) -> bool {
        // Unknown ids share one counter, so inventing ids neither fills the store nor buys
        // more tries.
        let bucket = if self.digests.contains_key(client_id) {
            client_id
        } else {
            UNKNOWN_CLIENT_BUCKET
        };
        let key = throttle_key(bucket, caller);
        match count_in_window(store.as_ref(), &key, self.window, self.attempts).await {
            Ok(Some(over)) => {
                tracing::warn!(client_id = %logged, caller, count = over.count, "service token refused: too many requests");
                false
            }
            Ok(None) => true,
            Err(err) => {
                tracing::warn!(error = %err, "service token throttle skipped: ephemeral store unavailable");
                true
            }
        }
    }

    /// True when `secret` is the secret of `client_id`.
    fn accepts(&self, client_id: &str, secret: &SecretString) -> bool {
        // Compared even for an unknown client, so timing tells nothing about which ids exist.
        const DUMMY: &str = "0000000000000000000000000000000000000000000000000000000000000000";
        let presented = secret_digest(secret.expose_secret());
        let (expected, known) = match self.digests.get(client_id) {
            Some(digest) => (digest.as_str(), true),
            None => (DUMMY, false),
        };
        known & same_digest(&presented, expected)
    }
}

/// The counter of unknown client ids; `#` is never part of a configured id.
const UNKNOWN_CLIENT_BUCKET: &str = "#unknown";

/// Ephemeral-store key counting the token requests of `bucket` from address `caller`.
fn throttle_key(bucket: &str, caller: &str) -> String {
    format!("svc-token:attempts:{bucket}:{caller}")
}

/// A service access token as handed to the caller.
#[derive(Debug, Clone)]
pub struct ServiceToken {
    pub access_token: String,
    pub expires_in_secs: i64,
}

impl Auth {
    /// Issues a service token to `client_id` when `secret` is its secret; `caller` is the
    /// address the request came from (empty when unknown), for the throttle.
    pub async fn issue_service_token(
        &self,
        client_id: &str,
        secret: &SecretString,
        caller: &str,
    ) -> AuthResult<ServiceToken> {
        // Logged as given, but bounded: it comes from an unauthenticated caller.
        let logged: String = client_id
            .chars()
            .take(Settings::MAX_CLIENT_ID_CHARS)
            .collect();
        if !self
            .clients
            .within_budget(&self.ephemeral, client_id, caller, &logged)
            .await
        {
            return Err(AuthError::TooManyAttempts);
        }
        if secret.expose_secret().is_empty() || !self.clients.accepts(client_id, secret) {
            tracing::warn!(client_id = %logged, "service token refused: unknown client or wrong secret");
            return Err(AuthError::InvalidClient);
        }
        let ttl = self.clients.ttl;
        let issued_at = now_millis() / 1000;
        let claims = Claims {
            iss: self.tokens.issuer.clone(),
            aud: self.tokens.service_audience.clone(),
            sub: client_id.to_owned(),
            sid: format!("svc-{}", uuid::Uuid::new_v4()),
            kind: TokenKind::Service,
            iat: issued_at,
            nbf: issued_at,
            exp: issued_at + ttl.as_secs() as i64,
            jti: uuid::Uuid::new_v4().to_string(),
            // Settings::validate made sure every configured client has a grant.
            scope: self
                .clients
                .scopes
                .get(client_id)
                .cloned()
                .unwrap_or_default(),
        };
        let access_token = self.keys.sign(&claims)?;
        tracing::info!(client_id = %logged, sid = %claims.sid, "service token issued");
        Ok(ServiceToken {
            access_token,
            expires_in_secs: ttl.as_secs() as i64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clients() -> ServiceClients {
        let mut settings = Settings::default();
        settings
            .service_clients
            .insert("accounts".into(), secret_digest("right-secret"));
        ServiceClients::from_settings(&settings)
    }

    #[test]
    fn the_digest_is_the_lowercase_hex_sha256_of_the_secret() {
        // printf %s abc | sha256sum
        assert_eq!(
            secret_digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn only_the_right_secret_of_a_known_client_is_accepted() {
        let clients = clients();
        let secret = |s: &str| SecretString::from(s.to_owned());
        assert!(clients.accepts("accounts", &secret("right-secret")));
        assert!(!clients.accepts("accounts", &secret("wrong-secret")));
        assert!(!clients.accepts("accounts", &secret("")));
        assert!(!clients.accepts("registration", &secret("right-secret")));
        assert!(!clients.accepts("", &secret("right-secret")));
        // The digest itself is not a secret that works.
        assert!(!clients.accepts("accounts", &secret(&secret_digest("right-secret"))));
    }

    #[test]
    fn debug_lists_client_ids_but_no_digest() {
        let shown = format!("{:?}", clients());
        assert!(shown.contains("accounts"));
        assert!(!shown.contains(&secret_digest("right-secret")));
    }
}
