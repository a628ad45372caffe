//! A durable outbox for the notices a member must get even when the process ends right after
//! the change they report (the password changed or reset, the member unsubscribed): the notice
//! is a row of the service's own `mail_outbox` table, written by [`enqueue`] in the change's
//! transaction, so the change and its notice commit together or not at all. [`MailOutbox`]
//! relays it: woken by the commit ([`MailOutbox::ring`]) and every [`MailOutbox::POLL_EVERY`]
//! for what is due again or was left by a replica that died. It sends straight to the mail
//! relay ([`send_unqueued`](super::Notifier::send_unqueued)) and deletes the row once the relay
//! took it; a failure that may pass is tried again after a growing wait ([`retry_after`]) for
//! [`MailOutbox::MAX_AGE`], and a refusal for good, or a notice that old, is given up and
//! logged as an error.
//!
//! A claim is a guarded `UPDATE` of the row's `due_at` (a compare-and-swap on the value read)
//! that moves it past the longest send ([`MailOutbox::LEASE`]): two replicas never mail one row,
//! and a replica that dies mid-send leaves it to the others once the lease passes. The notice
//! may then go twice, which a notice of what happened can afford.
//!
//! A service that uses it creates the table in both migration folders, with the same columns:
//! `mail_outbox (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, to_address TEXT NOT NULL,
//! subject TEXT NOT NULL, body TEXT NOT NULL, created_at BIGINT NOT NULL, due_at BIGINT NOT
//! NULL, tries BIGINT NOT NULL)` and an index on `due_at`. A [`Notice`] has no code and no link
//! by its type: a one-time code or a link is worthless minutes later and would be one more copy
//! to steal from the database; those go through the queue.

use std::sync::Arc;
use std::time::Duration;

use sqlx::{AnyConnection, Row};
use tokio::sync::Notify;

use super::{Outgoing, Refused, SharedNotifier};
use crate::shutdown::Shutdown;
use crate::storage::{Database, now_millis};

/// A notice for the outbox: what happened to the member's account, with nothing in it that
/// acts (no code, no link).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub to: String,
    pub subject: String,
    pub body: String,
}

impl From<Notice> for Outgoing {
    fn from(notice: Notice) -> Self {
        Outgoing {
            to: notice.to,
            subject: notice.subject,
            body: notice.body,
            code: None,
        }
    }
}

/// Writes `notice` to `member_id`'s address into the outbox, due at once, on `conn`: the
/// change's own transaction. Ring the relay ([`MailOutbox::ring`]) once it commits.
pub async fn enqueue(
    conn: &mut AnyConnection,
    member_id: &str,
    notice: &Notice,
    now: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO mail_outbox \
         (id, member_id, to_address, subject, body, created_at, due_at, tries) \
         VALUES ($1, $2, $3, $4, $5, $6, $6, 0)",
    )
    .bind(uuid::Uuid::new_v4().simple().to_string())
    .bind(member_id)
    .bind(&notice.to)
    .bind(&notice.subject)
    .bind(&notice.body)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// The wait after the `tries`-th failed try: `first`, doubled before each later try, at most
/// `max`.
pub fn retry_after(tries: i64, first: Duration, max: Duration) -> Duration {
    let doublings = u32::try_from(tries.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
    first.saturating_mul(1 << doublings).min(max)
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutboxRound {
    /// Notices the mail relay took (their rows deleted).
    pub sent: usize,
    /// Notices whose try failed in a way that may pass, due again later.
    pub retrying: usize,
    /// Notices given up (their rows deleted): refused for good, older than
    /// [`MailOutbox::MAX_AGE`], or a row that cannot be read.
    pub given_up: usize,
}

/// What became of one due notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Sent,
    Retrying,
    GivenUp,
}

impl OutboxRound {
    /// Counts `outcome` in the round and in `mail_outbox_notices_total`, what an operator
    /// alerts on.
    fn count(&mut self, outcome: Outcome) {
        let (count, label) = match outcome {
            Outcome::Sent => (&mut self.sent, "sent"),
            Outcome::Retrying => (&mut self.retrying, "retrying"),
            Outcome::GivenUp => (&mut self.given_up, "given_up"),
        };
        *count += 1;
        metrics::counter!("mail_outbox_notices_total", "outcome" => label).increment(1);
    }
}

/// One due row.
#[derive(Debug)]
struct Due {
    id: String,
    member_id: String,
    notice: Notice,
    created_at: i64,
    due_at: i64,
    tries: i64,
}

/// The relay of a service's `mail_outbox`.
#[derive(Debug, Clone)]
pub struct MailOutbox {
    db: Database,
    notifier: SharedNotifier,
    wake: Arc<Notify>,
}

impl MailOutbox {
    /// How often the relay looks for notices due again, or left by a replica that died; a
    /// committed notice rings it at once.
    pub const POLL_EVERY: Duration = Duration::from_secs(1);
    /// How long a claim keeps other relays off a row: beyond the longest send
    /// (`QueuedNotifier::SEND_TIMEOUT`, 30 s).
    pub const LEASE: Duration = Duration::from_secs(300);
    /// Wait before the second try, doubled before each later one up to [`Self::MAX_RETRY`].
    pub const FIRST_RETRY: Duration = Duration::from_secs(1);
    pub const MAX_RETRY: Duration = Duration::from_secs(600);
    /// How long a notice is tried: three days of a relay outage, after which the row (and the
    /// address in it) goes and an error says the member was not told.
    pub const MAX_AGE: Duration = Duration::from_secs(3 * 24 * 3600);
    /// Rows read per round.
    const BATCH: i64 = 50;

    pub fn new(db: Database, notifier: SharedNotifier) -> Self {
        Self {
            db,
            notifier,
            wake: Arc::new(Notify::new()),
        }
    }

    /// Wakes the relay: a transaction that enqueued a notice committed.
    pub fn ring(&self) {
        self.wake.notify_one();
    }

    /// Sends what is due at `now` (Unix ms), oldest first.
    pub async fn deliver_due(&self, now: i64) -> Result<OutboxRound, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT id, member_id, to_address, subject, body, created_at, due_at, \
             CAST(tries AS BIGINT) AS tries \
             FROM mail_outbox WHERE due_at <= $1 ORDER BY due_at, id LIMIT $2",
        )
        .bind(now)
        .bind(Self::BATCH)
        .fetch_all(self.db.pool())
        .await?;
        let mut round = OutboxRound::default();
        for row in &rows {
            let id: String = row.try_get("id")?;
            let due = match read_due(row, &id) {
                Ok(due) => due,
                Err(err) => {
                    // Only a hand edit makes a row unreadable: it must not hold up the others.
                    self.delete(&id).await?;
                    tracing::error!(id = %id, error = %err, "mail outbox notice given up: its row cannot be read");
                    round.count(Outcome::GivenUp);
                    continue;
                }
            };
            if let Some(outcome) = self.deliver(&due, now).await? {
                round.count(outcome);
            }
        }
        Ok(round)
    }

    /// Sends `due`, or gives it up when it is too old; `None` when another replica claimed it
    /// first.
    async fn deliver(&self, due: &Due, now: i64) -> Result<Option<Outcome>, sqlx::Error> {
        let age = Duration::from_millis(u64::try_from(now - due.created_at).unwrap_or(0));
        if age >= Self::MAX_AGE {
            if self.delete_if_due(due).await? {
                tracing::error!(
                    member_id = %due.member_id,
                    subject = %due.notice.subject,
                    tries = due.tries,
                    "mail outbox notice given up: the mail relay did not take it in three days"
                );
                return Ok(Some(Outcome::GivenUp));
            }
            return Ok(None);
        }
        let lease_until = now.saturating_add(Self::LEASE.as_millis() as i64);
        let claimed = sqlx::query(
            "UPDATE mail_outbox SET due_at = $1, tries = tries + 1 WHERE id = $2 AND due_at = $3",
        )
        .bind(lease_until)
        .bind(&due.id)
        .bind(due.due_at)
        .execute(self.db.pool())
        .await?;
        if claimed.rows_affected() != 1 {
            return Ok(None);
        }
        let tries = due.tries + 1;
        let outcome = match self.notifier.send_unqueued(due.notice.clone().into()).await {
            Ok(()) => {
                self.delete(&due.id).await?;
                tracing::info!(
                    member_id = %due.member_id,
                    subject = %due.notice.subject,
                    tries,
                    "mail outbox notice sent"
                );
                Outcome::Sent
            }
            Err(err) if err.is::<Refused>() => {
                self.delete(&due.id).await?;
                tracing::error!(
                    member_id = %due.member_id,
                    subject = %due.notice.subject,
                    error = %format!("{err:#}"),
                    "mail outbox notice refused by the mail relay: not sent"
                );
                Outcome::GivenUp
            }
            Err(err) => {
                let wait = retry_after(tries, Self::FIRST_RETRY, Self::MAX_RETRY);
                let again = now_millis().saturating_add(wait.as_millis() as i64);
                sqlx::query("UPDATE mail_outbox SET due_at = $1 WHERE id = $2")
                    .bind(again)
                    .bind(&due.id)
                    .execute(self.db.pool())
                    .await?;
                tracing::warn!(
                    member_id = %due.member_id,
                    subject = %due.notice.subject,
                    tries,
                    retry_in_ms = wait.as_millis() as u64,
                    error = %format!("{err:#}"),
                    "mail outbox notice not sent yet: trying again later"
                );
                Outcome::Retrying
            }
        };
        Ok(Some(outcome))
    }

    async fn delete(&self, id: &str) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM mail_outbox WHERE id = $1")
            .bind(id)
            .execute(self.db.pool())
            .await?;
        Ok(())
    }

    /// Deletes `due`'s row unless another relay claimed it since it was read.
    async fn delete_if_due(&self, due: &Due) -> Result<bool, sqlx::Error> {
        let deleted = sqlx::query("DELETE FROM mail_outbox WHERE id = $1 AND due_at = $2")
            .bind(&due.id)
            .bind(due.due_at)
            .execute(self.db.pool())
            .await?;
        Ok(deleted.rows_affected() == 1)
    }

    /// Runs a round when rung and every [`Self::POLL_EVERY`], until `shutdown`. A round under
    /// way when the service stops is cut short (through a relay outage it may take a send
    /// timeout per notice): what it has not tried stays due, and a notice it was sending stays
    /// claimed until its lease passes.
    pub async fn deliver_periodically(self, shutdown: Shutdown) {
        rounds(&self.wake, Self::POLL_EVERY, shutdown, || async {
            match self.deliver_due(now_millis()).await {
                Ok(round) if round != OutboxRound::default() => tracing::info!(
                    sent = round.sent,
                    retrying = round.retrying,
                    given_up = round.given_up,
                    "mail outbox notices delivered"
                ),
                Ok(_) => {}
                Err(err) => tracing::error!(error = %err, "delivering mail outbox notices failed"),
            }
        })
        .await;
        tracing::info!("mail outbox relay stopped");
    }
}

/// Runs `round` each time `wake` is rung and every `every`, until `shutdown`: the loop of a
/// relay of durable mail. A round under way when the service stops is dropped where it is, so
/// a stop never waits on a mail relay that does not answer; the relay's claims keep what it
/// was sending off the other replicas until their lease passes.
pub async fn rounds<F, Fut>(wake: &Notify, every: Duration, shutdown: Shutdown, mut round: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let stopped = shutdown.wait();
    tokio::pin!(stopped);
    loop {
        tokio::select! {
            () = &mut stopped => return,
            () = wake.notified() => {}
            () = tokio::time::sleep(every) => {}
        }
        tokio::select! {
            () = &mut stopped => return,
            () = round() => {}
        }
    }
}

fn read_due(row: &sqlx::any::AnyRow, id: &str) -> Result<Due, sqlx::Error> {
    Ok(Due {
        id: id.to_owned(),
        member_id: row.try_get("member_id")?,
        notice: Notice {
            to: row.try_get("to_address")?,
            subject: row.try_get("subject")?,
            body: row.try_get("body")?,
        },
        created_at: row.try_get("created_at")?,
        due_at: row.try_get("due_at")?,
        tries: row.try_get("tries")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_doubles_from_the_first_retry_up_to_its_ceiling() {
        let wait = |tries| retry_after(tries, Duration::from_secs(1), Duration::from_secs(600));
        assert_eq!(wait(1), Duration::from_secs(1));
        assert_eq!(wait(2), Duration::from_secs(2));
        assert_eq!(wait(4), Duration::from_secs(8));
        assert_eq!(wait(10), Duration::from_secs(512));
        assert_eq!(wait(11), Duration::from_secs(600));
        assert_eq!(wait(10_000), Duration::from_secs(600));
        assert_eq!(wait(0), Duration::from_secs(1));
    }
}
