//! A redelivered event counts once: published twice (a relay that crashed between publishing
//! and recording it), delivered again because it was never acknowledged (a consumer that
//! crashed after committing), or processed twice at the same time.

use std::sync::Arc;
use std::time::Duration;

use miclub_missions::domain::{Consumer, ConsumerOptions, GROUP};
use miclub_missions::store::Counted;
use miclub_platform::backend_tests;
use miclub_platform::events::{EventBus, MemoryBus, streams};
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;

use crate::support::{ANA, TestApp, amount_mission, noon, purchase, purchase_event};

async fn the_same_event_published_twice_counts_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;
    let event = purchase_event("same-id", ANA, &noon(0), &[(10, 6_000)]);

    app.publish(&event).await;
    app.publish(&event).await;
    app.publish(&purchase_event("other-id", ANA, &noon(0), &[(10, 1_000)]))
        .await;
    app.drain().await;

    assert_eq!(app.progress("carnes", ANA).await.unwrap().progress, 7_000);
}

async fn an_event_delivered_again_after_a_crash_before_its_ack_counts_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;
    // A bus of this test's own, so the app's consumer does not take the event.
    let bus = Arc::new(MemoryBus::new());
    let event = purchase_event("crashed", ANA, &noon(0), &[(10, 6_000)]);
    bus.publish(streams::PURCHASES, &event).await.unwrap();

    // A consumer took it, counted it and crashed before acknowledging it.
    let taken = bus
        .read(streams::PURCHASES, GROUP, "pod-1", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(taken.len(), 1);
    let first = app
        .missions
        .count(&purchase(&event), now_millis())
        .await
        .unwrap();
    assert!(matches!(first, Counted::Counted { missions: 1, .. }));

    // Restarted under the same name, it reads its unacknowledged delivery first.
    let consumer = Consumer::new(
        app.missions.clone(),
        bus.clone(),
        ConsumerOptions {
            name: "pod-1".into(),
            batch: 100,
            wait: Duration::ZERO,
            backoff: Duration::ZERO,
            claim_idle: Duration::from_secs(3600),
        },
    );
    let polled = consumer.poll_once().await.unwrap();
    assert_eq!((polled.read, polled.acked, polled.failed), (1, 1, false));
    let again = consumer.poll_once().await.unwrap();
    assert_eq!(again.read, 0, "acknowledged this time");

    assert_eq!(app.progress("carnes", ANA).await.unwrap().progress, 6_000);
}

async fn an_event_a_vanished_consumer_left_is_taken_over_by_another_and_counts_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;
    let bus = Arc::new(MemoryBus::new());
    let event = purchase_event("orphaned", ANA, &noon(0), &[(10, 7_000)]);
    bus.publish(streams::PURCHASES, &event).await.unwrap();
    // pod-0 took it and was scaled away before acknowledging it.
    let taken = bus
        .read(streams::PURCHASES, GROUP, "pod-0", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(taken.len(), 1);

    let survivor = Consumer::new(
        app.missions.clone(),
        bus.clone(),
        ConsumerOptions {
            name: "pod-1".into(),
            batch: 100,
            wait: Duration::ZERO,
            backoff: Duration::ZERO,
            claim_idle: Duration::from_millis(20),
        },
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    let polled = survivor.poll_once().await.unwrap();
    assert_eq!((polled.read, polled.acked, polled.failed), (1, 1, false));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        survivor.poll_once().await.unwrap().read,
        0,
        "taken over once"
    );
    assert_eq!(app.progress("carnes", ANA).await.unwrap().progress, 7_000);
}

async fn the_same_event_processed_twice_at_once_counts_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;
    let event = purchase(&purchase_event("twice", ANA, &noon(0), &[(10, 6_000)]));

    let (one, two) = tokio::join!(
        app.missions.count(&event, now_millis()),
        app.missions.count(&event, now_millis())
    );
    let outcomes = [one.unwrap(), two.unwrap()];

    let redeliveries = outcomes
        .iter()
        .filter(|c| matches!(c, Counted::Redelivery))
        .count();
    assert_eq!(redeliveries, 1, "{outcomes:?}");
    assert_eq!(app.progress("carnes", ANA).await.unwrap().progress, 6_000);
}

backend_tests!(
    the_same_event_published_twice_counts_once,
    an_event_delivered_again_after_a_crash_before_its_ack_counts_once,
    the_same_event_processed_twice_at_once_counts_once,
    an_event_a_vanished_consumer_left_is_taken_over_by_another_and_counts_once,
);
