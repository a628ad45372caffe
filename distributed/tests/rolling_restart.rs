//! A rolling restart of accounts under load (issue #17, item 8): members read their balance
//! through the gateway and a store system posts purchases through accounts' Service, steadily,
//! while accounts is replaced as its Deployment's rolling update would replace it (the new
//! process ready before the old one gets SIGTERM and drains). Every read must succeed, and every
//! posting the store saw acknowledged must be in accounts' database exactly once, with nothing
//! else there. `ROLLING_RESTART_SECONDS` lengthens the load (bench/rolling-restart.sh).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use miclub_distributed::Topology;
use miclub_distributed::secrets::Vault;
use miclub_distributed::topology::Running;
use miclub_platform::grpc::{TracedChannel, is_transport_failure};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1 as accounts;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::auth::v1 as auth;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use sqlx::{Connection, PgConnection};
use tokio::sync::Mutex;

#[macro_use]
mod support;

use support::{log_in, test_options, tls_channel};

/// A channel to a Service of the topology, as a store system inside the cluster calls it.
fn service_channel(running: &Running, service: &str) -> TracedChannel {
    tls_channel(&running.ca_file, running.services[service])
}

/// What the load saw.
#[derive(Debug, Default)]
struct Outcome {
    reads: usize,
    failed_reads: Vec<String>,
    /// Idempotency keys of the postings accounts acknowledged.
    acknowledged: BTreeSet<String>,
    /// Attempts that failed and were retried with the same key.
    retried_postings: usize,
}

fn seconds_of_load() -> u64 {
    std::env::var("ROLLING_RESTART_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
}

/// How accounts is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restart {
    /// As the Deployment's rolling update does (`maxSurge: 1, maxUnavailable: 0`).
    Rolling,
    /// SIGTERM, then the same process started again on the same ports: one replica, no surge.
    InPlace,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn accounts_restarts_under_load_without_a_failed_read_or_a_lost_or_doubled_posting() {
    require!(true, true);
    restart_under_load(Restart::Rolling).await;
}

/// The figures of the other way, for `bench/rolling-restart.sh` (not run by the test command:
/// reads fail while no accounts process is up, which is what `maxUnavailable: 0` prevents).
/// Postings are still neither lost nor doubled.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "a benchmark: bench/rolling-restart.sh runs it"]
async fn accounts_stopped_and_started_in_place_loses_no_posting() {
    require!(true, true);
    restart_under_load(Restart::InPlace).await;
}

async fn restart_under_load(restart: Restart) {
    let state = tempfile::tempdir().unwrap();
    let mut running = Topology::start(test_options(state.path())).await.unwrap();
    let client = reqwest::Client::new();
    let jar = log_in(&running, &client, "11.111.111-1", "ana@example.cl").await;
    let cookie = jar.header();
    let balance_url = format!("{}/api/balance", running.gateway_url);
    let pos_secret = Vault::open(state.path())
        .unwrap()
        .client_secret("pos")
        .unwrap();
    let pos_token = AuthServiceClient::new(service_channel(&running, "auth"))
        .issue_service_token(auth::IssueServiceTokenRequest {
            client_id: "pos".into(),
            client_secret: pos_secret,
        })
        .await
        .unwrap()
        .into_inner()
        .access_token;
    let accounts_channel = service_channel(&running, "accounts");

    let outcome = Arc::new(Mutex::new(Outcome::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut load = Vec::new();
    for _ in 0..4 {
        let (client, url, cookie) = (client.clone(), balance_url.clone(), cookie.clone());
        let (outcome, stop) = (outcome.clone(), stop.clone());
        load.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let answer = client.get(&url).header("cookie", &cookie).send().await;
                let mut outcome = outcome.lock().await;
                outcome.reads += 1;
                match answer {
                    Ok(response) if response.status().is_success() => {}
                    Ok(response) => {
                        let status = response.status();
                        let body = response.text().await.unwrap_or_default();
                        outcome.failed_reads.push(format!("{status}: {body}"));
                    }
                    Err(err) => outcome.failed_reads.push(err.to_string()),
                }
            }
        }));
    }
    for poster in 0..2 {
        let (channel, token) = (accounts_channel.clone(), pos_token.clone());
        let (outcome, stop) = (outcome.clone(), stop.clone());
        load.push(tokio::spawn(async move {
            let mut accounts = AccountsServiceClient::new(channel);
            let purchased_at = (chrono::Utc::now() - chrono::Duration::minutes(5)).to_rfc3339();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let key = format!("rolling-{poster}-{n:06}");
                // A store system retries with the same key until it hears back.
                let deadline = Instant::now() + Duration::from_secs(60);
                loop {
                    let request = accounts::PostPurchaseRequest {
                        idempotency_key: key.clone(),
                        member_document: "11.111.111-1".into(),
                        member_card: String::new(),
                        store_id: "rolling-001".into(),
                        store_name: "Lider Rolling".into(),
                        purchased_at: purchased_at.clone(),
                        payment_method: accounts::PaymentMethod::Cash as i32,
                        lines: vec![accounts::PurchaseLine {
                            category: accounts::Category::Other as i32,
                            amount: 1_000,
                            product_category_id: 1,
                        }],
                    };
                    match accounts.post_purchase(with_bearer(request, &token)).await {
                        Ok(_) => {
                            outcome.lock().await.acknowledged.insert(key.clone());
                            break;
                        }
                        Err(status) => {
                            // Only a call the transport failed is retried (the posting's
                            // key makes a second delivery harmless); an answer of the server,
                            // whatever its code, fails the test.
                            assert!(
                                is_transport_failure(&status),
                                "posting {key} refused: {status:?}"
                            );
                            assert!(
                                Instant::now() < deadline,
                                "posting {key} not acknowledged within 60 s: {status:?}"
                            );
                            outcome.lock().await.retried_postings += 1;
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                    }
                }
            }
        }));
    }

    let seconds = seconds_of_load();
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let old_pid = running.pid("accounts").unwrap();
    let restart_started = Instant::now();
    match restart {
        Restart::Rolling => running.rolling_restart("accounts").await.unwrap(),
        Restart::InPlace => running.restart_in_place("accounts").await.unwrap(),
    }
    let restart_took = restart_started.elapsed();
    assert_ne!(running.pid("accounts").unwrap(), old_pid);
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }

    let outcome = outcome.lock().await;
    let mut database = PgConnection::connect(&running.database_urls["accounts"])
        .await
        .unwrap();
    let stored: Vec<String> = sqlx::query_scalar(
        "SELECT idempotency_key FROM purchases WHERE idempotency_key LIKE 'rolling-%'",
    )
    .fetch_all(&mut database)
    .await
    .unwrap();
    let stored_set: BTreeSet<String> = stored.iter().cloned().collect();
    println!(
        "{restart:?} restart of accounts in {} ms under load: {} balance reads ({} failed), {} postings acknowledged ({} attempts retried), {} stored",
        restart_took.as_millis(),
        outcome.reads,
        outcome.failed_reads.len(),
        outcome.acknowledged.len(),
        outcome.retried_postings,
        stored.len()
    );
    assert!(
        restart == Restart::InPlace || outcome.failed_reads.is_empty(),
        "{} of {} reads failed: {:?}",
        outcome.failed_reads.len(),
        outcome.reads,
        &outcome.failed_reads[..outcome.failed_reads.len().min(5)]
    );
    assert!(outcome.reads > 0 && !outcome.acknowledged.is_empty());
    assert_eq!(stored.len(), stored_set.len(), "a posting was stored twice");
    // Each poster finishes the posting it started before it stops, so the two sets are equal.
    assert_eq!(
        stored_set, outcome.acknowledged,
        "stored and acknowledged postings differ"
    );
    running.stop().await.unwrap();
}
