//! The use cases of missions ([`Missions`]): a member's missions and whether they have any,
//! the back office's definitions and history flags, counting a purchase and granting rewards.
//!
//! A reward is granted after the purchase that completed the mission is committed (and, in
//! the consumer, acknowledged); when accounts cannot be reached it stays ungranted and
//! [`Missions::retry_periodically`] grants it later. Accounts records a movement id once, so
//! a grant repeated after a crash between accounts' answer and `reward_granted_at` pays once.

use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDate;
use miclub_platform::error::ErrorCode;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;

use super::event::Purchase;
use super::mission::{
    LISTED_DAYS_AFTER_END, MemberId, MemberMission, Mission, MissionId, MissionInput, MissionStatus,
};
use super::ports::{Reward, Rewards};
use crate::error::{MissionsError, Result};
use crate::store::{Counted, Store};

/// What processing a purchase did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Processed {
    /// False when the event had been counted before.
    pub counted: bool,
    /// Missions whose progress moved.
    pub missions: usize,
    /// Rewards of the missions this event completed.
    pub completed: Vec<Reward>,
    /// How many of those accounts recorded now.
    pub granted: usize,
}

#[derive(Debug, Clone)]
pub struct Missions {
    store: Store,
    rewards: Arc<dyn Rewards>,
}

impl Missions {
    /// Ungranted rewards sent per retry round.
    const RETRY_BATCH: i64 = 200;
    /// The periodic retry leaves alone rewards completed this recently: the consumer is
    /// granting them right now.
    const RETRY_GRACE_MS: i64 = 2_000;

    pub fn new(store: Store, rewards: Arc<dyn Rewards>) -> Self {
        Self { store, rewards }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The member's missions in force on `today` and those that ended less than 30 days
    /// before: in progress first (ending soonest first), then completed, then expired.
    /// [`MissionsError::NotReady`] while their history is loading.
    pub async fn list(&self, member: &MemberId, today: NaiveDate) -> Result<Vec<MemberMission>> {
        if self.store.is_history_loading(member).await? {
            return Err(MissionsError::NotReady);
        }
        let listed_from = today - chrono::Duration::days(LISTED_DAYS_AFTER_END - 1);
        let mut missions = self
            .store
            .member_missions(member, today, listed_from)
            .await?;
        let rank = |m: &MemberMission| match m.status(today) {
            MissionStatus::InProgress => 0,
            MissionStatus::Completed => 1,
            MissionStatus::Expired => 2,
        };
        missions.sort_by(|a, b| {
            rank(a)
                .cmp(&rank(b))
                .then(a.mission.ends_on.cmp(&b.mission.ends_on))
                .then(a.mission.id.cmp(&b.mission.id))
        });
        Ok(missions)
    }

    /// Whether a mission in force on `today` is assigned to the member (history loading or not).
    pub async fn has_missions(&self, member: &MemberId, today: NaiveDate) -> Result<bool> {
        self.store.has_missions(member, today).await
    }

    /// Creates or replaces a definition; true when created.
    pub async fn upsert(&self, input: MissionInput, now: i64) -> Result<bool> {
        let mission = Mission::new(input)?;
        let created = self.store.upsert_mission(&mission, now).await?;
        tracing::info!(
            mission_id = %mission.id,
            category_id = mission.category_id,
            created,
            "mission saved"
        );
        Ok(created)
    }

    /// Marks the member's purchase history as loading or loaded.
    pub async fn set_history_loading(
        &self,
        member: &MemberId,
        loading: bool,
        now: i64,
    ) -> Result<()> {
        self.store.set_history_loading(member, loading, now).await?;
        tracing::info!(member_id = %member, loading, "member history flag set");
        Ok(())
    }

    /// Counts `purchase` once (one transaction); the rewards it completed are not granted yet.
    pub async fn count(&self, purchase: &Purchase, now: i64) -> Result<Counted> {
        let counted = self.store.count_purchase(purchase, now).await?;
        match &counted {
            Counted::Redelivery => tracing::info!(
                event_id = %purchase.event_id,
                "purchase event already counted"
            ),
            Counted::Counted {
                missions,
                completed,
            } => tracing::info!(
                event_id = %purchase.event_id,
                member_id = %purchase.member_id,
                missions,
                completed = completed.len(),
                "purchase event counted"
            ),
        }
        Ok(counted)
    }

    /// Counts `purchase` and grants the rewards it completed.
    pub async fn process(&self, purchase: &Purchase, now: i64) -> Result<Processed> {
        match self.count(purchase, now).await? {
            Counted::Redelivery => Ok(Processed {
                counted: false,
                missions: 0,
                completed: Vec::new(),
                granted: 0,
            }),
            Counted::Counted {
                missions,
                completed,
            } => {
                let granted = self.grant_all(&completed).await;
                Ok(Processed {
                    counted: true,
                    missions,
                    completed,
                    granted,
                })
            }
        }
    }

    /// Grants each reward, logging failures (left for the retry); how many were granted.
    pub async fn grant_all(&self, rewards: &[Reward]) -> usize {
        let mut granted = 0;
        for reward in rewards {
            match self.grant(reward).await {
                Ok(()) => granted += 1,
                Err(err) => tracing::warn!(
                    movement_id = %reward.movement_id,
                    member_id = %reward.member_id,
                    error = %err,
                    "mission reward not granted yet; it will be retried"
                ),
            }
        }
        granted
    }

    /// Has accounts record `reward` and marks it granted.
    pub async fn grant(&self, reward: &Reward) -> Result<()> {
        let mission = mission_of(reward)?;
        match self.rewards.grant(reward).await {
            Ok(()) => {}
            // The ledger already holds a movement under this id: the reward was paid.
            Err(MissionsError::Refused {
                code: ErrorCode::IdempotencyMismatch,
                ..
            }) => tracing::warn!(
                movement_id = %reward.movement_id,
                "the ledger holds a different movement under the reward's id; counted as granted"
            ),
            Err(err) => return Err(err),
        }
        self.store
            .mark_granted(&mission, &reward.member_id, now_millis())
            .await?;
        tracing::info!(
            movement_id = %reward.movement_id,
            member_id = %reward.member_id,
            amount = reward.amount,
            "mission reward granted"
        );
        Ok(())
    }

    /// Grants the rewards of missions completed before `completed_before` that accounts has
    /// not recorded yet; how many it granted now.
    pub async fn retry_rewards(&self, completed_before: i64) -> Result<usize> {
        let mut granted = 0;
        loop {
            let pending = self
                .store
                .ungranted_rewards(completed_before, Self::RETRY_BATCH)
                .await?;
            let round = self.grant_all(&pending).await;
            granted += round;
            // Stop when a round made no progress (accounts down) or there is nothing left.
            if round == 0 || (pending.len() as i64) < Self::RETRY_BATCH {
                break;
            }
        }
        Ok(granted)
    }

    /// Every `interval`, grants the rewards still ungranted, until `shutdown`.
    pub async fn retry_periodically(self, interval: Duration, shutdown: Shutdown) {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stopped = shutdown.wait();
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                () = &mut stopped => break,
                _ = ticks.tick() => {}
            }
            let completed_before = now_millis() - Self::RETRY_GRACE_MS;
            match self.retry_rewards(completed_before).await {
                Ok(0) => {}
                Ok(granted) => tracing::info!(granted, "pending mission rewards granted"),
                Err(err) => {
                    tracing::error!(error = %err, "granting pending mission rewards failed")
                }
            }
        }
        tracing::info!("mission reward retry stopped");
    }
}

/// The mission a reward belongs to.
fn mission_of(reward: &Reward) -> Result<MissionId> {
    MissionId::parse(&reward.mission_id)
        .map_err(|_| MissionsError::CorruptRecord(format!("reward {}", reward.movement_id)))
}
