//! Storage of content (sqlx, portable SQL on PostgreSQL and SQLite; see `platform::storage`).
//!
//! Terms versions are only ever inserted, with `ON CONFLICT DO NOTHING`, so concurrent starts of
//! several replicas publish a shipped version exactly once and never overwrite a stored one.

use miclub_platform::storage::{Database, DatabaseSettings};
use sqlx::Row;
use sqlx::any::AnyRow;
use sqlx::migrate::Migrator;

use crate::domain::{Terms, TermsVersion};
use crate::error::{ContentError, Result};

/// Schema migrations, embedded in the binary.
pub static POSTGRES_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/postgres");
pub static SQLITE_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/sqlite");

#[derive(Debug, Clone)]
pub struct Store {
    db: Database,
}

impl Store {
    pub fn new(db: Database) -> Self {
        Self { db }
    }

    /// Connects and applies the migrations of the backend the URL names.
    pub async fn connect(settings: &DatabaseSettings) -> anyhow::Result<Self> {
        let db = Database::connect(settings).await?;
        db.migrate(&POSTGRES_MIGRATIONS, &SQLITE_MIGRATIONS).await?;
        Ok(Self::new(db))
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Stores `terms` unless its version exists; true when this call stored it. `at` is the
    /// creation instant recorded.
    pub async fn insert_terms_if_missing(&self, terms: &Terms, at: i64) -> Result<bool> {
        let done = sqlx::query(
            "INSERT INTO terms_versions (version, title, body, published_at, created_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (version) DO NOTHING",
        )
        .bind(terms.version.as_str())
        .bind(terms.title.as_str())
        .bind(terms.body.as_str())
        .bind(terms.published_at)
        .bind(at)
        .execute(self.db.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The newest version published at or before `now`; between equal instants, the greatest
    /// label, so the answer never depends on row order.
    pub async fn current_terms(&self, now: i64) -> Result<Option<Terms>> {
        let row = sqlx::query(
            "SELECT version, title, body, published_at FROM terms_versions \
             WHERE published_at <= $1 ORDER BY published_at DESC, version DESC LIMIT 1",
        )
        .bind(now)
        .fetch_optional(self.db.pool())
        .await?;
        row.as_ref().map(terms_from_row).transpose()
    }

    pub async fn find_terms(&self, version: &TermsVersion) -> Result<Option<Terms>> {
        let row = sqlx::query(
            "SELECT version, title, body, published_at FROM terms_versions WHERE version = $1",
        )
        .bind(version.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.as_ref().map(terms_from_row).transpose()
    }

    /// How many versions are stored, published or not.
    pub async fn count_terms(&self) -> Result<i64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM terms_versions")
            .fetch_one(self.db.pool())
            .await?;
        Ok(row.try_get("n")?)
    }
}

fn terms_from_row(row: &AnyRow) -> Result<Terms> {
    let version: String = row.try_get("version")?;
    let title: String = row.try_get("title")?;
    let body: String = row.try_get("body")?;
    let published_at: i64 = row.try_get("published_at")?;
    TermsVersion::parse(&version)
        .and_then(|parsed| Terms::new(parsed, &title, &body, published_at))
        .map_err(|err| ContentError::CorruptRecord(format!("terms version {version:?}: {err}")))
}
