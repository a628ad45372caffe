//! Messages to members (one-time codes, verification, recovery).
//!
//! Production sends email over SMTP. Development and standalone use the [`DevMailbox`]: each
//! message is logged (code included) and kept in memory for `GET /api/dev/mailbox`. Production
//! configuration refuses to start with the dev mailbox.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use async_trait::async_trait;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
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
    /// Sender, e.g. `Mi Club <no-responder@miclub.cl>`.
    pub from: String,
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

/// SMTP with STARTTLS.
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
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&settings.smtp_host)
            .context("smtp relay")?
            .port(settings.smtp_port);
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
            .to(message.to.parse().context("recipient address")?)
            .subject(message.subject)
            .body(message.body)?;
        self.transport.send(email).await.context("sending email")?;
        Ok(())
    }
}

/// The notifier the settings ask for; production refuses the dev mailbox.
pub fn build(
    settings: &NotifierSettings,
    environment: Environment,
    mailbox: Option<Arc<DevMailbox>>,
) -> anyhow::Result<SharedNotifier> {
    match settings.kind {
        NotifierKind::Smtp => Ok(Arc::new(SmtpNotifier::new(settings)?)),
        NotifierKind::DevMailbox if environment.is_production() => {
            anyhow::bail!("the dev mailbox cannot be enabled in production: configure smtp")
        }
        NotifierKind::DevMailbox => Ok(mailbox.unwrap_or_default()),
    }
}
