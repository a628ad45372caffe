//! The ledger rules, at the store and over gRPC: the balance moves only with a movement, in
//! one transaction, and never below zero, whatever runs at the same time; back-office
//! movements are recorded once per movement id.

use miclub_accounts::domain::MemberId;
use miclub_accounts::domain::MovementKind::{Accrual, Adjustment, Redemption};
use miclub_accounts::domain::MovementStatus::{Confirmed, Pending};
use miclub_accounts::error::AccountsError;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::testing::TestEnv;
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1 as pb;

use crate::support::{TERMS_ACCEPTED_AT, TestApp, count, days_ago, movement, purchase};

const T: i64 = TERMS_ACCEPTED_AT;

async fn a_movement_that_would_make_the_balance_negative_is_refused_and_changes_nothing(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let earned = movement(
        &member.id,
        Accrual,
        Confirmed,
        1_000,
        "Compra en Lider Providencia",
        T,
    );
    app.store.record_movement(&earned, T).await.unwrap();
    let before = app.store.balance(&member.id).await.unwrap().unwrap();
    let ledger_before = app.store.movements(&member.id).await.unwrap();

    let too_much = movement(
        &member.id,
        Redemption,
        Confirmed,
        -1_001,
        "Canje en caja",
        T + 1,
    );
    let refused = app.store.record_movement(&too_much, T + 1).await;
    let negative_fix = movement(
        &member.id,
        Adjustment,
        Confirmed,
        -5_000,
        "Ajuste por reclamo",
        T + 2,
    );
    let refused_adjustment = app.store.record_movement(&negative_fix, T + 2).await;

    assert!(
        matches!(refused, Err(AccountsError::InsufficientBalance)),
        "{refused:?}"
    );
    assert!(matches!(
        refused_adjustment,
        Err(AccountsError::InsufficientBalance)
    ));
    assert_eq!(
        app.store.balance(&member.id).await.unwrap().unwrap(),
        before
    );
    assert_eq!(
        app.store.movements(&member.id).await.unwrap(),
        ledger_before
    );
    assert_eq!(app.store.confirmed_total(&member.id).await.unwrap(), 1_000);

    let exactly_all = movement(
        &member.id,
        Redemption,
        Confirmed,
        -1_000,
        "Canje en caja",
        T + 3,
    );
    app.store
        .record_movement(&exactly_all, T + 3)
        .await
        .unwrap();
    assert_eq!(
        app.store
            .balance(&member.id)
            .await
            .unwrap()
            .unwrap()
            .pesos(),
        0
    );
}

async fn a_movement_for_a_member_without_a_club_account_is_refused(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;

    for status in [Confirmed, Pending] {
        let m = movement(
            &member.id,
            Accrual,
            status,
            500,
            "Compra en Lider Providencia",
            T,
        );
        let refused = app.store.record_movement(&m, T).await;
        assert!(
            matches!(refused, Err(AccountsError::NoClubAccount)),
            "{refused:?}"
        );
    }
    assert_eq!(count(&app.store, "movements").await, 0);
}

async fn a_movement_recorded_twice_counts_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let m = movement(
        &member.id,
        Accrual,
        Confirmed,
        800,
        "Compra en Lider Providencia",
        T,
    );

    app.store.record_movement(&m, T).await.unwrap();
    let again = app.store.record_movement(&m, T).await;

    assert!(
        matches!(again, Err(AccountsError::DuplicateMovement)),
        "{again:?}"
    );
    assert_eq!(
        app.store
            .balance(&member.id)
            .await
            .unwrap()
            .unwrap()
            .pesos(),
        800
    );
    assert_eq!(app.store.movements(&member.id).await.unwrap().len(), 1);
}

async fn concurrent_redemptions_never_take_the_balance_below_zero(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let earned = movement(
        &member.id,
        Accrual,
        Confirmed,
        1_000,
        "Compra en Lider Providencia",
        T,
    );
    app.store.record_movement(&earned, T).await.unwrap();

    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..10 {
        let store = app.store.clone();
        let m = movement(
            &member.id,
            Redemption,
            Confirmed,
            -300,
            "Canje en caja",
            T + i,
        );
        tasks.spawn(async move { store.record_movement(&m, T + i).await });
    }
    let mut accepted = 0;
    while let Some(result) = tasks.join_next().await {
        match result.unwrap() {
            Ok(_) => accepted += 1,
            Err(AccountsError::InsufficientBalance) => {}
            Err(other) => panic!("unexpected {other:?}"),
        }
    }

    assert_eq!(accepted, 3);
    let balance = app
        .store
        .balance(&member.id)
        .await
        .unwrap()
        .unwrap()
        .pesos();
    assert_eq!(balance, 100);
    assert_eq!(
        balance,
        app.store.confirmed_total(&member.id).await.unwrap()
    );
    assert_eq!(app.store.movements(&member.id).await.unwrap().len(), 4);
}

fn back_office(
    movement_id: &str,
    member_id: &MemberId,
    kind: pb::MovementKind,
    amount: i64,
    description: &str,
    occurred_at: &str,
) -> pb::RecordMovementRequest {
    pb::RecordMovementRequest {
        movement_id: movement_id.into(),
        member_id: member_id.as_str().into(),
        kind: kind as i32,
        amount,
        description: description.into(),
        occurred_at: occurred_at.into(),
    }
}

async fn record(
    app: &TestApp,
    request: pb::RecordMovementRequest,
) -> Result<pb::RecordMovementResponse, tonic::Status> {
    app.client()
        .await
        .record_movement(app.as_service(request))
        .await
        .map(tonic::Response::into_inner)
}

async fn a_back_office_movement_is_recorded_once_per_movement_id(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let earned = movement(
        &member.id,
        Accrual,
        Confirmed,
        1_000,
        "Compra en Lider.cl",
        T,
    );
    app.store.record_movement(&earned, T).await.unwrap();
    let redemption = back_office(
        "bo-redeem-0001",
        &member.id,
        pb::MovementKind::Redemption,
        -300,
        "Canje en caja",
        "",
    );

    let first = record(&app, redemption.clone()).await.unwrap();
    let retried = record(&app, redemption.clone()).await.unwrap();
    let other = record(
        &app,
        pb::RecordMovementRequest {
            amount: -301,
            ..redemption.clone()
        },
    )
    .await
    .unwrap_err();
    let dated = record(
        &app,
        back_office(
            "bo-adjust-0001",
            &member.id,
            pb::MovementKind::Adjustment,
            50,
            "Ajuste por reclamo",
            "2026-03-02T10:00:00-03:00",
        ),
    )
    .await
    .unwrap();

    assert!(!first.replayed);
    assert_eq!(first.balance, 700);
    let recorded = first.movement.clone().unwrap();
    assert_eq!(recorded.movement_id, "bo-redeem-0001");
    assert_eq!(recorded.kind(), pb::MovementKind::Redemption);
    assert_eq!(recorded.status(), pb::MovementStatus::Confirmed);
    assert_eq!(
        (recorded.amount, recorded.description.as_str()),
        (-300, "Canje en caja")
    );
    assert!(retried.replayed);
    assert_eq!(retried.balance, 700);
    assert_eq!(retried.movement, first.movement);
    assert_eq!(other.code(), tonic::Code::AlreadyExists);
    assert_eq!(
        ErrorBody::from_status(&other).code,
        ErrorCode::IdempotencyMismatch
    );
    assert_eq!(dated.balance, 750);
    assert_eq!(dated.movement.unwrap().occurred_at, "2026-03-02T13:00:00Z");
    assert_eq!(app.store.movements(&member.id).await.unwrap().len(), 3);
    assert_eq!(app.balance_of(&member.id).await, 750);
    assert_eq!(app.store.confirmed_total(&member.id).await.unwrap(), 750);
}

async fn a_redemption_that_would_overdraw_is_refused_with_insufficient_balance(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let earned = movement(&member.id, Accrual, Confirmed, 700, "Compra en Lider.cl", T);
    app.store.record_movement(&earned, T).await.unwrap();

    let overdraft = record(
        &app,
        back_office(
            "bo-too-much-01",
            &member.id,
            pb::MovementKind::Redemption,
            -701,
            "Canje en caja",
            "",
        ),
    )
    .await
    .unwrap_err();
    let accrual = record(
        &app,
        back_office(
            "bo-accrual-001",
            &member.id,
            pb::MovementKind::Accrual,
            701,
            "Regalo",
            "",
        ),
    )
    .await
    .unwrap_err();
    let wrong_sign = record(
        &app,
        back_office(
            "bo-sign-00001",
            &member.id,
            pb::MovementKind::Expiration,
            10,
            "Vencimiento de pesos",
            "",
        ),
    )
    .await
    .unwrap_err();
    let nobody = record(
        &app,
        back_office(
            "bo-nobody-001",
            &MemberId::generate(),
            pb::MovementKind::Adjustment,
            10,
            "Ajuste",
            "",
        ),
    )
    .await
    .unwrap_err();

    assert_eq!(overdraft.code(), tonic::Code::FailedPrecondition);
    let body = ErrorBody::from_status(&overdraft);
    assert_eq!(body.code, ErrorCode::InsufficientBalance);
    assert_eq!(body.message, "Tu saldo no alcanza para esta operación.");
    for (status, field) in [(accrual, "kind"), (wrong_sign, "amount")] {
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(
            ErrorBody::from_status(&status).field.as_deref(),
            Some(field)
        );
    }
    assert_eq!(nobody.code(), tonic::Code::NotFound);
    assert_eq!(app.balance_of(&member.id).await, 700);
    assert_eq!(app.store.movements(&member.id).await.unwrap().len(), 1);
}

/// One step of the random workload.
#[derive(Debug, Clone)]
enum Step {
    Post(pb::PostPurchaseRequest),
    Confirm,
    Redeem(pb::RecordMovementRequest),
}

async fn random_concurrent_purchases_confirmations_and_redemptions_keep_every_balance_equal_to_its_confirmed_movements(
    env: TestEnv,
) {
    use rand::Rng;

    let app = TestApp::spawn(env).await;
    let mut members = Vec::new();
    for _ in 0..4 {
        members.push(app.add_member_with_account().await);
    }
    let mut rng = rand::rng();
    let mut steps = Vec::new();
    let mut posts: Vec<pb::PostPurchaseRequest> = Vec::new();
    for i in 0..120 {
        let member = &members[rng.random_range(0..members.len())];
        let step = match rng.random_range(0..10) {
            // A till retrying an earlier purchase.
            0 if !posts.is_empty() => Step::Post(posts[rng.random_range(0..posts.len())].clone()),
            0..=4 => {
                let request = purchase(
                    member,
                    &format!("till-r:{i:06}"),
                    &days_ago(rng.random_range(15..60)),
                    pb::PaymentMethod::Cash,
                    &[(pb::Category::Other, rng.random_range(1_000..200_000))],
                );
                posts.push(request.clone());
                Step::Post(request)
            }
            5..=6 => Step::Confirm,
            _ => Step::Redeem(back_office(
                &format!("bo-r-{i:06}"),
                &member.id,
                pb::MovementKind::Redemption,
                -rng.random_range(100..1_500),
                "Canje en caja",
                "",
            )),
        };
        steps.push(step);
    }
    let planned_redemptions = steps
        .iter()
        .filter(|s| matches!(s, Step::Redeem(_)))
        .count();
    let client = app.client().await;
    let service = app.service_token();

    let mut tasks = tokio::task::JoinSet::new();
    for step in steps {
        let mut client = client.clone();
        let service = service.clone();
        tasks.spawn(async move {
            match step.clone() {
                Step::Post(request) => client
                    .post_purchase(with_bearer(request, &service))
                    .await
                    .map(|_| ()),
                Step::Confirm => client
                    .confirm_due_accruals(with_bearer(
                        pb::ConfirmDueAccrualsRequest {
                            up_to: days_ago(14),
                        },
                        &service,
                    ))
                    .await
                    .map(|_| ()),
                Step::Redeem(request) => client
                    .record_movement(with_bearer(request, &service))
                    .await
                    .map(|answer| assert!(answer.into_inner().balance >= 0)),
            }
            .map_err(|status| (step, status))
        });
    }
    let mut refused = 0;
    while let Some(outcome) = tasks.join_next().await {
        match outcome.unwrap() {
            Ok(()) => {}
            Err((Step::Redeem(_), status))
                if ErrorBody::from_status(&status).code == ErrorCode::InsufficientBalance =>
            {
                refused += 1;
            }
            Err((step, status)) => panic!("{step:?} failed: {status:?}"),
        }
    }

    for member in &members {
        let balance = app.balance_of(&member.id).await;
        assert!(balance >= 0);
        assert_eq!(
            balance,
            app.store.confirmed_total(&member.id).await.unwrap(),
            "the bank invariant"
        );
    }
    // Everything confirmed, each balance is what its purchases earned minus what was redeemed.
    app.client()
        .await
        .confirm_due_accruals(app.as_service(pb::ConfirmDueAccrualsRequest {
            up_to: days_ago(14),
        }))
        .await
        .unwrap();
    let mut keys: Vec<_> = posts.iter().map(|p| p.idempotency_key.clone()).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(count(&app.store, "purchases").await, keys.len() as i64);
    assert_eq!(count(&app.store, "outbox").await, keys.len() as i64);
    let mut redemptions = 0;
    for member in &members {
        let ledger = app.store.movements(&member.id).await.unwrap();
        assert!(ledger.iter().all(|m| m.status() == Confirmed));
        redemptions += ledger.iter().filter(|m| m.kind() == Redemption).count();
        let sum: i64 = ledger.iter().map(|m| m.amount()).sum();
        assert_eq!(app.balance_of(&member.id).await, sum);
    }
    assert_eq!(redemptions + refused, planned_redemptions);
}

backend_tests!(
    a_movement_that_would_make_the_balance_negative_is_refused_and_changes_nothing,
    a_movement_for_a_member_without_a_club_account_is_refused,
    a_movement_recorded_twice_counts_once,
    concurrent_redemptions_never_take_the_balance_below_zero,
    a_back_office_movement_is_recorded_once_per_movement_id,
    a_redemption_that_would_overdraw_is_refused_with_insufficient_balance,
    random_concurrent_purchases_confirmations_and_redemptions_keep_every_balance_equal_to_its_confirmed_movements,
);
