//! `miclub-missions`: the missions service as its own process (production runs one per pod).
//!
//! Reads sections `missions` (see `config.rs`) and `telemetry` of the layered configuration
//! (`APP_MISSIONS__…`). Serves until SIGTERM.

use miclub_missions::{Application, Dependencies, Settings};
use miclub_platform::config::Layered;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Layered::load()?;
    let _telemetry = telemetry::init(
        "missions",
        &config.section::<TelemetrySettings>("telemetry")?,
    )?;
    let settings: Settings = config.section("missions")?;
    let app = Application::build(settings, Dependencies::default()).await?;
    tracing::info!(port = app.port(), "missions service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
