//! The event bus's delivery rules, proven on the in-memory bus and on Redis Streams alike.
//!
//! Redis comes from `TEST_REDIS_URL` (default `redis://127.0.0.1:6379`); every test uses a key
//! prefix of its own, so tests do not see each other's streams.

use std::sync::Arc;
use std::time::Duration;

use miclub_platform::config::Environment;
use miclub_platform::events::{self, Event, EventBusSettings, MemoryBus, RedisBus, SharedBus};

const STREAM: &str = "events:test";

fn event(id: &str) -> Event {
    Event {
        id: id.into(),
        topic: "purchase.posted".into(),
        payload: format!(r#"{{"event_id":"{id}"}}"#),
    }
}

fn ids(deliveries: &[events::Delivery]) -> Vec<&str> {
    deliveries.iter().map(|d| d.event.id.as_str()).collect()
}

async fn redis_bus() -> SharedBus {
    let settings = EventBusSettings {
        redis_url: std::env::var("TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into()),
        key_prefix: format!("test:{}:", uuid::Uuid::new_v4().simple()),
        ..Default::default()
    };
    Arc::new(
        RedisBus::connect(&settings)
            .await
            .unwrap_or_else(|e| panic!("cannot reach redis at {}: {e}", settings.redis_url)),
    )
}

/// Runs each scenario `async fn name(bus: SharedBus)` on both buses.
macro_rules! bus_tests {
    ($($scenario:ident),* $(,)?) => {
        $(
            mod $scenario {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn on_memory() {
                    super::$scenario(std::sync::Arc::new(super::MemoryBus::new())).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn on_redis() {
                    super::$scenario(super::redis_bus().await).await
                }
            }
        )*
    };
}

bus_tests!(
    an_unacknowledged_delivery_is_redelivered_to_the_same_consumer_before_new_ones,
    two_groups_each_see_every_event,
    an_acknowledged_delivery_is_not_delivered_again,
    a_blocking_read_wakes_when_an_event_is_published,
    a_blocking_read_with_nothing_published_returns_empty_after_the_wait,
    a_duplicate_publish_is_delivered_twice_with_the_same_event_id,
    consumers_of_one_group_share_the_events_without_overlap,
    a_delivery_a_vanished_consumer_left_is_claimed_by_another_once_idle,
);

async fn a_delivery_a_vanished_consumer_left_is_claimed_by_another_once_idle(bus: SharedBus) {
    bus.publish(STREAM, &event("a")).await.unwrap();
    let taken = bus
        .read(STREAM, "g", "pod-0", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&taken), ["a"]);

    // Not idle long enough: nobody takes it from pod-0 yet.
    let early = bus
        .claim_stale(STREAM, "g", "pod-1", Duration::from_secs(3600), 10)
        .await
        .unwrap();
    assert!(early.is_empty());

    tokio::time::sleep(Duration::from_millis(50)).await;
    let claimed = bus
        .claim_stale(STREAM, "g", "pod-1", Duration::from_millis(20), 10)
        .await
        .unwrap();
    assert_eq!(ids(&claimed), ["a"]);
    bus.ack(STREAM, "g", &claimed[0].delivery_id).await.unwrap();

    // Done: neither the old owner nor a second claim sees it again.
    let again = bus
        .claim_stale(STREAM, "g", "pod-2", Duration::ZERO, 10)
        .await
        .unwrap();
    assert!(again.is_empty());
    let old_owner = bus
        .read(STREAM, "g", "pod-0", 10, Duration::ZERO)
        .await
        .unwrap();
    assert!(old_owner.is_empty());
}

async fn an_unacknowledged_delivery_is_redelivered_to_the_same_consumer_before_new_ones(
    bus: SharedBus,
) {
    bus.publish(STREAM, &event("a")).await.unwrap();
    bus.publish(STREAM, &event("b")).await.unwrap();

    let first = bus
        .read(STREAM, "g", "c1", 1, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&first), ["a"]);

    // Not acked: the same consumer gets "a" again, and only "a", before "b".
    let again = bus
        .read(STREAM, "g", "c1", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&again), ["a"]);
    assert_eq!(again[0].delivery_id, first[0].delivery_id);
    assert_eq!(again[0].event, event("a"), "topic and payload survive");

    bus.ack(STREAM, "g", &again[0].delivery_id).await.unwrap();
    let next = bus
        .read(STREAM, "g", "c1", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&next), ["b"]);
}

async fn two_groups_each_see_every_event(bus: SharedBus) {
    for id in ["a", "b", "c"] {
        bus.publish(STREAM, &event(id)).await.unwrap();
    }
    let one = bus
        .read(STREAM, "g1", "c", 10, Duration::ZERO)
        .await
        .unwrap();
    let other = bus
        .read(STREAM, "g2", "c", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&one), ["a", "b", "c"]);
    assert_eq!(ids(&other), ["a", "b", "c"]);

    // Acking in one group does not take the events from the other.
    for d in &one {
        bus.ack(STREAM, "g1", &d.delivery_id).await.unwrap();
    }
    let other_again = bus
        .read(STREAM, "g2", "c", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&other_again), ["a", "b", "c"]);

    // A group created after the events were published still reads them from the start.
    let late = bus
        .read(STREAM, "g3", "c", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&late), ["a", "b", "c"]);
}

async fn an_acknowledged_delivery_is_not_delivered_again(bus: SharedBus) {
    bus.publish(STREAM, &event("a")).await.unwrap();
    let first = bus
        .read(STREAM, "g", "c", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&first), ["a"]);
    bus.ack(STREAM, "g", &first[0].delivery_id).await.unwrap();

    let after = bus
        .read(STREAM, "g", "c", 10, Duration::from_millis(100))
        .await
        .unwrap();
    assert!(after.is_empty(), "acked event delivered again: {after:?}");
    // Nor to another consumer of the same group.
    let other = bus
        .read(STREAM, "g", "c2", 10, Duration::ZERO)
        .await
        .unwrap();
    assert!(other.is_empty(), "acked event delivered again: {other:?}");
}

async fn a_blocking_read_wakes_when_an_event_is_published(bus: SharedBus) {
    // The group exists and has nothing to read.
    assert!(
        bus.read(STREAM, "g", "c", 10, Duration::ZERO)
            .await
            .unwrap()
            .is_empty()
    );
    let reader = {
        let bus = bus.clone();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            let got = bus
                .read(STREAM, "g", "c", 10, Duration::from_secs(10))
                .await
                .unwrap();
            (got, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    bus.publish(STREAM, &event("late")).await.unwrap();
    let (got, waited) = reader.await.unwrap();
    assert_eq!(ids(&got), ["late"]);
    assert!(
        waited < Duration::from_secs(5),
        "the read waited {waited:?} instead of waking on the publish"
    );
}

async fn a_blocking_read_with_nothing_published_returns_empty_after_the_wait(bus: SharedBus) {
    let started = std::time::Instant::now();
    let got = bus
        .read(STREAM, "g", "c", 10, Duration::from_millis(300))
        .await
        .unwrap();
    let waited = started.elapsed();
    assert!(got.is_empty());
    assert!(
        waited >= Duration::from_millis(250),
        "returned after {waited:?}"
    );
    assert!(waited < Duration::from_secs(3), "returned after {waited:?}");
}

async fn a_duplicate_publish_is_delivered_twice_with_the_same_event_id(bus: SharedBus) {
    // A relay that crashed between publishing and recording it publishes the event again.
    bus.publish(STREAM, &event("dup")).await.unwrap();
    bus.publish(STREAM, &event("dup")).await.unwrap();
    let got = bus
        .read(STREAM, "g", "c", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&got), ["dup", "dup"]);
    assert_ne!(
        got[0].delivery_id, got[1].delivery_id,
        "two deliveries, acked separately"
    );
    assert_eq!(got[0].event, got[1].event);
}

async fn consumers_of_one_group_share_the_events_without_overlap(bus: SharedBus) {
    for id in ["a", "b", "c", "d"] {
        bus.publish(STREAM, &event(id)).await.unwrap();
    }
    let one = bus
        .read(STREAM, "g", "c1", 2, Duration::ZERO)
        .await
        .unwrap();
    let two = bus
        .read(STREAM, "g", "c2", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&one), ["a", "b"]);
    assert_eq!(ids(&two), ["c", "d"]);
}

#[tokio::test]
async fn production_refuses_the_in_memory_bus_naming_the_setting() {
    let refused = events::connect(&EventBusSettings::default(), Environment::Production)
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("APP_EVENTS__REDIS_URL"), "{refused}");
}

#[tokio::test]
async fn connect_without_a_redis_url_gives_a_working_memory_bus() {
    let bus = events::connect(&EventBusSettings::default(), Environment::Development)
        .await
        .unwrap();
    assert!(format!("{bus:?}").contains("MemoryBus"));
    bus.publish(STREAM, &event("a")).await.unwrap();
    let got = bus
        .read(STREAM, "g", "c", 10, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(ids(&got), ["a"]);
}

#[tokio::test]
async fn connect_with_a_redis_url_gives_the_redis_bus_under_the_key_prefix() {
    let url = std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = format!("test:{}:", uuid::Uuid::new_v4().simple());
    let settings = EventBusSettings {
        redis_url: url.clone(),
        key_prefix: prefix.clone(),
        ..Default::default()
    };
    let bus = events::connect(&settings, Environment::Production)
        .await
        .unwrap();
    assert!(format!("{bus:?}").contains("RedisBus"));
    bus.publish(STREAM, &event("a")).await.unwrap();

    // The entry is under the prefixed key, with the three fields.
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let len: i64 = redis::cmd("XLEN")
        .arg(format!("{prefix}{STREAM}"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(len, 1);
}
