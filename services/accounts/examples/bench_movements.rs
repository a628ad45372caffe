//! Benchmark of Mis Movimientos on PostgreSQL: fills `movements` to `BENCH_ROWS` rows (default
//! 5 000 000) spread over `BENCH_MEMBERS` members (default 50 000), one of whom has
//! `BENCH_HOT_ROWS` movements (default 10 000) over ten years, then times ListMovements' two
//! store queries (the month's count and its first page) for that member over random months,
//! and prints p50/p99 and the plans PostgreSQL chose.
//!
//! ```sh
//! cargo run --release -p miclub-accounts --example bench_movements -- postgres://postgres@127.0.0.1:5432/postgres
//! BENCH_ROWS=200000 BENCH_MEMBERS=2000 cargo run --release -p miclub-accounts --example bench_movements
//! ```
//!
//! It works in a database of its own, created on the server and dropped at the end
//! (`BENCH_KEEP=1` keeps it). `BENCH_SAMPLES` (default 1 000) months are timed.

#[path = "common/bench.rs"]
mod bench;

use std::sync::Arc;
use std::time::Instant;

use miclub_accounts::domain::{Ledger, MemberId, Month, PageRequest};
use miclub_accounts::store::Store;
use miclub_accrual::RuleSet;
use miclub_platform::storage::now_millis;
use rand::Rng;

use crate::bench::{BenchDb, ms, percentiles, server_url, setting};

const YEAR_MS: i64 = 365 * 86_400_000;
const HOT_MEMBER: &str = "bench-hot";
/// Rows per INSERT … SELECT, so progress shows on big fills.
const CHUNK: i64 = 1_000_000;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let rows: i64 = setting("BENCH_ROWS", 5_000_000);
    let members: i64 = setting("BENCH_MEMBERS", 50_000);
    let hot_rows: i64 = setting("BENCH_HOT_ROWS", 10_000);
    let samples: usize = setting("BENCH_SAMPLES", 1_000);
    anyhow::ensure!(
        rows >= hot_rows && members > 0,
        "BENCH_ROWS must be at least BENCH_HOT_ROWS"
    );
    let db = BenchDb::create(&server_url(), "bench_movements", 4).await?;
    let outcome = run(&db, rows, members, hot_rows, samples).await;
    db.drop_now().await?;
    outcome
}

async fn run(
    db: &BenchDb,
    rows: i64,
    members: i64,
    hot_rows: i64,
    samples: usize,
) -> anyhow::Result<()> {
    let store = Store::connect(&db.settings).await?;
    let now = now_millis();
    let started = Instant::now();
    fill(&store, rows, members, hot_rows, now).await?;
    println!(
        "filled {rows} movements of {} members in {:.1} s",
        members + 1,
        started.elapsed().as_secs_f64()
    );

    let hot = MemberId::parse(HOT_MEMBER)?;
    let ledger = Ledger::new(store.clone(), Arc::new(RuleSet::builtin()));
    let this_month = Month::containing(now);
    let mut rng = rand::rng();
    let mut months: Vec<Month> = (0..samples)
        .map(|_| this_month.months_before(rng.random_range(0..120)))
        .collect();
    // Warm the cache the way a running service would be.
    for month in months.iter().take(50) {
        store
            .count_movements_between(&hot, month.start(), month.end())
            .await?;
    }

    let (mut counts, mut pages, mut whole) = (Vec::new(), Vec::new(), Vec::new());
    let mut rows_seen = 0;
    for month in &mut months {
        let (from, to) = (month.start(), month.end());
        let t = Instant::now();
        let total = store.count_movements_between(&hot, from, to).await?;
        counts.push(t.elapsed());
        let t = Instant::now();
        let page = store.movements_between(&hot, from, to, 10, 0).await?;
        pages.push(t.elapsed());
        rows_seen += total;
        anyhow::ensure!(
            page.len() as i64 == total.min(10),
            "page and count disagree"
        );
        let t = Instant::now();
        ledger
            .movements(&hot, *month, PageRequest::parse(1, 0)?)
            .await?;
        whole.push(t.elapsed());
    }
    println!(
        "member {HOT_MEMBER}: {hot_rows} movements, {:.1} per month on average",
        rows_seen as f64 / samples as f64
    );
    for (name, samples) in [
        ("count of the month", &mut counts),
        ("first page (10)", &mut pages),
        ("ListMovements (account + count + page)", &mut whole),
    ] {
        let (p50, p99, max) = percentiles(samples);
        println!(
            "{name:>40}: p50 {}  p99 {}  max {}",
            ms(p50),
            ms(p99),
            ms(max)
        );
    }

    let month = this_month.months_before(6);
    let [page_plan, count_plan] = store
        .explain_month_queries(&hot, month.start(), month.end(), 10, 0)
        .await?;
    println!("\nplan of the page query:\n{page_plan}\n\nplan of the count query:\n{count_plan}");
    Ok(())
}

/// Members, their accounts, the hot member's ten years, everyone else's three, balances equal
/// to the confirmed sums; the secondary indexes are built once at the end, as a bulk load does.
async fn fill(
    store: &Store,
    rows: i64,
    members: i64,
    hot_rows: i64,
    now: i64,
) -> anyhow::Result<()> {
    let pool = store.database().pool();
    let step = |what: &str, since: Instant| {
        println!("  {what} ({:.1} s)", since.elapsed().as_secs_f64());
    };
    let t = Instant::now();
    sqlx::query(
        "INSERT INTO members (member_id, document_type, document_number, name, last_name, \
         email, created_at, updated_at) \
         SELECT 'bench-' || g, 'FOREIGN', 'BENCH' || g, 'Socio', 'Bench', \
         'socio' || g || '@example.cl', $1, $1 FROM generate_series(1, $2) g \
         UNION ALL SELECT $3, 'FOREIGN', 'BENCHHOT', 'Socia', 'Bench', 'hot@example.cl', $1, $1",
    )
    .bind(now)
    .bind(members)
    .bind(HOT_MEMBER)
    .execute(pool)
    .await?;
    sqlx::query(
        "INSERT INTO club_accounts (member_id, balance, created_at, updated_at) \
         SELECT member_id, 0, $1, $1 FROM members",
    )
    .bind(now)
    .execute(pool)
    .await?;
    step("members and club accounts", t);

    for index in [
        "movements_member_occurred_at",
        "movements_pending_occurred_at",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP INDEX {index}")))
            .execute(pool)
            .await?;
    }
    let t = Instant::now();
    sqlx::query(
        "INSERT INTO movements (id, member_id, kind, status, amount, reason, occurred_at, \
         created_at, updated_at) \
         SELECT 'hot-' || g, $1, 'accrual', 'confirmed', 100 + g % 5000, \
         'Compra en Lider Providencia', $2 - CAST(random() * $3 AS BIGINT), $2, $2 \
         FROM generate_series(1, $4) g",
    )
    .bind(HOT_MEMBER)
    .bind(now)
    .bind(10 * YEAR_MS)
    .bind(hot_rows)
    .execute(pool)
    .await?;
    let others = rows - hot_rows;
    let mut done = 0;
    while done < others {
        let upto = (done + CHUNK).min(others);
        sqlx::query(
            "INSERT INTO movements (id, member_id, kind, status, amount, reason, occurred_at, \
             created_at, updated_at) \
             SELECT 'm-' || g, 'bench-' || (1 + g % $1), 'accrual', \
             CASE WHEN g % 20 = 0 THEN 'pending' ELSE 'confirmed' END, 50 + g % 3000, \
             'Compra en Lider Ñuñoa', $2 - CAST(random() * $3 AS BIGINT), $2, $2 \
             FROM generate_series($4, $5) g",
        )
        .bind(members)
        .bind(now)
        .bind(3 * YEAR_MS)
        .bind(done + 1)
        .bind(upto)
        .execute(pool)
        .await?;
        done = upto;
        step(&format!("{} movements", done + hot_rows), t);
    }
    let t = Instant::now();
    sqlx::query(
        "UPDATE club_accounts a SET balance = s.total FROM \
         (SELECT member_id, SUM(amount) AS total FROM movements WHERE status = 'confirmed' \
         GROUP BY member_id) s WHERE a.member_id = s.member_id",
    )
    .execute(pool)
    .await?;
    step("balances", t);
    let t = Instant::now();
    sqlx::query("CREATE INDEX movements_member_occurred_at ON movements (member_id, occurred_at)")
        .execute(pool)
        .await?;
    sqlx::query(
        "CREATE INDEX movements_pending_occurred_at ON movements (occurred_at) \
         WHERE status = 'pending'",
    )
    .execute(pool)
    .await?;
    sqlx::query("VACUUM ANALYZE movements")
        .execute(pool)
        .await?;
    step("indexes and statistics", t);
    // A ledger that breaks the bank invariant would make the numbers meaningless.
    let hot = MemberId::parse(HOT_MEMBER)?;
    let balance = store.balance(&hot).await?.map(|b| b.pesos()).unwrap_or(-1);
    anyhow::ensure!(
        balance == store.confirmed_total(&hot).await?,
        "balance drifted"
    );
    Ok(())
}
