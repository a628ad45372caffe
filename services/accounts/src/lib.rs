//! The Mi Club accounts service: members, their club account, the ledger of movements and the
//! balance in pesos, served over gRPC (`miclub.accounts.v1.AccountsService`) with health and
//! reflection. Store systems post purchases here (idempotently, with an outbox event for
//! missions); a background task confirms accruals once their return window has closed, and
//! another relays the outbox's purchase events to the event bus (`events:purchases`). The
//! registration service creates members here (pending, then active with a verification link);
//! members unsubscribe here, and a second background task makes sure auth disabled their
//! credentials.
//!
//! Requests flow one way: [`grpc`] checks the caller's token and turns proto messages into
//! [`domain`] types, the domain calls [`store`]. [`Application`] composes it all; the
//! `miclub-accounts` binary and the standalone binary both run it.

pub mod config;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod login_emails;
pub mod seed;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use miclub_platform::access::Policy;
use miclub_platform::ephemeral::SharedStore;
use miclub_platform::events::SharedBus;
use miclub_platform::grpc::Port;
use miclub_platform::notify::{MailOutbox, Notifier};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;
use miclub_platform::tokens::{KeySource, TokenVerifier};
use miclub_proto::accounts::v1::accounts_service_server::AccountsServiceServer;

pub use config::Settings;
pub use domain::LoginEmails;
pub use login_emails::GrpcLoginEmails;

use crate::config::AccrualSettings;
use crate::domain::{
    Accounts, ChangeNotices, ConfirmationSettings, InUseNotices, Ledger, OutboxRelay, Profile,
    Registration, Unsubscriptions,
};
use crate::grpc::AccountsGrpc;
use crate::store::Store;

/// Fully-qualified name of the gRPC service, as health and reflection report it.
pub const SERVICE_NAME: &str = "miclub.accounts.v1.AccountsService";

/// Migrates and stores the demo members and ledgers that are missing (the `--seed-demo` step),
/// the purchases accrued by the configured rules. Production refuses `seed_demo` at start;
/// this is the explicit command.
pub async fn seed_demo_only(settings: &Settings) -> anyhow::Result<seed::SeedReport> {
    let store = Store::connect(&settings.database_or_default()).await?;
    let ledger = Ledger::new(store.clone(), Arc::new(settings.accrual.load_rules()?));
    seed::seed_demo(&store, &ledger).await
}

/// What accounts needs from the process that runs it.
#[derive(Debug, Clone)]
pub struct Dependencies {
    /// Ephemeral store holding session revocations (written by auth) and the counters of
    /// accounts' own limits.
    pub store: SharedStore,
    /// Verification keys of access tokens (auth's JWKS).
    pub key_source: Arc<dyn KeySource>,
    /// Mails to members (email confirmation links).
    pub notifier: Arc<dyn Notifier>,
    /// Accounts' calls to auth: a confirmed email handed over, the current password checked
    /// before a sensitive change, the sessions ended after a restored email, the credentials of
    /// a member who unsubscribed disabled ([`GrpcLoginEmails`] outside tests).
    pub login_emails: Arc<dyn LoginEmails>,
    /// Where the outbox relay publishes `purchase.posted` events (stream `events:purchases`):
    /// Redis Streams, or in standalone the in-memory bus missions also reads.
    pub bus: SharedBus,
}

/// Accounts, built and listening, ready to serve.
#[derive(Debug)]
pub struct Application {
    /// The gRPC port, behind who may call which method (`platform::access`).
    grpc: Port,
    store: Store,
    /// Confirms the accruals whose return window has closed, while serving.
    ledger: Ledger,
    accrual: AccrualSettings,
    /// Asks auth again to disable the credentials of members who left while it was down.
    unsubscriptions: Unsubscriptions,
    credentials_retry_interval: Duration,
    /// Publishes the outbox's purchase events to the bus.
    relay: OutboxRelay,
    relay_interval: Duration,
    /// Mails the previous address's notices of a changed email from their outbox.
    change_notices: ChangeNotices,
    /// Mails the unsubscribe notices from their outbox.
    mail_outbox: MailOutbox,
    /// Numbers the club accounts opened before card numbers existed, once, while serving.
    accounts: Accounts,
    /// Links and notices to members; what it still holds is sent before the process stops.
    notifier: Arc<dyn Notifier>,
}

/// Club accounts the card-number backfill reads at a time.
const CARD_BACKFILL_BATCH: i64 = 500;
/// How long the backfill waits before trying again after a database failure.
const CARD_BACKFILL_RETRY: Duration = Duration::from_secs(30);
/// How often the email links that expired are deleted (restore rows, spent confirmation links).
const LINK_PURGE_EVERY: Duration = Duration::from_secs(3600);

impl Application {
    /// Connects to the database and migrates it, seeds the demo members when asked, and binds
    /// the gRPC listener (port 0 picks a free one).
    pub async fn build(settings: Settings, deps: Dependencies) -> anyhow::Result<Self> {
        let store = Store::connect(&settings.database_or_default()).await?;
        let relay = OutboxRelay::new(store.clone(), deps.bus, settings.relay.batch);
        let mail_outbox = MailOutbox::new(store.database().clone(), deps.notifier.clone());
        let unsubscriptions = Unsubscriptions::new(
            store.clone(),
            deps.login_emails.clone(),
            mail_outbox.clone(),
        );
        let notices = InUseNotices {
            notifier: deps.notifier.clone(),
            markers: deps.store.clone(),
            public_url: settings.public_url.clone(),
        };
        let confirmation = ConfirmationSettings {
            public_url: settings.public_url.clone(),
            ttl_hours: settings.email_confirmation_ttl_hours,
        };
        let change_notices = ChangeNotices::new(
            store.clone(),
            deps.notifier.clone(),
            confirmation.clone(),
            settings.relay.batch,
        );
        let profile = Profile::new(
            store.clone(),
            deps.store.clone(),
            deps.notifier.clone(),
            deps.login_emails,
            confirmation,
            change_notices.bell(),
        );
        let verifier = Arc::new(TokenVerifier::new(
            &settings.tokens,
            deps.key_source,
            Some(deps.store),
        ));
        let gate = Policy::new(verifier.clone());
        let rules = settings.accrual.load_rules()?;
        tracing::info!(rules_version = rules.version(), "accrual rules loaded");
        let ledger = Ledger::new(store.clone(), Arc::new(rules))
            .with_return_window(settings.accrual.return_window());
        if settings.seed_demo {
            seed::seed_demo(&store, &ledger).await?;
        }
        let accounts = Accounts::new(store.clone());
        let service = AccountsGrpc::new(
            accounts.clone(),
            ledger.clone(),
            Registration::new(store.clone(), profile.clone(), notices),
            profile,
            unsubscriptions.clone(),
            verifier,
        );
        let grpc = Port::bind(
            &settings.server,
            SERVICE_NAME,
            AccountsServiceServer::new(service),
            gate,
        )
        .await?;
        Ok(Self {
            grpc,
            store,
            ledger,
            accrual: settings.accrual,
            unsubscriptions,
            credentials_retry_interval: Duration::from_secs(
                settings.credentials_retry_interval_secs,
            ),
            relay,
            relay_interval: settings.relay.interval(),
            change_notices,
            mail_outbox,
            accounts,
            notifier: deps.notifier,
        })
    }

    /// The port the gRPC listener is bound to.
    pub fn port(&self) -> u16 {
        self.grpc.port()
    }

    /// Serves until `shutdown` fires, then drains (NOT_SERVING first), sends the mail still
    /// queued (`Notifier::settle`) and closes the pool. Meanwhile background tasks confirm due
    /// accruals every `confirm_interval_secs`, ask auth to disable pending credentials every
    /// `credentials_retry_interval_secs`, relay the outbox to the event bus and mail the email
    /// change notices due every `relay.interval_ms`, mail the unsubscribe notices of the mail
    /// outbox (`MailOutbox::POLL_EVERY`), and delete expired email links hourly;
    /// they stop on the same shutdown and are awaited before the pool closes. Once at start,
    /// the club accounts opened before card numbers existed get theirs
    /// ([`assign_card_numbers`]).
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let numbering = tokio::spawn(assign_card_numbers(self.accounts, shutdown.clone()));
        let confirmations = tokio::spawn(self.ledger.confirm_periodically(
            self.accrual.return_window(),
            self.accrual.confirm_interval(),
            shutdown.clone(),
        ));
        let disabling = tokio::spawn(
            self.unsubscriptions
                .retry_periodically(self.credentials_retry_interval, shutdown.clone()),
        );
        let relaying = tokio::spawn(
            self.relay
                .relay_periodically(self.relay_interval, shutdown.clone()),
        );
        let purging = tokio::spawn(purge_expired_links(self.store.clone(), shutdown.clone()));
        let noticing = tokio::spawn(
            self.change_notices
                .deliver_periodically(self.relay_interval, shutdown.clone()),
        );
        let mailing = tokio::spawn(self.mail_outbox.deliver_periodically(shutdown.clone()));
        let served = self.grpc.serve(shutdown).await;
        if let Err(err) = confirmations.await {
            tracing::error!(error = %err, "accrual confirmation task failed");
        }
        if let Err(err) = disabling.await {
            tracing::error!(error = %err, "credential disabling task failed");
        }
        if let Err(err) = relaying.await {
            tracing::error!(error = %err, "outbox relay task failed");
        }
        if let Err(err) = purging.await {
            tracing::error!(error = %err, "email link purge task failed");
        }
        if let Err(err) = noticing.await {
            tracing::error!(error = %err, "email change notice task failed");
        }
        if let Err(err) = mailing.await {
            tracing::error!(error = %err, "mail outbox task failed");
        }
        if let Err(err) = numbering.await {
            tracing::error!(error = %err, "card number backfill task failed");
        }
        self.notifier.settle().await;
        self.store.database().close().await;
        served
    }
}

/// Deletes the restore rows whose link expired and whose notice is settled
/// ([`Store::purge_expired_restores`]) and the confirmation links spent
/// ([`Store::purge_spent_confirmations`]) every [`LINK_PURGE_EVERY`], until shut down.
async fn purge_expired_links(store: Store, shutdown: Shutdown) {
    let mut every = tokio::time::interval(LINK_PURGE_EVERY);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            () = shutdown.clone().wait() => return,
        }
        match store.purge_expired_restores(now_millis()).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "expired email restore links deleted"),
            Err(err) => tracing::warn!(error = %err, "cannot delete expired email restore links"),
        }
        match store.purge_spent_confirmations(now_millis()).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "spent email confirmation links deleted"),
            Err(err) => {
                tracing::warn!(error = %err, "cannot delete spent email confirmation links")
            }
        }
    }
}

/// The start-up backfill of card numbers: numbers every club account still without one, then
/// ends; after a database failure it waits [`CARD_BACKFILL_RETRY`] and goes on, until done or
/// shut down. Two replicas starting together each number only accounts still without one (see
/// [`Accounts::assign_missing_card_numbers`]); a member who opens the card before their turn
/// gets their number on that read.
async fn assign_card_numbers(accounts: Accounts, shutdown: Shutdown) {
    loop {
        let round = tokio::select! {
            round = accounts.assign_missing_card_numbers(CARD_BACKFILL_BATCH) => round,
            () = shutdown.clone().wait() => return,
        };
        match round {
            Ok(count) => {
                tracing::info!(count, "card numbers assigned");
                return;
            }
            Err(err) => {
                tracing::warn!(error = %err, "card number backfill failed: trying again later");
                tokio::select! {
                    () = tokio::time::sleep(CARD_BACKFILL_RETRY) => {}
                    () = shutdown.clone().wait() => return,
                }
            }
        }
    }
}
