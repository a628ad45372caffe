//! The Mi Club content service. It will own promotions, partner benefits, banners, FAQs, terms text, accrual rules, the simulator and the runtime context flags; for now it starts, reports
//! `grpc.health.v1` (SERVING for the whole server) and reflection, and serves nothing else.
//!
//! [`Application`] has the same shape as every service's: `build` binds the listener (port 0
//! picks a free one), `run_until_stopped` serves until the shutdown fires, then drains.

pub mod config;

use std::time::Duration;

use miclub_platform::grpc::{Health, ServerSettings};
use miclub_platform::shutdown::Shutdown;
use tokio::net::TcpListener;
use tonic::service::Routes;
use tonic::transport::Server;

pub use config::Settings;

/// What content needs from the process that runs it (nothing yet).
#[derive(Debug, Clone, Default)]
pub struct Dependencies {}

/// Content, built and listening, ready to serve.
pub struct Application {
    listener: TcpListener,
    port: u16,
    server: Server,
    routes: Routes,
    health: Health,
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
    /// Sets up health and reflection and binds the gRPC listener.
    pub async fn build(settings: Settings, _deps: Dependencies) -> anyhow::Result<Self> {
        let (server, health, routes) = miclub_platform::grpc::server(&[]).await?;
        let listener = settings.server.bind().await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            port,
            server,
            routes,
            health,
            server_settings: settings.server,
        })
    }

    /// The port the gRPC listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until `shutdown` fires, then reports NOT_SERVING, waits the drain delay and stops.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        miclub_platform::grpc::serve(
            self.server,
            self.routes,
            self.listener,
            self.health,
            Duration::from_millis(self.server_settings.drain_delay_ms),
            shutdown,
        )
        .await
    }
}
