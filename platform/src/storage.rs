//! Relational storage: one pool type for PostgreSQL (production) and SQLite (standalone, tests).
//!
//! Services write portable SQL against [`sqlx::AnyPool`]: `$1` placeholders, `BIGINT` for
//! integers and instants (Unix milliseconds), `TEXT` for ids and ISO dates, and
//! `CAST(SUM(x) AS BIGINT)` for sums. Flags are `BOOLEAN` in PostgreSQL and `INTEGER` in SQLite
//! (the Any driver cannot decode SQLite's BOOLEAN); bind them as `bool` and read them with
//! [`flag`]. Each service keeps two migration folders
//! (`migrations/postgres`, `migrations/sqlite`) because DDL differs, and passes both to
//! [`Database::migrate`]; the queries themselves are shared.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use serde::Deserialize;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, Executor};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct DatabaseSettings {
    /// `postgres://…` or `sqlite://path/file.db`.
    pub url: String,
    pub max_connections: u32,
    pub acquire_timeout_ms: u64,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: String::new(),
            max_connections: 10,
            acquire_timeout_ms: 5_000,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

impl Backend {
    pub fn of_url(url: &str) -> anyhow::Result<Self> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else {
            anyhow::bail!("unsupported database url scheme (use postgres:// or sqlite://)")
        }
    }
}

/// A connection pool and the backend behind it.
#[derive(Debug, Clone)]
pub struct Database {
    pool: AnyPool,
    backend: Backend,
}

impl Database {
    pub async fn connect(settings: &DatabaseSettings) -> anyhow::Result<Self> {
        sqlx::any::install_default_drivers();
        let backend = Backend::of_url(&settings.url)?;
        let mut url = settings.url.clone();
        if backend == Backend::Sqlite {
            url = prepare_sqlite_url(&url)?;
        }
        let options = AnyConnectOptions::from_str(&url).context("parsing database url")?;
        let pool = AnyPoolOptions::new()
            .max_connections(settings.max_connections)
            .acquire_timeout(Duration::from_millis(settings.acquire_timeout_ms))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // WAL lets readers run beside the single writer; busy_timeout makes a
                        // writer wait for the lock instead of failing at once.
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        conn.execute("PRAGMA busy_timeout = 10000").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                        conn.execute("PRAGMA synchronous = NORMAL").await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .with_context(|| format!("connecting to the {backend:?} database"))?;
        Ok(Self { pool, backend })
    }

    /// Applies the migrations of this backend.
    pub async fn migrate(&self, postgres: &Migrator, sqlite: &Migrator) -> anyhow::Result<()> {
        let migrator = match self.backend {
            Backend::Postgres => postgres,
            Backend::Sqlite => sqlite,
        };
        migrator
            .run(&self.pool)
            .await
            .context("running database migrations")?;
        Ok(())
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A cheap round trip, for readiness.
    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map(|_| ())
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Creates the folder of a SQLite file and asks SQLite to create the file when absent.
fn prepare_sqlite_url(url: &str) -> anyhow::Result<String> {
    let rest = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let path = rest.split('?').next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" {
        return Ok(url.to_owned());
    }
    if let Some(parent) = Path::new(path).parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating the folder of {path}"))?;
    }
    if url.contains("mode=") {
        Ok(url.to_owned())
    } else if url.contains('?') {
        Ok(format!("{url}&mode=rwc"))
    } else {
        Ok(format!("{url}?mode=rwc"))
    }
}

/// Milliseconds since the Unix epoch, the portable instant stored in `BIGINT` columns.
pub fn now_millis() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// RFC 3339 text of a stored instant.
pub fn millis_to_rfc3339(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// Reads a flag column on either backend (PostgreSQL BOOLEAN, SQLite INTEGER 0/1).
pub fn flag(row: &sqlx::any::AnyRow, column: &str) -> Result<bool, sqlx::Error> {
    use sqlx::Row;
    match row.try_get::<bool, _>(column) {
        Ok(value) => Ok(value),
        Err(_) => row.try_get::<i64, _>(column).map(|value| value != 0),
    }
}

/// True for errors a caller may retry or report as "unavailable" rather than a bug.
pub fn is_unavailable(err: &sqlx::Error) -> bool {
    matches!(
        err,
        sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
    )
}

/// True when a statement failed on a unique constraint.
pub fn is_unique_violation(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Database(db) => {
            db.is_unique_violation()
                || db.code().as_deref() == Some("23505")
                || db.message().contains("UNIQUE constraint failed")
        }
        _ => false,
    }
}
