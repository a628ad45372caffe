//! Fault drill: PostgreSQL restarts under a load of purchase postings. Accounts' database sits
//! behind a [`FaultProxy`]; store systems post concurrently, each retrying a failed post with
//! the same idempotency key, while the proxy cuts every connection for about 1.5 s. During the
//! outage posts fail fast and cleanly (UNAVAILABLE, no detail); the pool recovers by itself; at
//! the end every purchase is in the ledger exactly once and the balance is their sum.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::ClientSettings;
use miclub_platform::storage::millis_to_rfc3339;
use miclub_platform::testing::{FaultProxy, TestEnv};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::accounts::v1::{Category, ConfirmDueAccrualsRequest, PaymentMethod};
use sqlx::Row;

use crate::support::{TestApp, count, days_ago, purchase};

/// Store systems posting at once, and purchases each posts.
const TILLS: usize = 4;
const PURCHASES_PER_TILL: usize = 12;
/// The store systems' own deadline per call.
const CALL_TIMEOUT: Duration = Duration::from_secs(3);

/// One failed attempt as a till saw it.
#[derive(Debug)]
struct Failure {
    code: tonic::Code,
    error: ErrorCode,
    message: String,
    took: Duration,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postings_survive_a_postgresql_restart_each_exactly_once() {
    let mut env = TestEnv::postgres_redis().await;
    let (proxy, proxied) = FaultProxy::for_url(&env.database.url).await.unwrap();
    env.database.url = proxied;
    // Fail fast when no connection can be had, well within the callers' deadline.
    env.database.acquire_timeout_ms = 1_000;
    env.database.max_connections = 4;
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.service_token();
    let client = AccountsServiceClient::new(
        ClientSettings {
            request_timeout_ms: CALL_TIMEOUT.as_millis() as u64,
            ..ClientSettings::for_url(format!("http://127.0.0.1:{}", app.port))
        }
        .channel()
        .unwrap(),
    );

    let failures = Arc::new(Mutex::new(Vec::<Failure>::new()));
    let posted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tills = tokio::task::JoinSet::new();
    for till in 0..TILLS {
        let (mut client, token, member) = (client.clone(), token.clone(), member.clone());
        let (failures, posted) = (failures.clone(), posted.clone());
        tills.spawn(async move {
            let mut accrued = Vec::new();
            for n in 0..PURCHASES_PER_TILL {
                let request = purchase(
                    &member,
                    &format!("till-{till}:{n:06}"),
                    &days_ago(1),
                    PaymentMethod::OtherCard,
                    &[(Category::Meat, 10_000 + 1_000 * n as i64)],
                );
                // A store system retries with the same key until the post goes through.
                let give_up = Instant::now() + Duration::from_secs(15);
                loop {
                    let started = Instant::now();
                    match client
                        .post_purchase(with_bearer(request.clone(), &token))
                        .await
                    {
                        Ok(answer) => {
                            accrued.push(answer.into_inner().accrued);
                            posted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            break;
                        }
                        Err(status) => {
                            failures.lock().unwrap().push(Failure {
                                code: status.code(),
                                error: ErrorBody::from_status(&status).code,
                                message: ErrorBody::from_status(&status).message,
                                took: started.elapsed(),
                            });
                            assert!(Instant::now() < give_up, "the post never went through");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                    }
                }
            }
            accrued
        });
    }

    // PostgreSQL goes away in the middle of the load, and comes back.
    while posted.load(std::sync::atomic::Ordering::SeqCst) < TILLS * PURCHASES_PER_TILL / 4 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    proxy.cut();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    proxy.restore();

    let mut accrued = Vec::new();
    while let Some(till) = tills.join_next().await {
        accrued.extend(till.unwrap());
    }
    let failures = std::mem::take(&mut *failures.lock().unwrap());
    assert!(
        !failures.is_empty(),
        "the outage was never felt: the drill proved nothing"
    );
    for failure in &failures {
        assert_eq!(failure.code, tonic::Code::Unavailable, "{failure:?}");
        assert_eq!(failure.error, ErrorCode::Unavailable, "{failure:?}");
        assert_eq!(
            failure.message,
            ErrorCode::Unavailable.message(),
            "{failure:?}"
        );
        assert!(failure.took < CALL_TIMEOUT, "{failure:?}");
    }

    // Exactly once: one purchase per key, one pending accrual per purchase that accrued.
    let purchases = TILLS * PURCHASES_PER_TILL;
    assert_eq!(accrued.len(), purchases);
    assert_eq!(count(&app.store, "purchases").await, purchases as i64);
    let keys: i64 =
        sqlx::query("SELECT CAST(COUNT(DISTINCT idempotency_key) AS BIGINT) AS n FROM purchases")
            .fetch_one(app.store.database().pool())
            .await
            .unwrap()
            .get("n");
    assert_eq!(keys, purchases as i64);
    let accruing = accrued.iter().filter(|a| **a > 0).count() as i64;
    assert!(accruing > 0);
    assert_eq!(count(&app.store, "movements").await, accruing);
    assert_eq!(count(&app.store, "outbox").await, purchases as i64);

    // Confirmed, the accruals make the balance: their sum, each counted once.
    let mut direct = AccountsServiceClient::connect(format!("http://127.0.0.1:{}", app.port))
        .await
        .unwrap();
    let tomorrow = millis_to_rfc3339(miclub_platform::storage::now_millis() + 86_400_000);
    let confirmed = direct
        .confirm_due_accruals(app.as_service(ConfirmDueAccrualsRequest { up_to: tomorrow }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(confirmed.confirmed, accruing);
    assert_eq!(
        app.balance_of(&member.id).await,
        accrued.iter().sum::<i64>()
    );
}
