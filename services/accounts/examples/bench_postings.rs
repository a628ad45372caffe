//! Benchmark of purchase posting on PostgreSQL: the real accounts `Application` on a loopback
//! port, called over gRPC with a service token by `BENCH_CONCURRENCY` callers (default 64) until
//! `BENCH_POSTINGS` purchases (default 20 000) of `BENCH_MEMBERS` members (default 1 000) are
//! posted; prints postings per second, the latency percentiles and the machine's CPU time per
//! posting, then checks that every post wrote exactly one purchase and one outbox event.
//!
//! ```sh
//! cargo run --release -p miclub-accounts --example bench_postings -- postgres://postgres@127.0.0.1:5432/postgres
//! BENCH_POSTINGS=2000 BENCH_CONCURRENCY=16 cargo run --release -p miclub-accounts --example bench_postings
//! ```
//!
//! It works in a database of its own, created on the server and dropped at the end
//! (`BENCH_KEEP=1` keeps it); `BENCH_DB_CONNECTIONS` (default 20) sizes the service's pool.

#[path = "common/bench.rs"]
mod bench;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use miclub_accounts::domain::{Email, LoginEmails, MemberId};
use miclub_accounts::error::AccountsError;
use miclub_accounts::store::Store;
use miclub_accounts::{Application, Dependencies, Settings};
use miclub_platform::ephemeral::MemoryStore;
use miclub_platform::events::MemoryBus;
use miclub_platform::grpc::ServerSettings;
use miclub_platform::notify::DevMailbox;
use miclub_platform::shutdown;
use miclub_platform::storage::{millis_to_rfc3339, now_millis};
use miclub_platform::testing::TestKeys;
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::accounts::v1::{Category, PaymentMethod, PostPurchaseRequest, PurchaseLine};
use rand::Rng;
use sqlx::Row;

use crate::bench::{BenchDb, machine_busy_us, ms, percentiles, server_url, setting};

/// Posting never calls auth; the bench needs no auth at all.
#[derive(Debug)]
struct NoAuth;

#[async_trait]
impl LoginEmails for NoAuth {
    async fn set(&self, _: &MemberId, _: &Email) -> Result<(), AccountsError> {
        Ok(())
    }

    async fn disable_credentials(&self, _: &MemberId, _: i64) -> Result<(), AccountsError> {
        Ok(())
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let postings: usize = setting("BENCH_POSTINGS", 20_000);
    let concurrency: usize = setting("BENCH_CONCURRENCY", 64);
    let members: i64 = setting("BENCH_MEMBERS", 1_000);
    let connections: u32 = setting("BENCH_DB_CONNECTIONS", 20);
    let db = BenchDb::create(&server_url(), "bench_postings", connections).await?;
    let outcome = run(&db, postings, concurrency.max(1), members.max(1)).await;
    db.drop_now().await?;
    outcome
}

async fn run(
    db: &BenchDb,
    postings: usize,
    concurrency: usize,
    members: i64,
) -> anyhow::Result<()> {
    let store = Store::connect(&db.settings).await?;
    let now = now_millis();
    sqlx::query(
        "INSERT INTO members (member_id, document_type, document_number, name, last_name, \
         email, created_at, updated_at) \
         SELECT 'bench-' || g, 'FOREIGN', 'BENCH' || g, 'Socio', 'Bench', \
         'socio' || g || '@example.cl', $1, $1 FROM generate_series(1, $2) g",
    )
    .bind(now)
    .bind(members)
    .execute(store.database().pool())
    .await?;
    sqlx::query(
        "INSERT INTO club_accounts (member_id, balance, created_at, updated_at) \
         SELECT member_id, 0, $1, $1 FROM members",
    )
    .bind(now)
    .execute(store.database().pool())
    .await?;

    let keys = TestKeys::new();
    let settings = Settings {
        server: ServerSettings {
            host: "127.0.0.1".into(),
            port: 0,
            drain_delay_ms: 0,
            ..ServerSettings::default()
        },
        database: db.settings.clone(),
        tokens: keys.settings.clone(),
        ..Settings::default()
    };
    let deps = Dependencies {
        store: Arc::new(MemoryStore::default()),
        key_source: keys.key_source(),
        notifier: Arc::new(DevMailbox::default()),
        login_emails: Arc::new(NoAuth),
        // The relay publishes every posted purchase; nobody reads them here.
        bus: Arc::new(MemoryBus::new()),
    };
    let app = Application::build(settings, deps).await?;
    let url = format!("http://127.0.0.1:{}", app.port());
    let (trigger, stop) = shutdown::channel();
    let serving = tokio::spawn(app.run_until_stopped(stop));
    let token = keys.service_token("bench-store-system", 3_600);
    // A few HTTP/2 connections, as a fleet of tills behind a load balancer would open.
    let mut clients = Vec::new();
    for _ in 0..concurrency.div_ceil(16) {
        clients.push(AccountsServiceClient::connect(url.clone()).await?);
    }

    let next = Arc::new(AtomicUsize::new(0));
    let busy_before = machine_busy_us();
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..concurrency {
        let mut client = clients[worker % clients.len()].clone();
        let (next, token) = (next.clone(), token.clone());
        workers.spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= postings {
                    break;
                }
                let request = with_bearer(purchase(i, members, now), &token);
                let t = Instant::now();
                client.post_purchase(request).await?;
                latencies.push(t.elapsed());
            }
            Ok::<_, tonic::Status>(latencies)
        });
    }
    let mut latencies: Vec<Duration> = Vec::with_capacity(postings);
    while let Some(done) = workers.join_next().await {
        latencies.extend(done??);
    }
    let elapsed = started.elapsed();
    let busy = machine_busy_us()
        .zip(busy_before)
        .map(|(after, before)| after - before);

    let (p50, p99, max) = percentiles(&mut latencies);
    println!(
        "{postings} postings by {concurrency} callers in {:.2} s: {:.0} postings/s",
        elapsed.as_secs_f64(),
        postings as f64 / elapsed.as_secs_f64()
    );
    println!("latency: p50 {}  p99 {}  max {}", ms(p50), ms(p99), ms(max));
    if let Some(busy) = busy {
        // The relay publishing them meanwhile is inside (its last round may fall after).
        println!(
            "machine cpu per posting: {:.0} µs (every process, /proc/stat)",
            busy as f64 / postings as f64
        );
    }

    let counted = sqlx::query(
        "SELECT (SELECT COUNT(*) FROM purchases) AS purchases, \
         (SELECT COUNT(*) FROM outbox) AS events",
    )
    .fetch_one(store.database().pool())
    .await?;
    let (purchases, events): (i64, i64) =
        (counted.try_get("purchases")?, counted.try_get("events")?);
    anyhow::ensure!(
        purchases == postings as i64 && events == postings as i64,
        "expected {postings} purchases and events, found {purchases} and {events}"
    );
    trigger.trigger();
    serving.await??;
    Ok(())
}

/// The `i`th purchase: a member in turn, a day of the last two weeks, one to five lines.
fn purchase(i: usize, members: i64, now: i64) -> PostPurchaseRequest {
    let mut rng = rand::rng();
    let categories = [
        Category::Meat,
        Category::FruitsAndVegetables,
        Category::Cleaning,
        Category::Drinks,
        Category::Other,
    ];
    let payments = [
        PaymentMethod::PartnerCard,
        PaymentMethod::OtherCard,
        PaymentMethod::Cash,
    ];
    let lines = (0..rng.random_range(1..=5))
        .map(|_| PurchaseLine {
            category: categories[rng.random_range(0..categories.len())] as i32,
            amount: rng.random_range(500..80_000),
            // Half the lines with a product category (1-57 but 16), half unknown (0).
            product_category_id: match rng.random_range(0..114) {
                n @ 1..=57 if n != 16 => n,
                _ => 0,
            },
        })
        .collect();
    PostPurchaseRequest {
        idempotency_key: format!("bench:{i:010}"),
        member_document: format!("BENCH{}", 1 + (i as i64 % members)),
        member_card: String::new(),
        store_id: "lider-bench".into(),
        store_name: "Lider Bench".into(),
        purchased_at: millis_to_rfc3339(now - rng.random_range(0..14 * 86_400_000)),
        payment_method: payments[i % payments.len()] as i32,
        lines,
    }
}
