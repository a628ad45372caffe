//! Typed helpers: spawn accounts on port 0 against a test environment, mint tokens, add
//! members and movements straight through the store.

use miclub_accounts::domain::{
    BirthDate, Document, DocumentType, Email, GenderId, Member, MemberId, Movement, MovementId,
    MovementKind, MovementStatus, PersonName, PhoneNumber, Reason, TermsAgreement, TermsDecision,
};
use miclub_accounts::store::Store;
use miclub_accounts::{Application, Dependencies, Settings};
use miclub_platform::grpc::ServerSettings;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::testing::{TestEnv, TestKeys};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use tonic::transport::Channel;

/// 2026-01-10T12:00:00Z, when the test member accepted the terms.
pub const TERMS_ACCEPTED_AT: i64 = 1_768_046_400_000;

/// Accounts running for one test, with everything needed to call and arrange it.
pub struct TestApp {
    pub port: u16,
    pub keys: TestKeys,
    /// Direct access to the same database, to arrange data and check the ledger.
    pub store: Store,
    pub env: TestEnv,
    _shutdown: ShutdownTrigger,
}

impl TestApp {
    pub async fn spawn(env: TestEnv) -> Self {
        Self::spawn_with(env, false).await
    }

    pub async fn spawn_seeded(env: TestEnv) -> Self {
        Self::spawn_with(env, true).await
    }

    async fn spawn_with(env: TestEnv, seed_demo: bool) -> Self {
        let keys = TestKeys::new();
        let settings = Settings {
            server: ServerSettings {
                host: "127.0.0.1".into(),
                port: 0,
                drain_delay_ms: 0,
            },
            database: env.database.clone(),
            tokens: keys.settings.clone(),
            seed_demo,
            ..Settings::default()
        };
        let deps = Dependencies {
            store: env.store.clone(),
            key_source: keys.key_source(),
        };
        let app = Application::build(settings, deps)
            .await
            .expect("accounts builds");
        let port = app.port();
        let (trigger, shutdown) = shutdown::channel();
        tokio::spawn(app.run_until_stopped(shutdown));
        let store = Store::connect(&env.database).await.expect("test store");
        Self {
            port,
            keys,
            store,
            env,
            _shutdown: trigger,
        }
    }

    pub async fn client(&self) -> AccountsServiceClient<Channel> {
        AccountsServiceClient::connect(format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("connect to accounts")
    }

    /// A valid member access token for `member_id`, in a session of its own.
    pub fn token(&self, member_id: &MemberId) -> String {
        self.keys
            .member_token(member_id.as_str(), &uuid::Uuid::new_v4().to_string(), 300)
    }

    /// `message` with `authorization: Bearer <token>`.
    pub fn authorized<T>(&self, message: T, token: &str) -> tonic::Request<T> {
        with_bearer(message, token)
    }

    /// Adds [`full_member`] with a club account.
    pub async fn add_member_with_account(&self) -> Member {
        let member = full_member();
        self.store
            .insert_member(&member, TERMS_ACCEPTED_AT)
            .await
            .unwrap();
        self.store
            .open_club_account(&member.id, TERMS_ACCEPTED_AT)
            .await
            .unwrap();
        member
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
        other => panic!("no table {other}"),
    };
    sqlx::query(sql)
        .fetch_one(store.database().pool())
        .await
        .unwrap()
        .get("n")
}
