//! Purchase events: the product category of each line (checked, stored, part of the purchase
//! for idempotency only when known), and the outbox relay that publishes each posted purchase to
//! `events:purchases` once in the normal case, retries after a bus failure, and keeps two
//! relays off each other's rows. Events are read back with a consumer group, on Redis beside
//! PostgreSQL and in memory beside SQLite.

use std::collections::HashSet;
use std::time::Duration;

use miclub_accounts::domain::{OrderLine, OutboxRelay, ProductCategoryId};
use miclub_accounts::store::Store;
use miclub_accrual::Category as EngineCategory;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::events::{SharedBus, streams};
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    Category, PaymentMethod, PostPurchaseRequest, PostPurchaseResponse,
};
use sqlx::Row;

use crate::support::{TestApp, count, days_ago, purchase};

/// The group the tests read with, as missions does with "missions".
const GROUP: &str = "accounts-test";

async fn post(
    app: &TestApp,
    request: PostPurchaseRequest,
) -> Result<PostPurchaseResponse, tonic::Status> {
    app.client()
        .await
        .post_purchase(app.as_service(request))
        .await
        .map(tonic::Response::into_inner)
}

/// `request` with the product category ids of its lines, in order.
fn with_products(mut request: PostPurchaseRequest, ids: &[i32]) -> PostPurchaseRequest {
    for (line, id) in request.lines.iter_mut().zip(ids) {
        line.product_category_id = *id;
    }
    request
}

async fn unpublished(store: &Store) -> i64 {
    store.count_unpublished().await.unwrap()
}

/// Waits up to five seconds for the outbox to have `n` unpublished rows.
async fn until_unpublished(store: &Store, n: i64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while unpublished(store).await != n {
        assert!(
            tokio::time::Instant::now() < deadline,
            "outbox never reached {n} unpublished (has {})",
            unpublished(store).await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn a_posted_purchase_reaches_the_bus_once_with_the_contract_payload(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let purchased_at = days_ago(1);
    let request = with_products(
        purchase(
            &member,
            "till-9:event-0001",
            &purchased_at,
            PaymentMethod::OtherCard,
            &[
                (Category::Meat, 15_000),
                (Category::FruitsAndVegetables, 10_000),
            ],
        ),
        &[10, 0],
    );
    let posted = post(&app, request.clone()).await.unwrap();
    // A retry of the same post is no second event.
    assert!(post(&app, request).await.unwrap().replayed);

    let events = app
        .bus
        .wait_for(
            streams::PURCHASES,
            GROUP,
            1,
            Duration::from_secs(10),
            Duration::from_millis(500),
        )
        .await;
    assert_eq!(events.len(), 1, "{events:?}");
    let event = &events[0];
    let event_id: String = sqlx::query("SELECT event_id FROM outbox")
        .fetch_one(app.store.database().pool())
        .await
        .unwrap()
        .get("event_id");
    assert_eq!(event.id, event_id);
    assert_eq!(event.topic, "purchase.posted");
    let payload: serde_json::Value = serde_json::from_str(&event.payload).unwrap();
    assert_eq!(
        payload,
        serde_json::json!({
            "event_id": event_id,
            "purchase_id": posted.purchase_id,
            "member_id": member.id.as_str(),
            "purchased_at": purchased_at,
            "total": 25_000,
            "accrued": posted.accrued,
            "lines": [
                {"category": "meat", "amount": 15_000, "product_category_id": 10},
                {"category": "fruits_and_vegetables", "amount": 10_000, "product_category_id": 0},
            ],
        })
    );
    assert!(posted.accrued > 0);
    until_unpublished(&app.store, 0).await;
}

async fn a_product_category_outside_one_to_57_or_the_unused_16_is_refused_in_spanish(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    for (n, bad) in [16, 58, -1, 1_000].into_iter().enumerate() {
        let request = with_products(
            purchase(
                &member,
                &format!("till-9:bad-{n:04}"),
                &days_ago(1),
                PaymentMethod::Cash,
                &[(Category::Meat, 5_000), (Category::Drinks, 1_000)],
            ),
            &[1, bad],
        );
        let status = post(&app, request).await.unwrap_err();
        assert_eq!(
            status.code(),
            tonic::Code::InvalidArgument,
            "{bad}: {status:?}"
        );
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some("lines"), "{bad}");
        assert!(
            body.message.contains("categoría de producto"),
            "{bad}: {:?}",
            body.message
        );
    }
    assert_eq!(count(&app.store, "purchases").await, 0);
    assert_eq!(count(&app.store, "outbox").await, 0);
}

async fn product_categories_are_stored_with_the_lines_and_old_lines_read_as_unknown(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let posted = post(
        &app,
        with_products(
            purchase(
                &member,
                "till-9:stored-01",
                &days_ago(1),
                PaymentMethod::Cash,
                &[
                    (Category::Meat, 5_000),
                    (Category::Drinks, 1_000),
                    (Category::Other, 700),
                ],
            ),
            &[57, 0, 1],
        ),
    )
    .await
    .unwrap();

    let stored = app
        .store
        .purchase_lines(&posted.purchase_id)
        .await
        .unwrap()
        .expect("the purchase");
    let product = |id| ProductCategoryId::parse(id).unwrap();
    assert_eq!(
        stored,
        vec![
            OrderLine {
                product_category_id: product(57),
                ..OrderLine::new(EngineCategory::Meat, 5_000)
            },
            OrderLine::new(EngineCategory::Drinks, 1_000),
            OrderLine {
                product_category_id: product(1),
                ..OrderLine::new(EngineCategory::Other, 700)
            },
        ]
    );

    // A row written before product categories existed.
    sqlx::query("UPDATE purchases SET lines = $1 WHERE purchase_id = $2")
        .bind(r#"[{"category":"meat","amount":5000},{"category":"drinks","amount":1000}]"#)
        .bind(&posted.purchase_id)
        .execute(app.store.database().pool())
        .await
        .unwrap();
    let old = app
        .store
        .purchase_lines(&posted.purchase_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        old,
        vec![
            OrderLine::new(EngineCategory::Meat, 5_000),
            OrderLine::new(EngineCategory::Drinks, 1_000),
        ]
    );
}

async fn a_known_product_category_is_part_of_the_purchase_for_idempotency_and_zero_is_not(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let at = days_ago(1);
    let without = purchase(
        &member,
        "till-9:idem-0001",
        &at,
        PaymentMethod::Cash,
        &[(Category::Meat, 5_000)],
    );
    let first = post(&app, without.clone()).await.unwrap();
    // Zero spelt out is the same purchase as no product category at all.
    let zero = with_products(without.clone(), &[0]);
    let replayed = post(&app, zero).await.unwrap();
    assert!(replayed.replayed);
    assert_eq!(replayed.purchase_id, first.purchase_id);

    let refused = post(&app, with_products(without, &[10])).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::AlreadyExists, "{refused:?}");
    assert_eq!(
        ErrorBody::from_status(&refused).code,
        ErrorCode::IdempotencyMismatch
    );
    assert_eq!(count(&app.store, "purchases").await, 1);
}

async fn a_bus_failure_leaves_the_event_unpublished_and_a_later_round_publishes_it(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    app.bus.fail(true);
    post(
        &app,
        purchase(
            &member,
            "till-9:down-0001",
            &days_ago(1),
            PaymentMethod::Cash,
            &[(Category::Meat, 5_000)],
        ),
    )
    .await
    .unwrap();

    // Several rounds try and fail.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while app.bus.attempts() < 3 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the relay never tried"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(unpublished(&app.store).await, 1);
    // A failed round gives its claim back (seen between rounds), so the next one retries.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    loop {
        let claimed: Option<String> = sqlx::query("SELECT claim_token FROM outbox")
            .fetch_one(app.store.database().pool())
            .await
            .unwrap()
            .get("claim_token");
        if claimed.is_none() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the failed claim was never given back"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        app.bus
            .drain(streams::PURCHASES, GROUP, Duration::from_millis(100))
            .await
            .is_empty()
    );

    app.bus.fail(false);
    let events = app
        .bus
        .wait_for(
            streams::PURCHASES,
            GROUP,
            1,
            Duration::from_secs(10),
            Duration::from_millis(300),
        )
        .await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].topic, "purchase.posted");
    until_unpublished(&app.store, 0).await;
}

async fn two_relays_running_at_once_publish_each_event_once(env: TestEnv) {
    // The app's own relay stays out of the way; two others, each with its own pool as two
    // replicas would have, drain the outbox together.
    let app = TestApp::spawn_relaying_every(env, false, Duration::from_secs(3_600)).await;
    let member = app.add_member_with_account().await;
    let purchases = 24;
    for n in 0..purchases {
        post(
            &app,
            purchase(
                &member,
                &format!("till-9:pair-{n:04}"),
                &days_ago(1),
                PaymentMethod::Cash,
                &[(Category::Meat, 1_000 + n)],
            ),
        )
        .await
        .unwrap();
    }
    assert_eq!(unpublished(&app.store).await, purchases);
    // Slow publishes keep both relays in the middle of a batch at the same time.
    app.bus.delay_publishes(Duration::from_millis(5));

    // Both relays are connected before either starts, and start together: on a loaded machine
    // the second one's connection (and its migration check) took longer than the first needed
    // to publish everything.
    let start = std::sync::Arc::new(tokio::sync::Barrier::new(2));
    let mut relays = tokio::task::JoinSet::new();
    for _ in 0..2 {
        let store = Store::connect(&app.env.database).await.unwrap();
        let bus: SharedBus = app.bus.clone();
        let relay = OutboxRelay::new(store, bus, 5);
        let start = start.clone();
        relays.spawn(async move {
            start.wait().await;
            let mut published = 0;
            let mut idle_rounds = 0;
            while idle_rounds < 3 {
                let round = relay.relay_once(now_millis()).await.unwrap();
                assert!(!round.failed);
                published += round.published;
                if round.claimed == 0 {
                    idle_rounds += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
            published
        });
    }
    let mut per_relay = Vec::new();
    while let Some(published) = relays.join_next().await {
        per_relay.push(published.unwrap());
    }

    assert_eq!(
        per_relay.iter().sum::<usize>(),
        purchases as usize,
        "{per_relay:?}"
    );
    assert!(
        per_relay.iter().all(|&n| n > 0),
        "both relays worked: {per_relay:?}"
    );
    assert_eq!(
        app.bus.attempts(),
        purchases as usize,
        "one publish per row"
    );
    let events = app
        .bus
        .drain(streams::PURCHASES, GROUP, Duration::from_millis(300))
        .await;
    assert_eq!(events.len(), purchases as usize);
    let distinct: HashSet<_> = events.iter().map(|e| e.id.clone()).collect();
    assert_eq!(
        distinct.len(),
        purchases as usize,
        "no event published twice"
    );
    assert_eq!(unpublished(&app.store).await, 0);
}

backend_tests!(
    a_posted_purchase_reaches_the_bus_once_with_the_contract_payload,
    a_product_category_outside_one_to_57_or_the_unused_16_is_refused_in_spanish,
    product_categories_are_stored_with_the_lines_and_old_lines_read_as_unknown,
    a_known_product_category_is_part_of_the_purchase_for_idempotency_and_zero_is_not,
    a_bus_failure_leaves_the_event_unpublished_and_a_later_round_publishes_it,
    two_relays_running_at_once_publish_each_event_once,
);
