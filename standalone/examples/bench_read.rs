//! The balance read alone, through each way the portal could reach PostgreSQL (issue #20, step
//! 1), beside pgbench: the CPU one `SELECT balance, updated_at FROM club_accounts WHERE
//! member_id = $1` costs the client and the server, one connection, one query after another.
//!
//! - `store`: accounts' own `Store::balance` (platform's traced pool: on PostgreSQL a connection
//!   handed back without sqlx's return ping, `storage::statements`), as the portal reads it;
//! - `any-pool`: a plain `AnyPool` with the same options (the tracing wrapper's share);
//! - `pg-pool`: a typed `PgPool` with the same options (the Any driver's share);
//! - `pg-connection`: one `PgConnection` held, no pool (the pool's share: sqlx pings every
//!   connection it takes back, a Sync and its ReadyForQuery, with no switch to turn it off);
//! - `pgbench`: the C client, prepared, one connection (when installed).
//!
//! CPU is counted per process from `/proc/<pid>/schedstat` (nanoseconds on CPU): this process
//! and the PostgreSQL backend serving it, so other work on the machine does not enter the
//! figures the way it enters machine-wide counters. `BENCH_ACCOUNTS_DB` names a scratch
//! database (created and dropped by `bench/read.sh`); `BENCH_SECONDS` is each run's length.
//!
//! ```sh
//! bench/read.sh
//! ```

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use miclub_accounts::domain::MemberId;
use miclub_accounts::store::Store;
use miclub_platform::demo::MEMBERS;
use miclub_platform::storage::DatabaseSettings;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{Connection, Executor, Row};

// The portal's allocator (see `src/main.rs`).
#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

const BALANCE: &str = "SELECT balance, updated_at FROM club_accounts WHERE member_id = $1";

/// Nanoseconds on CPU so far: of one task (`/proc/<pid>/schedstat`), or of every thread of
/// this process.
fn cpu_ns(pid: Option<u32>) -> anyhow::Result<u64> {
    let read = |path: std::path::PathBuf| -> anyhow::Result<u64> {
        let text = std::fs::read_to_string(&path)?;
        let first = text.split_whitespace().next().unwrap_or_default();
        Ok(first.parse()?)
    };
    match pid {
        Some(pid) => read(format!("/proc/{pid}/schedstat").into()),
        None => {
            let mut total = 0;
            for task in std::fs::read_dir("/proc/self/task")? {
                total += read(task?.path().join("schedstat")).unwrap_or(0);
            }
            Ok(total)
        }
    }
}

/// One mode's figures: queries, and client and server CPU per query in microseconds.
#[derive(Debug, Clone, Copy)]
struct Figures {
    queries: f64,
    client_us: f64,
    server_us: f64,
}

impl Figures {
    fn total_us(&self) -> f64 {
        self.client_us + self.server_us
    }
}

/// Runs `read` back to back for `window`, counting this process's CPU and the backend's.
async fn measure<F, Fut>(backend: u32, window: Duration, mut read: F) -> anyhow::Result<Figures>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<i64>>,
{
    // Warm-up: the statement prepared, the connection's buffers grown.
    for _ in 0..1_000 {
        read().await?;
    }
    let (client, server) = (cpu_ns(None)?, cpu_ns(Some(backend))?);
    let end = Instant::now() + window;
    let mut queries = 0u64;
    while Instant::now() < end {
        for _ in 0..100 {
            anyhow::ensure!(read().await? > 0, "the balance read came back empty");
        }
        queries += 100;
    }
    let (client_after, server_after) = (cpu_ns(None)?, cpu_ns(Some(backend))?);
    let per = |before: u64, after: u64| (after - before) as f64 / 1_000.0 / queries as f64;
    Ok(Figures {
        queries: queries as f64,
        client_us: per(client, client_after),
        server_us: per(server, server_after),
    })
}

/// pgbench on the same statement: its process and its backend, sampled until it exits.
async fn pgbench(url: &str, member: &str, window: Duration) -> anyhow::Result<Option<Figures>> {
    let script = std::env::temp_dir().join(format!("miclub-bench-read-{}.sql", std::process::id()));
    std::fs::write(
        &script,
        format!("{};\n", BALANCE.replace("$1", &format!("'{member}'"))),
    )?;
    let child = tokio::process::Command::new("pgbench")
        .args(["-n", "-M", "prepared", "-c", "1", "-j", "1", "-T"])
        .arg(window.as_secs().max(1).to_string())
        .arg("-f")
        .arg(&script)
        .arg(url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let child = match child {
        Ok(child) => child,
        Err(_) => return Ok(None),
    };
    let pgbench_pid = child.id().unwrap_or_default();
    let mut watcher = PgConnection::connect(url).await?;
    let mut backend = None;
    for _ in 0..100 {
        backend = sqlx::query_scalar::<_, i32>(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' LIMIT 1",
        )
        .fetch_optional(&mut watcher)
        .await?;
        if backend.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let backend = backend.ok_or_else(|| anyhow::anyhow!("pgbench's backend never showed"))? as u32;
    // Both processes are sampled every 20 ms; the last sample before they exit closes the
    // window, whose length scales pgbench's own rate (it counts the whole run).
    let first = (
        Instant::now(),
        cpu_ns(Some(pgbench_pid))?,
        cpu_ns(Some(backend))?,
    );
    let mut last = first;
    while let (Ok(client), Ok(server)) = (cpu_ns(Some(pgbench_pid)), cpu_ns(Some(backend))) {
        last = (Instant::now(), client, server);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let output = child.wait_with_output().await?;
    let _ = std::fs::remove_file(&script);
    let text = String::from_utf8_lossy(&output.stdout);
    let tps: f64 = text
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no rate in pgbench's output:\n{text}"))?;
    let queries = tps * (last.0 - first.0).as_secs_f64();
    let per = |before: u64, after: u64| (after - before) as f64 / 1_000.0 / queries;
    Ok(Some(Figures {
        queries,
        client_us: per(first.1, last.1),
        server_us: per(first.2, last.2),
    }))
}

/// The backend process serving the (only) connection of `pool`-like `executor`.
async fn backend_of<'c, E: Executor<'c, Database = DB>, DB: sqlx::Database>(
    executor: E,
) -> anyhow::Result<u32>
where
    i32: sqlx::Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    for<'q> DB::Arguments: sqlx::IntoArguments<DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(executor)
        .await?;
    Ok(pid as u32)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let url = std::env::var("BENCH_ACCOUNTS_DB")
        .map_err(|_| anyhow::anyhow!("BENCH_ACCOUNTS_DB is not set (run bench/read.sh)"))?;
    let window = Duration::from_secs(
        std::env::var("BENCH_SECONDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(5),
    );
    let settings = DatabaseSettings {
        url: url.clone(),
        max_connections: 1,
        ..Default::default()
    };

    // Ana's club account, seeded as the portal seeds it.
    let store = Store::connect(&settings).await?;
    let rules = miclub_accounts::Settings::default().accrual.load_rules()?;
    let ledger = miclub_accounts::domain::Ledger::new(store.clone(), Arc::new(rules));
    miclub_accounts::seed::seed_demo(&store, &ledger).await?;
    let ana = MEMBERS
        .first()
        .ok_or_else(|| anyhow::anyhow!("no demo members"))?;
    let member = MemberId::parse(ana.member_id)?;
    let id = member.as_str().to_owned();

    let mut rows: Vec<(&str, Figures)> = Vec::new();

    // Through the traced pool itself: its single statements run on its own connection.
    let backend = backend_of(store.database().pool()).await?;
    let figures = measure(backend, window, || {
        let (store, member) = (store.clone(), member.clone());
        async move {
            let balance = store.balance(&member).await?;
            Ok(balance.map_or(0, |b| b.pesos() + 1))
        }
    })
    .await?;
    rows.push(("store", figures));
    store.database().close().await;

    sqlx::any::install_default_drivers();
    let any = AnyPoolOptions::new()
        .max_connections(1)
        .test_before_acquire(false)
        .connect_with(AnyConnectOptions::from_str(&url)?)
        .await?;
    let backend = backend_of(&any).await?;
    let figures = measure(backend, window, || {
        let (any, id) = (any.clone(), id.clone());
        async move {
            let row = sqlx::query(BALANCE).bind(id).fetch_one(&any).await?;
            Ok(row.try_get::<i64, _>("balance")? + 1)
        }
    })
    .await?;
    rows.push(("any-pool", figures));
    any.close().await;

    let pg = PgPoolOptions::new()
        .max_connections(1)
        .test_before_acquire(false)
        .connect_with(PgConnectOptions::from_str(&url)?)
        .await?;
    let backend = backend_of(&pg).await?;
    let figures = measure(backend, window, || {
        let (pg, id) = (pg.clone(), id.clone());
        async move {
            let row = sqlx::query(BALANCE).bind(id).fetch_one(&pg).await?;
            Ok(row.try_get::<i64, _>("balance")? + 1)
        }
    })
    .await?;
    rows.push(("pg-pool", figures));
    pg.close().await;

    let connection = Arc::new(tokio::sync::Mutex::new(PgConnection::connect(&url).await?));
    let backend = backend_of(&mut *connection.lock().await).await?;
    let figures = measure(backend, window, || {
        let (connection, id) = (connection.clone(), id.clone());
        async move {
            let mut connection = connection.lock().await;
            let row = sqlx::query(BALANCE)
                .bind(id)
                .fetch_one(&mut *connection)
                .await?;
            Ok(row.try_get::<i64, _>("balance")? + 1)
        }
    })
    .await?;
    rows.push(("pg-connection", figures));

    let floor = match pgbench(&url, &id, window).await? {
        Some(figures) => {
            rows.push(("pgbench", figures));
            Some(figures.total_us())
        }
        None => {
            eprintln!("pgbench not found: its row is skipped");
            None
        }
    };

    println!();
    println!(
        "{:<14} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "mode", "queries", "client µs", "server µs", "total µs", "/pgbench"
    );
    for (name, figures) in rows {
        let versus = floor.map_or("-".to_owned(), |floor| {
            format!("{:.2}×", figures.total_us() / floor)
        });
        println!(
            "{:<14} {:>10.0} {:>10.1} {:>10.1} {:>10.1} {:>9}",
            name,
            figures.queries,
            figures.client_us,
            figures.server_us,
            figures.total_us(),
            versus
        );
    }
    Ok(())
}
