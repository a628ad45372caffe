//! Accounts settings, section `[accounts]` (`APP_ACCOUNTS__…`, e.g. `APP_ACCOUNTS__DATABASE__URL`).
//!
//! Every field has a default, so the service starts with no configuration at all in
//! development: gRPC on port 50052 (where the gateway looks by default), SQLite at
//! `./data/accounts.db` when no database url is given, auth on `127.0.0.1:50051`.
//! [`Settings::validate`] is where production refuses those conveniences.

use miclub_platform::config::Environment;
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::{ServiceCredentials, TokenSettings};
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
    /// Purchase posting and the confirmation of accruals, section `[accounts.accrual]`.
    pub accrual: AccrualSettings,
    /// Accounts' own client credentials at auth (`[accounts.service_client]`), to hand auth a
    /// confirmed email; production requires them.
    pub service_client: ServiceCredentials,
    /// Origin of the web app, where email confirmation links point
    /// (`{public_url}/confirmar-correo?token=…`).
    pub public_url: String,
    /// How long an email confirmation link works.
    pub email_confirmation_ttl_hours: u32,
    /// How often the background task asks auth again to disable the credentials of members
    /// who unsubscribed while auth was unreachable.
    pub credentials_retry_interval_secs: u64,
    /// The outbox relay to the event bus, section `[accounts.relay]`.
    pub relay: RelaySettings,
}

/// Section `[accounts.relay]` (`APP_ACCOUNTS__RELAY__…`): how often the outbox relay looks for
/// unpublished purchase events, and how many it claims per round.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RelaySettings {
    pub interval_ms: u64,
    pub batch: u32,
}

impl Default for RelaySettings {
    fn default() -> Self {
        Self {
            interval_ms: 500,
            batch: 100,
        }
    }
}

impl RelaySettings {
    pub fn interval(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.interval_ms)
    }
}

/// Section `[accounts.accrual]` (`APP_ACCOUNTS__ACCRUAL__…`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct AccrualSettings {
    /// TOML file of accrual rules read at start-up (a ConfigMap in Kubernetes, so rules change
    /// without a rebuild); empty means the rules built into `miclub-accrual`.
    pub rules_file: String,
    /// Days a purchase can be returned; its accrual stays pending until they have passed.
    pub return_window_days: u32,
    /// How often the background task confirms the accruals whose return window has closed.
    pub confirm_interval_secs: u64,
}

impl AccrualSettings {
    /// The accrual rules: the file's when one is configured (a start-up error when it cannot
    /// be read or is invalid, so bad rules never serve), the built-in ones otherwise.
    pub fn load_rules(&self) -> anyhow::Result<miclub_accrual::RuleSet> {
        if self.rules_file.is_empty() {
            return Ok(miclub_accrual::RuleSet::builtin());
        }
        let text = std::fs::read_to_string(&self.rules_file)
            .map_err(|err| anyhow::anyhow!("reading accrual rules {}: {err}", self.rules_file))?;
        miclub_accrual::RuleSet::from_toml(&text)
            .map_err(|err| anyhow::anyhow!("accrual rules {}: {err}", self.rules_file))
    }

    pub fn return_window(&self) -> std::time::Duration {
        std::time::Duration::from_secs(u64::from(self.return_window_days) * 24 * 60 * 60)
    }

    pub fn confirm_interval(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.confirm_interval_secs)
    }
}

impl Default for AccrualSettings {
    fn default() -> Self {
        Self {
            rules_file: String::new(),
            return_window_days: 14,
            confirm_interval_secs: 300,
        }
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
            auth: ClientSettings::for_url("http://127.0.0.1:50051"),
            seed_demo: false,
            accrual: AccrualSettings::default(),
            service_client: ServiceCredentials::default(),
            public_url: "http://localhost:8080".into(),
            email_confirmation_ttl_hours: 48,
            credentials_retry_interval_secs: 60,
            relay: RelaySettings::default(),
        }
    }
}

impl Settings {
    /// Serves gRPC and calls the other services with the process's internal TLS
    /// (section `[internal_tls]`).
    pub fn use_internal_tls(&mut self, tls: &InternalTls) {
        self.server.tls = tls.clone();
        self.auth.tls = tls.clone();
    }

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
        if self.accrual.confirm_interval_secs == 0 {
            anyhow::bail!("accounts.accrual.confirm_interval_secs must be at least 1");
        }
        if self.credentials_retry_interval_secs == 0 {
            anyhow::bail!("accounts.credentials_retry_interval_secs must be at least 1");
        }
        if self.relay.interval_ms == 0 || self.relay.batch == 0 {
            anyhow::bail!("accounts.relay.interval_ms and accounts.relay.batch must be at least 1");
        }
        if self.email_confirmation_ttl_hours == 0 {
            anyhow::bail!("accounts.email_confirmation_ttl_hours must be at least 1");
        }
        if !(self.public_url.starts_with("http://") || self.public_url.starts_with("https://")) {
            anyhow::bail!("accounts.public_url must be an http(s) url, e.g. https://miclub.cl");
        }
        if environment.is_production() {
            if !self.service_client.is_configured() {
                anyhow::bail!(
                    "production needs accounts' client credentials at auth \
                     (accounts.service_client.client_id and client_secret)"
                );
            }
            self.database.require_postgres("accounts")?;
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
        self.database.or_sqlite(Self::DEV_DATABASE_URL)
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
    fn accrual_settings_default_to_the_builtin_rules_a_fourteen_day_window_and_five_minutes() {
        let layered = Layered::from_toml(
            Environment::Development,
            "[accounts.accrual]\nrules_file = \"/etc/miclub/accrual.toml\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("accounts").unwrap();
        assert_eq!(settings.accrual.rules_file, "/etc/miclub/accrual.toml");
        assert_eq!(settings.accrual.return_window_days, 14);
        assert_eq!(settings.accrual.confirm_interval_secs, 300);
        assert!(Settings::default().accrual.rules_file.is_empty());
        let never = Settings {
            accrual: AccrualSettings {
                confirm_interval_secs: 0,
                ..AccrualSettings::default()
            },
            ..Settings::default()
        };
        assert!(never.validate(Environment::Development, false).is_err());
    }

    #[test]
    fn accrual_rules_come_from_the_configured_file_or_else_are_the_builtin_ones() {
        let builtin = AccrualSettings::default().load_rules().unwrap();
        assert_eq!(builtin, miclub_accrual::RuleSet::builtin());

        let dir = std::env::temp_dir().join(format!("accrual-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("rules.toml");
        std::fs::write(
            &file,
            "version = \"ops-1\"\n[base]\nrate_bp = 100\ndescription = \"1% en todo\"\n",
        )
        .unwrap();
        let from_file = AccrualSettings {
            rules_file: file.display().to_string(),
            ..AccrualSettings::default()
        };
        assert_eq!(from_file.load_rules().unwrap().version(), "ops-1");

        std::fs::write(&file, "version = \"broken\"\n").unwrap();
        assert!(from_file.load_rules().is_err());
        let missing = AccrualSettings {
            rules_file: dir.join("absent.toml").display().to_string(),
            ..AccrualSettings::default()
        };
        assert!(missing.load_rules().is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn production_refuses_sqlite_by_default_the_demo_seed_and_a_private_ephemeral_store() {
        let configured = Settings {
            database: DatabaseSettings {
                url: "postgres://db/accounts".into(),
                ..Default::default()
            },
            service_client: accounts_at_auth(),
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

    fn accounts_at_auth() -> ServiceCredentials {
        ServiceCredentials {
            client_id: "accounts".into(),
            client_secret: "s3cret-of-accounts".into(),
        }
    }

    #[test]
    fn confirmation_links_point_at_the_local_web_app_and_last_two_days_by_default() {
        let layered = Layered::from_toml(
            Environment::Development,
            "[accounts]\npublic_url = \"https://miclub.cl\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("accounts").unwrap();
        assert_eq!(settings.public_url, "https://miclub.cl");
        assert_eq!(settings.email_confirmation_ttl_hours, 48);
        assert_eq!(Settings::default().public_url, "http://localhost:8080");
        for broken in [
            Settings {
                email_confirmation_ttl_hours: 0,
                ..Settings::default()
            },
            Settings {
                public_url: "miclub.cl".into(),
                ..Settings::default()
            },
        ] {
            assert!(broken.validate(Environment::Development, false).is_err());
        }
    }

    #[test]
    fn production_refuses_to_start_without_the_client_credentials_of_accounts_at_auth() {
        let layered = Layered::from_toml(
            Environment::Production,
            "[accounts.database]\nurl = \"postgres://db/accounts\"\n\
             [accounts.service_client]\nclient_id = \"accounts\"\nclient_secret = \"s3cret\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("accounts").unwrap();
        assert!(settings.service_client.is_configured());
        settings.validate(Environment::Production, true).unwrap();
        let without = Settings {
            service_client: ServiceCredentials::default(),
            ..settings.clone()
        };
        let refused = without
            .validate(Environment::Production, true)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("service_client"), "{refused}");
        without.validate(Environment::Development, false).unwrap();
    }

    #[test]
    fn the_relay_runs_every_half_second_in_batches_of_100_unless_configured() {
        let defaults = Settings::default();
        assert_eq!(
            (defaults.relay.interval_ms, defaults.relay.batch),
            (500, 100)
        );
        let layered = Layered::from_toml(
            Environment::Development,
            "[accounts.relay]\ninterval_ms = 50\n",
        )
        .unwrap();
        let settings: Settings = layered.section("accounts").unwrap();
        assert_eq!(
            settings.relay.interval(),
            std::time::Duration::from_millis(50)
        );
        assert_eq!(settings.relay.batch, 100);
        let never = Settings {
            relay: RelaySettings {
                interval_ms: 0,
                ..RelaySettings::default()
            },
            ..Settings::default()
        };
        assert!(never.validate(Environment::Development, false).is_err());
    }
}
