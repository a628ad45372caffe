//! What both benchmarks share: a throwaway PostgreSQL database on the server they are given,
//! settings read from the environment, and percentiles.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use miclub_platform::storage::DatabaseSettings;
use sqlx::Connection;
use sqlx::postgres::PgConnection;

/// The PostgreSQL server: first argument, else `BENCH_POSTGRES_URL`, else the local default.
pub fn server_url() -> String {
    std::env::args()
        .nth(1)
        .or_else(|| std::env::var("BENCH_POSTGRES_URL").ok())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// `name` from the environment, or `default`.
pub fn setting<T: FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|raw| raw.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// A database of the benchmark's own on `server`, dropped by [`BenchDb::drop_now`] unless
/// `BENCH_KEEP=1`.
pub struct BenchDb {
    server: String,
    pub name: String,
    pub settings: DatabaseSettings,
}

impl BenchDb {
    pub async fn create(server: &str, prefix: &str, max_connections: u32) -> anyhow::Result<Self> {
        let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::connect(server)
            .await
            .with_context(|| format!("connecting to {server}"))?;
        // The name is generated here, never input.
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut admin)
            .await?;
        admin.close().await?;
        let settings = DatabaseSettings {
            url: with_database(server, &name),
            max_connections,
            acquire_timeout_ms: 30_000,
            ..DatabaseSettings::default()
        };
        println!("database {name} created");
        Ok(Self {
            server: server.to_owned(),
            name,
            settings,
        })
    }

    pub async fn drop_now(self) -> anyhow::Result<()> {
        if std::env::var("BENCH_KEEP").is_ok_and(|v| v == "1") {
            println!("database {} kept (BENCH_KEEP=1)", self.name);
            return Ok(());
        }
        let mut admin = PgConnection::connect(&self.server).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )))
        .execute(&mut admin)
        .await?;
        println!("database {} dropped", self.name);
        Ok(())
    }
}

fn with_database(server: &str, name: &str) -> String {
    let (base, query) = match server.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (server, None),
    };
    let root = match base.rfind('/') {
        Some(i) if i > "postgres://".len() => &base[..i],
        _ => base,
    };
    match query {
        Some(query) => format!("{root}/{name}?{query}"),
        None => format!("{root}/{name}"),
    }
}

/// p50, p99 and max of `samples` (sorted here).
pub fn percentiles(samples: &mut [Duration]) -> (Duration, Duration, Duration) {
    samples.sort_unstable();
    let at = |q: f64| {
        let index = ((samples.len() as f64 * q).ceil() as usize).clamp(1, samples.len()) - 1;
        samples[index]
    };
    (at(0.50), at(0.99), samples[samples.len() - 1])
}

pub fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1_000.0)
}

/// Busy time of the whole machine so far, in microseconds: user, nice, system, irq and softirq
/// of `/proc/stat`'s first line (not idle, iowait or steal), as `bench/gateway.sh` counts it.
/// Every process is in it (the service, PostgreSQL, the callers), so the machine should be
/// otherwise quiet; `None` off Linux.
#[allow(dead_code)] // one of the two benchmarks uses it
pub fn machine_busy_us() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .map(|field| field.parse().unwrap_or(0))
        .collect();
    let busy: u64 = [0, 1, 2, 5, 6].iter().filter_map(|&i| fields.get(i)).sum();
    // /proc/stat counts in USER_HZ, 100 per second on every Linux ABI.
    Some(busy * 10_000)
}
