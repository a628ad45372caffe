//! What the embedded components share in one process: the standalone settings, the data folder,
//! the internal TLS, one ephemeral store, one event bus and the dev mailbox; and how a service's
//! own settings are bent to live here (loopback ports, SQLite files under the data folder).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use miclub_platform::config::{Environment, Layered};
use miclub_platform::ephemeral::{self, EphemeralSettings, SharedStore};
use miclub_platform::events::{self, EventBusSettings, SharedBus};
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::notify::{self, DevMailbox, NotifierSettings, SharedNotifier};
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::GrpcKeySource;

use crate::settings::Settings;

pub(crate) struct Embedding<'a> {
    pub config: &'a Layered,
    pub settings: Settings,
    pub environment: Environment,
    pub tls: InternalTls,
    pub store: SharedStore,
    /// One bus in the process: accounts publishes purchases on it, missions consumes them.
    pub bus: SharedBus,
    pub mailbox: Arc<DevMailbox>,
    pub notifier: SharedNotifier,
}

impl<'a> Embedding<'a> {
    /// Reads the settings, makes the data folder and connects the shared pieces.
    pub async fn prepare(config: &'a Layered) -> anyhow::Result<Self> {
        let settings: Settings = config.section("standalone")?;
        std::fs::create_dir_all(&settings.data_dir)
            .with_context(|| format!("creating the data folder {}", settings.data_dir.display()))?;
        let environment = config.environment();
        let tls = miclub_platform::tls::from_config(config)?;
        let store: SharedStore = ephemeral::connect(
            &config.section::<EphemeralSettings>("ephemeral")?,
            environment,
        )
        .await?;
        let bus: SharedBus =
            events::connect(&config.section::<EventBusSettings>("events")?, environment).await?;
        let mailbox = Arc::new(DevMailbox::default());
        let notifier = notify::build(
            &config.section::<NotifierSettings>("notifier")?,
            environment,
            Some(mailbox.clone()),
        )?;
        Ok(Self {
            config,
            settings,
            environment,
            tls,
            store,
            bus,
            mailbox,
            notifier,
        })
    }

    pub fn data_dir(&self) -> &Path {
        self.settings.data_dir.as_path()
    }

    /// A file of the data folder.
    pub fn data_file(&self, name: &str) -> PathBuf {
        self.data_dir().join(name)
    }

    /// `service`'s server on loopback, on a free port unless `<service>.server.port` is
    /// configured (so tests and tools can reach one service's gRPC API directly). Each serves
    /// with the process's internal TLS (`[internal_tls]`; off unless configured).
    pub fn loopback(&self, service: &str, server: &mut ServerSettings) {
        server.host = "127.0.0.1".into();
        server.tls = self.tls.clone();
        if !self.config.contains(&format!("{service}.server.port")) {
            server.port = 0;
        }
        // One process: nothing balances load across it, so there is nothing to drain for.
        server.drain_delay_ms = 0;
    }

    /// A client of the service on loopback `port`, over TLS when the internal TLS is on.
    pub fn client(&self, port: u16) -> ClientSettings {
        let scheme = if self.tls.is_enabled() {
            "https"
        } else {
            "http"
        };
        ClientSettings::for_url(format!("{scheme}://127.0.0.1:{port}")).with_tls(&self.tls)
    }

    /// `service`'s database: the configured one, else a SQLite file in the data folder.
    pub fn sqlite(&self, service: &str, configured: DatabaseSettings) -> DatabaseSettings {
        if !configured.url.is_empty() {
            return configured;
        }
        DatabaseSettings {
            url: format!(
                "sqlite://{}",
                self.data_file(&format!("{service}.db")).display()
            ),
            ..configured
        }
    }

    /// Auth's verification keys, fetched from auth on `auth_port`.
    pub fn key_source(&self, auth_port: u16) -> anyhow::Result<Arc<GrpcKeySource>> {
        Ok(Arc::new(GrpcKeySource::new(
            self.client(auth_port).channel()?,
        )))
    }
}
