//! Schema parity: the PostgreSQL and SQLite migrations of auth build the same tables, columns,
//! keys and indexes (`miclub_platform::testing::assert_same_schema`, which lists the accepted
//! differences), so the two backends cannot drift apart unnoticed.

use miclub_auth::store::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
use miclub_platform::testing::assert_same_schema;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgresql_and_sqlite_migrations_build_the_same_schema() {
    assert_same_schema(&POSTGRES_MIGRATIONS, &SQLITE_MIGRATIONS).await;
}
