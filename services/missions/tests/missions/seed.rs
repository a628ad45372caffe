//! The demo seed: Ana sees her missions with progress, Diego gets the 409 while his history
//! loads, Bruno and Carla have none; seeding again keeps what members reached.

use miclub_missions::seed::{DEMO_MEAT, DEMO_OILS};
use miclub_platform::backend_tests;
use miclub_platform::demo::MEMBERS;
use miclub_platform::error::ErrorCode;
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::missions::v1 as pb;

use crate::support::{ANA, BRUNO, DIEGO, TestApp, body, noon, purchase, purchase_event};

async fn the_demo_gives_ana_missions_with_progress_and_diego_the_409(env: TestEnv) {
    let app = TestApp::spawn_with(env, |settings| settings.seed_demo = true).await;

    let listed = app.list(ANA).await.unwrap();
    assert_eq!(listed.len(), 4);
    let in_progress = listed
        .iter()
        .filter(|m| m.status() == pb::MissionStatus::InProgress)
        .count();
    assert_eq!(in_progress, 3);
    assert!(
        listed
            .iter()
            .any(|m| m.status() == pb::MissionStatus::Expired)
    );
    let meat = listed.iter().find(|m| m.mission_id == DEMO_MEAT).unwrap();
    assert_eq!(
        (meat.category_id, meat.goal, meat.reward),
        (10, 20_000, 1_000)
    );
    let oils = listed.iter().find(|m| m.mission_id == DEMO_OILS).unwrap();
    assert_eq!(
        (oils.category_id, oils.goal_kind(), oils.progress),
        (2, pb::GoalKind::Purchases, 1)
    );

    assert!(app.has_missions(ANA).await);
    assert!(app.has_missions(DIEGO).await);
    assert_eq!(
        body(&app.list(DIEGO).await.unwrap_err()).code,
        ErrorCode::MissionsNotReady
    );
    assert!(!app.has_missions(BRUNO).await);
    assert!(!app.has_missions(MEMBERS[2].member_id).await, "Carla");
}

async fn seeding_again_keeps_the_progress_members_reached(env: TestEnv) {
    let app = TestApp::spawn_with(env, |settings| settings.seed_demo = true).await;
    app.missions
        .process(
            &purchase(&purchase_event("e1", ANA, &noon(0), &[(2, 2_000)])),
            now_millis(),
        )
        .await
        .unwrap();

    miclub_missions::seed::seed_demo(&app.store).await.unwrap();

    let oils = app.progress(DEMO_OILS, ANA).await.unwrap();
    assert_eq!(oils.progress, 2);
}

backend_tests!(
    the_demo_gives_ana_missions_with_progress_and_diego_the_409,
    seeding_again_keeps_the_progress_members_reached,
);
