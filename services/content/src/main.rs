//! `miclub-content`: the content service as its own process (production runs one per pod).
//!
//! Reads sections `content` (see `config.rs`), `telemetry` and `internal_tls` of the layered configuration
//! (`APP_CONTENT__…`). Auth is reached at `content.auth` for the keys that verify the service
//! tokens of internal calls. Serves until SIGTERM;
//! with `--migrate-only` it applies the database migrations and exits instead.

use std::sync::Arc;

use miclub_content::{Application, Dependencies, Settings, store};
use miclub_platform::config::Mode;
use miclub_platform::service::{self, Process};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::tls;
use miclub_platform::tokens::GrpcKeySource;

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let process = Process::start("content")?;
    let mut settings: Settings = process.section("content")?;
    match process.mode {
        Mode::Serve => {}
        Mode::MigrateOnly => {
            let database = settings.database_or_default();
            return service::migrate_only("content", &database, &store::MIGRATIONS).await;
        }
        Mode::SeedDemo => anyhow::bail!("content has no demo data to seed"),
    }
    settings.validate(process.environment())?;
    settings.use_internal_tls(&tls::from_config(&process.config)?);
    let key_source = Arc::new(GrpcKeySource::new(settings.auth.channel()?));
    let app = Application::build(settings, Dependencies { key_source }).await?;
    tracing::info!(port = app.port(), "content service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
