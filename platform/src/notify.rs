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
//! mailbox. The notices of a change to a member's account must outlive the process: they go
//! through a service's durable [`outbox`] instead, sent with [`Notifier::send_unqueued`].

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use async_trait::async_trait;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use crate::config::Environment;

pub mod outbox;
mod queue;

pub use outbox::{MailOutbox, Notice};
pub use queue::QueuedNotifier;

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

    /// Sends `message` now and answers whether the relay took it ([`Refused`] when it never
    /// will): for a caller that keeps the message durably and retries on its own schedule, for
    /// whom a queue in memory would only be a place to lose it. A notifier that sends as it is
    /// called does just that.
    async fn send_unqueued(&self, message: Outgoing) -> anyhow::Result<()> {
        self.send(message).await
    }

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
            Err(err) if err.is_permanent() => {
                Err(Refused(format!("relay: {}", without_addresses(&err.to_string()))).into())
            }
            Err(err) => Err(anyhow::anyhow!(
                "sending email: {}",
                without_addresses(&err.to_string())
            )),
        }
    }
}

/// `text` with every word that holds an `@` masked: a relay's answer often names the recipient
/// (`550 5.1.1 <ana@correo.cl>: no such user`), and the logs it ends up in hold no personal
/// data.
fn without_addresses(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            if word.contains('@') {
                "<address>"
            } else {
                word
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
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
    use super::*;

    #[test]
    fn a_relays_answer_keeps_its_code_and_reason_but_not_the_addresses_it_names() {
        assert_eq!(
            without_addresses("permanent error (550): 5.1.1 <ana@correo.cl>: no such user"),
            "permanent error (550): 5.1.1 <address> no such user"
        );
        assert_eq!(
            without_addresses("transient error (451): try again later"),
            "transient error (451): try again later"
        );
    }
}
