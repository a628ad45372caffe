//! Rewards: granted once as a movement with the deterministic id even when two events complete
//! the mission at the same time, retried after accounts failed (by the background task too),
//! with the description and amount of the mission as it was completed.

use std::time::Duration;

use miclub_missions::domain::reward_movement_id;
use miclub_platform::backend_tests;
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;

use crate::support::{
    ANA, DIEGO, TestApp, amount_mission, member_id, mission_id, noon, purchase, purchase_event,
};

async fn a_reward_is_granted_once_when_two_events_complete_the_mission_at_once(env: TestEnv) {
    let app = TestApp::spawn_with(env, |settings| {
        // Only the two processing calls may call accounts.
        settings.reward_retry_interval_secs = 3_600;
    })
    .await;
    // Several rounds, each on a fresh mission, to give a race its chances.
    for round in 0..5 {
        let id = format!("carnes-{round}");
        app.upsert(amount_mission(&id, 10, 10_000, &[ANA])).await;
        let one = purchase(&purchase_event(
            &format!("{id}-a"),
            ANA,
            &noon(0),
            &[(10, 10_000)],
        ));
        let two = purchase(&purchase_event(
            &format!("{id}-b"),
            ANA,
            &noon(0),
            &[(10, 12_000)],
        ));
        let missions = app.missions.clone();
        let other = app.missions.clone();
        let (first, second) = tokio::join!(
            tokio::spawn(async move { missions.process(&one, now_millis()).await }),
            tokio::spawn(async move { other.process(&two, now_millis()).await }),
        );
        let (first, second) = (first.unwrap().unwrap(), second.unwrap().unwrap());

        assert!(first.counted && second.counted, "two different events");
        assert_eq!(
            first.completed.len() + second.completed.len(),
            1,
            "completed once: {first:?} {second:?}"
        );
        let wanted = reward_movement_id(&mission_id(&id), &member_id(ANA));
        let calls: Vec<_> = app
            .rewards
            .calls()
            .into_iter()
            .filter(|r| r.mission_id == id)
            .collect();
        assert_eq!(calls.len(), 1, "one GrantReward: {calls:?}");
        assert_eq!(calls[0].movement_id, wanted);
        assert_eq!(calls[0].member_id.as_str(), ANA);
        assert_eq!(calls[0].amount, 1_000);
        assert_eq!(
            calls[0].description,
            "Misión cumplida: Compra $10000 en la categoría 10"
        );
        let stored = app.progress(&id, ANA).await.unwrap();
        assert_eq!(stored.progress, 10_000);
        assert!(stored.completed_at.is_some());
        assert!(stored.reward_granted_at.is_some());
    }
}

async fn a_reward_accounts_failed_to_record_is_granted_by_the_retry_once(env: TestEnv) {
    let app = TestApp::spawn_with(env, |settings| {
        // Out of the way: this test drives the retry itself.
        settings.reward_retry_interval_secs = 3_600;
    })
    .await;
    app.upsert(amount_mission("carnes", 10, 5_000, &[ANA]))
        .await;
    app.rewards.fail(true);

    let processed = app
        .missions
        .process(
            &purchase(&purchase_event("e1", ANA, &noon(0), &[(10, 5_000)])),
            now_millis(),
        )
        .await
        .unwrap();
    assert_eq!((processed.completed.len(), processed.granted), (1, 0));
    let pending = app.progress("carnes", ANA).await.unwrap();
    assert!(pending.completed_at.is_some());
    assert_eq!(pending.reward_granted_at, None);

    // Still down: nothing granted, still pending.
    assert_eq!(
        app.missions.retry_rewards(now_millis() + 1).await.unwrap(),
        0
    );
    app.rewards.fail(false);
    assert_eq!(
        app.missions.retry_rewards(now_millis() + 1).await.unwrap(),
        1
    );
    assert_eq!(
        app.missions.retry_rewards(now_millis() + 1).await.unwrap(),
        0,
        "nothing left"
    );

    let calls = app.rewards.calls();
    assert_eq!(calls.len(), 3, "failed, failed again, recorded");
    assert!(
        calls.iter().all(|c| c == &calls[0]),
        "the same movement each time"
    );
    assert!(
        app.progress("carnes", ANA)
            .await
            .unwrap()
            .reward_granted_at
            .is_some()
    );
}

async fn the_background_task_grants_a_reward_once_accounts_is_back(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 5_000, &[DIEGO]))
        .await;
    app.rewards.fail(true);

    app.publish(&purchase_event("e1", DIEGO, &noon(0), &[(10, 8_000)]))
        .await;
    app.wait_for("carnes", DIEGO, |p| p.completed_at.is_some())
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        app.progress("carnes", DIEGO)
            .await
            .unwrap()
            .reward_granted_at,
        None
    );

    app.rewards.fail(false);
    app.wait_for("carnes", DIEGO, |p| p.reward_granted_at.is_some())
        .await;
    let wanted = reward_movement_id(&mission_id("carnes"), &member_id(DIEGO));
    assert!(app.rewards.calls().iter().all(|c| c.movement_id == wanted));
}

async fn a_retried_reward_keeps_the_title_the_mission_had_when_completed(env: TestEnv) {
    let app = TestApp::spawn_with(env, |settings| {
        settings.reward_retry_interval_secs = 3_600;
    })
    .await;
    let mission = amount_mission("carnes", 10, 5_000, &[ANA]);
    app.upsert(mission.clone()).await;
    app.rewards.fail(true);
    app.missions
        .process(
            &purchase(&purchase_event("e1", ANA, &noon(0), &[(10, 5_000)])),
            now_millis(),
        )
        .await
        .unwrap();

    // The back office renames it and changes the reward before accounts is back.
    app.upsert(miclub_proto::missions::v1::Mission {
        title: "Otro título".into(),
        reward: 9_999,
        ..mission
    })
    .await;
    app.rewards.fail(false);
    app.missions.retry_rewards(now_millis() + 1).await.unwrap();

    let calls = app.rewards.calls();
    let last = calls.last().unwrap();
    assert_eq!(last, &calls[0], "accounts sees the same movement again");
    assert_eq!(last.amount, 1_000);
    assert_eq!(
        last.description,
        "Misión cumplida: Compra $5000 en la categoría 10"
    );
}

backend_tests!(
    a_reward_is_granted_once_when_two_events_complete_the_mission_at_once,
    a_reward_accounts_failed_to_record_is_granted_by_the_retry_once,
    the_background_task_grants_a_reward_once_accounts_is_back,
    a_retried_reward_keeps_the_title_the_mission_had_when_completed,
);
