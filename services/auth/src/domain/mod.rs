//! The rules of signing in, free of gRPC: the password step with its rate limits, one-time
//! codes, sessions with rotating refresh tokens, logout, the password change, the
//! client-credentials grant of internal callers, the login email accounts keeps in step, and
//! the credentials of members joining (registration) and leaving (unsubscribe), and the
//! member's security view (open sessions, security events).
//!
//! [`Auth`] holds what the rules need (SQL store, ephemeral store, notifier, keys, hasher,
//! policy, service clients). `grpc.rs` turns proto messages into the validated types of
//! [`types`] and [`password_rules`] and calls it; prost types never reach this module.

pub mod clients;
mod code_attempts;
pub mod hashing;
pub mod login;
pub mod login_email;
pub mod membership;
pub mod password_change;
pub mod password_rules;
pub mod recovery;
pub mod security;
pub mod sessions;
mod throttle;
pub mod types;

use std::sync::Arc;

use miclub_platform::ephemeral::SharedStore;
use miclub_platform::notify::{MailOutbox, SharedNotifier};
use miclub_platform::tokens::{TokenSettings, TokenVerifier};

pub use self::clients::{ServiceClients, ServiceToken, secret_digest};
pub use self::hashing::{HashScheme, PasswordHasher};
pub use self::login::{CodeSent, LoginCompleted, LoginStarted};
pub use self::membership::{CredentialsCreated, CredentialsDisabled};
pub use self::password_change::PasswordChanged;
pub use self::password_rules::{NewPassword, PasswordRule};
pub use self::recovery::ResetStarted;
pub use self::security::{EventKind, OpenSession};
pub use self::sessions::IssuedSession;
pub use self::types::{ChallengeId, Email, MemberId, OtpCode, Password, RefreshToken};
use crate::config::{PolicySettings, Settings};
use crate::keys::KeyRing;
use crate::store::Store;

/// The auth use cases, shared by every gRPC call.
#[derive(Debug)]
pub struct Auth {
    store: Store,
    ephemeral: SharedStore,
    notifier: SharedNotifier,
    /// The notices of a password changed or reset, mailed from the outbox their change's
    /// transaction wrote them to.
    outbox: MailOutbox,
    keys: Arc<KeyRing>,
    /// Verifies our own access tokens (logout); no revocation check, so logout is idempotent.
    verifier: TokenVerifier,
    /// Verifies the callers of member and internal calls, revocations included, as every
    /// other service does; shared with the port's access policy.
    callers: Arc<TokenVerifier>,
    hasher: PasswordHasher,
    policy: PolicySettings,
    tokens: TokenSettings,
    clients: ServiceClients,
}

impl Auth {
    /// `settings` gives the policy, the token claims and the service clients.
    pub fn new(
        store: Store,
        ephemeral: SharedStore,
        notifier: SharedNotifier,
        keys: Arc<KeyRing>,
        hasher: PasswordHasher,
        settings: &Settings,
    ) -> Self {
        let tokens = settings.tokens.clone();
        let verifier = TokenVerifier::new(&tokens, Arc::new(keys.key_source()), None);
        let callers = Arc::new(TokenVerifier::new(
            &tokens,
            Arc::new(keys.key_source()),
            Some(ephemeral.clone()),
        ));
        let outbox = MailOutbox::new(store.database().clone(), notifier.clone());
        Self {
            store,
            ephemeral,
            notifier,
            outbox,
            keys,
            verifier,
            callers,
            hasher,
            policy: settings.policy.clone(),
            tokens,
            clients: ServiceClients::from_settings(settings),
        }
    }

    /// The relay of the mail outbox, which the service runs beside its port.
    pub fn mail_outbox(&self) -> &MailOutbox {
        &self.outbox
    }

    /// The verifier of callers' tokens (`member` and `service` calls).
    pub fn callers(&self) -> &Arc<TokenVerifier> {
        &self.callers
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
