//! How every service binary starts: the same steps, written once, so each `main.rs` holds only
//! what its service needs beyond them.
//!
//! [`Process::start`] reads the mode of the arguments ([`Mode`]), loads the layered
//! configuration and installs telemetry under the service's name; [`migrate_only`] is the whole
//! `--migrate-only` step (the Kubernetes Job of each service). Serving is the service's own
//! `Application`, over a [`crate::grpc::Port`].

use serde::de::DeserializeOwned;

use crate::config::{Environment, Layered, Mode};
use crate::storage::{DatabaseSettings, Migrations};
use crate::telemetry::{self, TelemetryGuard, TelemetrySettings};

/// A service process once started: what it was asked to do, its configuration, and its
/// telemetry (flushed when this is dropped, so `main` keeps it to the end).
#[derive(Debug)]
pub struct Process {
    pub mode: Mode,
    pub config: Layered,
    _telemetry: TelemetryGuard,
}

impl Process {
    /// Reads the arguments and the configuration, and installs telemetry as `service` (call it
    /// inside the Tokio runtime).
    pub fn start(service: &'static str) -> anyhow::Result<Self> {
        let mode = Mode::from_args()?;
        let config = Layered::load()?;
        let telemetry =
            telemetry::init(service, &config.section::<TelemetrySettings>("telemetry")?)?;
        Ok(Self {
            mode,
            config,
            _telemetry: telemetry,
        })
    }

    pub fn environment(&self) -> Environment {
        self.config.environment()
    }

    /// One section of the configuration (see [`Layered::section`]).
    pub fn section<T: DeserializeOwned + Default>(&self, name: &str) -> anyhow::Result<T> {
        self.config.section(name)
    }
}

/// The `--migrate-only` step of `service`: applies its migrations to `database` and exits
/// without starting anything else. Services also migrate when they start; the step makes it
/// explicit, so a release whose migration fails stops before any pod rolls.
pub async fn migrate_only(
    service: &'static str,
    database: &DatabaseSettings,
    migrations: &Migrations,
) -> anyhow::Result<()> {
    migrations.open(database).await?.close().await;
    tracing::info!(service, "{service} migrations applied");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Database;
    use crate::storage::tests::one_migration as migrator;

    #[tokio::test]
    async fn the_migrate_only_step_leaves_a_migrated_database_behind() {
        let dir = std::env::temp_dir().join(format!("miclub-migrate-{}", uuid::Uuid::new_v4()));
        let database = DatabaseSettings {
            url: format!("sqlite://{}", dir.join("shop.db").display()),
            ..DatabaseSettings::default()
        };
        let migrations = Migrations {
            postgres: migrator("CREATE TABLE shops (id TEXT PRIMARY KEY)"),
            sqlite: migrator("CREATE TABLE shops (id TEXT PRIMARY KEY)"),
        };
        migrate_only("shop", &database, &migrations).await.unwrap();
        let reopened = Database::connect(&database).await.unwrap();
        let tables: Vec<(String,)> =
            sqlx::query_as("SELECT name FROM sqlite_master WHERE name = 'shops'")
                .fetch_all(&**reopened.pool())
                .await
                .unwrap();
        assert_eq!(tables.len(), 1);
        reopened.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }
}
