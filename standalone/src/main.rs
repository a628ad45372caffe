//! `miclub`: the whole portal in one process (see the crate header in `lib.rs`).

use miclub_platform::config::Layered;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Layered::load()?;
    let _telemetry = telemetry::init(
        "miclub-standalone",
        &config.section::<TelemetrySettings>("telemetry")?,
    )?;
    let running = miclub_standalone::start(&config, Shutdown::on_signals()).await?;
    running.wait().await
}
