//! The ledger rules, at the store: the balance moves only with a movement, in one
//! transaction, and never below zero.

use miclub_accounts::domain::MovementKind::{Accrual, Adjustment, Redemption};
use miclub_accounts::domain::MovementStatus::{Confirmed, Pending};
use miclub_accounts::error::AccountsError;
use miclub_platform::backend_tests;
use miclub_platform::testing::TestEnv;

use crate::support::{TERMS_ACCEPTED_AT, TestApp, count, movement};

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
            Ok(()) => accepted += 1,
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

backend_tests!(
    a_movement_that_would_make_the_balance_negative_is_refused_and_changes_nothing,
    a_movement_for_a_member_without_a_club_account_is_refused,
    a_movement_recorded_twice_counts_once,
    concurrent_redemptions_never_take_the_balance_below_zero,
);
