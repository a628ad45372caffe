//! `miclub-accounts`: the accounts service as its own process (production runs one per pod).
//!
//! Reads sections `accounts` (see `config.rs`), `telemetry`, `ephemeral`, `events`,
//! `notifier` and `internal_tls` of the layered configuration (`APP_ACCOUNTS__…`, `APP_EPHEMERAL__REDIS_URL`,
//! `APP_EVENTS__REDIS_URL`, …); the ephemeral store is the one auth writes session revocations
//! to, the event bus the one missions reads purchase events from. Auth is reached at `accounts.auth` for its
//! verification keys and, with accounts' own client credentials (`accounts.service_client`),
//! to hand it confirmed emails. Serves until SIGTERM;
//! with `--migrate-only` it applies the database migrations and exits instead, with `--seed-demo` it
//! stores the demo data that is missing and exits.

use std::sync::Arc;

use miclub_accounts::{Application, Dependencies, GrpcLoginEmails, Settings, store};
use miclub_platform::config::Mode;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::events::{self, EventBusSettings};
use miclub_platform::notify::{self, NotifierSettings};
use miclub_platform::service::{self, Process};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::tls;
use miclub_platform::tokens::{GrpcKeySource, ServiceTokens};

#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let process = Process::start("accounts")?;
    let environment = process.environment();
    let mut settings: Settings = process.section("accounts")?;
    match process.mode {
        Mode::Serve => {}
        Mode::MigrateOnly => {
            let database = settings.database_or_default();
            return service::migrate_only("accounts", &database, &store::MIGRATIONS).await;
        }
        Mode::SeedDemo => {
            let report = miclub_accounts::seed_demo_only(&settings).await?;
            tracing::info!(
                members = report.members,
                movements = report.movements,
                purchases = report.purchases,
                "accounts demo members seeded"
            );
            return Ok(());
        }
    }
    let ephemeral_settings: EphemeralSettings = process.section("ephemeral")?;
    settings.validate(environment, !ephemeral_settings.redis_url.is_empty())?;
    settings.use_internal_tls(&tls::from_config(&process.config)?);
    let store = ephemeral::connect(&ephemeral_settings, environment).await?;
    let bus_settings: EventBusSettings = process.section("events")?;
    let bus = events::connect(&bus_settings, environment).await?;
    let key_source = Arc::new(GrpcKeySource::new(settings.auth.channel()?));
    let notifier = notify::build(
        &process.section::<NotifierSettings>("notifier")?,
        environment,
        None,
    )?;
    if !settings.service_client.is_configured() {
        tracing::warn!(
            "no client credentials at auth (accounts.service_client): confirming an email will fail"
        );
    }
    let tokens = Arc::new(ServiceTokens::new(
        settings.auth.channel()?,
        settings.service_client.clone(),
    ));
    let login_emails = Arc::new(GrpcLoginEmails::new(settings.auth.channel()?, tokens));
    let app = Application::build(
        settings,
        Dependencies {
            store,
            key_source,
            notifier,
            login_emails,
            bus,
        },
    )
    .await?;
    tracing::info!(port = app.port(), "accounts service ready");
    app.run_until_stopped(Shutdown::on_signals()).await
}
