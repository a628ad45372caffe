//! Mi Club in one process: the gateway and the five services on loopback ports, SQLite files
//! under the data folder, an in-memory ephemeral store and the dev mailbox shared by all. It is
//! the embedded default the README's run command starts; production runs each service as its
//! own process instead (same code, same gRPC hops).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use miclub_platform::config::Layered;
use miclub_platform::ephemeral::{self, EphemeralSettings, SharedStore};
use miclub_platform::events::{self, EventBusSettings, SharedBus};
use miclub_platform::grpc::ClientSettings;
use miclub_platform::notify::{self, DevMailbox, NotifierSettings};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::{GrpcKeySource, ServiceCredentials, ServiceTokens};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use tokio::task::JoinSet;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Where the SQLite files (and the development signing key) live.
    pub data_dir: PathBuf,
    /// Seed the demo members on start (idempotent).
    pub seed_demo: bool,
    /// When set, auth accepts the internal client `pos` (a store system) with this secret, so
    /// tests and demos can post purchases through accounts' gRPC API.
    pub pos_client_secret: Option<SecretString>,
    /// When set, auth accepts the internal client `ops` (an operator's tools: content flags,
    /// missions) with this secret.
    pub ops_client_secret: Option<SecretString>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            data_dir: PathBuf::from("data"),
            seed_demo: true,
            pos_client_secret: None,
            ops_client_secret: None,
        }
    }
}

/// The running portal.
#[derive(Debug)]
pub struct Running {
    pub gateway_port: u16,
    pub mailbox: Arc<DevMailbox>,
    tasks: JoinSet<(String, anyhow::Result<()>)>,
}

impl Running {
    /// Waits until every component has stopped; the first failure is returned.
    pub async fn wait(mut self) -> anyhow::Result<()> {
        let mut outcome = Ok(());
        while let Some(joined) = self.tasks.join_next().await {
            match joined {
                Ok((_, Ok(()))) => {}
                Ok((name, Err(err))) => {
                    tracing::error!(component = %name, error = %format!("{err:#}"), "component failed");
                    if outcome.is_ok() {
                        outcome = Err(err.context(format!("{name} failed")));
                    }
                }
                Err(err) => outcome = Err(anyhow::anyhow!("component panicked: {err}")),
            }
        }
        outcome
    }
}

fn sqlite_in(dir: &Path, service: &str, configured: DatabaseSettings) -> DatabaseSettings {
    if !configured.url.is_empty() {
        return configured;
    }
    DatabaseSettings {
        url: format!("sqlite://{}", dir.join(format!("{service}.db")).display()),
        ..configured
    }
}

/// Every service on loopback, on a free port unless `<service>.server.port` is configured (so
/// tests and tools can reach one service's gRPC API directly).
/// Each serves with the process's internal TLS (`[internal_tls]`; off unless configured).
fn loopback(
    config: &Layered,
    service: &str,
    server: &mut miclub_platform::grpc::ServerSettings,
    tls: &InternalTls,
) {
    server.host = "127.0.0.1".into();
    server.tls = tls.clone();
    if !config.contains(&format!("{service}.server.port")) {
        server.port = 0;
    }
    // One process: nothing balances load across it, so there is nothing to drain for.
    server.drain_delay_ms = 0;
}

/// A client of the service on loopback `port`, over TLS when `tls` is on.
fn loopback_client(tls: &InternalTls, port: u16) -> ClientSettings {
    let scheme = if tls.is_enabled() { "https" } else { "http" };
    ClientSettings::for_url(format!("{scheme}://127.0.0.1:{port}")).with_tls(tls)
}

/// Starts every component and returns once all listen.
pub async fn start(config: &Layered, shutdown: Shutdown) -> anyhow::Result<Running> {
    let settings: Settings = config.section("standalone")?;
    std::fs::create_dir_all(&settings.data_dir)
        .with_context(|| format!("creating the data folder {}", settings.data_dir.display()))?;
    let dir = settings.data_dir.as_path();
    let environment = config.environment();
    let tls = miclub_platform::tls::from_config(config)?;
    let client = |port: u16| loopback_client(&tls, port);
    let store: SharedStore = ephemeral::connect(
        &config.section::<EphemeralSettings>("ephemeral")?,
        environment,
    )
    .await?;
    // One bus in the process: accounts publishes purchases on it, missions consumes them.
    let bus: SharedBus =
        events::connect(&config.section::<EventBusSettings>("events")?, environment).await?;
    let mailbox = Arc::new(DevMailbox::default());
    let notifier = notify::build(
        &config.section::<NotifierSettings>("notifier")?,
        environment,
        Some(mailbox.clone()),
    )?;
    let mut tasks = JoinSet::new();

    // Accounts calls auth as an internal client (it hands over confirmed emails); its secret
    // is made afresh on every start and never leaves the process.
    let accounts_client = ServiceCredentials {
        client_id: "accounts".into(),
        client_secret: SecretString::from(random_secret()),
    };

    // Missions grants rewards as movements in accounts.
    let missions_client = ServiceCredentials {
        client_id: "missions".into(),
        client_secret: SecretString::from(random_secret()),
    };
    // Registration creates members in accounts and credentials in auth the same way.
    let registration_client = ServiceCredentials {
        client_id: "registration".into(),
        client_secret: SecretString::from(random_secret()),
    };
    // The gateway makes a visitor's anonymous calls (log in, join, content) as itself.
    let gateway_client = ServiceCredentials {
        client_id: "gateway".into(),
        client_secret: SecretString::from(random_secret()),
    };

    let mut auth: miclub_auth::Settings = config.section("auth")?;
    loopback(config, "auth", &mut auth.server, &tls);
    for internal in [
        &accounts_client,
        &registration_client,
        &missions_client,
        &gateway_client,
    ] {
        auth.service_clients.insert(
            internal.client_id.clone(),
            miclub_auth::secret_digest(internal.client_secret.expose_secret()),
        );
    }
    for (client_id, secret) in [
        ("pos", &settings.pos_client_secret),
        ("ops", &settings.ops_client_secret),
    ] {
        if let Some(secret) = secret {
            auth.service_clients.insert(
                client_id.to_owned(),
                miclub_auth::secret_digest(secret.expose_secret()),
            );
        }
    }
    auth.database = sqlite_in(dir, "auth", auth.database);
    auth.seed_demo |= settings.seed_demo;
    if auth.signing.keys.is_empty() && auth.signing.dev_key_file.is_none() {
        auth.signing.dev_key_file = Some(dir.join("auth-signing-key.pem"));
    }
    let auth = miclub_auth::Application::build(
        auth,
        miclub_auth::Dependencies {
            store: store.clone(),
            notifier: notifier.clone(),
            environment,
        },
    )
    .await
    .context("starting auth")?;
    let auth_port = auth.port();
    let stop = shutdown.clone();
    tasks.spawn(async move { ("auth".to_owned(), auth.run_until_stopped(stop).await) });
    let key_source = || -> anyhow::Result<Arc<GrpcKeySource>> {
        Ok(Arc::new(GrpcKeySource::new(client(auth_port).channel()?)))
    };

    let mut accounts: miclub_accounts::Settings = config.section("accounts")?;
    loopback(config, "accounts", &mut accounts.server, &tls);
    accounts.database = sqlite_in(dir, "accounts", accounts.database);
    accounts.seed_demo |= settings.seed_demo;
    accounts.auth = client(auth_port);
    accounts.service_client = accounts_client;
    let accrual_rules_file = accounts.accrual.rules_file.clone();
    if !config.contains("accounts.public_url") {
        // Confirmation links point at this portal; with port 0 (tests) only the token matters.
        let gateway: miclub_gateway::Settings = config.section("gateway")?;
        accounts.public_url = format!("http://localhost:{}", gateway.port);
    }
    let service_tokens = Arc::new(ServiceTokens::new(
        client(auth_port).channel()?,
        accounts.service_client.clone(),
    ));
    let accounts = miclub_accounts::Application::build(
        accounts,
        miclub_accounts::Dependencies {
            store: store.clone(),
            key_source: key_source()?,
            notifier,
            bus: bus.clone(),
            login_emails: Arc::new(miclub_accounts::GrpcLoginEmails::new(
                client(auth_port).channel()?,
                service_tokens,
            )),
        },
    )
    .await
    .context("starting accounts")?;
    let accounts_port = accounts.port();
    let stop = shutdown.clone();
    tasks.spawn(async move {
        (
            "accounts".to_owned(),
            accounts.run_until_stopped(stop).await,
        )
    });

    let mut missions: miclub_missions::Settings = config.section("missions")?;
    loopback(config, "missions", &mut missions.server, &tls);
    missions.database = sqlite_in(dir, "missions", missions.database);
    missions.seed_demo |= settings.seed_demo;
    missions.auth = client(auth_port);
    missions.accounts = client(accounts_port);
    missions.service_client = missions_client;
    let missions_deps =
        miclub_missions::Dependencies::over_grpc(&missions, bus.clone(), store.clone())?;
    let missions = miclub_missions::Application::build(missions, missions_deps)
        .await
        .context("starting missions")?;
    let missions_port = missions.port();
    let stop = shutdown.clone();
    tasks.spawn(async move {
        (
            "missions".to_owned(),
            missions.run_until_stopped(stop).await,
        )
    });

    let mut content: miclub_content::Settings = config.section("content")?;
    loopback(config, "content", &mut content.server, &tls);
    content.database = sqlite_in(dir, "content", content.database);
    if !config.contains("content.accrual.rules_file") {
        // One rules file for the simulator and purchase posting.
        content.accrual.rules_file = accrual_rules_file.clone();
    }
    let content = miclub_content::Application::build(
        content,
        miclub_content::Dependencies {
            key_source: key_source()?,
        },
    )
    .await
    .context("starting content")?;
    let content_port = content.port();
    let stop = shutdown.clone();
    tasks.spawn(async move { ("content".to_owned(), content.run_until_stopped(stop).await) });

    let mut registration: miclub_registration::Settings = config.section("registration")?;
    loopback(config, "registration", &mut registration.server, &tls);
    registration.database = sqlite_in(dir, "registration", registration.database);
    registration.auth = client(auth_port);
    registration.accounts = client(accounts_port);
    registration.content = client(content_port);
    registration.service_client = registration_client;
    let registration_deps =
        miclub_registration::Dependencies::over_grpc(&registration, store.clone())?;
    let registration = miclub_registration::Application::build(registration, registration_deps)
        .await
        .context("starting registration")?;
    let registration_port = registration.port();
    let stop = shutdown.clone();
    tasks.spawn(async move {
        (
            "registration".to_owned(),
            registration.run_until_stopped(stop).await,
        )
    });

    let mut gateway: miclub_gateway::Settings = config.section("gateway")?;
    if !config.contains("gateway.host") {
        gateway.host = "127.0.0.1".into();
    }
    gateway.auth = client(auth_port);
    gateway.accounts = client(accounts_port);
    gateway.content = client(content_port);
    gateway.registration = client(registration_port);
    gateway.missions = client(missions_port);
    gateway.service_client = gateway_client;
    if !config.contains("gateway.dev_mailbox") {
        gateway.dev_mailbox = !environment.is_production();
    }
    let gateway = miclub_gateway::Application::build(
        gateway,
        miclub_gateway::Dependencies {
            environment,
            store,
            key_source: key_source()?,
            mailbox: Some(mailbox.clone()),
        },
    )
    .await
    .context("starting the gateway")?;
    let gateway_port = gateway.port();
    let stop = shutdown.clone();
    tasks.spawn(async move { ("gateway".to_owned(), gateway.run_until_stopped(stop).await) });

    tracing::info!(
        port = gateway_port,
        data_dir = %dir.display(),
        "mi club standalone ready at http://127.0.0.1:{gateway_port}/"
    );
    Ok(Running {
        gateway_port,
        mailbox,
        tasks,
    })
}

/// 32 random bytes as hex: a client secret for one run.
fn random_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
