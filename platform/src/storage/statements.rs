//! Statements and transactions on PostgreSQL without sqlx's return ping (issue #20, step 1).
//!
//! sqlx's pool pings every connection it takes back (a Sync and its ReadyForQuery, from a task
//! it spawns) and has no switch for it: `bench/read.sh` measured that round trip doubling the
//! server's work per statement and quadrupling the client's. The ping is sqlx's guard against a
//! connection left half-way through a statement by a caller that stopped waiting. Here that
//! guard is kept without the round trip: a statement run straight on [`super::TracedPool`]
//! (`.fetch_*(db.pool())`, outside a transaction) takes a connection of this pool, marks it busy,
//! and marks it finished only once the statement's answer was read to the end; a finished one
//! goes back as it is. One whose statement failed outside the database (a transport error) is
//! closed. One whose caller stopped waiting is settled by a task of its own before it serves
//! again (its answer read to the end, by a ping), rather than closed: see [`Lent`]. One idle for a
//! while is pinged first, as the main pool does (`ping_idle_after_ms`), so a server restart costs
//! no member a request.
//!
//! Transactions run on this pool too ([`Statements::begin`]): one ping per transaction was a
//! round trip and a spawned task per purchase posted (`bench/postings.sh`). A transaction is
//! given back once its `COMMIT` or `ROLLBACK` was answered; one dropped open is rolled back by
//! the same kind of task, at once, where sqlx would queue the `ROLLBACK` for the connection's
//! next use and leave its locks held until then. `acquire` keeps sqlx's
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
        let mut lent = Lent::new(self.pool.get().await.map_err(pool_error)?, Settle::Drain);
        let result = statement(lent.connection()).await;
        lent.answered(&result);
        result
    }

    /// Opens a transaction on a connection of the pool, which it holds until
    /// [`Open::end`]: the same no-ping return as a statement, for every transaction.
    pub(super) async fn begin(&self) -> Result<Open, sqlx::Error> {
        let held = self.pool.get().await.map_err(pool_error)?;
        let mut open = Open(Lent::new(held, Settle::RollBack));
        open.connection().execute("BEGIN").await?;
        Ok(open)
    }

    pub(super) fn close(&self) {
        self.pool.close();
    }
}

/// A connection with a transaction open on it. Ended by `COMMIT` or `ROLLBACK` answered in
/// full, it goes back to the pool as it is; dropped before that (a caller's `?`, a future
/// nobody waits for any more), it is rolled back off the request path ([`Lent`]).
pub(super) struct Open(Lent);

impl Open {
    pub(super) fn connection(&mut self) -> &mut AnyConnection {
        self.0.connection()
    }

    pub(super) fn connection_ref(&self) -> &AnyConnection {
        &self.0.held().connection
    }

    /// Runs `end` (`COMMIT` or `ROLLBACK`) and gives the connection back.
    pub(super) async fn end(mut self, end: &'static str) -> Result<(), sqlx::Error> {
        let result = self.connection().execute(end).await;
        // A refused COMMIT (a deferred constraint, a serialisation failure) ends the
        // transaction too.
        self.0.answered(&result);
        result.map(|_| ())
    }
}

/// How long a connection whose caller stopped waiting may take to settle before it is closed.
const SETTLE_WITHIN: Duration = Duration::from_secs(10);

/// What settles a connection its caller stopped waiting on.
#[derive(Debug, Clone, Copy)]
enum Settle {
    /// Read the rest of the statement's answer (a ping: sqlx reads up to every pending
    /// ReadyForQuery first).
    Drain,
    /// The same, then roll the open transaction back.
    RollBack,
}

/// A connection lent to one statement or one transaction. Its caller marks it finished (back
/// to the pool as it is) or broken (closed now). Dropped unmarked, because the caller stopped
/// waiting (a member who hung up, a timeout), it is settled by a task of its own: its answer
/// read to the end, its transaction rolled back, then given back to the pool, or closed if
/// that fails or takes over [`SETTLE_WITHIN`]. Closing it at once instead would be simpler, but
/// a new PostgreSQL connection costs the machine about 6.5 ms of CPU against 44 µs for a
/// statement (`pgbench -S -M prepared` with and without `-C`, one sitting), and anyone can hang
/// up mid-request: a stream of hang-ups would have been a stream of reconnections.
struct Lent {
    held: Option<Object<Manager>>,
    settle: Settle,
}

impl Lent {
    fn new(mut held: Object<Manager>, settle: Settle) -> Self {
        held.finished = false;
        Self {
            held: Some(held),
            settle,
        }
    }

    fn held(&self) -> &Object<Manager> {
        self.held
            .as_ref()
            .expect("a lent connection is held until dropped")
    }

    fn connection(&mut self) -> &mut AnyConnection {
        &mut self
            .held
            .as_mut()
            .expect("a lent connection is held until dropped")
            .connection
    }

    /// Marks the connection by how its statement ended: finished when the answer was read in
    /// full, which a database error (a constraint, a bad cast) is too, before ReadyForQuery;
    /// closed now after any other error, which may have left it mid-protocol.
    fn answered<T>(&mut self, result: &Result<T, sqlx::Error>) {
        match result {
            Ok(_) | Err(sqlx::Error::Database(_)) => {
                if let Some(held) = self.held.as_mut() {
                    held.finished = true;
                }
            }
            Err(_) => {
                if let Some(held) = self.held.take() {
                    drop(Object::take(held));
                }
            }
        }
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        let Some(held) = self.held.take() else {
            return;
        };
        if held.finished {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(settle(held, self.settle));
            }
            Err(_) => drop(Object::take(held)),
        }
    }
}

/// Settles a connection whose caller stopped waiting (see [`Lent`]).
async fn settle(mut held: Object<Manager>, how: Settle) {
    let settled = tokio::time::timeout(SETTLE_WITHIN, async {
        match how {
            Settle::Drain => held.connection.ping().await,
            Settle::RollBack => held.connection.execute("ROLLBACK").await.map(|_| ()),
        }
    })
    .await;
    match settled {
        Ok(Ok(())) => held.finished = true,
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "a connection left mid-statement could not be settled; closed");
            drop(Object::take(held));
        }
        Err(_) => {
            tracing::warn!("a connection left mid-statement did not settle in time; closed");
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
    async fn a_statement_its_caller_stopped_waiting_for_is_read_to_the_end_before_its_connection_serves_again()
     {
        let env = TestEnv::postgres_redis().await;
        let db = one_connection(&env).await;
        let first = backend(&db).await;
        let abandoned = tokio::time::timeout(
            std::time::Duration::from_millis(100),
            sqlx::query("SELECT 7 AS n, pg_sleep(1)").fetch_all(db.pool()),
        )
        .await;
        assert!(abandoned.is_err(), "the caller gave up mid-statement");
        // The only connection is settled first: the next statement waits for the sleep's
        // answer to be read and then gets its own answer, on the same connection.
        let answer: i32 = sqlx::query("SELECT 42 AS n")
            .fetch_one(db.pool())
            .await
            .unwrap()
            .get("n");
        assert_eq!(answer, 42);
        assert_eq!(backend(&db).await, first, "kept, not reconnected");
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
    async fn a_transaction_dropped_open_is_rolled_back_at_once_and_its_connection_serves_again() {
        let env = TestEnv::postgres_redis().await;
        let db = one_connection(&env).await;
        sqlx::query("CREATE TABLE kept (n BIGINT)")
            .execute(db.pool())
            .await
            .unwrap();
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
        sqlx::query("INSERT INTO kept (n) VALUES (1)")
            .execute(&mut *tx)
            .await
            .unwrap();
        drop(tx);
        // Another server connection sees the lock released: no later request of this pool had
        // to come along first.
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
        let rows = sqlx::query("SELECT n FROM kept")
            .fetch_all(db.pool())
            .await
            .unwrap();
        assert!(
            rows.is_empty(),
            "nothing of the dropped transaction is kept"
        );
        assert_eq!(
            backend(&db).await,
            abandoned,
            "rolled back and kept, not reconnected"
        );
        other.close().await;
        db.close().await;
    }
}
