//! The "Tu correo de Mi Club cambió" notice to the previous address once a new one is confirmed,
//! delivered from a durable outbox: the takeover control of issue #16, whose restore link is the
//! owner's only way back, so no stop, crash or relay outage may lose it.
//!
//! The restore row, written in the transaction that confirms the new address, says the notice
//! is due (`store::change_notices`). This relay mails it: woken by the confirmation, and every
//! interval for what is due again or was left by a replica that died. It mints the restore
//! token as it sends, claiming the row and swapping in the token's SHA-256 in one guarded
//! `UPDATE`, so the token itself is never stored and two replicas never mail the same row. The
//! message goes straight to the mail relay ([`Notifier::send_unqueued`](miclub_platform::notify::Notifier::send_unqueued)),
//! and the row is marked sent only once the relay took it; a failure that may pass is tried
//! again with a backoff for as long as the link lives, and a refusal for good is given up and
//! logged. A relay that took the message but died before marking it sends a second notice with
//! a new link once its lease passes; the earlier link then answers as invalid.

use std::sync::Arc;
use std::time::Duration;

use miclub_platform::notify::{MailOutbox, Outgoing, Refused, SharedNotifier, outbox};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;
use tokio::sync::Notify;

use super::email_links::chile_date_time;
use super::{ConfirmationSettings, ConfirmationToken, EMAIL_CHANGED_SUBJECT, StoredRestore};
use crate::error::Result;
use crate::store::Store;

/// A restore row whose notice is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueNotice {
    /// The row's current `token_hash`: the digest of a token never mailed, or of the link of a
    /// try that failed.
    pub digest: String,
    pub restore: StoredRestore,
    /// When the new address was confirmed (Unix ms), which the notice names.
    pub changed_at: i64,
    /// Tries made so far.
    pub tries: i64,
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoticeRound {
    /// Notices the mail relay took.
    pub sent: usize,
    /// Notices whose try failed in a way that may pass, due again later.
    pub retrying: usize,
    /// Notices given up: refused for good, or never taken by the relay in the link's life.
    pub given_up: usize,
    /// Notices no longer worth sending: the member restored the address with an earlier
    /// change's link, or left the club.
    pub void: usize,
}

/// What became of one due notice this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Sent,
    Retrying,
    GivenUp,
    Void,
}

impl NoticeRound {
    /// Counts `outcome` in the round and in `email_change_notices_total`, what an operator
    /// alerts on.
    fn count(&mut self, outcome: Outcome) {
        let (count, label) = match outcome {
            Outcome::Sent => (&mut self.sent, "sent"),
            Outcome::Retrying => (&mut self.retrying, "retrying"),
            Outcome::GivenUp => (&mut self.given_up, "given_up"),
            Outcome::Void => (&mut self.void, "void"),
        };
        *count += 1;
        metrics::counter!("email_change_notices_total", "outcome" => label).increment(1);
    }
}

/// The relay of change notices.
#[derive(Debug, Clone)]
pub struct ChangeNotices {
    store: Store,
    notifier: SharedNotifier,
    settings: ConfirmationSettings,
    batch: i64,
    wake: Arc<Notify>,
}

impl ChangeNotices {
    /// How long a claim keeps other relays off a row: the mail outbox's, beyond the longest
    /// send, so only a relay that died mid-send lets its row be claimed again.
    pub const LEASE: Duration = MailOutbox::LEASE;
    /// The mail outbox's backoff: through an outage of hours a notice is still tried every few
    /// minutes, until its link expires.
    pub const FIRST_RETRY: Duration = MailOutbox::FIRST_RETRY;
    pub const MAX_RETRY: Duration = MailOutbox::MAX_RETRY;

    pub fn new(
        store: Store,
        notifier: SharedNotifier,
        settings: ConfirmationSettings,
        batch: u32,
    ) -> Self {
        Self {
            store,
            notifier,
            settings,
            batch: i64::from(batch.max(1)),
            wake: Arc::new(Notify::new()),
        }
    }

    /// What asks the relay for a round now (`notify_one` once a notice is written); a round
    /// under way is followed by another. A bell rather than the relay itself, so the profile
    /// that rings it needs nothing else of this module.
    pub fn bell(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// One round: tries every notice due at `now`, up to a batch.
    pub async fn deliver_due(&self, now: i64) -> Result<NoticeRound> {
        let mut round = NoticeRound::default();
        for due in self.store.due_change_notices(now, self.batch).await? {
            let notice = match due {
                Ok(notice) => notice,
                Err((digest, err)) => {
                    // Left due, it would fail every round and hold up the notices after it.
                    self.store.change_notice_due(&digest, None).await?;
                    tracing::error!(
                        error = %err,
                        "email change notice given up: its row cannot be read"
                    );
                    round.count(Outcome::GivenUp);
                    continue;
                }
            };
            if let Some(outcome) = self.deliver(&notice, now).await? {
                round.count(outcome);
            }
        }
        Ok(round)
    }

    /// Sends `notice`, or settles it when it can no longer be of use; `None` when another
    /// replica's relay claimed it first.
    async fn deliver(&self, notice: &DueNotice, now: i64) -> Result<Option<Outcome>> {
        let member_id = &notice.restore.member_id;
        if now >= notice.restore.expires_at {
            // Due for the link's whole life: the mail relay never took it.
            self.store.change_notice_due(&notice.digest, None).await?;
            tracing::error!(
                member_id = %member_id,
                tries = notice.tries,
                "email change notice given up: its link expired before the mail relay took it"
            );
            return Ok(Some(Outcome::GivenUp));
        }
        if !notice.restore.is_usable(now) {
            self.store.change_notice_due(&notice.digest, None).await?;
            tracing::info!(
                member_id = %member_id,
                "email change notice not sent: an earlier link restored the address, or the member left"
            );
            return Ok(Some(Outcome::Void));
        }
        let token = ConfirmationToken::generate();
        let digest = token.digest();
        let lease_until = now.saturating_add(Self::LEASE.as_millis() as i64);
        if !self
            .store
            .claim_change_notice(&notice.digest, &digest, now, lease_until)
            .await?
        {
            return Ok(None);
        }
        let tries = notice.tries + 1;
        let outcome = match self
            .notifier
            .send_unqueued(self.message(notice, &token))
            .await
        {
            Ok(()) => {
                self.store.change_notice_sent(&digest, now_millis()).await?;
                tracing::info!(member_id = %member_id, tries, "email change notice sent");
                Outcome::Sent
            }
            Err(err) if err.is::<Refused>() => {
                self.store.change_notice_due(&digest, None).await?;
                tracing::error!(
                    member_id = %member_id,
                    error = %format!("{err:#}"),
                    "email change notice refused by the mail relay: not sent"
                );
                Outcome::GivenUp
            }
            Err(err) => {
                let wait = Self::retry_after(tries);
                let due = now_millis().saturating_add(wait.as_millis() as i64);
                self.store.change_notice_due(&digest, Some(due)).await?;
                tracing::warn!(
                    member_id = %member_id,
                    tries,
                    retry_in_ms = wait.as_millis() as u64,
                    error = %format!("{err:#}"),
                    "email change notice not sent yet: trying again later"
                );
                Outcome::Retrying
            }
        };
        Ok(Some(outcome))
    }

    /// Runs a round when woken and every `interval`, until `shutdown`. A round under way when
    /// the service stops is cut short, since through a relay outage it may take a send timeout
    /// per notice: what it has not tried stays due, and a notice it was sending stays claimed
    /// until its lease passes ([`Self::LEASE`]), then any replica sends it.
    pub async fn deliver_periodically(self, interval: Duration, shutdown: Shutdown) {
        outbox::rounds(&self.wake, interval, shutdown, || async {
            match self.deliver_due(now_millis()).await {
                Ok(round) if round != NoticeRound::default() => tracing::info!(
                    sent = round.sent,
                    retrying = round.retrying,
                    given_up = round.given_up,
                    void = round.void,
                    "email change notices delivered"
                ),
                Ok(_) => {}
                Err(err) => tracing::error!(error = %err, "delivering email change notices failed"),
            }
        })
        .await;
        tracing::info!("email change notice relay stopped");
    }

    /// The wait after the `tries`-th failed try.
    fn retry_after(tries: i64) -> Duration {
        outbox::retry_after(tries, Self::FIRST_RETRY, Self::MAX_RETRY)
    }

    /// The notice, with the restore link of `token` and the new address masked. It names the
    /// link's deadline rather than "7 days": a notice held up by a relay outage is mailed with
    /// less time left.
    fn message(&self, notice: &DueNotice, token: &ConfirmationToken) -> Outgoing {
        let link = self.settings.restore_link(token);
        let when = chile_date_time(notice.changed_at);
        let until = chile_date_time(notice.restore.expires_at);
        let masked = notice.restore.new_email.masked();
        let body = format!(
            "Hola:\n\n\
             El {when} (hora de Chile) el correo electrónico de tu cuenta de Mi Club cambió \
             de esta dirección a {masked}. Desde entonces tus códigos de acceso y la \
             recuperación de contraseña van a la nueva dirección.\n\n\
             Si fuiste tú, no necesitas hacer nada.\n\n\
             Si no fuiste tú, abre este enlace antes del {until} (hora de Chile) para volver \
             a usar esta dirección y cerrar todas las sesiones abiertas de tu cuenta:\n\n\
             {link}\n\n\
             Después, cambia tu contraseña. Mi Club nunca te pedirá tu contraseña ni tus \
             códigos por correo.\n"
        );
        Outgoing {
            to: notice.restore.previous_email.as_str().to_owned(),
            subject: EMAIL_CHANGED_SUBJECT.to_owned(),
            body,
            code: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_wait_one_second_then_double_up_to_ten_minutes() {
        let waits: Vec<u64> = (1..=12)
            .map(|tries| ChangeNotices::retry_after(tries).as_secs())
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600]);
        assert_eq!(ChangeNotices::retry_after(10_000).as_secs(), 600);
    }
}
