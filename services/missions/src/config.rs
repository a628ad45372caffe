//! Missions settings, section `[missions]` (`APP_MISSIONS__…`, e.g. `APP_MISSIONS__DATABASE__URL`).
//!
//! Every field has a default, so the service starts with no configuration at all in
//! development: gRPC on port 50053, SQLite at `./data/missions.db` when no database url is
//! given, auth and accounts on their default loopback ports. [`Settings::validate`] is where
//! production refuses those conveniences.

use std::time::Duration;

use miclub_platform::config::Environment;
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::{ServiceCredentials, TokenSettings};
use serde::Deserialize;

/// Default gRPC port of missions.
pub const DEFAULT_PORT: u16 = 50053;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// gRPC listener; port 0 picks a free port.
    pub server: ServerSettings,
    /// Empty url: [`Settings::DEV_DATABASE_URL`] in development; production requires one.
    pub database: DatabaseSettings,
    /// Issuer and audience the access tokens must carry.
    pub tokens: TokenSettings,
    /// Seed the demo missions at start-up (dates around today); idempotent.
    pub seed_demo: bool,
    /// Missions' own client credentials at auth (`[missions.service_client]`, client id
    /// "missions"), for the service token accounts requires to record rewards; production
    /// requires them.
    pub service_client: ServiceCredentials,
    /// Auth's gRPC endpoint: verification keys (JWKS) and service tokens.
    pub auth: ClientSettings,
    /// Accounts' gRPC endpoint, where rewards are recorded as ledger movements.
    pub accounts: ClientSettings,
    /// How missions reads the purchase events, section `[missions.consumer]`.
    pub consumer: ConsumerSettings,
    /// How often the background task grants the rewards of completed missions that accounts
    /// has not recorded yet.
    pub reward_retry_interval_secs: u64,
}

/// Section `[missions.consumer]` (`APP_MISSIONS__CONSUMER__…`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ConsumerSettings {
    /// Name of this process in the consumer group; empty means `$HOSTNAME` (the pod name in
    /// Kubernetes), or a random one when that is not set.
    pub name: String,
    /// Most events read at once.
    pub batch: usize,
    /// Longest wait for new events in one read.
    pub wait_ms: u64,
}

impl Default for ConsumerSettings {
    fn default() -> Self {
        Self {
            name: String::new(),
            batch: 100,
            wait_ms: 1_000,
        }
    }
}

impl ConsumerSettings {
    /// The consumer name to use: the configured one, `$HOSTNAME`, or `missions-<uuid>`.
    pub fn consumer_name(&self) -> String {
        if !self.name.trim().is_empty() {
            return self.name.trim().to_owned();
        }
        match std::env::var("HOSTNAME") {
            Ok(host) if !host.trim().is_empty() => host.trim().to_owned(),
            _ => format!("missions-{}", uuid::Uuid::new_v4().simple()),
        }
    }

    pub fn wait(&self) -> Duration {
        Duration::from_millis(self.wait_ms)
    }
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
            seed_demo: false,
            service_client: ServiceCredentials::default(),
            auth: ClientSettings::for_url("http://127.0.0.1:50051"),
            accounts: ClientSettings::for_url("http://127.0.0.1:50052"),
            consumer: ConsumerSettings::default(),
            reward_retry_interval_secs: 60,
        }
    }
}

impl Settings {
    /// Serves gRPC and calls the other services with the process's internal TLS
    /// (section `[internal_tls]`).
    pub fn use_internal_tls(&mut self, tls: &InternalTls) {
        self.server.tls = tls.clone();
        self.auth.tls = tls.clone();
        self.accounts.tls = tls.clone();
    }

    /// The database of a development run that configures none.
    pub const DEV_DATABASE_URL: &str = "sqlite://data/missions.db";

    /// Checks what types alone cannot; production refuses development conveniences.
    pub fn validate(&self, environment: Environment) -> anyhow::Result<()> {
        if self.reward_retry_interval_secs == 0 {
            anyhow::bail!("missions.reward_retry_interval_secs must be at least 1");
        }
        if self.consumer.batch == 0 {
            anyhow::bail!("missions.consumer.batch must be at least 1");
        }
        if environment.is_production() {
            self.database.require_postgres("missions")?;
            if !self.service_client.is_configured() {
                anyhow::bail!(
                    "production needs missions' client credentials at auth \
                     (missions.service_client.client_id and client_secret)"
                );
            }
            if self.seed_demo {
                anyhow::bail!("production must not seed demo missions (missions.seed_demo)");
            }
        }
        Ok(())
    }

    /// The database to use: the configured one, or [`Self::DEV_DATABASE_URL`].
    pub fn database_or_default(&self) -> DatabaseSettings {
        self.database.or_sqlite(Self::DEV_DATABASE_URL)
    }

    pub fn reward_retry_interval(&self) -> Duration {
        Duration::from_secs(self.reward_retry_interval_secs)
    }
}

#[cfg(test)]
mod tests {
    use miclub_platform::config::{Environment, Layered};

    use super::*;

    #[test]
    fn a_missing_section_gives_a_service_on_its_own_port_with_sqlite() {
        let layered = Layered::from_toml(Environment::Development, "").unwrap();
        let settings: Settings = layered.section("missions").unwrap();
        assert_eq!(settings.server.port, DEFAULT_PORT);
        assert_eq!(settings.auth.url, "http://127.0.0.1:50051");
        assert_eq!(settings.accounts.url, "http://127.0.0.1:50052");
        assert_eq!(settings.consumer.batch, 100);
        assert_eq!(settings.consumer.wait_ms, 1_000);
        assert_eq!(settings.reward_retry_interval_secs, 60);
        assert!(!settings.seed_demo);
        assert_eq!(
            settings.database_or_default().url,
            Settings::DEV_DATABASE_URL
        );
        settings.validate(Environment::Development).unwrap();
    }

    #[test]
    fn production_refuses_no_database_no_credentials_and_the_demo_seed() {
        let bare = Settings::default();
        assert!(bare.validate(Environment::Production).is_err());

        let mut ready = Settings::default();
        ready.database.url = "postgres://db/missions".into();
        ready.service_client = ServiceCredentials {
            client_id: "missions".into(),
            client_secret: "secret".to_owned().into(),
        };
        ready.validate(Environment::Production).unwrap();

        let seeded = Settings {
            seed_demo: true,
            ..ready
        };
        assert!(seeded.validate(Environment::Production).is_err());
    }

    #[test]
    fn a_configured_consumer_name_is_used_as_is() {
        let consumer = ConsumerSettings {
            name: " missions-0 ".into(),
            ..ConsumerSettings::default()
        };
        assert_eq!(consumer.consumer_name(), "missions-0");
        assert!(!ConsumerSettings::default().consumer_name().is_empty());
    }
}
