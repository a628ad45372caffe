//! The Mi Club content service: the public content of the portal, served over gRPC
//! (`miclub.content.v1.ContentService`) with health and reflection: the terms and conditions
//! with their versions, promotions, partner benefits (alianzas), campaign banners, FAQs, the
//! runtime flags, and the accumulation simulator (the accrual engine and rule data accounts
//! posts purchases with). Anonymous calls read; internal calls (a service token) write.
//!
//! Requests flow one way: [`grpc`] turns proto messages into [`domain`] calls, the domain calls
//! [`store`]; the entities all of them pass around are the [`model`], which imports none of
//! them. [`Application`] composes it all; the `miclub-content` binary and the standalone
//! binary both run it. Start-up publishes the terms shipped in `data/terms/` and the catalog
//! and flags shipped in `data/*.toml` ([`seed`]) that the database lacks, which is how the
//! initial content reaches every environment, production included; a stored row is never
//! overwritten by the shipped one.

pub mod config;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod model;
pub mod seed;
pub mod store;

use std::sync::Arc;

use miclub_platform::access::Policy;
use miclub_platform::grpc::Port;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;
use miclub_platform::tokens::{KeySource, TokenVerifier};
use miclub_proto::content::v1::content_service_server::ContentServiceServer;

pub use config::Settings;

use crate::domain::Content;
use crate::grpc::ContentGrpc;
use crate::store::Store;

/// Fully-qualified name of the gRPC service, as health and reflection report it.
pub const SERVICE_NAME: &str = "miclub.content.v1.ContentService";

/// What content needs from the process that runs it.
#[derive(Debug, Clone)]
pub struct Dependencies {
    /// Verification keys of the service tokens of internal calls (auth's JWKS).
    pub key_source: Arc<dyn KeySource>,
}

/// Content, built and listening, ready to serve.
#[derive(Debug)]
pub struct Application {
    /// The gRPC port, behind who may call which method (`platform::access`).
    grpc: Port,
    store: Store,
}

impl Application {
    /// Loads the accrual rules, connects to the database and migrates it, publishes the shipped
    /// terms, catalog and flags the database lacks, and binds the gRPC listener (port 0 picks a
    /// free one).
    pub async fn build(settings: Settings, deps: Dependencies) -> anyhow::Result<Self> {
        let rules = settings.accrual.load_rules()?;
        tracing::info!(rules_version = rules.version(), "accrual rules loaded");
        let seed_dir =
            (!settings.seed_dir.is_empty()).then(|| std::path::Path::new(&settings.seed_dir));
        let shipped = seed::shipped_from(seed_dir)?;
        let store = Store::connect(&settings.database_or_default()).await?;
        let content = Content::new(store.clone(), Arc::new(rules), shipped.flags);
        let now = now_millis();
        content.publish_shipped_terms(now).await?;
        let seeded = content.seed_shipped(&shipped, now).await?;
        tracing::info!(
            promotions = seeded.promotions,
            alliances = seeded.alliances,
            banners = seeded.banners,
            faqs = seeded.faqs,
            flags = seeded.flags,
            "shipped content seeded where missing"
        );
        // Service tokens only: no member session is ever checked here, so no revocation list.
        let verifier = Arc::new(TokenVerifier::new(&settings.tokens, deps.key_source, None));
        let gate = Policy::new(verifier.clone());
        let grpc = Port::bind(
            &settings.server,
            SERVICE_NAME,
            ContentServiceServer::new(ContentGrpc::new(content, verifier)),
            gate,
        )
        .await?;
        Ok(Self { grpc, store })
    }

    /// The port the gRPC listener is bound to.
    pub fn port(&self) -> u16 {
        self.grpc.port()
    }

    /// Serves until `shutdown` fires, then drains (NOT_SERVING first) and closes the pool.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let served = self.grpc.serve(shutdown).await;
        self.store.database().close().await;
        served
    }
}
