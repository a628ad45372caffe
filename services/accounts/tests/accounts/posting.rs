//! `PostPurchase` and `ConfirmDueAccruals`: a purchase posts once whatever the retries, writes
//! its pending accrual and its outbox event together or not at all, and accrues what the rule
//! engine says; confirmation moves the balance.

use std::time::Duration;

use chrono::{DateTime, Weekday};
use miclub_accounts::domain::{Ledger, MovementId, MovementKind, MovementStatus};
use miclub_accrual::{Purchase, RuleSet};
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::shutdown;
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    Category, ConfirmDueAccrualsRequest, PaymentMethod, PostPurchaseRequest, PostPurchaseResponse,
    RecordMovementRequest,
};
use sqlx::Row;

use crate::support::{TestApp, count, days_ago, purchase};

/// Every table a post writes to, in one snapshot.
async fn written(app: &TestApp) -> [i64; 3] {
    [
        count(&app.store, "purchases").await,
        count(&app.store, "movements").await,
        count(&app.store, "outbox").await,
    ]
}

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

fn with_token<T>(app: &TestApp, message: T, token: Option<&str>) -> tonic::Request<T> {
    match token {
        Some(token) => app.authorized(message, token),
        None => tonic::Request::new(message),
    }
}

fn assert_refused(status: &tonic::Status, grpc: tonic::Code, code: ErrorCode) {
    assert_eq!(status.code(), grpc, "{status:?}");
    assert_eq!(ErrorBody::from_status(status).code, code, "{status:?}");
}

async fn fifty_concurrent_posts_of_one_purchase_make_one_purchase_one_movement_and_one_event(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let request = purchase(
        &member,
        "till-7:000001",
        &days_ago(1),
        PaymentMethod::OtherCard,
        &[(Category::Meat, 25_000), (Category::Drinks, 4_990)],
    );
    let client = app.client().await;

    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let mut client = client.clone();
        let call = app.as_service(request.clone());
        tasks.spawn(async move { client.post_purchase(call).await.map(|r| r.into_inner()) });
    }
    let mut answers = Vec::new();
    while let Some(answer) = tasks.join_next().await {
        answers.push(answer.unwrap().expect("every post succeeds"));
    }

    assert_eq!(answers.iter().filter(|a| a.replayed).count(), 49);
    let first = answers.iter().find(|a| !a.replayed).unwrap().clone();
    for answer in &answers {
        assert_eq!(
            PostPurchaseResponse {
                replayed: false,
                ..answer.clone()
            },
            first
        );
    }
    assert!(first.accrued > 0);
    assert_eq!(written(&app).await, [1, 1, 1]);
    let ledger = app.store.movements(&member.id).await.unwrap();
    assert_eq!(ledger[0].id().as_str(), first.movement_id);
    assert_eq!(ledger[0].amount(), first.accrued);
}

async fn the_same_key_with_another_payload_is_refused_and_changes_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let at = days_ago(2);
    let lines = [(Category::FruitsAndVegetables, 12_000)];
    let first = post(
        &app,
        purchase(&member, "till-3:42424242", &at, PaymentMethod::Cash, &lines),
    )
    .await
    .unwrap();
    let before = written(&app).await;

    let other_amount = purchase(
        &member,
        "till-3:42424242",
        &at,
        PaymentMethod::Cash,
        &[(Category::FruitsAndVegetables, 12_001)],
    );
    let refused = post(&app, other_amount).await.unwrap_err();
    let mut other_store = purchase(&member, "till-3:42424242", &at, PaymentMethod::Cash, &lines);
    other_store.store_name = "Lider Ñuñoa".into();
    let refused_too = post(&app, other_store).await.unwrap_err();

    assert_refused(
        &refused,
        tonic::Code::AlreadyExists,
        ErrorCode::IdempotencyMismatch,
    );
    assert_refused(
        &refused_too,
        tonic::Code::AlreadyExists,
        ErrorCode::IdempotencyMismatch,
    );
    assert_eq!(written(&app).await, before);
    // The first post is still the one the key answers, even written in another RUT format.
    let mut same = purchase(&member, "till-3:42424242", &at, PaymentMethod::Cash, &lines);
    if let miclub_accounts::domain::Document::Rut(rut) = &member.document {
        same.member_document = rut.formatted();
    }
    let replayed = post(&app, same).await.unwrap();
    assert!(replayed.replayed);
    assert_eq!(
        PostPurchaseResponse {
            replayed: false,
            ..replayed
        },
        first
    );
}

async fn a_post_for_a_member_without_a_club_account_or_unknown_writes_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let without_account = app.add_member_without_account().await;
    let unknown = crate::support::full_member();

    let no_account = post(
        &app,
        purchase(
            &without_account,
            "till-1:no-account",
            &days_ago(0),
            PaymentMethod::PartnerCard,
            &[(Category::Other, 9_990)],
        ),
    )
    .await
    .unwrap_err();
    let nobody = post(
        &app,
        purchase(
            &unknown,
            "till-1:nobody-00",
            &days_ago(0),
            PaymentMethod::PartnerCard,
            &[(Category::Other, 9_990)],
        ),
    )
    .await
    .unwrap_err();

    assert_refused(
        &no_account,
        tonic::Code::FailedPrecondition,
        ErrorCode::NoClubAccount,
    );
    assert_refused(&nobody, tonic::Code::NotFound, ErrorCode::NotFound);
    assert_eq!(written(&app).await, [0, 0, 0]);
}

async fn internal_calls_refuse_a_member_token_and_a_missing_token(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let member_token = app.token(&member.id);
    let request = purchase(
        &member,
        "till-9:forbidden",
        &days_ago(0),
        PaymentMethod::Cash,
        &[(Category::Meat, 1_000)],
    );
    let redemption = RecordMovementRequest {
        movement_id: "bo-forbidden".into(),
        member_id: member.id.as_str().into(),
        kind: miclub_proto::accounts::v1::MovementKind::Adjustment as i32,
        amount: 1_000_000,
        description: "Ajuste por reclamo".into(),
        occurred_at: String::new(),
    };
    let confirm = ConfirmDueAccrualsRequest { up_to: days_ago(0) };
    let mut client = app.bare_client().await;

    for (token, grpc, code) in [
        (
            Some(member_token.as_str()),
            tonic::Code::PermissionDenied,
            ErrorCode::Forbidden,
        ),
        (
            None,
            tonic::Code::Unauthenticated,
            ErrorCode::Unauthenticated,
        ),
    ] {
        let posted = client
            .post_purchase(with_token(&app, request.clone(), token))
            .await
            .unwrap_err();
        let recorded = client
            .record_movement(with_token(&app, redemption.clone(), token))
            .await
            .unwrap_err();
        let confirmed = client
            .confirm_due_accruals(with_token(&app, confirm.clone(), token))
            .await
            .unwrap_err();
        for status in [posted, recorded, confirmed] {
            assert_refused(&status, grpc, code);
        }
    }
    assert_eq!(written(&app).await, [0, 0, 0]);
    assert_eq!(app.balance_of(&member.id).await, 0);
}

async fn a_monday_partner_card_purchase_accrues_what_the_rule_engine_says(env: TestEnv) {
    // The relay stays out of the way: the outbox row is checked as the post left it.
    let app = TestApp::spawn_relaying_every(env, false, Duration::from_secs(3_600)).await;
    let member = app.add_member_with_account().await;
    // 23:00 on Monday 16 November in Chile, already Tuesday in UTC.
    let purchased_at = "2026-11-17T02:00:00Z";
    let lines = [(Category::Meat, 10_000), (Category::Drinks, 2_500)];

    let posted = post(
        &app,
        purchase(
            &member,
            "till-2:monday-01",
            purchased_at,
            PaymentMethod::PartnerCard,
            &lines,
        ),
    )
    .await
    .unwrap();

    let rules = RuleSet::builtin();
    let expected = rules.accrue(
        &Purchase::new(
            Weekday::Mon,
            Some(miclub_accrual::PaymentMethod::PartnerCard),
            vec![
                miclub_accrual::PurchaseLine {
                    category: miclub_accrual::Category::Meat,
                    amount: 10_000,
                },
                miclub_accrual::PurchaseLine {
                    category: miclub_accrual::Category::Drinks,
                    amount: 2_500,
                },
            ],
        )
        .unwrap(),
    );
    // The partner card's 0,9% on 12.500 pesos: the Monday 6% is a discount at the till, never
    // accumulation.
    assert_eq!(expected.total, 90 + 22);
    assert_eq!(posted.accrued, expected.total);
    assert_eq!(posted.rules_version, rules.version());
    assert!(!posted.replayed);

    let movement = app
        .store
        .find_movement(&MovementId::parse(&posted.movement_id).unwrap())
        .await
        .unwrap()
        .expect("the accrual");
    assert_eq!(movement.kind(), MovementKind::Accrual);
    assert_eq!(movement.status(), MovementStatus::Pending);
    assert_eq!(movement.amount(), 112);
    assert_eq!(movement.reason().as_str(), "Compra en Lider Providencia");
    let at = DateTime::parse_from_rfc3339(purchased_at)
        .unwrap()
        .timestamp_millis();
    assert_eq!(movement.occurred_at(), at);
    // Pending: the balance waits for the return window.
    assert_eq!(app.balance_of(&member.id).await, 0);

    let row = sqlx::query(
        "SELECT o.topic, o.member_id, o.payload, o.published_at, p.purchase_id, p.total, \
         p.accrued, p.payment_method, p.movement_id FROM outbox o, purchases p",
    )
    .fetch_one(app.store.database().pool())
    .await
    .unwrap();
    assert_eq!(row.get::<String, _>("topic"), "purchase.posted");
    assert_eq!(row.get::<String, _>("member_id"), member.id.as_str());
    assert_eq!(row.get::<Option<i64>, _>("published_at"), None);
    assert_eq!(row.get::<String, _>("purchase_id"), posted.purchase_id);
    assert_eq!(row.get::<i64, _>("total"), 12_500);
    assert_eq!(row.get::<i64, _>("accrued"), 112);
    assert_eq!(row.get::<String, _>("payment_method"), "partner_card");
    assert_eq!(row.get::<String, _>("movement_id"), posted.movement_id);
    let payload: serde_json::Value =
        serde_json::from_str(&row.get::<String, _>("payload")).unwrap();
    assert_eq!(payload["purchase_id"], posted.purchase_id.as_str());
    assert_eq!(payload["member_id"], member.id.as_str());
    assert_eq!(payload["purchased_at"], purchased_at);
    assert_eq!(payload["total"], 12_500);
    assert_eq!(payload["accrued"], 112);
    assert_eq!(
        payload["lines"],
        serde_json::json!([
            {"category": "meat", "amount": 10_000, "product_category_id": 0},
            {"category": "drinks", "amount": 2_500, "product_category_id": 0},
        ])
    );
    assert!(
        payload["event_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
}

async fn a_purchase_that_accrues_nothing_is_posted_without_a_movement(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    // 0,8% of 100 pesos rounds down to nothing.
    let posted = post(
        &app,
        purchase(
            &member,
            "till-5:tiny-0001",
            &days_ago(0),
            PaymentMethod::Cash,
            &[(Category::Other, 100)],
        ),
    )
    .await
    .unwrap();

    assert_eq!(posted.accrued, 0);
    assert_eq!(posted.movement_id, "");
    assert_eq!(written(&app).await, [1, 0, 1]);
}

async fn an_invalid_purchase_is_refused_naming_its_field_and_writes_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let valid = || {
        purchase(
            &member,
            "till-4:valid-001",
            &days_ago(0),
            PaymentMethod::Cash,
            &[(Category::Meat, 5_000)],
        )
    };
    let in_ten_minutes = miclub_platform::storage::millis_to_rfc3339(now_millis() + 600_000);
    let cases: Vec<(&str, PostPurchaseRequest)> = vec![
        (
            "idempotency_key",
            PostPurchaseRequest {
                idempotency_key: "short".into(),
                ..valid()
            },
        ),
        (
            "idempotency_key",
            PostPurchaseRequest {
                idempotency_key: "with spaces 123".into(),
                ..valid()
            },
        ),
        (
            "member_document",
            PostPurchaseRequest {
                member_document: "11.111.111-2".into(),
                ..valid()
            },
        ),
        (
            "store_id",
            PostPurchaseRequest {
                store_id: String::new(),
                ..valid()
            },
        ),
        (
            "store_name",
            PostPurchaseRequest {
                store_name: "  ".into(),
                ..valid()
            },
        ),
        (
            "purchased_at",
            PostPurchaseRequest {
                purchased_at: "yesterday".into(),
                ..valid()
            },
        ),
        (
            "purchased_at",
            PostPurchaseRequest {
                purchased_at: in_ten_minutes,
                ..valid()
            },
        ),
        (
            "payment_method",
            PostPurchaseRequest {
                payment_method: PaymentMethod::Unspecified as i32,
                ..valid()
            },
        ),
        (
            "lines",
            PostPurchaseRequest {
                lines: vec![],
                ..valid()
            },
        ),
        (
            "lines",
            purchase(
                &member,
                "till-4:valid-001",
                &days_ago(0),
                PaymentMethod::Cash,
                &[(Category::Meat, 5_000), (Category::Drinks, 0)],
            ),
        ),
        (
            "lines",
            purchase(
                &member,
                "till-4:valid-001",
                &days_ago(0),
                PaymentMethod::Cash,
                &[(Category::Unspecified, 5_000)],
            ),
        ),
    ];

    for (field, request) in cases {
        let status = post(&app, request).await.unwrap_err();
        assert_refused(
            &status,
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
        );
        assert_eq!(
            ErrorBody::from_status(&status).field.as_deref(),
            Some(field)
        );
    }
    assert_eq!(written(&app).await, [0, 0, 0]);
    post(&app, valid()).await.expect("the valid one posts");
}

async fn confirming_due_accruals_moves_the_balance_and_leaves_recent_ones_pending(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let old = post(
        &app,
        purchase(
            &member,
            "till-6:old-00001",
            &days_ago(20),
            PaymentMethod::Cash,
            &[(Category::Other, 50_000)],
        ),
    )
    .await
    .unwrap();
    let recent = post(
        &app,
        purchase(
            &member,
            "till-6:recent-01",
            &days_ago(3),
            PaymentMethod::Cash,
            &[(Category::Other, 30_000)],
        ),
    )
    .await
    .unwrap();
    let mut client = app.client().await;
    let window_end = ConfirmDueAccrualsRequest {
        up_to: days_ago(14),
    };

    let confirmed = client
        .confirm_due_accruals(app.as_service(window_end.clone()))
        .await
        .unwrap()
        .into_inner();
    let again = client
        .confirm_due_accruals(app.as_service(window_end))
        .await
        .unwrap()
        .into_inner();

    // 0,8% of 50.000: cash, and no day rule for "other".
    assert_eq!(old.accrued, 400);
    assert_eq!(confirmed.confirmed, 1);
    assert_eq!(again.confirmed, 0);
    assert_eq!(app.balance_of(&member.id).await, old.accrued);
    assert_eq!(
        app.store.confirmed_total(&member.id).await.unwrap(),
        old.accrued
    );
    let still_pending = app
        .store
        .find_movement(&MovementId::parse(&recent.movement_id).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(still_pending.status(), MovementStatus::Pending);

    let invalid = client
        .confirm_due_accruals(app.as_service(ConfirmDueAccrualsRequest {
            up_to: String::new(),
        }))
        .await
        .unwrap_err();
    assert_eq!(
        ErrorBody::from_status(&invalid).field.as_deref(),
        Some("up_to")
    );
}

async fn the_background_task_confirms_accruals_past_the_return_window_and_stops_on_shutdown(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let old = post(
        &app,
        purchase(
            &member,
            "till-8:old-00001",
            &days_ago(15),
            PaymentMethod::Cash,
            &[(Category::Other, 25_000)],
        ),
    )
    .await
    .unwrap();
    post(
        &app,
        purchase(
            &member,
            "till-8:recent-01",
            &days_ago(13),
            PaymentMethod::Cash,
            &[(Category::Other, 25_000)],
        ),
    )
    .await
    .unwrap();
    let ledger = Ledger::new(app.store.clone(), std::sync::Arc::new(RuleSet::builtin()));
    let (trigger, stop) = shutdown::channel();
    let task = tokio::spawn(ledger.confirm_periodically(
        Duration::from_secs(14 * 86_400),
        Duration::from_millis(50),
        stop,
    ));

    let mut balance = 0;
    for _ in 0..200 {
        balance = app.balance_of(&member.id).await;
        if balance > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    trigger.trigger();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the task stops on shutdown")
        .unwrap();

    assert_eq!(balance, old.accrued);
    let ledger = app.store.movements(&member.id).await.unwrap();
    let statuses: Vec<_> = ledger.iter().map(|m| m.status()).collect();
    assert_eq!(
        statuses,
        [MovementStatus::Confirmed, MovementStatus::Pending]
    );
}

async fn a_retry_after_the_member_left_the_club_answers_the_first_result_and_writes_nothing(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let request = purchase(
        &member,
        "till-5:00000077",
        &days_ago(1),
        PaymentMethod::Cash,
        &[(Category::Meat, 18_000)],
    );
    let first = post(&app, request.clone()).await.unwrap();
    let before = written(&app).await;
    // The till's acknowledgement was lost and it retries after the member unsubscribed: the
    // purchase was posted while they were a member, so the retry hears what the first heard.
    sqlx::query("UPDATE members SET status = 'unsubscribed' WHERE member_id = $1")
        .bind(member.id.as_str())
        .execute(app.store.database().pool())
        .await
        .unwrap();

    let retried = post(&app, request.clone()).await.unwrap();
    assert!(retried.replayed);
    assert_eq!(
        PostPurchaseResponse {
            replayed: false,
            ..retried
        },
        first
    );
    assert_eq!(written(&app).await, before);
    // A key nobody posted is refused for the same member, as before.
    let mut new_key = request;
    new_key.idempotency_key = "till-5:00000078".into();
    assert_refused(
        &post(&app, new_key).await.unwrap_err(),
        tonic::Code::NotFound,
        ErrorCode::NotFound,
    );
    assert_eq!(written(&app).await, before);
}

backend_tests!(
    fifty_concurrent_posts_of_one_purchase_make_one_purchase_one_movement_and_one_event,
    the_same_key_with_another_payload_is_refused_and_changes_nothing,
    a_retry_after_the_member_left_the_club_answers_the_first_result_and_writes_nothing,
    a_post_for_a_member_without_a_club_account_or_unknown_writes_nothing,
    internal_calls_refuse_a_member_token_and_a_missing_token,
    a_monday_partner_card_purchase_accrues_what_the_rule_engine_says,
    a_purchase_that_accrues_nothing_is_posted_without_a_movement,
    an_invalid_purchase_is_refused_naming_its_field_and_writes_nothing,
    confirming_due_accruals_moves_the_balance_and_leaves_recent_ones_pending,
    the_background_task_confirms_accruals_past_the_return_window_and_stops_on_shutdown,
);
