//! `miclub-auth`: the auth service as its own process (production runs one per pod).
//!
//! Reads sections `auth`, `telemetry`, `ephemeral`, `notifier` and `internal_tls` of the layered configuration
//! (`APP_AUTH__…`, `APP_EPHEMERAL__REDIS_URL`, …), builds the shared stores, and serves until
//! SIGTERM. With `--migrate-only` it applies the database migrations and exits instead; with
//! `--seed-demo` it stores the demo credentials that are missing and exits.

use miclub_auth::{Application, Dependencies, Settings, store};
use miclub_platform::config::Mode;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::notify::{self, NotifierSettings};
use miclub_platform::service::{self, Process};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::tls;

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let process = Process::start("auth")?;
    let environment = process.environment();
    let mut settings: Settings = process.section("auth")?;
    match process.mode {
        Mode::Serve => {}
        Mode::MigrateOnly => {
            let database = settings.database_or_default();
            return service::migrate_only("auth", &database, &store::MIGRATIONS).await;
        }
        Mode::SeedDemo => {
            let created = miclub_auth::seed_demo_only(&settings).await?;
            tracing::info!(created, "auth demo credentials seeded");
            return Ok(());
        }
    }
    let ephemeral_settings: EphemeralSettings = process.section("ephemeral")?;
    settings.use_internal_tls(&tls::from_config(&process.config)?);
    let store = ephemeral::connect(&ephemeral_settings, environment).await?;
    let notifier = notify::build(
        &process.section::<NotifierSettings>("notifier")?,
        environment,
        None,
    )?;
    let app = Application::build(
        settings,
        Dependencies {
            store,
            notifier,
            environment,
        },
    )
    .await?;
    tracing::info!(port = app.port(), "auth service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
