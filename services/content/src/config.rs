//! Content settings, section `[content]` (`APP_CONTENT__…`, e.g. `APP_CONTENT__DATABASE__URL`).
//!
//! Every field has a default, so the service starts with no configuration at all in
//! development: gRPC on port 50054, SQLite at `./data/content.db` when no database url is
//! given. [`Settings::validate`] is where production refuses that convenience.

use miclub_platform::config::Environment;
use miclub_platform::grpc::ServerSettings;
use miclub_platform::storage::DatabaseSettings;
use serde::Deserialize;

/// Default gRPC port of content.
pub const DEFAULT_PORT: u16 = 50054;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// gRPC listener; port 0 picks a free port.
    pub server: ServerSettings,
    /// Empty url: [`Settings::DEV_DATABASE_URL`] in development; production requires one.
    pub database: DatabaseSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            server: ServerSettings {
                port: DEFAULT_PORT,
                ..ServerSettings::default()
            },
            database: DatabaseSettings::default(),
        }
    }
}

impl Settings {
    /// The database of a development run that configures none.
    pub const DEV_DATABASE_URL: &str = "sqlite://data/content.db";

    /// Checks what types alone cannot; production refuses development conveniences.
    pub fn validate(&self, environment: Environment) -> anyhow::Result<()> {
        if environment.is_production() && self.database.url.is_empty() {
            anyhow::bail!("production needs a database (content.database.url)");
        }
        Ok(())
    }

    /// The database to use: the configured one, or [`Self::DEV_DATABASE_URL`].
    pub fn database_or_default(&self) -> DatabaseSettings {
        if self.database.url.is_empty() {
            tracing::warn!(
                url = Self::DEV_DATABASE_URL,
                "no database url configured: using sqlite"
            );
            DatabaseSettings {
                url: Self::DEV_DATABASE_URL.into(),
                ..self.database.clone()
            }
        } else {
            self.database.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use miclub_platform::config::{Environment, Layered};

    use super::*;

    #[test]
    fn a_missing_section_gives_a_service_on_its_own_port_with_sqlite_in_data() {
        let layered = Layered::from_toml(Environment::Development, "").unwrap();
        let settings: Settings = layered.section("content").unwrap();
        assert_eq!(settings.server.port, DEFAULT_PORT);
        assert!(settings.database.url.is_empty());
        assert_eq!(
            settings.database_or_default().url,
            Settings::DEV_DATABASE_URL
        );
        settings.validate(Environment::Development).unwrap();
    }

    #[test]
    fn a_partial_section_keeps_the_defaults_of_what_it_does_not_name() {
        let layered = Layered::from_toml(
            Environment::Production,
            "[content.database]\nurl = \"postgres://db/content\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("content").unwrap();
        assert_eq!(settings.server.port, DEFAULT_PORT);
        assert_eq!(settings.database.url, "postgres://db/content");
        assert_eq!(
            settings.database.max_connections,
            DatabaseSettings::default().max_connections
        );
        assert_eq!(settings.database_or_default().url, "postgres://db/content");
        settings.validate(Environment::Production).unwrap();
    }

    #[test]
    fn production_refuses_to_fall_back_to_sqlite() {
        let err = Settings::default()
            .validate(Environment::Production)
            .unwrap_err();
        assert!(err.to_string().contains("content.database.url"), "{err}");
    }
}
