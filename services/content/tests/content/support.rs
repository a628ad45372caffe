//! Typed helpers: spawn content on port 0 against a test environment, call it, and write terms
//! versions straight through the store.

use miclub_content::domain::{Terms, TermsVersion};
use miclub_content::store::Store;
use miclub_content::{Application, Dependencies, Settings};
use miclub_platform::grpc::ServerSettings;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::testing::TestEnv;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use tonic::transport::Channel;

pub const MINUTE_MS: i64 = 60 * 1_000;
pub const DAY_MS: i64 = 24 * 60 * MINUTE_MS;

/// Content running for one test, with direct access to its database.
pub struct TestApp {
    pub port: u16,
    /// The same database the service uses, to arrange versions and count rows.
    pub store: Store,
    /// Kept for the life of the test: dropping it removes the database.
    _env: TestEnv,
    _shutdown: ShutdownTrigger,
}

/// Settings of a test instance: loopback, port 0, no drain delay, the environment's database.
pub fn settings(env: &TestEnv) -> Settings {
    Settings {
        server: ServerSettings {
            host: "127.0.0.1".into(),
            port: 0,
            drain_delay_ms: 0,
        },
        database: env.database.clone(),
    }
}

impl TestApp {
    pub async fn spawn(env: TestEnv) -> Self {
        let app = Application::build(settings(&env), Dependencies::default())
            .await
            .expect("content builds");
        let port = app.port();
        let (trigger, shutdown) = shutdown::channel();
        tokio::spawn(app.run_until_stopped(shutdown));
        let store = Store::connect(&env.database).await.expect("test store");
        Self {
            port,
            store,
            _env: env,
            _shutdown: trigger,
        }
    }

    pub async fn client(&self) -> ContentServiceClient<Channel> {
        ContentServiceClient::connect(format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("connect to content")
    }
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
