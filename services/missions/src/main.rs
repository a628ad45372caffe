//! `miclub-missions`: the missions service as its own process (production runs one per pod).
//!
//! Reads sections `missions` (see `config.rs`), `telemetry`, `ephemeral`, `events` and
//! `internal_tls` of the
//! layered configuration (`APP_MISSIONS__…`, `APP_EVENTS__REDIS_URL`, …). Auth is reached at
//! `missions.auth` for verification keys and service tokens (`missions.service_client`),
//! accounts at `missions.accounts` to record rewards. Serves until SIGTERM;
//! with `--migrate-only` it applies the database migrations and exits instead, with `--seed-demo` it
//! stores the demo data that is missing and exits.

use miclub_missions::{Application, Dependencies, Settings, store};
use miclub_platform::config::Mode;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::events::{self, EventBusSettings};
use miclub_platform::service::{self, Process};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::tls;

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let process = Process::start("missions")?;
    let environment = process.environment();
    let mut settings: Settings = process.section("missions")?;
    match process.mode {
        Mode::Serve => {}
        Mode::MigrateOnly => {
            let database = settings.database_or_default();
            return service::migrate_only("missions", &database, &store::MIGRATIONS).await;
        }
        Mode::SeedDemo => {
            miclub_missions::seed_demo_only(&settings).await?;
            tracing::info!("missions demo missions seeded");
            return Ok(());
        }
    }
    settings.validate(environment)?;
    settings.use_internal_tls(&tls::from_config(&process.config)?);
    let ephemeral_settings: EphemeralSettings = process.section("ephemeral")?;
    let bus_settings: EventBusSettings = process.section("events")?;
    let store = ephemeral::connect(&ephemeral_settings, environment).await?;
    let bus = events::connect(&bus_settings, environment).await?;
    if !settings.service_client.is_configured() {
        tracing::warn!(
            "no client credentials at auth (missions.service_client): rewards cannot be granted"
        );
    }
    let deps = Dependencies::over_grpc(&settings, bus, store)?;
    let app = Application::build(settings, deps).await?;
    tracing::info!(port = app.port(), "missions service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
