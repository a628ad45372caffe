//! The outbox relay: publishes the events written with posted purchases to the event bus
//! (stream `events:purchases`), at least once, oldest first.
//!
//! Each round claims a batch of unpublished rows (see `store::outbox` for how relays in
//! several replicas keep off each other's rows), publishes them one by one and then records
//! the batch as published in one statement. A crash before that record publishes the batch
//! again later; consumers are idempotent by event id. A failed publish ends the round and gives the
//! rest of the batch back, so the next round retries in order.

use std::time::Duration;

use miclub_platform::events::{Event, SharedBus, streams};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;

use crate::error::Result;
use crate::store::Store;

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayRound {
    /// Events claimed this round.
    pub claimed: usize,
    /// Events published and recorded.
    pub published: usize,
    /// True when a publish failed and the round stopped early.
    pub failed: bool,
}

#[derive(Debug, Clone)]
pub struct OutboxRelay {
    store: Store,
    bus: SharedBus,
    batch: i64,
}

impl OutboxRelay {
    /// How long a claim keeps other relays off a row: far beyond a round's length, so only a
    /// relay that died mid-round lets its rows be claimed again.
    pub const LEASE_MS: i64 = 60_000;

    pub fn new(store: Store, bus: SharedBus, batch: u32) -> Self {
        Self {
            store,
            bus,
            batch: i64::from(batch.max(1)),
        }
    }

    /// One round: claims up to a batch of the oldest unpublished events and publishes them.
    pub async fn relay_once(&self, now: i64) -> Result<RelayRound> {
        let token = uuid::Uuid::new_v4().to_string();
        let claimed = self
            .store
            .claim_outbox(&token, self.batch, now, Self::LEASE_MS)
            .await?;
        let mut round = RelayRound {
            claimed: claimed.len(),
            ..RelayRound::default()
        };
        let mut published = Vec::with_capacity(claimed.len());
        for row in claimed {
            let event = Event {
                id: row.event_id,
                topic: row.topic,
                payload: row.payload,
            };
            if let Err(err) = self.bus.publish(streams::PURCHASES, &event).await {
                tracing::warn!(
                    error = %err,
                    event_id = %event.id,
                    "publishing an outbox event failed; retrying next round"
                );
                round.failed = true;
                break;
            }
            published.push(event.id);
        }
        round.published = published.len();
        if round.failed {
            for event_id in &published {
                if !self
                    .store
                    .mark_published(event_id, &token, now_millis())
                    .await?
                {
                    tracing::warn!(event_id = %event_id, "outbox claim lost; the event may be delivered twice");
                }
            }
            // Best effort: an unreleased claim is retried once its lease passes.
            if let Err(err) = self.store.release_outbox(&token).await {
                tracing::warn!(error = %err, "releasing outbox claims failed");
            }
        } else if round.published > 0 {
            let marked = self
                .store
                .mark_claim_published(&token, now_millis())
                .await?;
            let lost = round.published.saturating_sub(marked as usize);
            if lost > 0 {
                tracing::warn!(
                    lost,
                    "outbox claims lost; those events may be delivered twice"
                );
            }
        }
        Ok(round)
    }

    /// Runs a round every `interval` until `shutdown`; a full batch goes on at once with the
    /// next one, so a backlog drains without waiting an interval per batch.
    pub async fn relay_periodically(self, interval: Duration, shutdown: Shutdown) {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stopped = shutdown.clone().wait();
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                () = &mut stopped => break,
                _ = ticks.tick() => {}
            }
            loop {
                match self.relay_once(now_millis()).await {
                    Ok(round) => {
                        if round.claimed > 0 {
                            tracing::info!(
                                claimed = round.claimed,
                                published = round.published,
                                failed = round.failed,
                                "outbox events relayed"
                            );
                        }
                        let full = i64::try_from(round.claimed).unwrap_or(i64::MAX) >= self.batch;
                        if !full || round.failed || shutdown.is_triggered() {
                            break;
                        }
                    }
                    Err(err) => {
                        tracing::error!(error = %err, "relaying outbox events failed");
                        break;
                    }
                }
            }
        }
        tracing::info!("outbox relay stopped");
    }
}
