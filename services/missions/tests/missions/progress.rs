//! Progress from purchase events read off the bus: amount and purchases goals, capped at the
//! goal; purchases outside the dates, of another category or of a member the mission is not
//! for count nothing; events of other topics and malformed ones are skipped.

use miclub_platform::backend_tests;
use miclub_platform::events::{Event, EventBus, streams};
use miclub_platform::testing::TestEnv;
use std::time::Duration;

use crate::support::{
    ANA, BRUNO, CONSUMER, DIEGO, TestApp, amount_mission, noon, purchase_event, purchases_mission,
};

async fn an_amount_mission_adds_the_pesos_of_its_category_up_to_the_goal(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;

    app.publish(&purchase_event(
        "e1",
        ANA,
        &noon(0),
        &[(10, 15_000), (10, 2_000), (2, 3_000), (0, 9_000)],
    ))
    .await;
    let first = app.wait_for("carnes", ANA, |p| p.progress > 0).await;
    assert_eq!(first.progress, 17_000);
    assert_eq!(first.completed_at, None);

    app.publish(&purchase_event("e2", ANA, &noon(0), &[(10, 5_000)]))
        .await;
    let done = app
        .wait_for("carnes", ANA, |p| p.completed_at.is_some())
        .await;
    assert_eq!(done.progress, 20_000, "capped at the goal");

    app.publish(&purchase_event("e3", ANA, &noon(0), &[(10, 5_000)]))
        .await;
    app.drain().await;
    let after = app.progress("carnes", ANA).await.unwrap();
    assert_eq!(after.progress, 20_000);
    assert_eq!(after.completed_at, done.completed_at, "completed once");
}

async fn a_purchases_mission_counts_one_per_purchase_with_a_line_in_its_category(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(purchases_mission("aceites", 2, 3, &[ANA])).await;

    app.publish(&purchase_event(
        "e1",
        ANA,
        &noon(0),
        &[(2, 1_990), (2, 3_990)],
    ))
    .await;
    app.publish(&purchase_event("e2", ANA, &noon(-1), &[(10, 9_000)]))
        .await;
    app.publish(&purchase_event(
        "e3",
        ANA,
        &noon(-2),
        &[(2, 2_500), (10, 1_000)],
    ))
    .await;
    app.drain().await;

    let progress = app.progress("aceites", ANA).await.unwrap();
    assert_eq!(progress.progress, 2, "two purchases had oil");
    assert_eq!(progress.completed_at, None);
}

async fn purchases_outside_the_dates_or_in_another_category_count_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;

    for (id, at, lines) in [
        // The day before it started and the day after it ended.
        ("before", noon(-11), vec![(10, 5_000)]),
        ("after", noon(11), vec![(10, 5_000)]),
        // In force, but another category and an unknown one.
        ("other", noon(0), vec![(2, 5_000), (0, 5_000)]),
    ] {
        app.publish(&purchase_event(id, ANA, &at, &lines)).await;
    }
    app.drain().await;
    let nothing = app.progress("carnes", ANA).await;
    assert!(
        nothing.as_ref().is_none_or(|p| p.progress == 0),
        "{nothing:?}"
    );

    // The first and last days count.
    app.publish(&purchase_event(
        "first-day",
        ANA,
        &noon(-10),
        &[(10, 1_000)],
    ))
    .await;
    app.publish(&purchase_event("last-day", ANA, &noon(10), &[(10, 2_000)]))
        .await;
    let counted = app.wait_for("carnes", ANA, |p| p.progress == 3_000).await;
    assert_eq!(counted.completed_at, None);
}

async fn a_mission_counts_only_for_its_members_and_one_without_members_for_everyone(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("solo-ana", 10, 50_000, &[ANA]))
        .await;
    app.upsert(amount_mission("todos", 10, 50_000, &[])).await;

    app.publish(&purchase_event("ana", ANA, &noon(0), &[(10, 4_000)]))
        .await;
    app.publish(&purchase_event("bruno", BRUNO, &noon(0), &[(10, 7_000)]))
        .await;
    app.drain().await;

    assert_eq!(app.progress("solo-ana", ANA).await.unwrap().progress, 4_000);
    assert!(app.progress("solo-ana", BRUNO).await.is_none());
    assert_eq!(app.progress("todos", ANA).await.unwrap().progress, 4_000);
    assert_eq!(app.progress("todos", BRUNO).await.unwrap().progress, 7_000);
    assert!(app.progress("todos", DIEGO).await.is_none());
}

async fn events_of_other_topics_and_malformed_ones_are_acknowledged_and_skipped(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;

    app.publish(&Event {
        id: "other-topic".into(),
        topic: "member.registered".into(),
        payload: r#"{"member_id": "x"}"#.into(),
    })
    .await;
    app.publish(&Event {
        id: "malformed".into(),
        topic: "purchase.posted".into(),
        payload: "{not json".into(),
    })
    .await;
    app.publish(&purchase_event("good", ANA, &noon(0), &[(10, 1_500)]))
        .await;

    app.wait_for("carnes", ANA, |p| p.progress == 1_500).await;
    app.drain().await;
    let left = app
        .bus
        .read(streams::PURCHASES, "missions", CONSUMER, 10, Duration::ZERO)
        .await
        .unwrap();
    assert!(left.is_empty(), "nothing left pending: {left:?}");
}

backend_tests!(
    an_amount_mission_adds_the_pesos_of_its_category_up_to_the_goal,
    a_purchases_mission_counts_one_per_purchase_with_a_line_in_its_category,
    purchases_outside_the_dates_or_in_another_category_count_nothing,
    a_mission_counts_only_for_its_members_and_one_without_members_for_everyone,
    events_of_other_topics_and_malformed_ones_are_acknowledged_and_skipped,
);
