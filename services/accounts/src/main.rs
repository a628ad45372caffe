//! `miclub-accounts`: the accounts service as its own process (production runs one per pod).
//!
//! Reads sections `accounts` (see `config.rs`), `telemetry` and `ephemeral` of the layered
//! configuration (`APP_ACCOUNTS__…`, `APP_EPHEMERAL__REDIS_URL`, …); the ephemeral store is
//! the one auth writes session revocations to. Serves until SIGTERM.

use std::sync::Arc;

use miclub_accounts::{Application, Dependencies, Settings};
use miclub_platform::config::Layered;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};
use miclub_platform::tokens::GrpcKeySource;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Layered::load()?;
    let _telemetry = telemetry::init(
        "accounts",
        &config.section::<TelemetrySettings>("telemetry")?,
    )?;
    let settings: Settings = config.section("accounts")?;
    let ephemeral_settings: EphemeralSettings = config.section("ephemeral")?;
    settings.validate(
        config.environment(),
        !ephemeral_settings.redis_url.is_empty(),
    )?;
    let store = ephemeral::connect(&ephemeral_settings).await?;
    let key_source = Arc::new(GrpcKeySource::new(settings.auth.channel()?));
    let app = Application::build(settings, Dependencies { store, key_source }).await?;
    tracing::info!(port = app.port(), "accounts service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
