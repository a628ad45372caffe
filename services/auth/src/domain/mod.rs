//! The rules of signing in, free of gRPC: the password step with its rate limits, one-time
//! codes, sessions with rotating refresh tokens, and logout.
//!
//! [`Auth`] holds what the rules need (SQL store, ephemeral store, notifier, keys, hasher,
//! policy). `grpc.rs` turns proto messages into the validated types of [`types`] and calls it;
//! prost types never reach this module.

pub mod hashing;
pub mod login;
pub mod sessions;
pub mod types;

use std::sync::Arc;

use miclub_platform::ephemeral::SharedStore;
use miclub_platform::notify::SharedNotifier;
use miclub_platform::tokens::{TokenSettings, TokenVerifier};

pub use self::hashing::{HashScheme, PasswordHasher};
pub use self::login::{CodeSent, LoginCompleted, LoginStarted};
pub use self::sessions::IssuedSession;
pub use self::types::{ChallengeId, OtpCode, Password, RefreshToken};
use crate::config::PolicySettings;
use crate::keys::KeyRing;
use crate::store::Store;

/// The auth use cases, shared by every gRPC call.
#[derive(Debug)]
pub struct Auth {
    store: Store,
    ephemeral: SharedStore,
    notifier: SharedNotifier,
    keys: Arc<KeyRing>,
    /// Verifies our own access tokens (logout); no revocation check, so logout is idempotent.
    verifier: TokenVerifier,
    hasher: PasswordHasher,
    policy: PolicySettings,
    tokens: TokenSettings,
}

impl Auth {
    pub fn new(
        store: Store,
        ephemeral: SharedStore,
        notifier: SharedNotifier,
        keys: Arc<KeyRing>,
        hasher: PasswordHasher,
        policy: PolicySettings,
        tokens: TokenSettings,
    ) -> Self {
        let verifier = TokenVerifier::new(&tokens, Arc::new(keys.key_source()), None);
        Self {
            store,
            ephemeral,
            notifier,
            keys,
            verifier,
            hasher,
            policy,
            tokens,
        }
    }

    /// The JWK Set of every published verification key.
    pub fn jwks_json(&self) -> &str {
        self.keys.jwks_json()
    }

    pub fn policy(&self) -> &PolicySettings {
        &self.policy
    }

    pub fn store(&self) -> &Store {
        &self.store
    }
}
