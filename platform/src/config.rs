//! Layered configuration shared by every binary.
//!
//! Sources, later ones winning: `<dir>/base.toml`, `<dir>/<environment>.toml` (both optional,
//! `<dir>` from `APP_CONFIG_DIR`, default `config`), then environment variables
//! `APP_<SECTION>__<KEY>` (e.g. `APP_AUTH__DATABASE__URL`). Each binary reads the sections it
//! needs with [`Layered::section`]; every field has a default, so a missing file is fine and
//! standalone runs with no configuration at all. Secrets are `secrecy::SecretString` and never
//! reach a log line.

use std::path::PathBuf;

use anyhow::Context;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Reads a list setting given as a TOML array or, from an environment variable, as one
/// comma-separated string (`APP_GATEWAY__TRUSTED_PROXIES=10.0.0.0/8,192.168.0.1`). For
/// `#[serde(deserialize_with = "miclub_platform::config::list_or_csv")]`.
pub fn list_or_csv<'de, D>(deserializer: D) -> Result<Vec<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum ListOrCsv {
        List(Vec<String>),
        Csv(String),
    }
    Ok(match ListOrCsv::deserialize(deserializer)? {
        ListOrCsv::List(list) => list,
        ListOrCsv::Csv(csv) => csv
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

/// Which configuration a process runs with. Production refuses development-only conveniences
/// (dev mailbox, pass-through reCAPTCHA, generated signing keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    #[default]
    Development,
    Production,
}

impl Environment {
    pub fn is_production(self) -> bool {
        self == Environment::Production
    }

    /// Reads `APP_ENVIRONMENT`; absent means development.
    pub fn from_env() -> anyhow::Result<Self> {
        match std::env::var("APP_ENVIRONMENT") {
            Err(_) => Ok(Environment::Development),
            Ok(value) => match value.trim().to_lowercase().as_str() {
                "development" | "dev" | "local" => Ok(Environment::Development),
                "production" | "prod" => Ok(Environment::Production),
                other => anyhow::bail!(
                    "unknown APP_ENVIRONMENT {other:?}: use development or production"
                ),
            },
        }
    }
}

/// What a service binary was asked to do by its arguments: serve (none), or a one-shot step
/// that runs and exits. The steps are explicit commands, so production, which refuses
/// `seed_demo` at start, can still be given demo data on purpose (`scripts/run --distributed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Serve,
    /// `--migrate-only`: apply the database migrations and exit (the Kubernetes Job).
    MigrateOnly,
    /// `--seed-demo`: migrate, store the demo data of `platform::demo` that is missing, exit.
    SeedDemo,
}

impl Mode {
    /// The mode the process's arguments ask for; an unknown argument is an error that names it.
    pub fn from_args() -> anyhow::Result<Self> {
        Self::parse(std::env::args().skip(1))
    }

    pub fn parse(args: impl IntoIterator<Item = String>) -> anyhow::Result<Self> {
        let mut mode = Mode::Serve;
        for arg in args {
            mode = match (mode, arg.as_str()) {
                (Mode::Serve, "--migrate-only") => Mode::MigrateOnly,
                (Mode::Serve, "--seed-demo") => Mode::SeedDemo,
                (_, "--migrate-only" | "--seed-demo") => {
                    anyhow::bail!("--migrate-only and --seed-demo are exclusive")
                }
                (_, other) => anyhow::bail!(
                    "unknown argument {other:?}: use --migrate-only, --seed-demo or nothing"
                ),
            };
        }
        Ok(mode)
    }
}

/// The `APP_<SECTION>__<KEY>` environment variables.
fn app_overrides() -> config::Environment {
    config::Environment::with_prefix("APP")
        .prefix_separator("_")
        .separator("__")
        .try_parsing(true)
}

/// The merged configuration sources of one process.
#[derive(Debug)]
pub struct Layered {
    environment: Environment,
    inner: config::Config,
}

impl Layered {
    /// Loads files for the current environment and the `APP_*` overrides.
    pub fn load() -> anyhow::Result<Self> {
        let environment = Environment::from_env()?;
        let dir =
            PathBuf::from(std::env::var("APP_CONFIG_DIR").unwrap_or_else(|_| "config".into()));
        let env_file = match environment {
            Environment::Development => "development",
            Environment::Production => "production",
        };
        let inner = config::Config::builder()
            .add_source(config::File::from(dir.join("base.toml")).required(false))
            .add_source(config::File::from(dir.join(format!("{env_file}.toml"))).required(false))
            .add_source(app_overrides())
            .build()
            .context("reading configuration")?;
        Ok(Self { environment, inner })
    }

    /// An in-memory TOML document under the `APP_*` overrides, for tools such as the benchmarks
    /// that build their own configuration yet let an operator try any setting as in production.
    pub fn from_toml_with_overrides(environment: Environment, toml: &str) -> anyhow::Result<Self> {
        let inner = config::Config::builder()
            .add_source(config::File::from_str(toml, config::FileFormat::Toml))
            .add_source(app_overrides())
            .build()
            .context("reading configuration")?;
        Ok(Self { environment, inner })
    }

    /// Configuration from an in-memory TOML document, for tests.
    pub fn from_toml(environment: Environment, toml: &str) -> anyhow::Result<Self> {
        let inner = config::Config::builder()
            .add_source(config::File::from_str(toml, config::FileFormat::Toml))
            .build()?;
        Ok(Self { environment, inner })
    }

    pub fn environment(&self) -> Environment {
        self.environment
    }

    /// True when any source sets `key` (dotted, e.g. `gateway.host`).
    pub fn contains(&self, key: &str) -> bool {
        self.inner.get::<config::Value>(key).is_ok()
    }

    /// One section, e.g. `auth`, with the type's defaults for whatever is not given.
    pub fn section<T: DeserializeOwned + Default>(&self, name: &str) -> anyhow::Result<T> {
        match self.inner.get::<T>(name) {
            Ok(value) => Ok(value),
            Err(config::ConfigError::NotFound(_)) => Ok(T::default()),
            Err(err) => Err(err).with_context(|| format!("invalid configuration section [{name}]")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Mode;

    fn parse(args: &[&str]) -> anyhow::Result<Mode> {
        Mode::parse(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn the_mode_comes_from_one_known_argument() {
        assert_eq!(parse(&[]).unwrap(), Mode::Serve);
        assert_eq!(parse(&["--migrate-only"]).unwrap(), Mode::MigrateOnly);
        assert_eq!(parse(&["--seed-demo"]).unwrap(), Mode::SeedDemo);
        assert!(parse(&["--migrate-only", "--seed-demo"]).is_err());
        assert!(
            parse(&["--seed"])
                .unwrap_err()
                .to_string()
                .contains("--seed")
        );
    }
}
