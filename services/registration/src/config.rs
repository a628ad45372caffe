//! Registration settings, section `[registration]` (`APP_REGISTRATION__…`, e.g.
//! `APP_REGISTRATION__DATABASE__URL`).
//!
//! Every field has a default, so the service starts with no configuration at all in
//! development: gRPC on port 50055, SQLite at `./data/registration.db` when no database url is
//! given, auth, accounts and content on their default loopback ports, identity checked by rules
//! only. [`Settings::validate`] is where production refuses those conveniences.

use std::time::Duration;

use miclub_platform::config::Environment;
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::{ServiceCredentials, TokenSettings};
use serde::Deserialize;

/// Default gRPC port of registration.
pub const DEFAULT_PORT: u16 = 50055;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// gRPC listener; port 0 picks a free port.
    pub server: ServerSettings,
    /// Empty url: [`Settings::DEV_DATABASE_URL`] in development; production requires one.
    pub database: DatabaseSettings,
    /// How long a flow lives without an accepted step; each accepted step restarts it.
    pub flow_ttl_secs: u64,
    /// How often the background task deletes expired flows.
    pub cleanup_interval_secs: u64,
    /// Step 1 attempts allowed per client address within `start_window_secs`.
    pub start_attempts: i64,
    pub start_window_secs: u64,
    /// How long a completion whose email is another member's takes (it creates nothing) until
    /// this process has timed a real completion; after that it takes as long as a recent real
    /// one. Set it near a real completion's time on the deployment.
    pub completion_pace_ms: u64,
    /// Registration's own client credentials at auth (`[registration.service_client]`), for the
    /// service token accounts and auth require; production requires them.
    pub service_client: ServiceCredentials,
    /// Auth's gRPC endpoint: service tokens, password rules, credentials.
    pub auth: ClientSettings,
    /// Accounts' gRPC endpoint: identity and profile checks, the member itself.
    pub accounts: ClientSettings,
    /// Content's gRPC endpoint: the version of the terms in force.
    pub content: ClientSettings,
    /// `iss` and `aud` of the callers' tokens (the gateway's service token).
    pub tokens: TokenSettings,
    /// Which identity verifier checks documents after the rules, `[registration.verifier]`.
    pub verifier: VerifierSettings,
}

/// How documents are verified after the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifierKind {
    /// The rules only (development, standalone).
    Rules,
    /// The external `miclub.identity.v1.IdentityVerifier` at `endpoint`.
    Remote,
}

/// Section `[registration.verifier]` (`APP_REGISTRATION__VERIFIER__KIND=remote`, …).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct VerifierSettings {
    pub kind: VerifierKind,
    /// e.g. `http://identity-verifier:50051`; required when `kind = "remote"`.
    pub endpoint: String,
    /// Longest wait for a verdict; past it the member is told to try again later.
    pub timeout_ms: u64,
}

impl Default for VerifierSettings {
    fn default() -> Self {
        Self {
            kind: VerifierKind::Rules,
            endpoint: String::new(),
            timeout_ms: 3_000,
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
            flow_ttl_secs: 1_800,
            cleanup_interval_secs: 300,
            start_attempts: 20,
            start_window_secs: 15 * 60,
            completion_pace_ms: 250,
            tokens: TokenSettings::default(),
            service_client: ServiceCredentials::default(),
            auth: ClientSettings::for_url("http://127.0.0.1:50051"),
            accounts: ClientSettings::for_url("http://127.0.0.1:50052"),
            content: ClientSettings::for_url("http://127.0.0.1:50054"),
            verifier: VerifierSettings::default(),
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
        self.content.tls = tls.clone();
    }

    /// The database of a development run that configures none.
    pub const DEV_DATABASE_URL: &str = "sqlite://data/registration.db";

    /// Checks what types alone cannot; production refuses development conveniences.
    pub fn validate(&self, environment: Environment) -> anyhow::Result<()> {
        if self.flow_ttl_secs == 0 {
            anyhow::bail!("registration.flow_ttl_secs must be at least 1");
        }
        if self.cleanup_interval_secs == 0 {
            anyhow::bail!("registration.cleanup_interval_secs must be at least 1");
        }
        if self.start_attempts < 1 || self.start_window_secs == 0 {
            anyhow::bail!(
                "registration.start_attempts and registration.start_window_secs must be at least 1"
            );
        }
        if self.verifier.kind == VerifierKind::Remote && self.verifier.endpoint.is_empty() {
            anyhow::bail!("registration.verifier.endpoint is required when kind = \"remote\"");
        }
        if environment.is_production() {
            self.database.require_postgres("registration")?;
            if !self.service_client.is_configured() {
                anyhow::bail!(
                    "production needs registration's client credentials at auth \
                     (registration.service_client.client_id and client_secret)"
                );
            }
        }
        Ok(())
    }

    /// The database to use: the configured one, or [`Self::DEV_DATABASE_URL`].
    pub fn database_or_default(&self) -> DatabaseSettings {
        self.database.or_sqlite(Self::DEV_DATABASE_URL)
    }

    pub fn flow_ttl(&self) -> Duration {
        Duration::from_secs(self.flow_ttl_secs)
    }

    pub fn cleanup_interval(&self) -> Duration {
        Duration::from_secs(self.cleanup_interval_secs)
    }

    pub fn start_window(&self) -> Duration {
        Duration::from_secs(self.start_window_secs)
    }

    pub fn completion_pace(&self) -> Duration {
        Duration::from_millis(self.completion_pace_ms)
    }
}

#[cfg(test)]
mod tests {
    use miclub_platform::config::{Environment, Layered};

    use super::*;

    #[test]
    fn a_missing_section_gives_a_service_on_its_own_port_with_rules_only() {
        let layered = Layered::from_toml(Environment::Development, "").unwrap();
        let settings: Settings = layered.section("registration").unwrap();
        assert_eq!(settings.server.port, DEFAULT_PORT);
        assert_eq!(settings.flow_ttl_secs, 1_800);
        assert_eq!(settings.verifier.kind, VerifierKind::Rules);
        assert_eq!(settings.accounts.url, "http://127.0.0.1:50052");
        assert_eq!(settings.auth.url, "http://127.0.0.1:50051");
        assert_eq!(settings.content.url, "http://127.0.0.1:50054");
        assert_eq!(
            settings.database_or_default().url,
            Settings::DEV_DATABASE_URL
        );
        settings.validate(Environment::Development).unwrap();
    }

    #[test]
    fn a_remote_verifier_needs_an_endpoint() {
        let layered = Layered::from_toml(
            Environment::Development,
            "[registration.verifier]\nkind = \"remote\"\ntimeout_ms = 500\n",
        )
        .unwrap();
        let settings: Settings = layered.section("registration").unwrap();
        assert_eq!(settings.verifier.kind, VerifierKind::Remote);
        assert_eq!(settings.verifier.timeout_ms, 500);
        let refused = settings
            .validate(Environment::Development)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("verifier.endpoint"), "{refused}");
    }

    #[test]
    fn production_refuses_sqlite_and_missing_client_credentials() {
        let refused = Settings::default()
            .validate(Environment::Production)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("registration.database.url"), "{refused}");
        let layered = Layered::from_toml(
            Environment::Production,
            "[registration.database]\nurl = \"postgres://db/registration\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("registration").unwrap();
        let refused = settings
            .validate(Environment::Production)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("service_client"), "{refused}");
    }
}
