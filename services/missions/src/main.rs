//! `miclub-missions`: the missions service as its own process (production runs one per pod).
//!
//! Reads sections `missions` (see `config.rs`), `telemetry`, `ephemeral`, `events` and
//! `internal_tls` of the
//! layered configuration (`APP_MISSIONS__…`, `APP_EVENTS__REDIS_URL`, …). Auth is reached at
//! `missions.auth` for verification keys and service tokens (`missions.service_client`),
//! accounts at `missions.accounts` to record rewards. Serves until SIGTERM;
//! with `--migrate-only` it applies the database migrations and exits instead.

use miclub_missions::{Application, Dependencies, Settings};
use miclub_platform::config::Layered;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::events::{self, EventBusSettings};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};
use miclub_platform::tls;

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Layered::load()?;
    let environment = config.environment();
    let _telemetry = telemetry::init(
        "missions",
        &config.section::<TelemetrySettings>("telemetry")?,
    )?;
    let mut settings: Settings = config.section("missions")?;
    if migrate_only() {
        // `Store::connect` applies the embedded migrations; nothing else starts.
        miclub_missions::store::Store::connect(&settings.database_or_default()).await?;
        tracing::info!("missions migrations applied");
        return Ok(());
    }
    settings.validate(environment)?;
    settings.use_internal_tls(&tls::from_config(&config)?);
    let ephemeral_settings: EphemeralSettings = config.section("ephemeral")?;
    let bus_settings: EventBusSettings = config.section("events")?;
    if environment.is_production() && bus_settings.redis_url.is_empty() {
        anyhow::bail!(
            "production needs redis (events.redis_url): an in-memory bus sees no other process's events"
        );
    }
    let store = ephemeral::connect(&ephemeral_settings, environment).await?;
    let bus = events::connect(&bus_settings).await?;
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

/// `--migrate-only`: apply this service's database migrations and exit (the Kubernetes Job).
fn migrate_only() -> bool {
    std::env::args().skip(1).any(|arg| arg == "--migrate-only")
}
