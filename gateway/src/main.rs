//! `miclub-gateway`: the REST edge as its own process (production mode).
//!
//! Reads sections `gateway` (see `config.rs`), `telemetry`, `ephemeral` and `internal_tls`; the
//! services are reached at `gateway.auth`, `.accounts`, `.content`, `.registration`, `.missions`.

use std::sync::Arc;

use miclub_gateway::{Application, Dependencies, Settings};
use miclub_platform::config::Layered;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{self, TelemetrySettings};
use miclub_platform::tls;
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
    let mut settings: Settings = config.section("gateway")?;
    let environment = config.environment();
    let store = ephemeral::connect(
        &config.section::<EphemeralSettings>("ephemeral")?,
        environment,
    )
    .await?;
    settings.use_internal_tls(&tls::from_config(&config)?);
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
