//! Statements and transactions on PostgreSQL without sqlx's return ping (issue #20, step 1).
//!
//! sqlx's pool pings every connection it takes back (a Sync and its ReadyForQuery, from a task
//! it spawns) and has no switch for it: `bench/read.sh` measured that round trip doubling the
//! server's work per statement and quadrupling the client's. The ping is sqlx's guard against a
//! connection left half-way through a statement by a caller that stopped waiting. Here that
//! guard is kept without the round trip: a statement run straight on [`super::TracedPool`]
//! (`.fetch_*(db.pool())`, outside a transaction) takes a connection of this pool, marks it busy,
//! and marks it finished only once the statement's answer was read to the end. A connection
//! handed back busy (an error, or a future dropped mid-statement) is closed when next taken
//! instead of reused; a finished one goes back as it is. One idle for a while is pinged first,
//! as the main pool does (`ping_idle_after_ms`), so a server restart costs no member a request.
//!
//! Transactions run on this pool too ([`Statements::begin`]): one ping per transaction was a
//! round trip and a spawned task per purchase posted (`bench/postings.sh`). A transaction is
//! given back only once its `COMMIT` or `ROLLBACK` was answered; one dropped open is closed,
//! where sqlx would queue a `ROLLBACK` for the connection's next use. `acquire` keeps sqlx's
//! pool. SQLite (standalone and tests) keeps sqlx's pool too: its ping is a
//! message to a local thread, not a network round trip, and an in-memory database is one
//! connection's alone.

use std::time::Duration;

use deadpool::managed::{self, Metrics, Object, Pool, PoolError, RecycleError, RecycleResult};
use deadpool::{Runtime, managed::Timeouts};
use futures::future::BoxFuture;
use sqlx::AnyConnection;
use sqlx::any::AnyConnectOptions;
use sqlx::{ConnectOptions, Connection, Executor};

/// The pool of connections single statements run on.
#[derive(Clone)]
pub(super) struct Statements {
    pool: Pool<Manager>,
}

impl std::fmt::Debug for Statements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Statements")
            .field("status", &self.pool.status())
            .finish()
    }
}

/// A connection and whether its last statement was read to the end.
struct Held {
    connection: AnyConnection,
    finished: bool,
}

struct Manager {
    options: AnyConnectOptions,
    ping_idle_after: Duration,
}

impl managed::Manager for Manager {
    type Type = Held;
    type Error = sqlx::Error;

    async fn create(&self) -> Result<Held, sqlx::Error> {
        Ok(Held {
            connection: self.options.connect().await?,
            finished: true,
        })
    }

    async fn recycle(&self, held: &mut Held, metrics: &Metrics) -> RecycleResult<sqlx::Error> {
        if !held.finished {
            return Err(RecycleError::message(
                "its last statement did not finish: closed, not reused",
            ));
        }
        if metrics.last_used() >= self.ping_idle_after {
            held.connection.ping().await?;
        }
        Ok(())
    }
}

impl Statements {
    /// At most `max_connections` connections to `options`' server, opened when needed; a
    /// caller waits `acquire_timeout` at most for one, as with sqlx's pool.
    pub(super) fn new(
        options: AnyConnectOptions,
        max_connections: u32,
        acquire_timeout: Duration,
        ping_idle_after: Duration,
    ) -> anyhow::Result<Self> {
        let manager = Manager {
            options,
            ping_idle_after,
        };
        let pool = Pool::builder(manager)
            .max_size(max_connections.max(1) as usize)
            .timeouts(Timeouts {
                wait: Some(acquire_timeout),
                create: Some(acquire_timeout),
                recycle: Some(acquire_timeout),
            })
            .runtime(Runtime::Tokio1)
            .build()?;
        Ok(Self { pool })
    }

    /// Runs `statement` on a connection of the pool; the connection goes back reusable only
    /// when `statement` completed, whatever its result said.
    pub(super) async fn run<T>(
        &self,
        statement: impl for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, Result<T, sqlx::Error>>,
    ) -> Result<T, sqlx::Error> {
        let mut held: Object<Manager> = self.pool.get().await.map_err(pool_error)?;
        held.finished = false;
        let result = statement(&mut held.connection).await;
        // A database error (a constraint, a bad cast) is answered in full before
        // ReadyForQuery; any other error may have left the connection mid-protocol.
        held.finished = match &result {
            Ok(_) | Err(sqlx::Error::Database(_)) => true,
            Err(_) => false,
        };
        result
    }

    /// Opens a transaction on a connection of the pool, which it holds until
    /// [`Open::end`]: the same no-ping return as a statement, for every transaction.
    pub(super) async fn begin(&self) -> Result<Open, sqlx::Error> {
        let mut held: Object<Manager> = self.pool.get().await.map_err(pool_error)?;
        held.finished = false;
        let mut open = Open(Some(held));
        open.connection().execute("BEGIN").await?;
        Ok(open)
    }

    pub(super) fn close(&self) {
        self.pool.close();
    }
}

/// A connection with a transaction open on it. Ended by `COMMIT` or `ROLLBACK` answered in
/// full, it goes back to the pool as it is. Dropped before that (a caller's `?`, a future
/// nobody waits for any more) it leaves the pool and is closed at once: the server rolls the
/// transaction back when the socket closes, so no lock outlives the caller, and no half-read
/// answer meets the next one.
pub(super) struct Open(Option<Object<Manager>>);

impl Open {
    pub(super) fn connection(&mut self) -> &mut AnyConnection {
        &mut self.held().connection
    }

    pub(super) fn connection_ref(&self) -> &AnyConnection {
        &self
            .0
            .as_ref()
            .expect("an open transaction holds its connection")
            .connection
    }

    fn held(&mut self) -> &mut Object<Manager> {
        self.0
            .as_mut()
            .expect("an open transaction holds its connection")
    }

    /// Runs `end` (`COMMIT` or `ROLLBACK`) and gives the connection back.
    pub(super) async fn end(mut self, end: &'static str) -> Result<(), sqlx::Error> {
        let result = self.connection().execute(end).await;
        // A refused COMMIT (a deferred constraint, a serialisation failure) ends the
        // transaction too, and its answer was read in full.
        if matches!(result, Ok(_) | Err(sqlx::Error::Database(_))) {
            self.held().finished = true;
        }
        result.map(|_| ())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        if let Some(held) = self.0.take()
            && !held.finished
        {
            drop(Object::take(held));
        }
    }
}

/// The pool's refusals as sqlx's own pool words them, so callers' error mapping (timeouts and
/// closed pools are "unavailable") stays one.
fn pool_error(err: PoolError<sqlx::Error>) -> sqlx::Error {
    match err {
        PoolError::Backend(err) => err,
        PoolError::Timeout(_) => sqlx::Error::PoolTimedOut,
        PoolError::Closed => sqlx::Error::PoolClosed,
        other => sqlx::Error::Configuration(other.to_string().into()),
    }
}

#[cfg(test)]
mod tests {
    use sqlx::Row;

    use crate::storage::Database;
    use crate::testing::TestEnv;

    /// The PostgreSQL backend serving the statement: which connection it ran on.
    async fn backend(db: &Database) -> i32 {
        sqlx::query("SELECT pg_backend_pid() AS pid")
            .fetch_one(db.pool())
            .await
            .unwrap()
            .get("pid")
    }

    async fn one_connection(env: &TestEnv) -> Database {
        let settings = crate::storage::DatabaseSettings {
            max_connections: 1,
            ..env.database.clone()
        };
        Database::connect(&settings).await.unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_finished_statement_leaves_its_connection_for_the_next_and_a_database_error_too() {
        let env = TestEnv::postgres_redis().await;
        let db = one_connection(&env).await;
        let first = backend(&db).await;
        assert_eq!(backend(&db).await, first, "the connection is reused");
        let refused = sqlx::query("SELECT 1 / 0").fetch_all(db.pool()).await;
        assert!(matches!(refused, Err(sqlx::Error::Database(_))));
        assert_eq!(
            backend(&db).await,
            first,
            "an error the server answered in full leaves the connection usable"
        );
        let rows = sqlx::query("SELECT generate_series(1, 3) AS n")
            .fetch_all(db.pool())
            .await
            .unwrap();
        let numbers: Vec<i32> = rows.iter().map(|row| row.get("n")).collect();
        assert_eq!(numbers, [1, 2, 3]);
        db.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_statement_its_caller_stopped_waiting_for_never_serves_another() {
        let env = TestEnv::postgres_redis().await;
        let db = one_connection(&env).await;
        let first = backend(&db).await;
        let abandoned = tokio::time::timeout(
            std::time::Duration::from_millis(100),
            sqlx::query("SELECT pg_sleep(5)").execute(db.pool()),
        )
        .await;
        assert!(abandoned.is_err(), "the caller gave up mid-statement");
        // The next statement gets a fresh connection, not the one still waiting for its sleep.
        let next = backend(&db).await;
        assert_ne!(next, first);
        assert_eq!(backend(&db).await, next);
        db.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_ended_transaction_leaves_its_connection_for_the_next_and_keeps_only_what_it_committed()
     {
        let env = TestEnv::postgres_redis().await;
        let db = one_connection(&env).await;
        let first = backend(&db).await;
        sqlx::query("CREATE TABLE kept (n BIGINT)")
            .execute(db.pool())
            .await
            .unwrap();
        for (n, commit) in [(1_i64, true), (2, false)] {
            let mut tx = db.pool().begin().await.unwrap();
            sqlx::query("INSERT INTO kept (n) VALUES ($1)")
                .bind(n)
                .execute(&mut *tx)
                .await
                .unwrap();
            let in_tx: i32 = sqlx::query("SELECT pg_backend_pid() AS pid")
                .fetch_one(&mut *tx)
                .await
                .unwrap()
                .get("pid");
            assert_eq!(
                in_tx, first,
                "the transaction runs on the pool's connection"
            );
            if commit {
                tx.commit().await.unwrap();
            } else {
                tx.rollback().await.unwrap();
            }
            assert_eq!(backend(&db).await, first, "the connection is reused");
        }
        let kept: Vec<i64> = sqlx::query("SELECT n FROM kept")
            .fetch_all(db.pool())
            .await
            .unwrap()
            .iter()
            .map(|row| row.get("n"))
            .collect();
        assert_eq!(kept, [1]);
        db.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_transaction_dropped_open_is_closed_at_once_and_its_locks_go_with_it() {
        let env = TestEnv::postgres_redis().await;
        let db = one_connection(&env).await;
        let key = i64::from(rand::random::<u32>());
        let mut tx = db.pool().begin().await.unwrap();
        let abandoned: i32 = sqlx::query("SELECT pg_backend_pid() AS pid")
            .fetch_one(&mut *tx)
            .await
            .unwrap()
            .get("pid");
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(key)
            .execute(&mut *tx)
            .await
            .unwrap();
        drop(tx);
        // Another server connection sees the lock released once the backend saw the socket
        // close: no later request of this pool had to come along first.
        let other = one_connection(&env).await;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let free: bool = sqlx::query("SELECT pg_try_advisory_lock($1) AS free")
                .bind(key)
                .fetch_one(other.pool())
                .await
                .unwrap()
                .get("free");
            if free {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the dropped transaction still holds its lock"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let next = backend(&db).await;
        assert_ne!(
            next, abandoned,
            "the dropped transaction's connection served again"
        );
        other.close().await;
        db.close().await;
    }
}
