//! Content settings, section `[content]` (`APP_CONTENT__…`, e.g. `APP_CONTENT__DATABASE__URL`).
//!
//! Every field has a default, so the service starts with no configuration at all in
//! development: gRPC on port 50054, SQLite at `./data/content.db` when no database url is
//! given, auth (for the keys that verify the service tokens of internal calls) on
//! `127.0.0.1:50051`, the accrual rules built into `miclub-accrual`.
//! [`Settings::validate`] is where production refuses those conveniences.

use miclub_platform::config::Environment;
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::TokenSettings;
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
    /// Issuer and audience the service tokens of internal calls must carry.
    pub tokens: TokenSettings,
    /// Auth's gRPC endpoint, where the verification keys (JWKS) come from; the binary's
    /// dependency, unused by [`crate::Application`] itself.
    pub auth: ClientSettings,
    /// The simulator's accrual rules, section `[content.accrual]`: configure the same file as
    /// `[accounts.accrual]`, so the simulator answers what posting accrues.
    pub accrual: AccrualSettings,
    /// Folder holding the seed files (`promotions.toml`, `alliances.toml`, `banners.toml`,
    /// `faqs.toml`, `flags.toml`, as in `data/`); empty: the ones compiled in. Rows whose id the
    /// database lacks are added at start; existing rows are never rewritten.
    pub seed_dir: String,
}

/// Section `[content.accrual]` (`APP_CONTENT__ACCRUAL__RULES_FILE`), as accounts' own.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AccrualSettings {
    /// TOML file of accrual rules read at start-up (the ConfigMap accounts reads too); empty
    /// means the rules built into `miclub-accrual`.
    pub rules_file: String,
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
            accrual: AccrualSettings::default(),
            seed_dir: String::new(),
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
    pub const DEV_DATABASE_URL: &str = "sqlite://data/content.db";

    /// Checks what types alone cannot; production refuses development conveniences.
    pub fn validate(&self, environment: Environment) -> anyhow::Result<()> {
        if environment.is_production() {
            self.database.require_postgres("content")?;
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
    fn accrual_rules_come_from_the_configured_file_or_else_are_the_builtin_ones() {
        let layered = Layered::from_toml(
            Environment::Development,
            "[content.accrual]\nrules_file = \"/etc/miclub/accrual.toml\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("content").unwrap();
        assert_eq!(settings.accrual.rules_file, "/etc/miclub/accrual.toml");
        assert_eq!(settings.auth.url, "http://127.0.0.1:50051");

        let builtin = AccrualSettings::default().load_rules().unwrap();
        assert_eq!(builtin, miclub_accrual::RuleSet::builtin());

        let dir = std::env::temp_dir().join(format!("content-accrual-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("rules.toml");
        std::fs::write(
            &file,
            "version = \"ops-1\"\n[base]\nrate_bp = 100\ndescription = \"1% en todo\"\n",
        )
        .unwrap();
        let from_file = AccrualSettings {
            rules_file: file.display().to_string(),
        };
        assert_eq!(from_file.load_rules().unwrap().version(), "ops-1");
        std::fs::write(&file, "version = \"broken\"\n").unwrap();
        assert!(from_file.load_rules().is_err());
        let missing = AccrualSettings {
            rules_file: dir.join("absent.toml").display().to_string(),
        };
        assert!(missing.load_rules().is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn production_refuses_to_fall_back_to_sqlite() {
        let err = Settings::default()
            .validate(Environment::Production)
            .unwrap_err();
        assert!(err.to_string().contains("content.database.url"), "{err}");
    }
}
