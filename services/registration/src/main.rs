//! `miclub-registration`: the registration service as its own process (production runs one per
//! pod).
//!
//! Reads sections `registration` (see `config.rs`), `telemetry`, `ephemeral` and `internal_tls` of the
//! layered
//! configuration (`APP_REGISTRATION__…`, `APP_EPHEMERAL__REDIS_URL`, …). Accounts, auth and
//! content are reached at `registration.accounts`, `.auth` and `.content`, accounts and auth with
//! registration's own client credentials (`registration.service_client`). Serves until SIGTERM;
//! with `--migrate-only` it applies the database migrations and exits instead.

use miclub_platform::config::Mode;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::service::{self, Process};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::tls;
use miclub_registration::{Application, Dependencies, Settings, store};

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let process = Process::start("registration")?;
    let environment = process.environment();
    let mut settings: Settings = process.section("registration")?;
    match process.mode {
        Mode::Serve => {}
        Mode::MigrateOnly => {
            let database = settings.database_or_default();
            return service::migrate_only("registration", &database, &store::MIGRATIONS).await;
        }
        Mode::SeedDemo => anyhow::bail!("registration has no demo data to seed"),
    }
    settings.validate(environment)?;
    settings.use_internal_tls(&tls::from_config(&process.config)?);
    let ephemeral_settings: EphemeralSettings = process.section("ephemeral")?;
    let store = ephemeral::connect(&ephemeral_settings, environment).await?;
    if !settings.service_client.is_configured() {
        tracing::warn!(
            "no client credentials at auth (registration.service_client): every registration will fail"
        );
    }
    let deps = Dependencies::over_grpc(&settings, store)?;
    let app = Application::build(settings, deps).await?;
    tracing::info!(port = app.port(), "registration service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
