//! Missions' rewards (`GrantReward`): only ever a credit, recorded once per movement id, and
//! at most `REWARD_PESOS_PER_DAY` pesos and `REWARDS_PER_DAY` rewards per member in any 24
//! hours, whatever runs at the same time. What a leaked missions token can do is what these
//! bound: it cannot take a member's pesos, nor record anything but a reward, nor add more than
//! the day's limits to one member's balance and Mis Movimientos.

use miclub_accounts::domain::MemberId;
use miclub_accounts::domain::MovementKind::Adjustment;
use miclub_accounts::domain::MovementStatus::Confirmed;
use miclub_accounts::error::AccountsError;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::rewards::{REWARD_PESOS_PER_DAY, REWARD_WINDOW_MS, REWARDS_PER_DAY};
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1 as pb;

use crate::support::{TestApp, movement};

/// What auth's default grant lets the missions client call.
const MISSIONS_GRANT: &[&str] = &["miclub.accounts.v1.AccountsService/GrantReward"];

fn reward(movement_id: &str, member_id: &MemberId, amount: i64) -> pb::GrantRewardRequest {
    pb::GrantRewardRequest {
        movement_id: movement_id.into(),
        member_id: member_id.as_str().into(),
        amount,
        description: "Misión cumplida: Compra $20.000 en carnes".into(),
    }
}

async fn grant(
    app: &TestApp,
    request: pb::GrantRewardRequest,
) -> Result<pb::RecordMovementResponse, tonic::Status> {
    let token = app.keys.scoped_token("missions", MISSIONS_GRANT, 300);
    app.bare_client()
        .await
        .grant_reward(app.authorized(request, &token))
        .await
        .map(tonic::Response::into_inner)
}

async fn a_reward_is_only_ever_a_credit_and_is_granted_once_per_movement_id(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let first = grant(&app, reward("mission-0001", &member.id, 1_500))
        .await
        .unwrap();
    let again = grant(&app, reward("mission-0001", &member.id, 1_500))
        .await
        .unwrap();
    let negative = grant(&app, reward("mission-0002", &member.id, -1_500))
        .await
        .unwrap_err();
    let zero = grant(&app, reward("mission-0003", &member.id, 0))
        .await
        .unwrap_err();
    let token = app.keys.scoped_token("missions", MISSIONS_GRANT, 300);
    let redemption = pb::RecordMovementRequest {
        movement_id: "mission-0004".into(),
        member_id: member.id.as_str().into(),
        kind: pb::MovementKind::Redemption as i32,
        amount: -1_500,
        description: "Canje en caja".into(),
        occurred_at: String::new(),
    };
    let taken = app
        .bare_client()
        .await
        .record_movement(app.authorized(redemption, &token))
        .await
        .unwrap_err();

    assert!(!first.replayed);
    assert_eq!(first.balance, 1_500);
    let recorded = first.movement.clone().unwrap();
    assert_eq!(recorded.kind(), pb::MovementKind::Adjustment);
    assert_eq!(recorded.status(), pb::MovementStatus::Confirmed);
    assert_eq!(recorded.amount, 1_500);
    assert!(again.replayed);
    assert_eq!(again.movement, first.movement);
    for refused in [&negative, &zero] {
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert_eq!(
            ErrorBody::from_status(refused).field.as_deref(),
            Some("amount")
        );
    }
    assert_eq!(taken.code(), tonic::Code::PermissionDenied, "{taken:?}");
    assert_eq!(app.balance_of(&member.id).await, 1_500);
    assert_eq!(app.store.movements(&member.id).await.unwrap().len(), 1);
}

async fn a_member_is_granted_rewards_up_to_the_daily_limit_and_the_rest_waits_a_day(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let other = app.add_member_with_account().await;
    let most = REWARD_PESOS_PER_DAY - 1_000;

    grant(&app, reward("mission-0001", &member.id, most))
        .await
        .unwrap();
    grant(&app, reward("mission-0002", &member.id, 1_000))
        .await
        .unwrap();
    let past = grant(&app, reward("mission-0003", &member.id, 1))
        .await
        .unwrap_err();
    let replay = grant(&app, reward("mission-0001", &member.id, most))
        .await
        .unwrap();
    let elsewhere = grant(&app, reward("mission-0004", &other.id, 1_000))
        .await
        .unwrap();

    assert_eq!(past.code(), tonic::Code::ResourceExhausted, "{past:?}");
    assert_eq!(
        ErrorBody::from_status(&past).code,
        ErrorCode::TooManyAttempts
    );
    assert!(
        replay.replayed,
        "a replay is answered whatever the day's rewards"
    );
    assert_eq!(
        elsewhere.balance, 1_000,
        "another member has a limit of their own"
    );
    assert_eq!(app.balance_of(&member.id).await, REWARD_PESOS_PER_DAY);

    // A back-office adjustment is not a reward and takes none of the day's limit.
    let adjustment = movement(
        &member.id,
        Adjustment,
        Confirmed,
        5_000,
        "Ajuste",
        now_millis(),
    );
    app.store
        .record_movement(&adjustment, now_millis())
        .await
        .unwrap();
    // Once the first rewards are more than 24 hours old, the one that waited is granted.
    let later = now_millis() + REWARD_WINDOW_MS + 1;
    let waited = movement(
        &member.id,
        Adjustment,
        Confirmed,
        1,
        "Misión cumplida",
        later,
    );
    let refused_now = app.store.record_reward(&waited, now_millis()).await;
    assert!(
        matches!(refused_now, Err(AccountsError::RewardLimitReached)),
        "{refused_now:?}"
    );
    app.store.record_reward(&waited, later).await.unwrap();
    assert_eq!(
        app.balance_of(&member.id).await,
        REWARD_PESOS_PER_DAY + 5_000 + 1
    );
}

async fn concurrent_rewards_of_one_member_never_pass_the_daily_limit(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let each = REWARD_PESOS_PER_DAY * 3 / 10;
    let at = now_millis();

    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let store = app.store.clone();
        let m = movement(
            &member.id,
            Adjustment,
            Confirmed,
            each,
            "Misión cumplida",
            at,
        );
        tasks.spawn(async move { store.record_reward(&m, at).await });
    }
    let (mut granted, mut refused) = (0, 0);
    while let Some(outcome) = tasks.join_next().await {
        match outcome.unwrap() {
            Ok(_) => granted += 1,
            Err(AccountsError::RewardLimitReached) => refused += 1,
            Err(err) => panic!("unexpected refusal: {err:?}"),
        }
    }

    assert_eq!((granted, refused), (3, 5));
    assert_eq!(app.balance_of(&member.id).await, 3 * each);
    assert_eq!(
        app.store.confirmed_total(&member.id).await.unwrap(),
        3 * each
    );
}

async fn a_member_is_granted_at_most_twenty_rewards_a_day_however_small(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    for n in 0..REWARDS_PER_DAY {
        grant(&app, reward(&format!("mission-{n:04}"), &member.id, 1))
            .await
            .unwrap();
    }
    let one_more = grant(&app, reward("mission-9999", &member.id, 1))
        .await
        .unwrap_err();

    assert_eq!(
        ErrorBody::from_status(&one_more).code,
        ErrorCode::TooManyAttempts
    );
    assert_eq!(app.balance_of(&member.id).await, REWARDS_PER_DAY);
    assert_eq!(
        app.store.movements(&member.id).await.unwrap().len() as i64,
        REWARDS_PER_DAY
    );
}

backend_tests!(
    a_reward_is_only_ever_a_credit_and_is_granted_once_per_movement_id,
    a_member_is_granted_rewards_up_to_the_daily_limit_and_the_rest_waits_a_day,
    concurrent_rewards_of_one_member_never_pass_the_daily_limit,
    a_member_is_granted_at_most_twenty_rewards_a_day_however_small,
);
