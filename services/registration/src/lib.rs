//! The Mi Club registration service: the three-step registration of a new member, served over
//! gRPC (`miclub.registration.v1.RegistrationService`) with health and reflection.
//!
//! Step 1 checks the identity document (rules, accounts, the configured identity verifier) and
//! opens a flow with a time limit; step 2 has accounts check the personal data; step 3 checks the
//! password with auth and creates the member in accounts and the credentials in auth, in a way a
//! retry always finishes (see [`domain::registrations`]). Flows live in this service's database,
//! keyed by the hash of their bearer id; a background task deletes the expired ones.
//!
//! Requests flow one way: [`grpc`] turns proto messages into [`domain`] calls, the domain calls
//! [`store`] and the ports ([`domain::ports`]), whose gRPC adapters are in [`clients`] and
//! [`verifier`]. [`Application`] composes it all; the `miclub-registration` binary and the
//! standalone binary both run it.

pub mod clients;
pub mod config;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod store;
pub mod verifier;

use std::sync::Arc;
use std::time::Duration;

use miclub_platform::access::Policy as AccessPolicy;
use miclub_platform::ephemeral::SharedStore;
use miclub_platform::grpc::Port;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::tokens::{GrpcKeySource, KeySource, ServiceTokens, TokenVerifier};
use miclub_proto::registration::v1::registration_service_server::RegistrationServiceServer;

pub use config::Settings;

use crate::clients::{GrpcCredentials, GrpcMembers, GrpcTerms};
use crate::domain::{Credentials, Members, Policy, Ports, Registrations, TermsSource};
use crate::grpc::RegistrationGrpc;
use crate::store::Store;

/// Fully-qualified name of the gRPC service, as health and reflection report it.
pub const SERVICE_NAME: &str = "miclub.registration.v1.RegistrationService";

/// What registration needs from the process that runs it. The identity verifier is not here:
/// the settings choose it (`[registration.verifier]`).
#[derive(Debug, Clone)]
pub struct Dependencies {
    /// Ephemeral store holding the counters of the step 1 limit.
    pub ephemeral: SharedStore,
    /// Accounts ([`GrpcMembers`] outside tests).
    pub members: Arc<dyn Members>,
    /// Auth ([`GrpcCredentials`] outside tests).
    pub credentials: Arc<dyn Credentials>,
    /// Content ([`GrpcTerms`] outside tests).
    pub terms: Arc<dyn TermsSource>,
    /// Auth's verification keys, for the callers' tokens.
    pub key_source: Arc<dyn KeySource>,
}

impl Dependencies {
    /// The ports over gRPC as `settings` configure them (`auth`, `accounts`, `content`,
    /// `service_client`): what both binaries use. Channels connect lazily, so the other
    /// services need not be up yet.
    pub fn over_grpc(settings: &Settings, ephemeral: SharedStore) -> anyhow::Result<Self> {
        let tokens = Arc::new(ServiceTokens::new(
            settings.auth.channel()?,
            settings.service_client.clone(),
        ));
        Ok(Self {
            ephemeral,
            members: Arc::new(GrpcMembers::new(
                settings.accounts.channel()?,
                tokens.clone(),
            )),
            credentials: Arc::new(GrpcCredentials::new(
                settings.auth.channel()?,
                tokens.clone(),
            )),
            terms: Arc::new(GrpcTerms::new(settings.content.channel()?, tokens)),
            key_source: Arc::new(GrpcKeySource::new(settings.auth.channel()?)),
        })
    }
}

/// Registration, built and listening, ready to serve.
#[derive(Debug)]
pub struct Application {
    /// The gRPC port, behind who may call which method (`platform::access`).
    grpc: Port,
    store: Store,
    registrations: Registrations,
    cleanup_interval: Duration,
}

impl Application {
    /// Connects to the database and migrates it, builds the identity verifier the settings
    /// name, and binds the gRPC listener (port 0 picks a free one).
    pub async fn build(settings: Settings, deps: Dependencies) -> anyhow::Result<Self> {
        let store = Store::connect(&settings.database_or_default()).await?;
        let gate = AccessPolicy::new(Arc::new(TokenVerifier::new(
            &settings.tokens,
            deps.key_source,
            Some(deps.ephemeral.clone()),
        )));
        let verifier = verifier::from_settings(&settings.verifier)?;
        tracing::info!(verifier = ?settings.verifier.kind, "identity verifier configured");
        let registrations = Registrations::new(
            store.clone(),
            deps.ephemeral,
            Ports {
                members: deps.members,
                credentials: deps.credentials,
                terms: deps.terms,
                verifier,
            },
            Policy {
                flow_ttl: settings.flow_ttl(),
                start_attempts: settings.start_attempts,
                start_window: settings.start_window(),
                completion_pace: settings.completion_pace(),
            },
        );
        let grpc = Port::bind(
            &settings.server,
            SERVICE_NAME,
            RegistrationServiceServer::new(RegistrationGrpc::new(registrations.clone())),
            gate,
        )
        .await?;
        Ok(Self {
            grpc,
            store,
            registrations,
            cleanup_interval: settings.cleanup_interval(),
        })
    }

    /// The port the gRPC listener is bound to.
    pub fn port(&self) -> u16 {
        self.grpc.port()
    }

    /// Serves until `shutdown` fires, then drains (NOT_SERVING first) and closes the pool.
    /// Meanwhile a background task deletes expired flows every `cleanup_interval_secs`; it stops
    /// on the same shutdown and is awaited before the pool closes.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let cleanup = tokio::spawn(
            self.registrations
                .clean_periodically(self.cleanup_interval, shutdown.clone()),
        );
        let served = self.grpc.serve(shutdown).await;
        if let Err(err) = cleanup.await {
            tracing::error!(error = %err, "registration flow cleanup task failed");
        }
        self.store.database().close().await;
        served
    }
}
