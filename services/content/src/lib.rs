//! The Mi Club content service: the public content of the portal, served over gRPC
//! (`miclub.content.v1.ContentService`) with health and reflection. Today that is the terms and
//! conditions with their versions; promotions, partner benefits, banners, FAQs, the simulator
//! and the runtime context flags come later.
//!
//! Requests flow one way: [`grpc`] turns proto messages into [`domain`] calls, the domain calls
//! [`store`]. [`Application`] composes it all; the `miclub-content` binary and the standalone
//! binary both run it. Start-up publishes the terms shipped in `data/terms/` when the database
//! lacks them, which is how the initial version reaches every environment, production included.

pub mod config;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod store;

use std::time::Duration;

use miclub_platform::grpc::{Health, ServerSettings};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;
use miclub_proto::content::v1::content_service_server::ContentServiceServer;
use tokio::net::TcpListener;
use tonic::service::Routes;
use tonic::transport::Server;

pub use config::Settings;

use crate::domain::Content;
use crate::grpc::ContentGrpc;
use crate::store::Store;

/// Fully-qualified name of the gRPC service, as health and reflection report it.
pub const SERVICE_NAME: &str = "miclub.content.v1.ContentService";

/// What content needs from the process that runs it (nothing yet: its calls are anonymous).
#[derive(Debug, Clone, Default)]
pub struct Dependencies {}

/// Content, built and listening, ready to serve.
pub struct Application {
    listener: TcpListener,
    port: u16,
    server: Server,
    routes: Routes,
    health: Health,
    store: Store,
    server_settings: ServerSettings,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl Application {
    /// Connects to the database and migrates it, publishes the shipped terms when missing, and
    /// binds the gRPC listener (port 0 picks a free one).
    pub async fn build(settings: Settings, _deps: Dependencies) -> anyhow::Result<Self> {
        let store = Store::connect(&settings.database_or_default()).await?;
        let content = Content::new(store.clone());
        content.publish_shipped_terms(now_millis()).await?;
        let (server, health, routes) = miclub_platform::grpc::server(&[SERVICE_NAME]).await?;
        let routes = routes.add_service(ContentServiceServer::new(ContentGrpc::new(content)));
        let listener = settings.server.bind().await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            port,
            server,
            routes,
            health,
            store,
            server_settings: settings.server,
        })
    }

    /// The port the gRPC listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until `shutdown` fires, then drains (NOT_SERVING first) and closes the pool.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let served = miclub_platform::grpc::serve(
            self.server,
            self.routes,
            self.listener,
            self.health,
            Duration::from_millis(self.server_settings.drain_delay_ms),
            shutdown,
        )
        .await;
        self.store.database().close().await;
        served
    }
}
