//! The Mi Club missions service: mission definitions and each member's progress, served over
//! gRPC (`miclub.missions.v1.MissionsService`) with health and reflection.
//!
//! Progress is advanced by the `purchase.posted` events accounts publishes on
//! `events:purchases`, read with the consumer group "missions" and counted once per event id
//! ([`domain::consumer`]); a mission reached grants its reward once, as an ADJUSTMENT movement
//! in accounts ([`clients::GrpcRewards`]), retried in the background until accounts answers.
//!
//! Requests flow one way: [`grpc`] checks the caller's token and turns proto messages into
//! [`domain`] calls, the domain calls [`store`] and the rewards port. [`Application`] composes it
//! all; the `miclub-missions` binary and the standalone binary both run it.

pub mod clients;
pub mod config;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod seed;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use miclub_platform::access::Policy;
use miclub_platform::ephemeral::SharedStore;
use miclub_platform::events::SharedBus;
use miclub_platform::grpc::Port;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::tokens::{GrpcKeySource, KeySource, ServiceTokens, TokenVerifier};
use miclub_proto::missions::v1::missions_service_server::MissionsServiceServer;

pub use config::Settings;

use crate::clients::GrpcRewards;
use crate::domain::{Consumer, ConsumerOptions, Missions, Rewards};
use crate::grpc::MissionsGrpc;
use crate::store::Store;

/// Migrates and stores the demo missions that are missing (the `--seed-demo` step). Production
/// refuses `seed_demo` at start; this is the explicit command.
pub async fn seed_demo_only(settings: &Settings) -> anyhow::Result<()> {
    let store = Store::connect(&settings.database_or_default()).await?;
    seed::seed_demo(&store).await?;
    Ok(())
}

/// Fully-qualified name of the gRPC service, as health and reflection report it.
pub const SERVICE_NAME: &str = "miclub.missions.v1.MissionsService";

/// Pause of the consumer after a failed read or count.
const CONSUMER_BACKOFF: Duration = Duration::from_secs(1);
/// How long another consumer's unacknowledged delivery waits before this one takes it over:
/// far longer than counting one event takes, so a live consumer is never robbed.
const CLAIM_IDLE: Duration = Duration::from_secs(60);

/// What missions needs from the process that runs it.
#[derive(Debug, Clone)]
pub struct Dependencies {
    /// The event bus accounts publishes purchases on (in standalone, the same in-memory bus).
    pub bus: SharedBus,
    /// Verification keys of access tokens (auth's JWKS).
    pub key_source: Arc<dyn KeySource>,
    /// Ephemeral store holding session revocations (written by auth).
    pub store: SharedStore,
    /// Accounts' ledger, where rewards are recorded ([`GrpcRewards`] outside tests).
    pub rewards: Arc<dyn Rewards>,
}

impl Dependencies {
    /// Keys and rewards over gRPC as `settings` configure them (`auth`, `accounts`,
    /// `service_client`): what both binaries use. Channels connect lazily, so the other
    /// services need not be up yet.
    pub fn over_grpc(
        settings: &Settings,
        bus: SharedBus,
        store: SharedStore,
    ) -> anyhow::Result<Self> {
        let tokens = Arc::new(ServiceTokens::new(
            settings.auth.channel()?,
            settings.service_client.clone(),
        ));
        Ok(Self {
            bus,
            key_source: Arc::new(GrpcKeySource::new(settings.auth.channel()?)),
            store,
            rewards: Arc::new(GrpcRewards::new(settings.accounts.channel()?, tokens)),
        })
    }
}

/// Missions, built and listening, ready to serve.
#[derive(Debug)]
pub struct Application {
    /// The gRPC port, behind who may call which method (`platform::access`).
    grpc: Port,
    store: Store,
    missions: Missions,
    consumer: Consumer,
    reward_retry_interval: Duration,
}

impl Application {
    /// Connects to the database and migrates it, seeds the demo missions when asked, and binds
    /// the gRPC listener (port 0 picks a free one).
    pub async fn build(settings: Settings, deps: Dependencies) -> anyhow::Result<Self> {
        let store = Store::connect(&settings.database_or_default()).await?;
        if settings.seed_demo {
            seed::seed_demo(&store).await?;
        }
        let missions = Missions::new(store.clone(), deps.rewards);
        let verifier = Arc::new(TokenVerifier::new(
            &settings.tokens,
            deps.key_source,
            Some(deps.store),
        ));
        let gate = Policy::new(verifier.clone());
        let consumer = Consumer::new(
            missions.clone(),
            deps.bus,
            ConsumerOptions {
                name: settings.consumer.consumer_name(),
                batch: settings.consumer.batch.max(1),
                wait: settings.consumer.wait(),
                backoff: CONSUMER_BACKOFF,
                claim_idle: CLAIM_IDLE,
            },
        );
        let grpc = Port::bind(
            &settings.server,
            SERVICE_NAME,
            MissionsServiceServer::new(MissionsGrpc::new(missions.clone(), verifier)),
            gate,
        )
        .await?;
        Ok(Self {
            grpc,
            store,
            missions,
            consumer,
            reward_retry_interval: settings.reward_retry_interval(),
        })
    }

    /// The port the gRPC listener is bound to.
    pub fn port(&self) -> u16 {
        self.grpc.port()
    }

    /// Serves until `shutdown` fires, then drains (NOT_SERVING first) and closes the pool.
    /// Meanwhile the purchase event consumer runs, and a background task grants ungranted
    /// rewards every `reward_retry_interval_secs`; both stop on the same shutdown and are
    /// awaited before the pool closes.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let consuming = tokio::spawn(self.consumer.run(shutdown.clone()));
        let retrying = tokio::spawn(
            self.missions
                .retry_periodically(self.reward_retry_interval, shutdown.clone()),
        );
        let served = self.grpc.serve(shutdown).await;
        if let Err(err) = consuming.await {
            tracing::error!(error = %err, "purchase event consumer failed");
        }
        if let Err(err) = retrying.await {
            tracing::error!(error = %err, "mission reward retry task failed");
        }
        self.store.database().close().await;
        served
    }
}
