//! The auth service of Mi Club: credentials, the password and one-time-code login, sessions
//! with rotating refresh tokens, logout, the password change and recovery, the client-credentials
//! grant of internal callers, the credentials of members joining and leaving, and the public
//! keys (JWKS) every service verifies access tokens with.
//!
//! [`Application::build`] connects, migrates, seeds the demo members when asked, loads the
//! signing keys and binds its listener (port 0 allowed), so tests and the standalone binary
//! know the port before serving. [`Application::run_until_stopped`] serves gRPC with health
//! and reflection until the shutdown fires.

pub mod config;
pub mod domain;
pub mod error;
pub mod grants;
pub mod grpc;
pub mod keys;
pub mod seed;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use miclub_platform::access::Policy;
use miclub_platform::config::Environment;
use miclub_platform::ephemeral::SharedStore;
use miclub_platform::grpc::Port;
use miclub_platform::notify::SharedNotifier;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;
use miclub_proto::auth::v1::auth_service_server::AuthServiceServer;

pub use crate::config::Settings;
/// The digest `auth.service_clients` holds for a client secret (lowercase hex SHA-256), for
/// processes that generate secrets and configure auth with them (standalone).
pub use crate::domain::secret_digest;
use crate::domain::{Auth, PasswordHasher};
use crate::keys::KeyRing;
use crate::store::Store;

/// Fully-qualified name of the gRPC service, as health reports it.
pub const SERVICE_NAME: &str = "miclub.auth.v1.AuthService";

/// Migrates and creates the missing demo credentials, then returns how many it created (the
/// `--seed-demo` step). Production refuses `seed_demo` at start; this is the explicit command.
pub async fn seed_demo_only(settings: &Settings) -> anyhow::Result<usize> {
    let store = Store::connect(&settings.database_or_default()).await?;
    let hasher = PasswordHasher::new(&settings.hashing).await?;
    seed::seed_demo(&store, &hasher)
        .await
        .context("seeding demo credentials")
}

/// How often expired refresh tokens are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// What the process hands the service: shared stores built from its own settings.
#[derive(Debug, Clone)]
pub struct Dependencies {
    pub store: SharedStore,
    pub notifier: SharedNotifier,
    pub environment: Environment,
}

/// Auth, built and listening, ready to serve.
#[derive(Debug)]
pub struct Application {
    /// The gRPC port, behind who may call which method (`platform::access`).
    grpc: Port,
    auth: Arc<Auth>,
    /// Codes and notices to members; what it still holds is sent before the process stops.
    notifier: SharedNotifier,
}

impl Application {
    /// Connects to the database and migrates it, seeds the demo credentials when asked, loads
    /// the signing keys and binds the gRPC listener (port 0 picks a free one).
    pub async fn build(settings: Settings, deps: Dependencies) -> anyhow::Result<Self> {
        settings.validate(deps.environment)?;
        let keys = Arc::new(KeyRing::load(
            &settings.signing,
            settings.code_secret.as_ref(),
            deps.environment,
        )?);
        let store = Store::connect(&settings.database_or_default()).await?;
        let hasher = PasswordHasher::new(&settings.hashing).await?;
        if settings.seed_demo {
            seed::seed_demo(&store, &hasher)
                .await
                .context("seeding demo credentials")?;
        }
        let auth = Arc::new(Auth::new(
            store,
            deps.store,
            deps.notifier.clone(),
            keys,
            hasher,
            &settings,
        ));
        let gate = Policy::new(auth.callers().clone());
        let grpc = Port::bind(
            &settings.server,
            SERVICE_NAME,
            AuthServiceServer::new(grpc::AuthGrpc::new(auth.clone())),
            gate,
        )
        .await?;
        Ok(Self {
            grpc,
            auth,
            notifier: deps.notifier,
        })
    }

    /// The port the gRPC listener is bound to.
    pub fn port(&self) -> u16 {
        self.grpc.port()
    }

    /// Serves until `shutdown` fires, then drains (NOT_SERVING first), sends the mail still
    /// queued (`Notifier::settle`) and closes the pool. Meanwhile background tasks delete
    /// expired refresh tokens every hour and mail the notices of the mail outbox
    /// (`MailOutbox::POLL_EVERY`); they are stopped before the pool closes.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let purge = tokio::spawn(purge_expired_refresh_tokens(self.auth.clone()));
        let mailing = tokio::spawn(
            self.auth
                .mail_outbox()
                .clone()
                .deliver_periodically(shutdown.clone()),
        );
        let served = self.grpc.serve(shutdown).await;
        purge.abort();
        if let Err(err) = mailing.await {
            tracing::error!(error = %err, "mail outbox task failed");
        }
        self.notifier.settle().await;
        self.auth.store().database().close().await;
        served
    }
}

/// Deletes refresh tokens that expired more than a day ago, the sessions they leave without a
/// token and security events older than 90 days, every [`PURGE_EVERY`].
async fn purge_expired_refresh_tokens(auth: Arc<Auth>) {
    let mut every = tokio::time::interval(PURGE_EVERY);
    loop {
        every.tick().await;
        let before = now_millis() - 24 * 3600 * 1000;
        match auth.store().purge_expired_refresh(before).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "expired refresh tokens deleted"),
            Err(err) => tracing::warn!(error = %err, "cannot delete expired refresh tokens"),
        }
        let kept = domain::security::EVENTS_KEPT_DAYS * 24 * 3600 * 1000;
        match auth
            .store()
            .purge_security_history(now_millis() - kept)
            .await
        {
            Ok((0, 0)) => {}
            Ok((events, sessions)) => {
                tracing::info!(
                    events,
                    sessions,
                    "old security events and ended sessions deleted"
                )
            }
            Err(err) => tracing::warn!(error = %err, "cannot delete old security events"),
        }
    }
}
