//! Schema parity: the PostgreSQL and SQLite migration sets of a service must build the same
//! schema, so the two backends cannot silently diverge.
//!
//! [`assert_same_schema`] applies both sets of a service to fresh databases (through
//! [`Database::migrate`], as the service does), reads each schema into one neutral [`Schema`]
//! and panics with a per-table list of the differences. Compared: tables, columns (type family,
//! nullability), the primary key, unique constraints, foreign keys (columns, referenced table
//! and columns, `ON DELETE` and `ON UPDATE`) and the indexes created with `CREATE INDEX`
//! (by name: key columns or expressions, uniqueness, partial predicate). `_sqlx_migrations` and
//! SQLite's own `sqlite_*` tables are left out.
//!
//! Not compared: column order, defaults, `CHECK` constraints, whether a foreign key is
//! deferrable (SQLite's pragmas do not report it), and the sort order of index keys.
//!
//! # Type families
//!
//! A declared type (PostgreSQL's `format_type`, SQLite's declared type as `table_info` keeps
//! it, with any `(n)` length dropped) falls into one family ([`TypeFamily::of`]):
//!
//! | family      | names                                                                     |
//! |-------------|---------------------------------------------------------------------------|
//! | `integer`   | `smallint`, `integer`, `int`, `bigint`, `int2`, `int4`, `int8`, `tinyint`, `mediumint` |
//! | `text`      | `text`, `varchar`, `character varying`, `char`, `character`, `bpchar`, `clob`, `citext`, `name` |
//! | `boolean`   | `boolean`, `bool`                                                         |
//! | `timestamp` | `timestamp`, `timestamptz`, `timestamp with[out] time zone`, `datetime`   |
//! | `date`      | `date`                                                                    |
//! | `bytes`     | `bytea`, `blob`                                                           |
//! | `float`     | `real`, `double precision`, `double`, `float`, `float4`, `float8`         |
//! | `numeric`   | `numeric`, `decimal`                                                      |
//! | `json`      | `json`, `jsonb`                                                           |
//! | `uuid`      | `uuid`                                                                    |
//!
//! Any other name is its own family (compared by name). Integer widths are one family: SQLite
//! stores every integer in up to 8 bytes whatever its declared name, and the services read all
//! of them as `i64`. `float` (inexact) and `numeric` (exact decimal in PostgreSQL) stay apart:
//! mixing them would change what a stored amount is.
//!
//! # Accepted equivalences
//!
//! Only two, both in [`compare`], one-way (PostgreSQL side → SQLite side), and nowhere else:
//!
//! * a PostgreSQL `boolean` column may be a SQLite `integer` one: the Any driver cannot decode
//!   SQLite's `BOOLEAN`, so flags are `INTEGER` 0/1 there (see [`crate::storage`]);
//! * a primary-key column is `NOT NULL` in PostgreSQL (the key implies it) while SQLite reports
//!   it nullable unless declared so (a compatibility quirk of SQLite for keys that are not an
//!   `INTEGER PRIMARY KEY`); making it `NOT NULL` afterwards would mean rebuilding the table.
//!
//! # Names and expressions
//!
//! SQLite identifiers are case-insensitive and PostgreSQL folds unquoted ones to lower case, so
//! SQLite's table, column and index names are lowercased. Index keys and predicates are compared
//! as token lists ([`normalise_expression`], [`normalise_predicate`]): keywords lowercased, quotes
//! around identifiers and PostgreSQL's `::type` casts dropped; in a predicate every parenthesis
//! is dropped too, since PostgreSQL prints its own. PostgreSQL also rewrites `x IN ('a', 'b')`
//! as `x = ANY (ARRAY[...])`: a partial index on such a predicate should be written the way
//! PostgreSQL prints it in both sets.
//!
//! # Layout
//!
//! This file holds the entry points ([`assert_same_schema`], [`compare_migrations`]); the rest
//! is one responsibility a file, each using only those listed before it:
//!
//! * `model`: the neutral [`Schema`] both readers build;
//! * `sql_text`: index keys and predicates as comparable text;
//! * `postgres` and `sqlite`: the readers of each backend's catalog ([`read_postgres`],
//!   [`read_sqlite`]);
//! * `comparison`: [`compare`] and its [`SchemaDiff`], where the two equivalences live.

mod comparison;
mod model;
mod postgres;
mod sql_text;
mod sqlite;
#[cfg(test)]
mod tests;

use sqlx::Connection;
use sqlx::migrate::Migrator;
use sqlx::postgres::PgConnection;
use sqlx::sqlite::SqliteConnection;

use crate::storage::{Database, DatabaseSettings};

pub use comparison::{SchemaDiff, compare};
pub use model::{Column, ForeignKey, Index, Schema, Table, TypeFamily};
pub use postgres::read_postgres;
pub use sql_text::{normalise_expression, normalise_predicate};
pub use sqlite::read_sqlite;

/// Applies `postgres` to a fresh PostgreSQL database (on [`super::servers`]) and `sqlite` to a
/// fresh SQLite file, and panics with the differences between the schemas they build. Both
/// databases are removed afterwards.
pub async fn assert_same_schema(postgres: &Migrator, sqlite: &Migrator) {
    let diff = compare_migrations(postgres, sqlite).await;
    assert!(diff.is_empty(), "{diff}");
}

/// Applies both migration sets to fresh databases and compares what they build (what
/// [`assert_same_schema`] checks), removing the databases before it returns.
pub async fn compare_migrations(postgres: &Migrator, sqlite: &Migrator) -> SchemaDiff {
    let (postgres_url, _postgres_cleanup) = super::fresh_postgres_database().await;
    let (dir, _dir_cleanup) = super::fresh_sqlite_dir();
    let sqlite_url = format!("sqlite://{}", dir.join("schema.db").display());

    migrate(&postgres_url, postgres, sqlite).await;
    let mut conn = PgConnection::connect(&postgres_url)
        .await
        .expect("connect to the migrated postgresql database");
    let postgres_schema = read_postgres(&mut conn)
        .await
        .expect("read the postgresql schema");
    conn.close().await.ok();

    migrate(&sqlite_url, postgres, sqlite).await;
    let mut conn = SqliteConnection::connect(&sqlite_url)
        .await
        .expect("open the migrated sqlite database");
    let sqlite_schema = read_sqlite(&mut conn)
        .await
        .expect("read the sqlite schema");
    conn.close().await.ok();

    compare(&postgres_schema, &sqlite_schema)
}

/// Migrates the database at `url` the way a service does.
async fn migrate(url: &str, postgres: &Migrator, sqlite: &Migrator) {
    let database = Database::connect(&DatabaseSettings {
        url: url.to_owned(),
        max_connections: 1,
        ..DatabaseSettings::default()
    })
    .await
    .unwrap_or_else(|e| panic!("connect to {url}: {e:#}"));
    database
        .migrate(postgres, sqlite)
        .await
        .unwrap_or_else(|e| panic!("migrate {:?}: {e:#}", database.backend()));
    database.close().await;
}
