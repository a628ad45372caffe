//! `miclub-gateway`: the REST edge as its own process (production mode).

use std::sync::Arc;

use miclub_gateway::{Application, Dependencies, Settings};
use miclub_platform::config::Layered;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};
use miclub_platform::tokens::GrpcKeySource;

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Layered::load()?;
    let _telemetry = telemetry::init(
        "gateway",
        &config.section::<TelemetrySettings>("telemetry")?,
    )?;
    let settings: Settings = config.section("gateway")?;
    let environment = config.environment();
    let store = ephemeral::connect(
        &config.section::<EphemeralSettings>("ephemeral")?,
        environment,
    )
    .await?;
    let key_source = Arc::new(GrpcKeySource::new(settings.auth.channel()?));
    let deps = Dependencies {
        environment,
        store,
        key_source,
        mailbox: None,
    };
    Application::build(settings, deps)
        .await?
        .run_until_stopped(Shutdown::on_signals())
        .await
}
