//! Accounts settings, section `[accounts]` (`APP_ACCOUNTS__…`, e.g. `APP_ACCOUNTS__DATABASE__URL`).
//!
//! Every field has a default, so the service starts with no configuration at all in
//! development: gRPC on port 50052 (where the gateway looks by default), SQLite at
//! `./data/accounts.db` when no database url is given, auth on `127.0.0.1:50051`.
//! [`Settings::validate`] is where production refuses those conveniences.

use miclub_platform::config::Environment;
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tokens::TokenSettings;
use serde::Deserialize;

/// Default gRPC port of accounts.
pub const DEFAULT_PORT: u16 = 50052;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub server: ServerSettings,
    /// Empty url: [`Settings::DEV_DATABASE_URL`] in development; production requires one.
    pub database: DatabaseSettings,
    /// Issuer and audience the member access tokens must carry.
    pub tokens: TokenSettings,
    /// Auth's gRPC endpoint, where the verification keys (JWKS) come from.
    pub auth: ClientSettings,
    /// Seed the demo members (`platform::demo::MEMBERS`) at start-up; idempotent.
    pub seed_demo: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            server: ServerSettings {
                port: DEFAULT_PORT,
                ..ServerSettings::default()
            },
            database: DatabaseSettings::default(),
            tokens: TokenSettings::default(),
            auth: ClientSettings::for_url("http://127.0.0.1:50051"),
            seed_demo: false,
        }
    }
}

impl Settings {
    /// The database of a development run that configures none.
    pub const DEV_DATABASE_URL: &str = "sqlite://data/accounts.db";

    /// Checks what types alone cannot; production refuses development conveniences.
    /// `shared_revocations` tells whether the ephemeral store is shared with auth (Redis):
    /// without it a logout in auth would go unnoticed here.
    pub fn validate(
        &self,
        environment: Environment,
        shared_revocations: bool,
    ) -> anyhow::Result<()> {
        if environment.is_production() {
            if self.database.url.is_empty() {
                anyhow::bail!("production needs a database (accounts.database.url)");
            }
            if self.seed_demo {
                anyhow::bail!("accounts.seed_demo cannot be enabled in production");
            }
            if !shared_revocations {
                anyhow::bail!(
                    "production needs redis (ephemeral.redis_url) to see revoked sessions"
                );
            }
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
    fn a_missing_section_gives_a_service_that_starts_on_its_own_port_with_sqlite_in_data() {
        let layered = Layered::from_toml(Environment::Development, "").unwrap();
        let settings: Settings = layered.section("accounts").unwrap();
        assert_eq!(settings.server.port, DEFAULT_PORT);
        assert!(settings.database.url.is_empty());
        assert_eq!(
            settings.database_or_default().url,
            Settings::DEV_DATABASE_URL
        );
        assert!(!settings.seed_demo);
        settings.validate(Environment::Development, false).unwrap();
    }

    #[test]
    fn a_partial_section_keeps_the_defaults_of_what_it_does_not_name() {
        let layered = Layered::from_toml(
            Environment::Production,
            "[accounts]\nseed_demo = true\n[accounts.database]\nurl = \"postgres://db/accounts\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("accounts").unwrap();
        assert!(settings.seed_demo);
        assert_eq!(settings.database.url, "postgres://db/accounts");
        assert_eq!(
            settings.database.max_connections,
            DatabaseSettings::default().max_connections
        );
        assert_eq!(settings.auth.url, "http://127.0.0.1:50051");
        assert_eq!(settings.database_or_default().url, "postgres://db/accounts");
    }

    #[test]
    fn production_refuses_sqlite_by_default_the_demo_seed_and_a_private_ephemeral_store() {
        let configured = Settings {
            database: DatabaseSettings {
                url: "postgres://db/accounts".into(),
                ..Default::default()
            },
            ..Settings::default()
        };
        configured.validate(Environment::Production, true).unwrap();
        assert!(
            Settings::default()
                .validate(Environment::Production, true)
                .is_err()
        );
        let seeded = Settings {
            seed_demo: true,
            ..configured.clone()
        };
        assert!(seeded.validate(Environment::Production, true).is_err());
        assert!(configured.validate(Environment::Production, false).is_err());
    }
}
