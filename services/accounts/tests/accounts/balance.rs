//! `GetBalance`: the balance is the sum of the confirmed movements.

use miclub_accounts::domain::MovementKind::{Accrual, Adjustment, Expiration, Redemption};
use miclub_accounts::domain::MovementStatus::{Confirmed, Pending};
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::storage::millis_to_rfc3339;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::GetBalanceRequest;

use crate::support::{TERMS_ACCEPTED_AT, TestApp, movement};

const DAY: i64 = 86_400_000;

async fn a_member_sees_their_balance_and_it_equals_the_sum_of_confirmed_movements(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let t0 = TERMS_ACCEPTED_AT;
    let ledger = [
        movement(
            &member.id,
            Accrual,
            Confirmed,
            5_000,
            "Compra en Lider Providencia",
            t0,
        ),
        movement(
            &member.id,
            Redemption,
            Confirmed,
            -1_200,
            "Canje en caja",
            t0 + DAY,
        ),
        movement(
            &member.id,
            Expiration,
            Confirmed,
            -300,
            "Vencimiento de pesos",
            t0 + 2 * DAY,
        ),
        movement(
            &member.id,
            Adjustment,
            Confirmed,
            450,
            "Ajuste por reclamo",
            t0 + 3 * DAY,
        ),
        movement(
            &member.id,
            Accrual,
            Pending,
            999,
            "Compra en Lider Ñuñoa",
            t0 + 4 * DAY,
        ),
    ];
    for (i, m) in ledger.iter().enumerate() {
        app.store
            .record_movement(m, t0 + i as i64 * DAY)
            .await
            .unwrap();
    }

    let balance = app
        .client()
        .await
        .get_balance(app.authorized(GetBalanceRequest {}, &app.token(&member.id)))
        .await
        .expect("get balance")
        .into_inner();

    assert_eq!(balance.balance, 3_950);
    assert_eq!(
        balance.balance,
        app.store.confirmed_total(&member.id).await.unwrap()
    );
    // The pending accrual did not touch the balance: its last change was the adjustment.
    assert_eq!(balance.updated_at, millis_to_rfc3339(t0 + 3 * DAY));
}

async fn a_pending_accrual_counts_in_the_balance_once_it_is_confirmed(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let pending = movement(
        &member.id,
        Accrual,
        Pending,
        700,
        "Compra en Lider.cl",
        TERMS_ACCEPTED_AT,
    );
    app.store
        .record_movement(&pending, TERMS_ACCEPTED_AT)
        .await
        .unwrap();
    let token = app.token(&member.id);
    let mut client = app.client().await;

    let before = client
        .get_balance(app.authorized(GetBalanceRequest {}, &token))
        .await
        .unwrap();
    app.store
        .confirm_movement(pending.id(), TERMS_ACCEPTED_AT + DAY)
        .await
        .unwrap();
    let after = client
        .get_balance(app.authorized(GetBalanceRequest {}, &token))
        .await
        .unwrap();

    assert_eq!(before.into_inner().balance, 0);
    let after = after.into_inner();
    assert_eq!(after.balance, 700);
    assert_eq!(after.updated_at, "2026-01-11T12:00:00Z");
    assert!(
        app.store
            .confirm_movement(pending.id(), TERMS_ACCEPTED_AT)
            .await
            .is_err()
    );
    assert_eq!(app.store.confirmed_total(&member.id).await.unwrap(), 700);
}

async fn a_member_without_a_club_account_gets_failed_precondition_with_no_club_account(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;

    let status = app
        .client()
        .await
        .get_balance(app.authorized(GetBalanceRequest {}, &app.token(&member.id)))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    let body = ErrorBody::from_status(&status);
    assert_eq!(body.code, ErrorCode::NoClubAccount);
    assert_eq!(body.message, "Aún no tienes una cuenta Mi Club.");
}

backend_tests!(
    a_member_sees_their_balance_and_it_equals_the_sum_of_confirmed_movements,
    a_pending_accrual_counts_in_the_balance_once_it_is_confirmed,
    a_member_without_a_club_account_gets_failed_precondition_with_no_club_account,
);
