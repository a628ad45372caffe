//! The consumer of purchase events: reads `events:purchases` as group "missions", counts each
//! `purchase.posted` event once ([`Missions::count`]), acknowledges it, then grants the rewards
//! it completed.
//!
//! An event of another topic, or one that cannot be read, is acknowledged and skipped (logged):
//! reading it again would not help. When counting fails (the database is down) the delivery is
//! left unacknowledged and the batch stops; the bus hands this consumer its unacknowledged
//! deliveries first on the next read, after a pause. A crash between commit and ack delivers the
//! event again, and the event id makes that count nothing.

use std::time::Duration;

use miclub_platform::events::{Delivery, EventError, SharedBus, streams};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;

use super::event::{PURCHASE_POSTED, Purchase};
use super::missions::Missions;
use crate::store::Counted;

/// The consumer group of missions on the purchases stream.
pub const GROUP: &str = "missions";

/// How the consumer reads.
#[derive(Debug, Clone)]
pub struct ConsumerOptions {
    /// This process's name in the group.
    pub name: String,
    pub batch: usize,
    pub wait: Duration,
    /// Pause after a failed read or a failed count.
    pub backoff: Duration,
    /// Deliveries another consumer of the group has held unacknowledged this long (a pod that
    /// died or was scaled away) are taken over by this one.
    pub claim_idle: Duration,
}

/// What one poll did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Polled {
    /// Deliveries read.
    pub read: usize,
    /// Deliveries acknowledged.
    pub acked: usize,
    /// True when counting failed and the rest of the batch was left for later.
    pub failed: bool,
}

#[derive(Debug, Clone)]
pub struct Consumer {
    missions: Missions,
    bus: SharedBus,
    options: ConsumerOptions,
}

impl Consumer {
    pub fn new(missions: Missions, bus: SharedBus, options: ConsumerOptions) -> Self {
        Self {
            missions,
            bus,
            options,
        }
    }

    /// Takes over what other consumers left unacknowledged for `claim_idle`, else reads one
    /// batch (waiting up to `wait`), and handles it.
    pub async fn poll_once(&self) -> Result<Polled, EventError> {
        let stale = self
            .bus
            .claim_stale(
                streams::PURCHASES,
                GROUP,
                &self.options.name,
                self.options.claim_idle,
                self.options.batch,
            )
            .await?;
        let deliveries = if stale.is_empty() {
            self.bus
                .read(
                    streams::PURCHASES,
                    GROUP,
                    &self.options.name,
                    self.options.batch,
                    self.options.wait,
                )
                .await?
        } else {
            tracing::info!(consumer = %self.options.name, claimed = stale.len(), "took over deliveries another consumer left");
            stale
        };
        let mut polled = Polled {
            read: deliveries.len(),
            ..Polled::default()
        };
        for delivery in &deliveries {
            match self.handle(delivery).await {
                Some(true) => polled.acked += 1,
                Some(false) => {}
                None => {
                    polled.failed = true;
                    break;
                }
            }
        }
        Ok(polled)
    }

    /// Handles one delivery: `Some(acked)` when done with it, `None` when counting failed.
    async fn handle(&self, delivery: &Delivery) -> Option<bool> {
        let event = &delivery.event;
        if event.topic != PURCHASE_POSTED {
            tracing::debug!(event_id = %event.id, topic = %event.topic, "event of another topic skipped");
            return Some(self.ack(delivery).await);
        }
        let purchase = match Purchase::parse(&event.id, &event.payload) {
            Ok(purchase) => purchase,
            Err(reason) => {
                tracing::warn!(event_id = %event.id, reason = %reason, "malformed purchase event skipped");
                return Some(self.ack(delivery).await);
            }
        };
        let counted = match self.missions.count(&purchase, now_millis()).await {
            Ok(counted) => counted,
            Err(err) => {
                tracing::error!(event_id = %event.id, error = %err, "counting a purchase event failed; it will be read again");
                return None;
            }
        };
        let acked = self.ack(delivery).await;
        if let Counted::Counted { completed, .. } = counted {
            self.missions.grant_all(&completed).await;
        }
        Some(acked)
    }

    async fn ack(&self, delivery: &Delivery) -> bool {
        match self
            .bus
            .ack(streams::PURCHASES, GROUP, &delivery.delivery_id)
            .await
        {
            Ok(()) => true,
            Err(err) => {
                // Counted already: the redelivery will count nothing.
                tracing::warn!(event_id = %delivery.event.id, error = %err, "acknowledging a purchase event failed");
                false
            }
        }
    }

    /// Polls until `shutdown`, pausing after failures.
    pub async fn run(self, shutdown: Shutdown) {
        tracing::info!(consumer = %self.options.name, group = GROUP, stream = streams::PURCHASES, "purchase event consumer started");
        let stopped = shutdown.wait();
        tokio::pin!(stopped);
        loop {
            let polled = tokio::select! {
                biased;
                () = &mut stopped => break,
                polled = self.poll_once() => polled,
            };
            match polled {
                Ok(polled) if !polled.failed => continue,
                Ok(_) => {}
                Err(err) => tracing::error!(error = %err, "reading purchase events failed"),
            }
            // Counting or reading failed: pause before trying again.
            tokio::select! {
                () = &mut stopped => break,
                () = tokio::time::sleep(self.options.backoff) => {}
            }
        }
        tracing::info!("purchase event consumer stopped");
    }
}
