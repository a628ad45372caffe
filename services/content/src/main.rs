//! `miclub-content`: the content service as its own process (production runs one per pod).
//!
//! Reads sections `content` (see `config.rs`), `telemetry` and `internal_tls` of the layered configuration
//! (`APP_CONTENT__…`). Auth is reached at `content.auth` for the keys that verify the service
//! tokens of internal calls. Serves until SIGTERM;
//! with `--migrate-only` it applies the database migrations and exits instead.

use std::sync::Arc;

use miclub_content::{Application, Dependencies, Settings};
use miclub_platform::config::{Layered, Mode};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};
use miclub_platform::tls;
use miclub_platform::tokens::GrpcKeySource;

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mode = Mode::from_args()?;
    let config = Layered::load()?;
    let _telemetry = telemetry::init(
        "content",
        &config.section::<TelemetrySettings>("telemetry")?,
    )?;
    let mut settings: Settings = config.section("content")?;
    if mode == Mode::SeedDemo {
        anyhow::bail!("content has no demo data to seed");
    }
    if mode == Mode::MigrateOnly {
        // `Store::connect` applies the embedded migrations; nothing else starts.
        miclub_content::store::Store::connect(&settings.database_or_default()).await?;
        tracing::info!("content migrations applied");
        return Ok(());
    }
    settings.validate(config.environment())?;
    settings.use_internal_tls(&tls::from_config(&config)?);
    let key_source = Arc::new(GrpcKeySource::new(settings.auth.channel()?));
    let app = Application::build(settings, Dependencies { key_source }).await?;
    tracing::info!(port = app.port(), "content service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
