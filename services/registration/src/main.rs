//! `miclub-registration`: the registration service as its own process (production runs one per pod).
//!
//! Reads sections `registration` (see `config.rs`) and `telemetry` of the layered configuration
//! (`APP_REGISTRATION__…`). Serves until SIGTERM.

use miclub_platform::config::Layered;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};
use miclub_registration::{Application, Dependencies, Settings};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Layered::load()?;
    let _telemetry = telemetry::init(
        "registration",
        &config.section::<TelemetrySettings>("telemetry")?,
    )?;
    let settings: Settings = config.section("registration")?;
    let app = Application::build(settings, Dependencies::default()).await?;
    tracing::info!(port = app.port(), "registration service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
