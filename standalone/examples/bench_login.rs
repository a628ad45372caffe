//! Benchmark of login against the raw argon2id rate (issue #8, point 2): password hashing must
//! not starve other requests.
//!
//! 1. The raw rate of argon2id with auth's parameters (OWASP: 19 MiB, 2 passes, 1 lane), hash
//!    and verify, on one thread and on every core (one `spawn_blocking` loop per core).
//! 2. The standalone portal in this process on a throwaway data folder (SQLite, in-memory
//!    ephemeral store, demo seed), with the edge limit, auth's attempt limits and the daily
//!    code cap raised so the bench measures hashing rather than the limiters (the throttle of a
//!    (user, address) pair too: 50 clients logging in as 3 users from one address would
//!    otherwise trip it, and its cheap 429s would be a flood instead of a storm of hashed
//!    passwords, as 50 members at 50 addresses make); Ana logs in once
//!    (password and code) for a session cookie.
//! 3. Idle: one client reads `GET /api/balance` back to back for `BENCH_IDLE_SECONDS`.
//! 4. Load: `BENCH_LOGIN_CLIENTS` clients run the password step (`POST /api/login`, which
//!    verifies one argon2id hash) in a loop for `BENCH_SECONDS` while the balance probe runs
//!    again; password steps per second are set beside the raw verify rate and the balance
//!    percentiles beside the idle ones.
//!
//! ```sh
//! bench/login.sh
//! BENCH_LOGIN_CLIENTS=100 BENCH_SECONDS=20 cargo run --release -p miclub-standalone --example bench_login
//! ```
//!
//! Failed requests are counted apart (by status) and never enter the percentiles.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use argon2::{Algorithm, Argon2, Params, PasswordHash, Version};
use miclub_platform::config::{Environment, Layered};
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::shutdown;
use serde_json::json;

#[path = "common/login.rs"]
mod common;

/// auth's parameters (`PasswordHasher::OWASP_*` in services/auth/src/domain/hashing.rs).
const M_COST_KIB: u32 = 19_456;
const T_COST: u32 = 2;
const P_COST: u32 = 1;

/// The demo members whose password step ends in a sent code: Ana, Bruno and Diego (Diego's
/// legacy bcrypt hash becomes argon2id on the warm-up login). Carla's email is unverified.
const USERS: [&str; 3] = ["11.111.111-1", "22.222.222-2", "44.444.444-4"];

/// A limit high enough never to be reached during a run.
const UNLIMITED: i64 = 1_000_000_000;

/// `name` from the environment, or `default`.
fn setting<T: FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|raw| raw.replace('_', "").parse().ok())
        .unwrap_or(default)
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn argon2() -> anyhow::Result<Argon2<'static>> {
    let params = Params::new(M_COST_KIB, T_COST, P_COST, None)
        .map_err(|e| anyhow::anyhow!("argon2 params: {e}"))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Hash,
    Verify,
}

/// One argon2id hash with a fresh salt, or one verification of `stored`, as auth does them.
fn argon2_op(op: Op, stored: &str) -> anyhow::Result<()> {
    let argon2 = argon2()?;
    match op {
        Op::Hash => {
            argon2
                .hash_password(DEMO_PASSWORD.as_bytes())
                .map_err(|e| anyhow::anyhow!("hash: {e}"))?;
        }
        Op::Verify => {
            let parsed = PasswordHash::new(stored).map_err(|e| anyhow::anyhow!("parse: {e}"))?;
            argon2
                .verify_password(DEMO_PASSWORD.as_bytes(), &parsed)
                .map_err(|e| anyhow::anyhow!("verify: {e}"))?;
        }
    }
    Ok(())
}

/// Operations per second of `op` by `threads` blocking loops running for `window`.
async fn raw_rate(
    op: Op,
    threads: usize,
    window: Duration,
    stored: Arc<str>,
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let deadline = started + window;
    let mut loops = tokio::task::JoinSet::new();
    for _ in 0..threads {
        let stored = stored.clone();
        loops.spawn_blocking(move || {
            let mut done = 0u64;
            while Instant::now() < deadline {
                argon2_op(op, &stored)?;
                done += 1;
            }
            anyhow::Ok(done)
        });
    }
    let mut done = 0;
    while let Some(joined) = loops.join_next().await {
        done += joined??;
    }
    Ok(done as f64 / started.elapsed().as_secs_f64())
}

/// Latencies of the successful requests and the failures by cause.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    errors: BTreeMap<String, u64>,
}

impl Tally {
    fn error(&mut self, cause: String) {
        *self.errors.entry(cause).or_default() += 1;
    }

    fn merge(&mut self, other: Tally) {
        self.latencies.extend(other.latencies);
        for (cause, n) in other.errors {
            *self.errors.entry(cause).or_default() += n;
        }
    }

    fn errors_line(&self) -> String {
        if self.errors.is_empty() {
            return "none".into();
        }
        self.errors
            .iter()
            .map(|(cause, n)| format!("{n}× {cause}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// p50, p99 and max; zeros without samples.
    fn percentiles(&mut self) -> (Duration, Duration, Duration) {
        if self.latencies.is_empty() {
            return Default::default();
        }
        self.latencies.sort_unstable();
        let samples = &self.latencies;
        let at = |q: f64| {
            let index = ((samples.len() as f64 * q).ceil() as usize).clamp(1, samples.len()) - 1;
            samples[index]
        };
        (at(0.50), at(0.99), samples[samples.len() - 1])
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

/// One client reading the balance back to back until `deadline`.
async fn balance_probe(client: reqwest::Client, url: String, deadline: Instant) -> Tally {
    let mut tally = Tally::default();
    while Instant::now() < deadline {
        let t = Instant::now();
        match client.get(&url).send().await {
            Ok(response) if response.status().is_success() => match response.bytes().await {
                Ok(_) => tally.latencies.push(t.elapsed()),
                Err(err) => tally.error(format!("body: {err}")),
            },
            Ok(response) => tally.error(format!("HTTP {}", response.status().as_u16())),
            Err(err) => tally.error(format!("transport: {err}")),
        }
    }
    tally
}

/// Password steps posted by one client until `deadline`; `ok_in_window` counts the successes
/// that finished before it.
async fn login_client(
    client: reqwest::Client,
    url: String,
    user: &'static str,
    deadline: Instant,
) -> (Tally, u64) {
    let mut tally = Tally::default();
    let mut ok_in_window = 0;
    while Instant::now() < deadline {
        let t = Instant::now();
        let sent = client
            .post(&url)
            .header("x-miclub-csrf", "1")
            .header("recaptcha-token", "bench")
            .json(&json!({"user": user, "password": DEMO_PASSWORD}))
            .send()
            .await;
        match sent {
            Ok(response) if response.status().is_success() => match response.bytes().await {
                Ok(_) => {
                    tally.latencies.push(t.elapsed());
                    if Instant::now() <= deadline {
                        ok_in_window += 1;
                    }
                }
                Err(err) => tally.error(format!("body: {err}")),
            },
            Ok(response) => tally.error(format!("HTTP {}", response.status().as_u16())),
            Err(err) => tally.error(format!("transport: {err}")),
        }
    }
    (tally, ok_in_window)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let clients: usize = setting("BENCH_LOGIN_CLIENTS", 50usize).max(1);
    let seconds: u64 = setting("BENCH_SECONDS", 10u64).max(1);
    let idle_seconds: u64 = setting("BENCH_IDLE_SECONDS", 5u64).max(1);
    let raw_seconds: u64 = setting("BENCH_RAW_SECONDS", 2u64).max(1);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());

    // 1. Raw argon2id.
    println!(
        "argon2id m={M_COST_KIB} KiB t={T_COST} p={P_COST}; {cores} cores; \
         {clients} login clients for {seconds} s; idle probe {idle_seconds} s"
    );
    let stored: Arc<str> = Arc::from(
        argon2()?
            .hash_password(DEMO_PASSWORD.as_bytes())
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .to_string(),
    );
    let window = Duration::from_secs(raw_seconds);
    let hash_1 = raw_rate(Op::Hash, 1, window, stored.clone()).await?;
    let verify_1 = raw_rate(Op::Verify, 1, window, stored.clone()).await?;
    let hash_n = raw_rate(Op::Hash, cores, window, stored.clone()).await?;
    let verify_n = raw_rate(Op::Verify, cores, window, stored.clone()).await?;

    // 2. The portal, limits raised.
    let data = TempDir(std::env::temp_dir().join(format!(
        "miclub-bench-login-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_nanos()
    )));
    // `APP_*` variables override any setting, e.g. `APP_AUTH__HASHING__NICE=0` for an A/B. The
    // clients share one address, so the per-address connection cap is off.
    let config = Layered::from_toml_with_overrides(
        Environment::Development,
        &format!(
            "[standalone]\ndata_dir = {:?}\n\
             [gateway]\nport = 0\nweb_dir = {:?}\nlogin_requests_per_minute = {UNLIMITED}\n\
             [gateway.connections]\nper_client = 0\n\
             [auth.policy]\ndaily_send_cap = {UNLIMITED}\naccount_attempts = {UNLIMITED}\n\
             ip_attempts = {UNLIMITED}\nip_failures = {UNLIMITED}\nfree_failures = {UNLIMITED}\n\
             account_daily_failures = {}\n",
            data.0.display().to_string(),
            data.0.join("no-web").display().to_string(),
            UNLIMITED + 1,
        ),
    )?;
    let auth_settings: miclub_auth::Settings = config.section("auth")?;
    let (stop, shutdown) = shutdown::channel();
    let running = miclub_standalone::start(&config, shutdown).await?;
    let base = format!("http://127.0.0.1:{}", running.gateway_port);
    let login_url = format!("{base}/api/login");
    let balance_url = format!("{base}/api/balance");

    let browser = reqwest::Client::builder().cookie_store(true).build()?;
    for user in USERS {
        // Warm-up: one password step each (Diego's legacy hash is migrated here).
        let answer = reqwest::Client::new()
            .post(&login_url)
            .header("x-miclub-csrf", "1")
            .header("recaptcha-token", "bench")
            .json(&json!({"user": user, "password": DEMO_PASSWORD}))
            .send()
            .await?;
        anyhow::ensure!(
            answer.status().is_success(),
            "warm-up password step of {user}: {}",
            answer.status()
        );
    }
    common::log_in_ana(&browser, &base, &running.mailbox).await?;

    // 3. Balance, idle.
    let mut idle = balance_probe(
        browser.clone(),
        balance_url.clone(),
        Instant::now() + Duration::from_secs(idle_seconds),
    )
    .await;

    // 4. Balance while the clients log in.
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    // One connection pool, a connection per client as browsers behind one address would open.
    let logins_client = reqwest::Client::builder()
        .pool_max_idle_per_host(clients)
        .build()?;
    let mut workers = tokio::task::JoinSet::new();
    for i in 0..clients {
        workers.spawn(login_client(
            logins_client.clone(),
            login_url.clone(),
            USERS[i % USERS.len()],
            deadline,
        ));
    }
    let probe = tokio::spawn(balance_probe(browser.clone(), balance_url, deadline));
    let mut logins = Tally::default();
    let mut ok_in_window = 0;
    while let Some(joined) = workers.join_next().await {
        let (tally, ok) = joined?;
        logins.merge(tally);
        ok_in_window += ok;
    }
    let drained = started.elapsed();
    let mut loaded = probe.await?;

    stop.trigger();
    running.wait().await?;

    // Figures.
    let rate = ok_in_window as f64 / seconds as f64;
    let (idle_p50, idle_p99, idle_max) = idle.percentiles();
    let (load_p50, load_p99, load_max) = loaded.percentiles();
    let (login_p50, login_p99, login_max) = logins.percentiles();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    println!();
    println!("raw argon2id (ops/s)        1 thread   {cores} threads");
    println!("  hash                      {hash_1:>8.1}   {hash_n:>9.1}");
    println!("  verify                    {verify_1:>8.1}   {verify_n:>9.1}");
    println!();
    println!(
        "login password steps        {rate:.1}/s over {seconds} s ({ok_in_window} ok; \
         all drained in {:.1} s); hashing pool {} threads at nice +{}",
        drained.as_secs_f64(),
        auth_settings.hashing.max_concurrent,
        auth_settings.hashing.nice
    );
    println!(
        "  vs raw verify             {:.0}% of {cores} threads, {:.0}% of 1 thread",
        100.0 * ratio(rate, verify_n),
        100.0 * ratio(rate, verify_1)
    );
    println!(
        "  latency                   p50 {:.1} ms  p99 {:.1} ms  max {:.1} ms",
        ms(login_p50),
        ms(login_p99),
        ms(login_max)
    );
    println!("  errors                    {}", logins.errors_line());
    println!();
    println!("GET /api/balance            requests   p50 ms   p99 ms   max ms   errors");
    println!(
        "  idle                      {:>8}   {:>6.2}   {:>6.2}   {:>6.2}   {}",
        idle.latencies.len(),
        ms(idle_p50),
        ms(idle_p99),
        ms(idle_max),
        idle.errors_line()
    );
    println!(
        "  under {clients:>3} logins          {:>8}   {:>6.2}   {:>6.2}   {:>6.2}   {}",
        loaded.latencies.len(),
        ms(load_p50),
        ms(load_p99),
        ms(load_max),
        loaded.errors_line()
    );
    println!(
        "  loaded / idle             {:>8}   {:>5.1}×   {:>5.1}×",
        "",
        ratio(ms(load_p50), ms(idle_p50)),
        ratio(ms(load_p99), ms(idle_p99))
    );
    Ok(())
}
