//! Relational storage: one pool type for PostgreSQL (production) and SQLite (standalone, tests).
//!
//! Services write portable SQL against [`sqlx::AnyPool`]: `$1` placeholders, `BIGINT` for
//! integers and instants (Unix milliseconds), `TEXT` for ids and ISO dates, and
//! `CAST(SUM(x) AS BIGINT)` for sums. Flags are `BOOLEAN` in PostgreSQL and `INTEGER` in SQLite
//! (the Any driver cannot decode SQLite's BOOLEAN); bind them as `bool` and read them with
//! [`flag`]. Each service keeps two migration folders
//! (`migrations/postgres`, `migrations/sqlite`) because DDL differs, and passes both to
//! [`Database::migrate`]; the queries themselves are shared.
//!
//! [`Database::pool`] is a [`TracedPool`]: every statement run on it directly gets a client span
//! (`db.system`, `db.operation`, `db.statement`) under the caller's span, so a trace shows its
//! storage calls when spans are exported ([`crate::telemetry::spans_recorded`]). Statements
//! inside a transaction run on the transaction's connection and are not traced one by one.
//! On PostgreSQL those statements, and every [`TracedPool::begin`] transaction, run on
//! connections handed back without sqlx's return ping ([`statements`]); `acquire` keeps sqlx's
//! pool.

mod statements;
mod transaction;

pub use transaction::Transaction;

use std::ops::Deref;
use std::path::Path;
use std::pin::Pin;
use std::str::FromStr;
use std::task::Poll;
use std::time::Duration;

use anyhow::Context;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt, TryStreamExt};
use serde::Deserialize;
use sqlx::any::{
    Any, AnyArguments, AnyConnectOptions, AnyPoolOptions, AnyQueryResult, AnyRow, AnyStatement,
    AnyTypeInfo,
};
use sqlx::error::BoxDynError;
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, Either, Execute, Executor, SqlStr};
use tracing::Instrument;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct DatabaseSettings {
    /// `postgres://…` or `sqlite://path/file.db`.
    pub url: String,
    pub max_connections: u32,
    pub acquire_timeout_ms: u64,
    /// A pooled connection idle at least this long is pinged before it is handed out; one used
    /// more recently is not (see [`Database::connect`]).
    pub ping_idle_after_ms: u64,
}

impl DatabaseSettings {
    /// What production requires of `<section>.database`: a PostgreSQL url (SQLite is the
    /// standalone and test stand-in). The error names the setting and, for a wrong kind, only
    /// the url's scheme: the url may carry a password.
    pub fn require_postgres(&self, section: &str) -> anyhow::Result<()> {
        let variable = format!("APP_{}__DATABASE__URL", section.to_uppercase());
        if self.url.is_empty() {
            anyhow::bail!("production needs a database ({section}.database.url, {variable})");
        }
        if !(self.url.starts_with("postgres://") || self.url.starts_with("postgresql://")) {
            let scheme = self.url.split_once(':').map_or("", |(scheme, _)| scheme);
            anyhow::bail!(
                "production runs on postgresql: {section}.database.url ({variable}) is a {scheme:?} url"
            );
        }
        Ok(())
    }
}

impl DatabaseSettings {
    /// The database a service uses: the configured one or, when no url is set, the SQLite file
    /// `dev_url` (standalone and development runs with no configuration at all). Production
    /// refuses the fallback before this is asked ([`Self::require_postgres`]).
    pub fn or_sqlite(&self, dev_url: &str) -> DatabaseSettings {
        if !self.url.is_empty() {
            return self.clone();
        }
        tracing::warn!(url = dev_url, "no database url configured: using sqlite");
        DatabaseSettings {
            url: dev_url.into(),
            ..self.clone()
        }
    }
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: String::new(),
            max_connections: 10,
            acquire_timeout_ms: 5_000,
            ping_idle_after_ms: 1_000,
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

/// The schema migrations of one service, embedded in its binary: one set per backend, because
/// DDL differs (`migrations/postgres`, `migrations/sqlite`).
#[derive(Debug, Clone, Copy)]
pub struct Migrations {
    pub postgres: &'static Migrator,
    pub sqlite: &'static Migrator,
}

impl Migrations {
    /// Connects to the database `settings` name and applies the migrations of its backend:
    /// how every service opens its store, and all the `--migrate-only` step does.
    pub async fn open(&self, settings: &DatabaseSettings) -> anyhow::Result<Database> {
        let database = Database::connect(settings).await?;
        database.migrate(self.postgres, self.sqlite).await?;
        Ok(database)
    }
}

/// A connection pool and the backend behind it.
#[derive(Debug, Clone)]
pub struct Database {
    pool: TracedPool,
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
        let ping_idle_after = Duration::from_millis(settings.ping_idle_after_ms);
        let statements = match backend {
            Backend::Postgres => Some(statements::Statements::new(
                options.clone(),
                settings.max_connections,
                Duration::from_millis(settings.acquire_timeout_ms),
                ping_idle_after,
            )?),
            Backend::Sqlite => None,
        };
        let pool = AnyPoolOptions::new()
            .max_connections(settings.max_connections)
            .acquire_timeout(Duration::from_millis(settings.acquire_timeout_ms))
            // sqlx pings every connection when it goes back to the pool, and by default again
            // when it is taken out: two extra round trips around every statement. A connection
            // returned a moment ago passed the first ping, so only one idle long enough to have
            // lost its server (a restart, a network cut) is pinged before use; one that breaks
            // in between fails its statement cleanly and is closed when it is returned.
            .test_before_acquire(false)
            .before_acquire(move |conn, meta| {
                Box::pin(async move {
                    if meta.idle_for >= ping_idle_after {
                        sqlx::Connection::ping(conn).await?;
                    }
                    Ok(true)
                })
            })
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
        let system = match backend {
            Backend::Postgres => "postgresql",
            Backend::Sqlite => "sqlite",
        };
        Ok(Self {
            pool: TracedPool {
                pool,
                statements,
                system,
            },
            backend,
        })
    }

    /// Applies the migrations of this backend. A database that a later release migrated
    /// further (this binary is a rollback) is run on as it is; see [`Self::later_releases`].
    pub async fn migrate(&self, postgres: &Migrator, sqlite: &Migrator) -> anyhow::Result<()> {
        let migrator = match self.backend {
            Backend::Postgres => postgres,
            Backend::Sqlite => sqlite,
        };
        let later = self.later_releases(migrator).await?;
        if later.is_empty() {
            return migrator
                .run(&self.pool.pool)
                .await
                .context("running database migrations");
        }
        tracing::warn!(
            later = ?later,
            "the database holds migrations of a later release: running on them (a rollback)"
        );
        let mut behind = Migrator::with_migrations(migrator.iter().cloned().collect());
        behind.set_ignore_missing(true);
        behind
            .run(&self.pool.pool)
            .await
            .context("running database migrations")
    }

    /// The migrations applied to the database that `migrator` does not have. sqlx refuses to
    /// start on those, which would make every `kubectl rollout undo` after a release with a
    /// migration a crash loop. When each is newer than `migrator`'s latest, a later release
    /// applied them, and by the release rule they only add (docs/operations.md, "Roll back"),
    /// so this release can run on them. One older than that means the history is not this
    /// release's (another service's database, a migration renumbered or deleted), and the start
    /// stops, as sqlx's would. Checked before sqlx runs: a failed run keeps PostgreSQL's
    /// migration lock on its pooled connection, and a second run would wait for it for ever.
    async fn later_releases(&self, migrator: &Migrator) -> anyhow::Result<Vec<i64>> {
        // A database never migrated has no table to read: nothing is applied.
        let Ok(applied) = sqlx::query_scalar::<_, i64>("SELECT version FROM _sqlx_migrations")
            .fetch_all(&self.pool.pool)
            .await
        else {
            return Ok(Vec::new());
        };
        let known: std::collections::HashSet<i64> = migrator.iter().map(|m| m.version).collect();
        let latest = known.iter().copied().max().unwrap_or(0);
        let later: Vec<i64> = applied
            .into_iter()
            .filter(|version| !known.contains(version))
            .collect();
        if let Some(foreign) = later.iter().find(|version| **version <= latest) {
            anyhow::bail!(
                "running database migrations: the database holds migration {foreign}, which this \
                 release does not have, before its own latest ({latest}): its history is not this \
                 service's"
            );
        }
        Ok(later)
    }

    /// The pool, tracing each statement; it derefs to the plain [`AnyPool`] (for `acquire`).
    pub fn pool(&self) -> &TracedPool {
        &self.pool
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A cheap round trip, for readiness.
    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT 1")
            .execute(&self.pool.pool)
            .await
            .map(|_| ())
    }

    pub async fn close(&self) {
        if let Some(statements) = &self.pool.statements {
            statements.close();
        }
        self.pool.close().await;
    }
}

/// A connection pool whose statements each run in a `db.query` span, on PostgreSQL on a
/// connection of [`statements`] (no return ping).
#[derive(Debug, Clone)]
pub struct TracedPool {
    pool: AnyPool,
    statements: Option<statements::Statements>,
    /// OpenTelemetry's `db.system`: `postgresql` or `sqlite`.
    system: &'static str,
}

impl Deref for TracedPool {
    type Target = AnyPool;

    fn deref(&self) -> &AnyPool {
        &self.pool
    }
}

impl TracedPool {
    /// Opens a transaction: on PostgreSQL on a connection handed back without a ping
    /// ([`statements`]), on SQLite on sqlx's pool. It shadows [`AnyPool::begin`].
    pub async fn begin(&self) -> Result<Transaction, sqlx::Error> {
        match &self.statements {
            Some(statements) => Ok(Transaction::held(statements.begin().await?)),
            None => Ok(Transaction::pooled(self.pool.begin().await?)),
        }
    }

    /// The span of one statement and the statement, taken apart so its text can be read.
    fn traced<'q, E: Execute<'q, Any>>(&self, mut query: E) -> (Owned, tracing::Span) {
        let persistent = query.persistent();
        let arguments = query.take_arguments();
        let owned = Owned {
            sql: query.sql(),
            arguments: Some(arguments),
            persistent,
        };
        if !crate::telemetry::spans_recorded() {
            return (owned, tracing::Span::none());
        }
        let sql = owned.sql.as_str();
        let operation = sql
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let span = tracing::info_span!(
            "db.query",
            otel.name = %operation,
            otel.kind = "client",
            db.system = self.system,
            db.operation = %operation,
            db.statement = %sql,
        );
        (owned, span)
    }
}

/// A statement with its arguments already taken out (to read its text for the span).
struct Owned {
    sql: SqlStr,
    arguments: Option<Result<Option<AnyArguments>, BoxDynError>>,
    persistent: bool,
}

impl<'q> Execute<'q, Any> for Owned {
    fn sql(self) -> SqlStr {
        self.sql
    }

    fn statement(&self) -> Option<&AnyStatement> {
        None
    }

    fn take_arguments(&mut self) -> Result<Option<AnyArguments>, BoxDynError> {
        self.arguments.take().unwrap_or(Ok(None))
    }

    fn persistent(&self) -> bool {
        self.persistent
    }
}

/// A stream polled inside a span.
struct InSpan<S> {
    inner: S,
    span: tracing::Span,
}

impl<S: Stream + Unpin> Stream for InSpan<S> {
    type Item = S::Item;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let _entered = this.span.enter();
        Pin::new(&mut this.inner).poll_next(cx)
    }
}

impl<'p> Executor<'p> for &'_ TracedPool {
    type Database = Any;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<AnyQueryResult, AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let (query, span) = self.traced(query);
        let inner = match &self.statements {
            // The answer is read to the end on the held connection, then streamed: statements
            // outside transactions here are single reads and writes of bounded size.
            Some(statements) => {
                let statements = statements.clone();
                let answer = async move {
                    statements
                        .run(move |connection| {
                            Box::pin(connection.fetch_many(query).try_collect::<Vec<_>>())
                        })
                        .await
                };
                futures::stream::once(answer)
                    .map_ok(|items| futures::stream::iter(items.into_iter().map(Ok)))
                    .try_flatten()
                    .boxed()
            }
            None => {
                let _entered = span.enter();
                Executor::fetch_many(&self.pool, query)
            }
        };
        Box::pin(InSpan { inner, span })
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let (query, span) = self.traced(query);
        match &self.statements {
            Some(statements) => {
                let statements = statements.clone();
                Box::pin(
                    async move {
                        statements
                            .run(move |connection| connection.fetch_optional(query))
                            .await
                    }
                    .instrument(span),
                )
            }
            None => Box::pin(Executor::fetch_optional(&self.pool, query).instrument(span)),
        }
    }

    fn prepare_with<'e>(
        self,
        sql: SqlStr,
        parameters: &'e [AnyTypeInfo],
    ) -> BoxFuture<'e, Result<AnyStatement, sqlx::Error>>
    where
        'p: 'e,
    {
        Executor::prepare_with(&self.pool, sql, parameters)
    }

    fn describe<'e>(self, sql: SqlStr) -> BoxFuture<'e, Result<sqlx::Describe<Any>, sqlx::Error>>
    where
        'p: 'e,
    {
        Executor::describe(&self.pool, sql)
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

#[cfg(test)]
pub(crate) mod tests {
    use opentelemetry::trace::{SpanKind, TraceContextExt};
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    use super::*;
    use crate::telemetry::tests::{Captured, test_subscriber};

    #[test]
    fn production_needs_a_postgres_url_and_never_echoes_one() {
        let with = |url: &str| DatabaseSettings {
            url: url.to_owned(),
            ..DatabaseSettings::default()
        };
        let missing = with("").require_postgres("auth").unwrap_err().to_string();
        assert!(missing.contains("auth.database.url"), "{missing}");
        assert!(missing.contains("APP_AUTH__DATABASE__URL"), "{missing}");
        let sqlite = with("sqlite://data/auth.db")
            .require_postgres("auth")
            .unwrap_err()
            .to_string();
        assert!(sqlite.contains("\"sqlite\""), "{sqlite}");
        assert!(!sqlite.contains("data/auth.db"), "{sqlite}");
        assert!(
            with("postgres://auth:s3cret@db/auth")
                .require_postgres("auth")
                .is_ok()
        );
        assert!(
            with("postgresql://db/auth")
                .require_postgres("auth")
                .is_ok()
        );
    }

    #[test]
    fn a_configured_database_is_kept_and_none_falls_back_to_the_sqlite_file_given() {
        let configured = DatabaseSettings {
            url: "postgres://db/shop".into(),
            max_connections: 3,
            ..DatabaseSettings::default()
        };
        assert_eq!(
            configured.or_sqlite("sqlite://data/shop.db").url,
            "postgres://db/shop"
        );
        let fallback = DatabaseSettings {
            max_connections: 3,
            ..DatabaseSettings::default()
        }
        .or_sqlite("sqlite://data/shop.db");
        assert_eq!(fallback.url, "sqlite://data/shop.db");
        assert_eq!(fallback.max_connections, 3, "the other settings are kept");
    }

    /// Migrations made of one statement, for a test (here and in `service`'s).
    pub(crate) fn one_migration(sql: &'static str) -> &'static Migrator {
        use sqlx::SqlSafeStr;
        use sqlx::migrate::{Migration, MigrationType};
        let migration = Migration::new(
            1,
            "shops".into(),
            MigrationType::Simple,
            sql.into_sql_str(),
            false,
        );
        Box::leak(Box::new(Migrator::with_migrations(vec![migration])))
    }

    #[tokio::test]
    async fn opening_applies_the_migrations_of_the_backend_the_url_names() {
        let migrations = Migrations {
            postgres: one_migration("CREATE TABLE postgres_only (id TEXT PRIMARY KEY)"),
            sqlite: one_migration("CREATE TABLE shops (id TEXT PRIMARY KEY)"),
        };
        let database = migrations
            .open(&DatabaseSettings {
                url: "sqlite::memory:".into(),
                max_connections: 1,
                ..DatabaseSettings::default()
            })
            .await
            .unwrap();
        assert_eq!(database.backend(), Backend::Sqlite);
        sqlx::query("INSERT INTO shops (id) VALUES ('s1')")
            .execute(database.pool())
            .await
            .unwrap();
        assert!(
            sqlx::query("SELECT id FROM postgres_only")
                .fetch_all(database.pool())
                .await
                .is_err()
        );
        database.close().await;
    }

    fn attribute(span: &opentelemetry_sdk::trace::SpanData, key: &str) -> String {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.as_str().into_owned())
            .unwrap_or_default()
    }

    #[tokio::test]
    async fn statements_on_the_pool_are_client_spans_under_the_callers_span() {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let db = Database::connect(&DatabaseSettings {
            url: "sqlite::memory:".into(),
            max_connections: 1,
            ..DatabaseSettings::default()
        })
        .await
        .unwrap();
        let guard =
            tracing::subscriber::set_default(test_subscriber(&provider, Captured::default()));
        let caller = tracing::info_span!("caller");
        async {
            let row = sqlx::query("SELECT 1 AS one").fetch_one(db.pool()).await;
            assert!(row.is_ok());
            let rows = sqlx::query("select 2 AS two").fetch_all(db.pool()).await;
            assert_eq!(rows.unwrap().len(), 1);
        }
        .instrument(caller.clone())
        .await;
        let caller_context = caller.context().span().span_context().clone();
        drop(caller);
        drop(guard);
        provider.force_flush().unwrap();
        let spans = exporter.get_finished_spans().unwrap();
        let queries: Vec<_> = spans.iter().filter(|s| s.name == "SELECT").collect();
        assert_eq!(queries.len(), 2, "{spans:?}");
        for query in queries {
            assert_eq!(query.span_kind, SpanKind::Client);
            assert_eq!(attribute(query, "db.system"), "sqlite");
            assert_eq!(attribute(query, "db.operation"), "SELECT");
            assert_eq!(query.span_context.trace_id(), caller_context.trace_id());
            assert_eq!(query.parent_span_id, caller_context.span_id());
        }
    }
}
