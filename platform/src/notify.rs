//! Messages to members (one-time codes, verification, recovery).
//!
//! Production sends email over SMTP, off the request path: [`build`] wraps the SMTP sender in
//! a [`QueuedNotifier`], whose `send` returns once the message is queued (so a member and a
//! stranger get their answers in the same time) and whose background task sends, retrying
//! through a relay outage for as long as a code lives; a stopping service lets it send what is
//! still queued, within a bound ([`Notifier::settle`]). Development and standalone use the
//! [`DevMailbox`]: each message is logged (code included) and kept in memory for
//! `GET /api/dev/mailbox`; it does no I/O, so it is not queued and tests read codes the moment
//! the call that sent them answers. Production configuration refuses to start with the dev
//! mailbox.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use crate::config::Environment;

/// A message to send.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// The one-time code the body carries, when there is one (dev mailbox only shows it).
    pub code: Option<String>,
}

#[async_trait]
pub trait Notifier: Send + Sync + std::fmt::Debug + 'static {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()>;

    /// Sends what is still waiting to go before the process stops, within a bound, and logs
    /// what it could not. A service calls it once it serves no more calls. A notifier that
    /// sends as it is called has nothing waiting.
    async fn settle(&self) {}
}

pub type SharedNotifier = Arc<dyn Notifier>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotifierKind {
    #[default]
    DevMailbox,
    Smtp,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct NotifierSettings {
    pub kind: NotifierKind,
    pub smtp_host: String,
    pub smtp_port: u16,
    pub smtp_username: String,
    pub smtp_password: Option<SecretString>,
    /// How the SMTP connection is encrypted; never in clear.
    pub smtp_tls: SmtpTls,
    /// A PEM file of CA certificates trusted for the relay besides the public roots (a relay
    /// with an internal CA, or the local mail catcher of `scripts/run --distributed`).
    pub smtp_ca_file: Option<std::path::PathBuf>,
    /// Sender, e.g. `Mi Club <no-responder@miclub.cl>`.
    pub from: String,
}

/// The TLS of the SMTP connection: both verify the relay's certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmtpTls {
    /// Plain connection upgraded with STARTTLS, which the relay must offer (port 587).
    #[default]
    Starttls,
    /// TLS from the first byte (SMTPS, port 465; RFC 8314).
    Implicit,
}

/// A delivered message as the dev mailbox keeps it.
#[derive(Debug, Clone, Serialize)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub body: String,
    pub code: Option<String>,
    #[serde(rename = "sentAt")]
    pub sent_at: String,
}

/// In-memory mailbox for development; keeps the newest 500 messages.
#[derive(Debug, Default)]
pub struct DevMailbox {
    mails: Mutex<VecDeque<Mail>>,
}

impl DevMailbox {
    const CAPACITY: usize = 500;

    /// Newest first.
    pub fn list(&self) -> Vec<Mail> {
        let mails = self.mails.lock().unwrap_or_else(|p| p.into_inner());
        mails.iter().rev().cloned().collect()
    }
}

#[async_trait]
impl Notifier for DevMailbox {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        tracing::info!(
            to = %message.to,
            subject = %message.subject,
            code = message.code.as_deref().unwrap_or(""),
            "dev mailbox received a message"
        );
        let mut mails = self.mails.lock().unwrap_or_else(|p| p.into_inner());
        if mails.len() == Self::CAPACITY {
            mails.pop_front();
        }
        mails.push_back(Mail {
            to: message.to,
            subject: message.subject,
            body: message.body,
            code: message.code,
            sent_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        });
        Ok(())
    }
}

/// SMTP over TLS (STARTTLS or implicit), the relay's certificate verified.
pub struct SmtpNotifier {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl std::fmt::Debug for SmtpNotifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpNotifier")
            .field("from", &self.from.to_string())
            .finish()
    }
}

impl SmtpNotifier {
    pub fn new(settings: &NotifierSettings) -> anyhow::Result<Self> {
        let mut tls = TlsParameters::builder(settings.smtp_host.clone());
        if let Some(path) = &settings.smtp_ca_file {
            let pem = std::fs::read(path)
                .with_context(|| format!("reading notifier.smtp_ca_file {}", path.display()))?;
            tls = tls.add_root_certificate(
                Certificate::from_pem(&pem)
                    .context("notifier.smtp_ca_file is not a PEM certificate")?,
            );
        }
        let tls = tls.build_rustls().context("smtp tls")?;
        let mut builder =
            AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&settings.smtp_host)
                .port(settings.smtp_port)
                .tls(match settings.smtp_tls {
                    SmtpTls::Starttls => Tls::Required(tls),
                    SmtpTls::Implicit => Tls::Wrapper(tls),
                });
        if let Some(password) = &settings.smtp_password {
            builder = builder.credentials(Credentials::new(
                settings.smtp_username.clone(),
                password.expose_secret().to_owned(),
            ));
        }
        Ok(Self {
            transport: builder.build(),
            from: settings.from.parse().context("smtp sender")?,
        })
    }
}

#[async_trait]
impl Notifier for SmtpNotifier {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        let email = lettre::Message::builder()
            .from(self.from.clone())
            .to(message
                .to
                .parse()
                .map_err(|err| Refused(format!("recipient address: {err}")))?)
            .subject(message.subject)
            .body(message.body)
            .map_err(|err| Refused(format!("message: {err}")))?;
        match self.transport.send(email).await {
            Ok(_) => Ok(()),
            // 5xx: the relay will not take this message, however often it is offered.
            Err(err) if err.is_permanent() => Err(Refused(format!("relay: {err}")).into()),
            Err(err) => Err(anyhow::Error::new(err).context("sending email")),
        }
    }
}

/// A message no retry can send: its address or content is invalid, or the relay refused it for
/// good (an SMTP 5xx). Every other failure of a send is taken as passing (the relay unreachable,
/// busy or answering 4xx) and retried.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refused for good: {}", self.0)
    }
}

impl std::error::Error for Refused {}

/// A notifier that hands messages to a bounded queue and sends them from a background task,
/// retrying a failed send while it may pass ([`QueuedNotifier::RETRY_FOR`]) and logging the
/// ones that still fail. `send` answers as soon as the message is queued; a full queue is an
/// error (callers answer UNAVAILABLE).
#[derive(Debug)]
pub struct QueuedNotifier {
    queue: tokio::sync::mpsc::Sender<(Outgoing, Instant)>,
    /// Messages queued or being sent.
    pending: Arc<AtomicUsize>,
    drained: Arc<tokio::sync::Notify>,
}

impl QueuedNotifier {
    /// Messages that may wait at once.
    pub const DEFAULT_CAPACITY: usize = 1024;
    /// How long after it was queued a message is still tried while its sends fail in a way
    /// that may pass (the relay unreachable or answering 4xx). Three quick tries lost every
    /// message of a relay outage longer than about two seconds, a previous address's notice of
    /// a changed email included; a code is worth trying for as long as it lives (5 minutes),
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
    /// is queued then is a member's code or a security notice (the previous address's restore
    /// link exists nowhere else), and a rollout stops every replica. It fits the pod's
    /// `terminationGracePeriodSeconds` (30 s) after the preStop sleep (5 s), the drain (5 s)
    /// and the calls' grace (10 s).
    pub const SETTLE_WITHIN: Duration = Duration::from_secs(8);

    /// Starts the sending task on the current tokio runtime; it ends when the notifier is
    /// dropped and the queue is empty.
    pub fn spawn(inner: SharedNotifier, capacity: usize) -> Arc<Self> {
        Self::spawn_retrying_for(inner, capacity, Self::RETRY_FOR)
    }

    /// [`Self::spawn`], each message tried for `retry_for` after it was queued.
    fn spawn_retrying_for(
        inner: SharedNotifier,
        capacity: usize,
        retry_for: Duration,
    ) -> Arc<Self> {
        let (queue, mut messages) = tokio::sync::mpsc::channel(capacity.max(1));
        let pending = Arc::new(AtomicUsize::new(0));
        let drained = Arc::new(tokio::sync::Notify::new());
        let (task_pending, task_drained) = (pending.clone(), drained.clone());
        tokio::spawn(async move {
            while let Some((message, queued_at)) = messages.recv().await {
                send_with_retries(inner.as_ref(), message, queued_at + retry_for).await;
                if task_pending.fetch_sub(1, Ordering::AcqRel) == 1 {
                    task_drained.notify_waiters();
                }
            }
        });
        Arc::new(Self {
            queue,
            pending,
            drained,
        })
    }

    /// [`Notifier::settle`] within `bound`.
    async fn settle_within(&self, bound: Duration) {
        let waiting = self.pending.load(Ordering::Acquire);
        if waiting == 0 {
            return;
        }
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

/// Tries `message` until it is sent, refused for good, or the next try would start past
/// `deadline`.
async fn send_with_retries(inner: &dyn Notifier, message: Outgoing, deadline: Instant) {
    let mut backoff = QueuedNotifier::FIRST_BACKOFF;
    for attempt in 1.. {
        let outcome =
            tokio::time::timeout(QueuedNotifier::SEND_TIMEOUT, inner.send(message.clone()))
                .await
                .unwrap_or_else(|_| Err(anyhow::anyhow!("send timed out")));
        let err = match outcome {
            Ok(()) => return,
            Err(err) => err,
        };
        if err.downcast_ref::<Refused>().is_some() {
            tracing::error!(subject = %message.subject, attempts = attempt, error = format!("{err:#}"), "message refused, not sent");
            return;
        }
        if Instant::now() + backoff > deadline {
            tracing::error!(subject = %message.subject, attempts = attempt, error = format!("{err:#}"), "message not sent, given up");
            return;
        }
        tracing::warn!(subject = %message.subject, attempt, retry_in_ms = backoff.as_millis() as u64, error = format!("{err:#}"), "message not sent, retrying");
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(QueuedNotifier::MAX_BACKOFF);
    }
}

#[async_trait]
impl Notifier for QueuedNotifier {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        self.pending.fetch_add(1, Ordering::AcqRel);
        if let Err(err) = self.queue.try_send((message, Instant::now())) {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            anyhow::bail!("mail queue cannot take the message: {err}");
        }
        Ok(())
    }

    async fn settle(&self) {
        self.settle_within(Self::SETTLE_WITHIN).await;
    }
}

/// The notifier the settings ask for; production refuses the dev mailbox. SMTP goes through
/// a [`QueuedNotifier`] (needs a tokio runtime).
pub fn build(
    settings: &NotifierSettings,
    environment: Environment,
    mailbox: Option<Arc<DevMailbox>>,
) -> anyhow::Result<SharedNotifier> {
    match settings.kind {
        NotifierKind::Smtp => {
            let smtp: SharedNotifier = Arc::new(SmtpNotifier::new(settings)?);
            Ok(QueuedNotifier::spawn(
                smtp,
                QueuedNotifier::DEFAULT_CAPACITY,
            ))
        }
        NotifierKind::DevMailbox if environment.is_production() => {
            anyhow::bail!(
                "the dev mailbox cannot be enabled in production (notifier.kind, APP_NOTIFIER__KIND): configure smtp"
            )
        }
        NotifierKind::DevMailbox => Ok(mailbox.unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU32;

    use super::*;

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
        assert_eq!(subjects, ["dos", "uno"]);
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
    async fn send_returns_once_queued_and_a_full_queue_is_an_error() {
        let queued = QueuedNotifier::spawn(Arc::new(Stuck), 1);
        // The first is taken by the stuck task, the second waits in the queue.
        queued.send(message("uno")).await.unwrap();
        while queued.queue.capacity() == 0 {
            tokio::task::yield_now().await;
        }
        queued.send(message("dos")).await.unwrap();
        let full = queued.send(message("tres")).await.unwrap_err();
        assert!(full.to_string().contains("mail queue"), "{full}");
    }
}
