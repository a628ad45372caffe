//! Typed helpers: spawn accounts on port 0 against a test environment, mint tokens, add
//! members and movements straight through the store, read the mails accounts sent, the
//! emails it handed to auth and the events it published.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use miclub_platform::config::Environment;

use miclub_accounts::config::RelaySettings;
use miclub_accounts::domain::{
    BirthDate, Document, DocumentType, Email, GenderId, Member, MemberId, Movement, MovementId,
    MovementKind, MovementStatus, PersonName, PhoneNumber, Reason, TermsAgreement, TermsDecision,
};
use miclub_accounts::error::AccountsError;
use miclub_accounts::store::Store;
use miclub_accounts::{Application, Dependencies, LoginEmails, Settings};
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::events::{
    self, Delivery, Event, EventBus, EventBusSettings, EventError, SharedBus,
};
use miclub_platform::grpc::ServerSettings;
use miclub_platform::notify::{DevMailbox, Mail, Notifier, Outgoing, QueuedNotifier, Refused};
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::testing::{Bearer, BearerChannel, TestEnv, TestKeys};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use tonic::transport::Channel;

/// 2026-01-10T12:00:00Z, when the test member accepted the terms.
pub const TERMS_ACCEPTED_AT: i64 = 1_768_046_400_000;

/// Where the test app's confirmation links point.
pub const PUBLIC_URL: &str = "https://miclub.test";

/// The current password every test member has at the fake auth.
pub const PASSWORD: &str = "MiClub2026!";

/// Auth's side of the email hand-over, the step-up, the end of sessions and unsubscribing:
/// records each address it is given, each password check and each member whose sessions it
/// ended or credentials it disabled, or fails on demand the way an unreachable auth does.
/// Every member's password is [`PASSWORD`].
#[derive(Debug, Default)]
pub struct FakeLoginEmails {
    /// `(member_id, client_ip)` of each password check, right or wrong.
    verified: Mutex<Vec<(String, String)>>,
    /// Seconds auth answers `ERR_TOO_MANY_ATTEMPTS` with, when throttling.
    throttle_secs: Mutex<Option<u64>>,
    ended: Mutex<Vec<String>>,
    end_failing: AtomicBool,
    handed_over: Mutex<Vec<(String, String)>>,
    attempts: AtomicUsize,
    failing: AtomicBool,
    disabled: Mutex<Vec<String>>,
    disable_attempts: AtomicUsize,
    disable_failing: AtomicBool,
}

impl FakeLoginEmails {
    /// From now on every hand-over fails (`true`) or succeeds (`false`).
    pub fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// `(member_id, email)` of every successful hand-over, in order.
    pub fn handed_over(&self) -> Vec<(String, String)> {
        self.handed_over.lock().unwrap().clone()
    }

    /// Calls made, failed ones included.
    pub fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }

    /// From now on every `DisableCredentials` fails (`true`) or succeeds (`false`).
    pub fn fail_disabling(&self, failing: bool) {
        self.disable_failing.store(failing, Ordering::SeqCst);
    }

    /// Member ids whose credentials were disabled, in order.
    pub fn disabled(&self) -> Vec<String> {
        self.disabled.lock().unwrap().clone()
    }

    /// `DisableCredentials` calls made, failed ones included.
    pub fn disable_attempts(&self) -> usize {
        self.disable_attempts.load(Ordering::SeqCst)
    }

    /// `(member_id, client_ip)` of every password check, right or wrong.
    pub fn verified(&self) -> Vec<(String, String)> {
        self.verified.lock().unwrap().clone()
    }

    /// From now on every password check is throttled for `secs` (`None`: not throttled).
    pub fn throttle(&self, secs: Option<u64>) {
        *self.throttle_secs.lock().unwrap() = secs;
    }

    /// Member ids whose sessions were ended, in order.
    pub fn ended(&self) -> Vec<String> {
        self.ended.lock().unwrap().clone()
    }

    /// From now on every `EndSessions` fails (`true`) or succeeds (`false`).
    pub fn fail_ending(&self, failing: bool) {
        self.end_failing.store(failing, Ordering::SeqCst);
    }
}

#[async_trait]
impl LoginEmails for FakeLoginEmails {
    async fn set(&self, member_id: &MemberId, email: &Email) -> Result<(), AccountsError> {
        self.attempts.fetch_add(1, Ordering::SeqCst);
        if self.failing.load(Ordering::SeqCst) {
            return Err(AccountsError::Unavailable(
                "auth (test: told to fail)".into(),
            ));
        }
        self.handed_over
            .lock()
            .unwrap()
            .push((member_id.as_str().to_owned(), email.as_str().to_owned()));
        Ok(())
    }

    async fn disable_credentials(
        &self,
        member_id: &MemberId,
        _unsubscribed_at: i64,
    ) -> Result<(), AccountsError> {
        self.disable_attempts.fetch_add(1, Ordering::SeqCst);
        if self.disable_failing.load(Ordering::SeqCst) {
            return Err(AccountsError::Unavailable(
                "auth (test: told to fail)".into(),
            ));
        }
        self.disabled
            .lock()
            .unwrap()
            .push(member_id.as_str().to_owned());
        Ok(())
    }

    /// As auth's `VerifyPassword` answers: ERR_TOO_MANY_ATTEMPTS with a wait when throttled,
    /// ERR_WRONG_PASSWORD on `currentPassword` for anything but [`PASSWORD`].
    async fn verify_password(
        &self,
        member_id: &MemberId,
        password: &str,
        client_ip: &str,
    ) -> Result<(), AccountsError> {
        self.verified
            .lock()
            .unwrap()
            .push((member_id.as_str().to_owned(), client_ip.to_owned()));
        if let Some(secs) = *self.throttle_secs.lock().unwrap() {
            return Err(AccountsError::StepUpRefused(Box::new(
                ErrorBody::new(ErrorCode::TooManyAttempts)
                    .with_retry_after(Duration::from_secs(secs)),
            )));
        }
        if password != PASSWORD {
            return Err(AccountsError::StepUpRefused(Box::new(
                ErrorBody::new(ErrorCode::WrongPassword).with_field("currentPassword"),
            )));
        }
        Ok(())
    }

    async fn end_sessions(&self, member_id: &MemberId) -> Result<u64, AccountsError> {
        if self.end_failing.load(Ordering::SeqCst) {
            return Err(AccountsError::Unavailable(
                "auth (test: told to fail)".into(),
            ));
        }
        self.ended
            .lock()
            .unwrap()
            .push(member_id.as_str().to_owned());
        Ok(2)
    }
}

/// The platform's dev mailbox behind a switch that makes sending fail like a relay that is down.
#[derive(Debug, Default)]
pub struct TestMail {
    mailbox: DevMailbox,
    failing: AtomicBool,
    refusing: AtomicBool,
    hanging: AtomicBool,
}

impl TestMail {
    /// From now on every send is refused for good, as a relay's 5xx is (`true`), or not.
    pub fn refuse(&self, refusing: bool) {
        self.refusing.store(refusing, Ordering::SeqCst);
    }

    /// From now on every send waits for an answer that never comes (`true`), or not.
    pub fn hang(&self, hanging: bool) {
        self.hanging.store(hanging, Ordering::SeqCst);
    }

    pub fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// Every mail delivered, newest first.
    pub fn sent(&self) -> Vec<Mail> {
        self.mailbox.list()
    }

    /// The newest mail once more than `count` were sent, waited for up to 5 s: for mail a
    /// background task sends (the change notice's relay, the queue).
    pub async fn after(&self, count: usize) -> Mail {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            let sent = self.sent();
            if sent.len() > count {
                return sent.into_iter().next().expect("a mail");
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no mail after the {count} sent within 5 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

#[async_trait]
impl Notifier for TestMail {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        if self.hanging.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        if self.failing.load(Ordering::SeqCst) {
            anyhow::bail!("smtp relay unreachable (test)");
        }
        if self.refusing.load(Ordering::SeqCst) {
            return Err(Refused("550 no such user (test)".into()).into());
        }
        self.mailbox.send(message).await
    }
}

/// The test's event bus (Redis Streams beside PostgreSQL, in memory beside SQLite, as
/// `backend_tests!` pairs them) behind a switch that makes publishing fail like a Redis that is
/// down, and an optional delay per publish that widens the window of concurrent relays.
#[derive(Debug)]
pub struct TestBus {
    inner: SharedBus,
    failing: AtomicBool,
    publish_delay_ms: AtomicUsize,
    attempts: AtomicUsize,
}

impl TestBus {
    /// The bus matching `env`'s backends, under a key prefix of the test's own.
    pub async fn for_env(env: &TestEnv) -> Arc<Self> {
        let settings = EventBusSettings {
            redis_url: env.ephemeral.redis_url.clone(),
            key_prefix: format!("{}bus:", env.ephemeral.key_prefix),
            ..EventBusSettings::default()
        };
        let inner = events::connect(&settings, Environment::Development)
            .await
            .expect("test event bus");
        Arc::new(Self {
            inner,
            failing: AtomicBool::new(false),
            publish_delay_ms: AtomicUsize::new(0),
            attempts: AtomicUsize::new(0),
        })
    }

    /// From now on every publish fails (`true`) or goes through (`false`).
    pub fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// Each publish waits this long first.
    pub fn delay_publishes(&self, delay: Duration) {
        self.publish_delay_ms
            .store(delay.as_millis() as usize, Ordering::SeqCst);
    }

    /// Publishes attempted, failed ones included.
    pub fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }

    /// Reads `stream` as consumer group `group` until no event comes for `quiet`, acking each,
    /// and answers every event delivered, in order.
    pub async fn drain(&self, stream: &str, group: &str, quiet: Duration) -> Vec<Event> {
        let mut seen = Vec::new();
        loop {
            let got = self
                .inner
                .read(stream, group, "test", 100, quiet)
                .await
                .expect("read the test bus");
            if got.is_empty() {
                return seen;
            }
            for delivery in got {
                self.inner
                    .ack(stream, group, &delivery.delivery_id)
                    .await
                    .expect("ack on the test bus");
                seen.push(delivery.event);
            }
        }
    }

    /// Waits up to `within` for `count` events on `stream` for `group`, then keeps reading for
    /// `quiet` more to catch any extra (duplicate) delivery; answers all it saw.
    pub async fn wait_for(
        &self,
        stream: &str,
        group: &str,
        count: usize,
        within: Duration,
        quiet: Duration,
    ) -> Vec<Event> {
        let deadline = tokio::time::Instant::now() + within;
        let mut seen = Vec::new();
        while seen.len() < count && tokio::time::Instant::now() < deadline {
            seen.extend(self.drain(stream, group, Duration::from_millis(100)).await);
        }
        seen.extend(self.drain(stream, group, quiet).await);
        seen
    }
}

#[async_trait]
impl EventBus for TestBus {
    async fn publish(&self, stream: &str, event: &Event) -> Result<(), EventError> {
        self.attempts.fetch_add(1, Ordering::SeqCst);
        let delay = self.publish_delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay as u64)).await;
        }
        if self.failing.load(Ordering::SeqCst) {
            return Err(EventError::Unavailable("redis (test: told to fail)".into()));
        }
        self.inner.publish(stream, event).await
    }

    async fn read(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        max: usize,
        wait: Duration,
    ) -> Result<Vec<Delivery>, EventError> {
        self.inner.read(stream, group, consumer, max, wait).await
    }

    async fn ack(&self, stream: &str, group: &str, delivery_id: &str) -> Result<(), EventError> {
        self.inner.ack(stream, group, delivery_id).await
    }

    async fn claim_stale(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery>, EventError> {
        self.inner
            .claim_stale(stream, group, consumer, min_idle, max)
            .await
    }
}

/// The token of the confirmation link in `mail`'s body.
pub fn link_token(mail: &Mail) -> String {
    let prefix = format!("{PUBLIC_URL}/confirmar-correo?token=");
    let start = mail
        .body
        .find(&prefix)
        .unwrap_or_else(|| panic!("no confirmation link in {:?}", mail.body))
        + prefix.len();
    mail.body[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect()
}

/// Accounts running for one test, with everything needed to call and arrange it.
pub struct TestApp {
    pub port: u16,
    pub keys: TestKeys,
    /// Direct access to the same database, to arrange data and check the ledger.
    pub store: Store,
    pub env: TestEnv,
    /// The mails accounts sent.
    pub mail: Arc<TestMail>,
    /// The emails accounts handed to auth.
    pub login_emails: Arc<FakeLoginEmails>,
    /// The bus accounts' outbox relay publishes to.
    pub bus: Arc<TestBus>,
    shutdown: ShutdownTrigger,
    running: tokio::task::JoinHandle<anyhow::Result<()>>,
}

/// How often the test app's relay runs unless a test says otherwise: short, so an event is on
/// the bus soon after its purchase.
pub const TEST_RELAY_INTERVAL: Duration = Duration::from_millis(50);

impl TestApp {
    pub async fn spawn(env: TestEnv) -> Self {
        Self::spawn_with(env, false).await
    }

    pub async fn spawn_seeded(env: TestEnv) -> Self {
        Self::spawn_with(env, true).await
    }

    async fn spawn_with(env: TestEnv, seed_demo: bool) -> Self {
        Self::spawn_relaying_every(env, seed_demo, TEST_RELAY_INTERVAL).await
    }

    /// Accounts whose outbox relay runs every `relay_interval` (hours: it stays out of the way
    /// of a test that drives relays itself).
    pub async fn spawn_relaying_every(
        env: TestEnv,
        seed_demo: bool,
        relay_interval: Duration,
    ) -> Self {
        Self::spawn_mailing(env, seed_demo, relay_interval, |mail| mail).await
    }

    /// Accounts whose mail goes through the queue production sends it from, to [`Self::mail`].
    pub async fn spawn_with_a_mail_queue(env: TestEnv) -> Self {
        Self::spawn_mailing(env, false, TEST_RELAY_INTERVAL, |mail| {
            QueuedNotifier::spawn(mail, QueuedNotifier::DEFAULT_CAPACITY)
        })
        .await
    }

    async fn spawn_mailing(
        env: TestEnv,
        seed_demo: bool,
        relay_interval: Duration,
        notifier: impl FnOnce(Arc<TestMail>) -> Arc<dyn Notifier>,
    ) -> Self {
        let keys = TestKeys::new();
        let settings = Settings {
            server: ServerSettings {
                host: "127.0.0.1".into(),
                port: 0,
                drain_delay_ms: 0,
                ..ServerSettings::default()
            },
            database: env.database.clone(),
            tokens: keys.settings.clone(),
            seed_demo,
            public_url: PUBLIC_URL.into(),
            // Short, so a test sees the background retry of DisableCredentials happen.
            credentials_retry_interval_secs: 1,
            relay: RelaySettings {
                interval_ms: relay_interval.as_millis() as u64,
                ..RelaySettings::default()
            },
            ..Settings::default()
        };
        let mail = Arc::new(TestMail::default());
        let login_emails = Arc::new(FakeLoginEmails::default());
        let bus = TestBus::for_env(&env).await;
        let deps = Dependencies {
            store: env.store.clone(),
            key_source: keys.key_source(),
            notifier: notifier(mail.clone()),
            login_emails: login_emails.clone(),
            bus: bus.clone(),
        };
        let app = Application::build(settings, deps)
            .await
            .expect("accounts builds");
        let port = app.port();
        let (trigger, shutdown) = shutdown::channel();
        let running = tokio::spawn(app.run_until_stopped(shutdown));
        let store = Store::connect(&env.database).await.expect("test store");
        Self {
            port,
            keys,
            store,
            env,
            mail,
            login_emails,
            bus,
            shutdown: trigger,
            running,
        }
    }

    /// Stops accounts as SIGTERM does and returns once its `run_until_stopped` has, with the
    /// test's storage for the next accounts to start on.
    pub async fn stopped(self) -> TestEnv {
        self.shutdown.trigger();
        self.running
            .await
            .expect("accounts' task")
            .expect("accounts stopped cleanly");
        self.env
    }

    /// A client that adds no token: calls carry only what the test puts on them.
    pub async fn bare_client(&self) -> AccountsServiceClient<Channel> {
        AccountsServiceClient::connect(format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("connect to accounts")
    }

    /// A client whose calls without a token of their own go as the gateway does (a service
    /// token); calls with a member's or another client's token keep theirs.
    pub async fn client(&self) -> AccountsServiceClient<BearerChannel> {
        let channel = Channel::from_shared(format!("http://127.0.0.1:{}", self.port))
            .unwrap()
            .connect()
            .await
            .expect("connect to accounts");
        AccountsServiceClient::with_interceptor(
            channel,
            Bearer(self.keys.service_token("gateway", 3600)),
        )
    }

    /// A valid member access token for `member_id`, in a session of its own.
    pub fn token(&self, member_id: &MemberId) -> String {
        self.keys
            .member_token(member_id.as_str(), &uuid::Uuid::new_v4().to_string(), 300)
    }

    /// A valid service access token: an internal caller, not a member.
    pub fn service_token(&self) -> String {
        self.keys.service_token("store-system", 300)
    }

    /// The member as stored right now.
    pub async fn stored(&self, member_id: &MemberId) -> Member {
        self.store
            .find_member(member_id)
            .await
            .unwrap()
            .expect("member stored")
            .member
    }

    /// `message` with `authorization: Bearer <token>`.
    pub fn authorized<T>(&self, message: T, token: &str) -> tonic::Request<T> {
        with_bearer(message, token)
    }

    /// Adds [`full_member`] with a club account.
    pub async fn add_member_with_account(&self) -> Member {
        add_member_with_account(&self.store).await
    }

    /// Adds a member who never decided on the terms and has no club account.
    pub async fn add_member_without_account(&self) -> Member {
        let member = Member {
            terms: None,
            ..full_member()
        };
        self.store
            .insert_member(&member, TERMS_ACCEPTED_AT)
            .await
            .unwrap();
        member
    }
}

/// Adds [`full_member`] with a club account straight to `store`, with no accounts running.
pub async fn add_member_with_account(store: &Store) -> Member {
    let member = full_member();
    store
        .insert_member(&member, TERMS_ACCEPTED_AT)
        .await
        .unwrap();
    store
        .open_club_account(&member.id, TERMS_ACCEPTED_AT)
        .await
        .unwrap();
    member
}

/// A member with every field filled in, a fresh id and a fresh (valid) RUT.
pub fn full_member() -> Member {
    let body = 10_000_000 + (rand_u32() % 80_000_000);
    let rut = miclub_platform::identity::Rut::from_body(body).unwrap();
    Member {
        id: MemberId::generate(),
        document: Document::parse(DocumentType::Rut, &rut.canonical()).unwrap(),
        name: PersonName::parse("name", "Ana").unwrap(),
        last_name: PersonName::parse("last_name", "González").unwrap(),
        mother_surname: Some(PersonName::parse("mother_surname", "Pérez").unwrap()),
        phone_number: Some(PhoneNumber::parse("+56912345678").unwrap()),
        gender_id: Some(GenderId::new(1).unwrap()),
        birth_date: Some(BirthDate::parse("1990-05-17").unwrap()),
        email: Email::parse(&format!("ana.{}@example.cl", body)).unwrap(),
        email_confirmed: true,
        terms: Some(TermsAgreement {
            decision: TermsDecision::Accepted,
            version: Some("2025-01".into()),
            decided_at: TERMS_ACCEPTED_AT,
        }),
    }
}

fn rand_u32() -> u32 {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// A movement of `member` with a fresh id.
pub fn movement(
    member: &MemberId,
    kind: MovementKind,
    status: MovementStatus,
    amount: i64,
    reason: &str,
    occurred_at: i64,
) -> Movement {
    Movement::new(
        MovementId::generate(),
        member.clone(),
        kind,
        status,
        amount,
        Reason::parse(reason).unwrap(),
        occurred_at,
    )
    .unwrap()
}

/// Number of rows of `table` (a fixed name from the tests).
pub async fn count(store: &Store, table: &'static str) -> i64 {
    use sqlx::Row;
    let sql = match table {
        "members" => "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM members",
        "club_accounts" => "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM club_accounts",
        "movements" => "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM movements",
        "email_confirmations" => "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM email_confirmations",
        "email_restores" => "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM email_restores",
        "purchases" => "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM purchases",
        "outbox" => "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM outbox",
        other => panic!("no table {other}"),
    };
    sqlx::query(sql)
        .fetch_one(store.database().pool())
        .await
        .unwrap()
        .get("n")
}

// --- Ledger: purchases posted by store systems, back-office movements ---

/// A purchase of `member` at Lider Providencia under `key`, paid with `payment`, at the
/// RFC 3339 instant `purchased_at`.
pub fn purchase(
    member: &Member,
    key: &str,
    purchased_at: &str,
    payment: miclub_proto::accounts::v1::PaymentMethod,
    lines: &[(miclub_proto::accounts::v1::Category, i64)],
) -> miclub_proto::accounts::v1::PostPurchaseRequest {
    miclub_proto::accounts::v1::PostPurchaseRequest {
        idempotency_key: key.to_owned(),
        member_document: member.document.canonical(),
        member_card: String::new(),
        store_id: "lider-providencia".into(),
        store_name: "Lider Providencia".into(),
        purchased_at: purchased_at.to_owned(),
        payment_method: payment as i32,
        lines: lines
            .iter()
            .map(
                |(category, amount)| miclub_proto::accounts::v1::PurchaseLine {
                    category: *category as i32,
                    amount: *amount,
                    product_category_id: 0,
                },
            )
            .collect(),
    }
}

/// RFC 3339 text of the instant `days` days before now.
pub fn days_ago(days: i64) -> String {
    miclub_platform::storage::millis_to_rfc3339(
        miclub_platform::storage::now_millis() - days * 86_400_000,
    )
}

impl TestApp {
    /// `message` with a fresh service token (a store system, the back office).
    pub fn as_service<T>(&self, message: T) -> tonic::Request<T> {
        with_bearer(message, &self.service_token())
    }

    /// The member's balance in pesos, straight from the store.
    pub async fn balance_of(&self, member_id: &MemberId) -> i64 {
        self.store
            .balance(member_id)
            .await
            .unwrap()
            .expect("a club account")
            .pesos()
    }
}

/// Whether `metric{outcome}` rises above `before` within 5 s. The relays count an outcome
/// just after they write it, so a test that saw the write may look before the count.
pub async fn counted_above(metric: &str, outcome: &str, before: u64) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while counted(metric, outcome) <= before {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

/// The counter `metric{outcome}` as `/metrics` renders it (0 before the first).
pub fn counted(metric: &str, outcome: &str) -> u64 {
    let series = format!(r#"{metric}{{outcome="{outcome}"}} "#);
    miclub_platform::telemetry::metrics_handle()
        .render()
        .lines()
        .find_map(|line| line.strip_prefix(&series)?.parse().ok())
        .unwrap_or(0)
}
