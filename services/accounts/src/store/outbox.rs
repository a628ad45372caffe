//! The outbox in storage, as the relay sees it: claiming a batch of unpublished events,
//! recording each one published, and giving back what a failed round could not publish.
//!
//! A round that published its whole batch records it in one statement
//! ([`Store::mark_claim_published`]): one commit per batch instead of one per event, which
//! halved the commits of a posting (`bench/postings.sh`, issue #20). A round cut short by a
//! failed publish records the events it did publish one by one, then gives the rest back.
//!
//! Claims are portable (no `FOR UPDATE SKIP LOCKED`): one `UPDATE` sets the relay's token and
//! a lease on the oldest unclaimed rows, guarded by "unpublished and not under a live lease".
//! On PostgreSQL a second relay's concurrent `UPDATE` waits on the rows the first one claimed
//! and, re-checking the guard once the first commits, skips them; SQLite runs writes one at a
//! time. Either way a row is claimed by one relay at a time until its lease passes.

use sqlx::Row;

use super::Store;
use crate::error::Result;

/// An outbox row claimed for publishing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedEvent {
    pub event_id: String,
    pub topic: String,
    pub payload: String,
}

impl Store {
    /// Claims up to `batch` of the oldest unpublished events not under another relay's live
    /// lease, for `token` until `now + lease_ms`, and answers them oldest first.
    pub async fn claim_outbox(
        &self,
        token: &str,
        batch: i64,
        now: i64,
        lease_ms: i64,
    ) -> Result<Vec<ClaimedEvent>> {
        sqlx::query(
            "UPDATE outbox SET claim_token = $1, claimed_until = $2 \
             WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until <= $3) \
             AND event_id IN (SELECT event_id FROM outbox \
                 WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until <= $3) \
                 ORDER BY created_at, event_id LIMIT $4)",
        )
        .bind(token)
        .bind(now.saturating_add(lease_ms))
        .bind(now)
        .bind(batch)
        .execute(self.db.pool())
        .await?;
        let rows = sqlx::query(
            "SELECT event_id, topic, payload FROM outbox \
             WHERE claim_token = $1 AND published_at IS NULL \
             ORDER BY created_at, event_id",
        )
        .bind(token)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(ClaimedEvent {
                    event_id: row.try_get("event_id")?,
                    topic: row.try_get("topic")?,
                    payload: row.try_get("payload")?,
                })
            })
            .collect()
    }

    /// Records the event published by the relay holding `token`; false when the claim was lost
    /// (its lease passed and another relay took the row), which only means a second delivery.
    pub async fn mark_published(&self, event_id: &str, token: &str, at: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE outbox SET published_at = $1, claim_token = NULL, claimed_until = NULL \
             WHERE event_id = $2 AND claim_token = $3 AND published_at IS NULL",
        )
        .bind(at)
        .bind(event_id)
        .bind(token)
        .execute(self.db.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Records every event still claimed by `token` as published, in one statement: how a round
    /// that published its whole batch ends. Answers how many rows it marked; fewer than the
    /// batch means some claims were lost (their lease passed and another relay took them).
    pub async fn mark_claim_published(&self, token: &str, at: i64) -> Result<u64> {
        let done = sqlx::query(
            "UPDATE outbox SET published_at = $1, claim_token = NULL, claimed_until = NULL \
             WHERE claim_token = $2 AND published_at IS NULL",
        )
        .bind(at)
        .bind(token)
        .execute(self.db.pool())
        .await?;
        Ok(done.rows_affected())
    }

    /// Gives back the unpublished rows `token` still holds, so the next round retries them
    /// without waiting for the lease.
    pub async fn release_outbox(&self, token: &str) -> Result<u64> {
        let released = sqlx::query(
            "UPDATE outbox SET claim_token = NULL, claimed_until = NULL \
             WHERE claim_token = $1 AND published_at IS NULL",
        )
        .bind(token)
        .execute(self.db.pool())
        .await?;
        Ok(released.rows_affected())
    }

    /// Events not yet published (claimed or not).
    pub async fn count_unpublished(&self) -> Result<i64> {
        let row = sqlx::query(
            "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM outbox WHERE published_at IS NULL",
        )
        .fetch_one(self.db.pool())
        .await?;
        Ok(row.try_get("n")?)
    }
}
