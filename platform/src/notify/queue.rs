//! The queue production's mail leaves through: `send` returns once a message is queued, and a
//! task of its own sends it, tries again while a failure may pass, and, when the service
//! stops, is given a bounded time to send what it still holds ([`Notifier::settle`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;

use super::{Notifier, Outgoing, Refused, SharedNotifier};

/// A notifier that hands messages to a bounded queue and sends them from a background task,
/// retrying a failed send while it may pass ([`QueuedNotifier::RETRY_FOR`]) and logging the
/// ones that still fail. `send` answers as soon as the message is queued; a full queue is an
/// error (callers answer UNAVAILABLE).
#[derive(Debug)]
pub struct QueuedNotifier {
    queue: tokio::sync::mpsc::Sender<(Outgoing, Instant)>,
    /// The sender the task sends through, also used straight by [`Notifier::send_unqueued`].
    inner: SharedNotifier,
    /// Messages queued, being sent or waiting to be tried again.
    pending: Arc<AtomicUsize>,
    /// The most `pending` may be: a relay outage fills it, and then `send` fails.
    capacity: usize,
    drained: Arc<tokio::sync::Notify>,
    /// Tells the task the process is stopping: what waits for a retry is tried at once.
    hurry: Arc<tokio::sync::Notify>,
}

impl QueuedNotifier {
    /// Messages that may be held at once: queued, being sent or waiting to be tried again.
    pub const DEFAULT_CAPACITY: usize = 1024;
    /// How long after it was queued a message is still tried while its sends fail in a way
    /// that may pass (the relay unreachable or answering 4xx). Three quick tries lost every
    /// message of a relay outage longer than about two seconds; a code is worth trying for as
    /// long as it lives (5 minutes),
    /// and a member who waited that long has asked for another. A message the relay refuses
    /// for good ([`Refused`]) is given up at once.
    pub const RETRY_FOR: Duration = Duration::from_secs(300);
    /// Longest a single try may take before it counts as failed.
    pub const SEND_TIMEOUT: Duration = Duration::from_secs(30);
    /// Wait before the second try; doubled before each later one, up to [`Self::MAX_BACKOFF`].
    const FIRST_BACKOFF: Duration = Duration::from_millis(500);
    /// Longest wait between two tries.
    const MAX_BACKOFF: Duration = Duration::from_secs(30);
    /// How long a stopping process keeps sending what it queued ([`Notifier::settle`]): what
    /// is queued then is a member's code or a security notice, and a rollout stops every
    /// replica. (The one notice no loss is acceptable for, the email change notice, does not
    /// use the queue: accounts keeps it in a durable outbox.) It fits the pod's
    /// `terminationGracePeriodSeconds` (30 s) after the preStop sleep (5 s), the drain (5 s)
    /// and the calls' grace (10 s).
    pub const SETTLE_WITHIN: Duration = Duration::from_secs(8);

    /// Starts the sending task ([`sending`]) on the current tokio runtime; it ends when the
    /// notifier is dropped and nothing is left to try.
    pub fn spawn(inner: SharedNotifier, capacity: usize) -> Arc<Self> {
        Self::spawn_retrying_for(inner, capacity, Self::RETRY_FOR)
    }

    /// [`Self::spawn`], each message tried for `retry_for` after it was queued.
    fn spawn_retrying_for(
        inner: SharedNotifier,
        capacity: usize,
        retry_for: Duration,
    ) -> Arc<Self> {
        let capacity = capacity.max(1);
        let (queue, messages) = tokio::sync::mpsc::channel(capacity);
        let pending = Arc::new(AtomicUsize::new(0));
        let drained = Arc::new(tokio::sync::Notify::new());
        let hurry = Arc::new(tokio::sync::Notify::new());
        tokio::spawn(sending(
            inner.clone(),
            messages,
            retry_for,
            pending.clone(),
            drained.clone(),
            hurry.clone(),
        ));
        Arc::new(Self {
            queue,
            inner,
            pending,
            capacity,
            drained,
            hurry,
        })
    }

    /// [`Notifier::settle`] within `bound`; a message set aside for a retry is tried at once,
    /// not after its backoff (up to 30 s, longer than the bound).
    async fn settle_within(&self, bound: Duration) {
        let waiting = self.pending.load(Ordering::Acquire);
        if waiting == 0 {
            return;
        }
        self.hurry.notify_one();
        tracing::info!(
            messages = waiting,
            within_ms = bound.as_millis() as u64,
            "sending the mail still queued before stopping"
        );
        match tokio::time::timeout(bound, self.drained()).await {
            Ok(()) => tracing::info!(messages = waiting, "queued mail sent or given up"),
            Err(_) => tracing::error!(
                messages = self.pending.load(Ordering::Acquire),
                within_ms = bound.as_millis() as u64,
                "mail still queued when the process stops: not sent"
            ),
        }
    }

    /// Returns once every message queued so far has been sent or given up on.
    pub async fn drained(&self) {
        loop {
            let notified = self.drained.notified();
            if self.pending.load(Ordering::Acquire) == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// The queue's sending task: each message in turn, and a message whose try failed in a way
/// that may pass set aside until its next try, so a message the relay defers (a recipient it
/// throttles) does not hold up the ones behind it. Once `hurry` is told (the process stops),
/// every message set aside is due at once. Ends once the notifier is dropped and nothing is left
/// to try.
async fn sending(
    inner: SharedNotifier,
    mut messages: tokio::sync::mpsc::Receiver<(Outgoing, Instant)>,
    retry_for: Duration,
    pending: Arc<AtomicUsize>,
    drained: Arc<tokio::sync::Notify>,
    hurry: Arc<tokio::sync::Notify>,
) {
    let mut deferred: Vec<Deferred> = Vec::new();
    let mut open = true;
    while open || !deferred.is_empty() {
        let due = deferred
            .iter()
            .enumerate()
            .min_by_key(|(_, d)| d.next_try)
            .map(|(at, d)| (at, d.next_try));
        let (due_at, wake) = due.unwrap_or((0, Instant::now()));
        let mut next = tokio::select! {
            biased;
            () = hurry.notified() => {
                let now = Instant::now();
                for message in &mut deferred {
                    message.next_try = now;
                }
                continue;
            }
            () = tokio::time::sleep_until(wake.into()), if due.is_some() => {
                deferred.swap_remove(due_at)
            }
            received = messages.recv(), if open => match received {
                Some((message, queued_at)) => Deferred::new(message, queued_at + retry_for),
                None => {
                    open = false;
                    continue;
                }
            },
        };
        if next.try_once(inner.as_ref()).await {
            if pending.fetch_sub(1, Ordering::AcqRel) == 1 {
                drained.notify_waiters();
            }
        } else {
            deferred.push(next);
        }
    }
}

/// A message and where its tries stand.
struct Deferred {
    message: Outgoing,
    /// No try starts after this.
    deadline: Instant,
    next_try: Instant,
    backoff: Duration,
    attempts: u32,
}

impl Deferred {
    fn new(message: Outgoing, deadline: Instant) -> Self {
        Self {
            message,
            deadline,
            next_try: Instant::now(),
            backoff: QueuedNotifier::FIRST_BACKOFF,
            attempts: 0,
        }
    }

    /// One try; `true` when the message is done with: sent, refused for good, or with no time
    /// left for another try. Otherwise its next try is set.
    async fn try_once(&mut self, inner: &dyn Notifier) -> bool {
        self.attempts += 1;
        let (subject, attempts) = (&self.message.subject, self.attempts);
        let outcome = tokio::time::timeout(
            QueuedNotifier::SEND_TIMEOUT,
            inner.send(self.message.clone()),
        )
        .await
        .unwrap_or_else(|_| Err(anyhow::anyhow!("send timed out")));
        let err = match outcome {
            Ok(()) => return true,
            Err(err) => err,
        };
        if err.downcast_ref::<Refused>().is_some() {
            tracing::error!(%subject, attempts, error = format!("{err:#}"), "message refused, not sent");
            return true;
        }
        let now = Instant::now();
        if now + self.backoff > self.deadline {
            tracing::error!(%subject, attempts, error = format!("{err:#}"), "message not sent, given up");
            return true;
        }
        tracing::warn!(%subject, attempts, retry_in_ms = self.backoff.as_millis() as u64, error = format!("{err:#}"), "message not sent, retrying");
        self.next_try = now + self.backoff;
        self.backoff = (self.backoff * 2).min(QueuedNotifier::MAX_BACKOFF);
        false
    }
}

#[async_trait]
impl Notifier for QueuedNotifier {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        if self.pending.fetch_add(1, Ordering::AcqRel) >= self.capacity {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            anyhow::bail!(
                "mail queue cannot take the message: it holds {} already",
                self.capacity
            );
        }
        if let Err(err) = self.queue.try_send((message, Instant::now())) {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            anyhow::bail!("mail queue cannot take the message: {err}");
        }
        Ok(())
    }

    /// Straight to the relay, past the queue, within [`Self::SEND_TIMEOUT`].
    async fn send_unqueued(&self, message: Outgoing) -> anyhow::Result<()> {
        tokio::time::timeout(Self::SEND_TIMEOUT, self.inner.send(message))
            .await
            .map_err(|_| {
                anyhow::anyhow!("mail relay did not answer within {:?}", Self::SEND_TIMEOUT)
            })?
    }

    async fn settle(&self) {
        self.settle_within(Self::SETTLE_WITHIN).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::AtomicU32;

    use super::*;
    use crate::notify::DevMailbox;

    fn message(subject: &str) -> Outgoing {
        Outgoing {
            to: "ana@example.cl".into(),
            subject: subject.into(),
            body: "hola".into(),
            code: None,
        }
    }

    /// Fails the first `failures` sends, then delivers to its mailbox.
    #[derive(Debug, Default)]
    struct Flaky {
        failures: u32,
        tries: AtomicU32,
        mailbox: DevMailbox,
    }

    #[async_trait]
    impl Notifier for Flaky {
        async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
            if self.tries.fetch_add(1, Ordering::SeqCst) < self.failures {
                anyhow::bail!("smtp unavailable");
            }
            self.mailbox.send(message).await
        }
    }

    /// Never finishes a send.
    #[derive(Debug)]
    struct Stuck;

    #[async_trait]
    impl Notifier for Stuck {
        async fn send(&self, _message: Outgoing) -> anyhow::Result<()> {
            std::future::pending().await
        }
    }

    #[tokio::test]
    async fn a_queued_message_is_sent_after_a_failed_try() {
        let flaky = Arc::new(Flaky {
            failures: 1,
            ..Flaky::default()
        });
        let queued = QueuedNotifier::spawn(flaky.clone(), 4);
        queued.send(message("uno")).await.unwrap();
        queued.drained().await;
        assert_eq!(flaky.tries.load(Ordering::SeqCst), 2);
        assert_eq!(flaky.mailbox.list()[0].subject, "uno");
    }

    #[tokio::test]
    async fn a_message_is_retried_through_a_relay_outage_and_given_up_past_its_time() {
        // Down for three tries (0.5 + 1 + 2 s of waits), more than it once had: sent on the
        // fourth.
        let flaky = Arc::new(Flaky {
            failures: 3,
            ..Flaky::default()
        });
        let queued = QueuedNotifier::spawn(flaky.clone(), 4);
        queued.send(message("uno")).await.unwrap();
        queued.drained().await;
        assert_eq!(flaky.tries.load(Ordering::SeqCst), 4);
        assert_eq!(flaky.mailbox.list()[0].subject, "uno");
        // Down for longer than a message is tried: given up.
        let down = Arc::new(Flaky {
            failures: u32::MAX,
            ..Flaky::default()
        });
        let queued =
            QueuedNotifier::spawn_retrying_for(down.clone(), 4, Duration::from_millis(1_200));
        queued.send(message("uno")).await.unwrap();
        queued.drained().await;
        assert_eq!(down.tries.load(Ordering::SeqCst), 2, "at 0 and 0.5 s");
        assert!(down.mailbox.list().is_empty());
    }

    /// Refuses every message for good, as a relay answering 5xx does.
    #[derive(Debug, Default)]
    struct Refusing {
        tries: AtomicU32,
    }

    #[async_trait]
    impl Notifier for Refusing {
        async fn send(&self, _message: Outgoing) -> anyhow::Result<()> {
            self.tries.fetch_add(1, Ordering::SeqCst);
            Err(Refused("550 no such mailbox".into()).into())
        }
    }

    #[tokio::test]
    async fn a_message_refused_for_good_is_not_tried_again() {
        let refusing = Arc::new(Refusing::default());
        let queued = QueuedNotifier::spawn(refusing.clone(), 4);
        queued.send(message("uno")).await.unwrap();
        queued.drained().await;
        assert_eq!(refusing.tries.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn settling_sends_what_is_queued_and_gives_up_at_its_bound() {
        // Every message still queued is sent, the one being retried included.
        let flaky = Arc::new(Flaky {
            failures: 1,
            ..Flaky::default()
        });
        let queued = QueuedNotifier::spawn(flaky.clone(), 4);
        queued.send(message("uno")).await.unwrap();
        queued.send(message("dos")).await.unwrap();
        queued.settle_within(Duration::from_secs(10)).await;
        let subjects: Vec<_> = flaky
            .mailbox
            .list()
            .into_iter()
            .map(|m| m.subject)
            .collect();
        // "dos" went while "uno" waited for its second try.
        assert_eq!(subjects, ["uno", "dos"]);
        // A relay that never answers holds the process only for the bound.
        let stuck = QueuedNotifier::spawn(Arc::new(Stuck), 4);
        stuck.send(message("tres")).await.unwrap();
        tokio::time::timeout(
            Duration::from_secs(5),
            stuck.settle_within(Duration::from_millis(100)),
        )
        .await
        .expect("settling ends at its bound");
        assert_eq!(stuck.pending.load(Ordering::Acquire), 1, "still queued");
    }

    #[tokio::test]
    async fn settling_tries_a_message_waiting_for_its_retry_at_once() {
        // Fails at 0 and 0.5 s; its next try would be 1 s later, past the bound.
        let flaky = Arc::new(Flaky {
            failures: 2,
            ..Flaky::default()
        });
        let queued = QueuedNotifier::spawn(flaky.clone(), 4);
        queued.send(message("uno")).await.unwrap();
        while flaky.tries.load(Ordering::SeqCst) < 2 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }

        queued.settle_within(Duration::from_millis(300)).await;

        assert_eq!(flaky.tries.load(Ordering::SeqCst), 3);
        assert_eq!(flaky.mailbox.list()[0].subject, "uno");
    }

    #[tokio::test]
    async fn send_returns_once_queued_and_a_full_queue_is_an_error() {
        let queued = QueuedNotifier::spawn(Arc::new(Stuck), 2);
        queued.send(message("uno")).await.unwrap();
        queued.send(message("dos")).await.unwrap();
        // Being sent or still queued, two are held: a third is refused at once.
        let full = queued.send(message("tres")).await.unwrap_err();
        assert!(full.to_string().contains("mail queue"), "{full}");
    }

    #[tokio::test]
    async fn messages_waiting_to_be_tried_again_count_toward_a_full_queue() {
        let deferring = Arc::new(Deferring::default());
        let queued = QueuedNotifier::spawn(deferring.clone(), 2);
        queued.send(message("lento")).await.unwrap();
        queued.send(message("lento")).await.unwrap();
        while deferring.tried.lock().unwrap().len() < 2 {
            tokio::task::yield_now().await;
        }
        // Both tried once and set aside: the queue itself is empty, yet it holds two.
        let full = queued.send(message("tres")).await.unwrap_err();
        assert!(full.to_string().contains("mail queue"), "{full}");
    }

    /// Defers every message with the subject "lento" (a 4xx), sends the others; notes the
    /// order of its tries.
    #[derive(Debug, Default)]
    struct Deferring {
        tried: Mutex<Vec<String>>,
        mailbox: DevMailbox,
    }

    #[async_trait]
    impl Notifier for Deferring {
        async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
            self.tried.lock().unwrap().push(message.subject.clone());
            if message.subject == "lento" {
                anyhow::bail!("451 try again later");
            }
            self.mailbox.send(message).await
        }
    }

    #[tokio::test]
    async fn a_message_the_relay_defers_does_not_hold_up_the_ones_behind_it() {
        let deferring = Arc::new(Deferring::default());
        let queued =
            QueuedNotifier::spawn_retrying_for(deferring.clone(), 4, Duration::from_millis(1_200));
        queued.send(message("lento")).await.unwrap();
        queued.send(message("rápido")).await.unwrap();
        queued.drained().await;
        let tried = deferring.tried.lock().unwrap().clone();
        assert_eq!(
            tried,
            ["lento", "rápido", "lento"],
            "sent between the deferred one's tries"
        );
        assert_eq!(deferring.mailbox.list()[0].subject, "rápido");
    }
}
