//! Typed helpers: spawn content on port 0 against a test environment (and start it again on the
//! same database), call it anonymously or with service and member tokens minted by test keys,
//! and reach its database straight through the store.

use miclub_content::domain::{Terms, TermsVersion};
use miclub_content::store::Store;
use miclub_content::{Application, Dependencies, Settings};
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::ServerSettings;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::testing::{Bearer, BearerChannel, TestEnv, TestKeys};
use miclub_platform::tokens::with_bearer;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use sqlx::Row;
use tokio::task::JoinHandle;
use tonic::transport::Channel;

pub const MINUTE_MS: i64 = 60 * 1_000;
pub const DAY_MS: i64 = 24 * 60 * MINUTE_MS;

/// Content running for one test, with direct access to its database.
pub struct TestApp {
    pub port: u16,
    /// The same database the service uses, to arrange versions and count rows.
    pub store: Store,
    /// The keys the service verifies tokens with.
    pub keys: TestKeys,
    /// Kept for the life of the test: dropping it removes the database.
    env: TestEnv,
    shutdown: ShutdownTrigger,
    running: JoinHandle<anyhow::Result<()>>,
}

/// Settings of a test instance: loopback, port 0, no drain delay, the environment's database,
/// the built-in accrual rules.
pub fn settings(env: &TestEnv) -> Settings {
    Settings {
        server: ServerSettings {
            host: "127.0.0.1".into(),
            port: 0,
            drain_delay_ms: 0,
            ..ServerSettings::default()
        },
        database: env.database.clone(),
        ..Settings::default()
    }
}

/// Dependencies that verify tokens with `keys`.
pub fn dependencies(keys: &TestKeys) -> Dependencies {
    Dependencies {
        key_source: keys.key_source(),
    }
}

impl TestApp {
    pub async fn spawn(env: TestEnv) -> Self {
        Self::spawn_with(env, TestKeys::new(), settings).await
    }

    /// Content with settings of the test's own (say, a rules file).
    pub async fn spawn_with(
        env: TestEnv,
        keys: TestKeys,
        settings_of: impl FnOnce(&TestEnv) -> Settings,
    ) -> Self {
        let app = Application::build(settings_of(&env), dependencies(&keys))
            .await
            .expect("content builds");
        let port = app.port();
        let (trigger, shutdown) = shutdown::channel();
        let running = tokio::spawn(app.run_until_stopped(shutdown));
        let store = Store::connect(&env.database).await.expect("test store");
        Self {
            port,
            store,
            keys,
            env,
            shutdown: trigger,
            running,
        }
    }

    /// Stops the service and starts it again on the same database, as a deploy does.
    pub async fn restart(self) -> Self {
        self.shutdown.trigger();
        self.running
            .await
            .expect("content task")
            .expect("content stops cleanly");
        self.store.database().close().await;
        Self::spawn_with(self.env, self.keys, settings).await
    }

    /// A client that adds no token: calls carry only what the test puts on them.
    pub async fn bare_client(&self) -> ContentServiceClient<Channel> {
        ContentServiceClient::connect(format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("connect to content")
    }

    /// A client whose calls without a token of their own go as the gateway does (a service
    /// token); calls with a member's or another client's token keep theirs.
    pub async fn client(&self) -> ContentServiceClient<BearerChannel> {
        let channel = Channel::from_shared(format!("http://127.0.0.1:{}", self.port))
            .unwrap()
            .connect()
            .await
            .expect("connect to content");
        ContentServiceClient::with_interceptor(
            channel,
            Bearer(self.keys.service_token("gateway", 3600)),
        )
    }

    /// `message` with a service token of the back office.
    pub fn as_service<T>(&self, message: T) -> tonic::Request<T> {
        with_bearer(message, &self.keys.service_token("backoffice", 300))
    }

    /// `message` with a member's access token, which internal calls refuse.
    pub fn as_member<T>(&self, message: T) -> tonic::Request<T> {
        let token =
            self.keys
                .member_token("7b0f6d2e-0000-4000-8000-000000000001", "sid-member", 300);
        with_bearer(message, &token)
    }

    /// Rows in `table`, one of the service's own.
    pub async fn count(&self, table: &str) -> i64 {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) AS n FROM {table}"
        )))
        .fetch_one(self.store.database().pool())
        .await
        .unwrap();
        row.get("n")
    }
}

/// The error body of a refused call, checked against the expected gRPC and API codes.
pub fn refused(status: &tonic::Status, grpc: tonic::Code, code: ErrorCode) -> ErrorBody {
    assert_eq!(status.code(), grpc, "{status:?}");
    let body = ErrorBody::from_status(status);
    assert_eq!(body.code, code, "{status:?}");
    body
}

/// A terms version with a recognisable text.
pub fn terms(version: &str, published_at: i64) -> Terms {
    Terms::new(
        TermsVersion::parse(version).unwrap(),
        &format!("Términos {version}"),
        &format!("Primer párrafo de la versión {version}.\n\nSegundo párrafo."),
        published_at,
    )
    .unwrap()
}
