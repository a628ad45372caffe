//! Mi Club in one process: the gateway and the five services on loopback ports, SQLite files
//! under the data folder, an in-memory ephemeral store and the dev mailbox shared by all. It is
//! the embedded default the README's run command starts; production runs each service as its
//! own process instead (same code, same gRPC hops).
//!
//! [`start`] only orders the start-up; each job has its module: the `[standalone]` settings,
//! what the components share, the internal clients' credentials, building each
//! service, wiring the gateway, and running them until the shutdown.

mod clients;
mod embedding;
mod gateway;
mod running;
mod services;
mod settings;

use miclub_platform::config::Layered;
use miclub_platform::shutdown::Shutdown;

pub use running::Running;
pub use settings::Settings;

use clients::InternalClients;
use embedding::Embedding;
use gateway::Ports;
use running::Components;

/// Starts every component and returns once all listen.
pub async fn start(config: &Layered, shutdown: Shutdown) -> anyhow::Result<Running> {
    let embedding = Embedding::prepare(config).await?;
    let clients = InternalClients::generate();
    let mut components = Components::new(shutdown);

    let auth = services::auth(&embedding, &clients).await?;
    let auth_port = auth.port();
    components.spawn("auth", |stop| auth.run_until_stopped(stop));

    let (accounts, accrual_rules_file) =
        services::accounts(&embedding, clients.accounts, auth_port).await?;
    let accounts_port = accounts.port();
    components.spawn("accounts", |stop| accounts.run_until_stopped(stop));

    let missions =
        services::missions(&embedding, clients.missions, auth_port, accounts_port).await?;
    let missions_port = missions.port();
    components.spawn("missions", |stop| missions.run_until_stopped(stop));

    let content = services::content(&embedding, accrual_rules_file, auth_port).await?;
    let content_port = content.port();
    components.spawn("content", |stop| content.run_until_stopped(stop));

    let registration = services::registration(
        &embedding,
        clients.registration,
        auth_port,
        accounts_port,
        content_port,
    )
    .await?;
    let registration_port = registration.port();
    components.spawn("registration", |stop| registration.run_until_stopped(stop));

    let ports = Ports {
        auth: auth_port,
        accounts: accounts_port,
        content: content_port,
        registration: registration_port,
        missions: missions_port,
    };
    let gateway = gateway::gateway(&embedding, clients.gateway, &ports).await?;
    let gateway_port = gateway.port();
    components.spawn("gateway", |stop| gateway.run_until_stopped(stop));

    tracing::info!(
        port = gateway_port,
        data_dir = %embedding.data_dir().display(),
        "mi club standalone ready at http://127.0.0.1:{gateway_port}/"
    );
    Ok(components.into_running(gateway_port, embedding.mailbox))
}
