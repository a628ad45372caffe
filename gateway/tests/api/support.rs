//! What every test of the gateway's API shares: a gateway over the stand-in services on free
//! ports ([`gateway`], [`gateway_with`]), requests as a visitor or as the logged-in member, and
//! readers of cookies and error bodies, and a watch on a raw connection ([`closed_within`]). Test files `use crate::support::*`.

mod fakes;

pub use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use miclub_gateway::{Application, Dependencies, Settings};
pub use miclub_platform::config::Environment;
pub use miclub_platform::ephemeral::{MemoryStore, SharedStore};
pub use miclub_platform::error::{ErrorBody, ErrorCode};
pub use miclub_platform::grpc::ClientSettings;
pub use miclub_platform::shutdown::{self, ShutdownTrigger};
pub use miclub_platform::testing::TestKeys;
pub use miclub_proto::accounts::v1 as accounts;
pub use miclub_proto::accounts::v1::accounts_service_server::{
    AccountsService, AccountsServiceServer,
};
pub use miclub_proto::auth::v1 as auth;
pub use miclub_proto::auth::v1::auth_service_server::{AuthService, AuthServiceServer};
pub use miclub_proto::content::v1 as content;
pub use miclub_proto::content::v1::content_service_server::{ContentService, ContentServiceServer};
pub use miclub_proto::missions::v1 as missions;
pub use miclub_proto::missions::v1::missions_service_server::{
    MissionsService, MissionsServiceServer,
};
pub use miclub_proto::registration::v1 as registration;
pub use miclub_proto::registration::v1::registration_service_server::{
    RegistrationService, RegistrationServiceServer,
};
pub use reqwest::StatusCode;
pub use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
pub use tonic::{Request, Response, Status};

pub use fakes::auth_service::{CHROME_ON_LINUX, SAFARI_ON_IPHONE};
pub use fakes::{CARD_NUMBER, Fakes, MEMBER, Script};

pub struct TestGateway {
    pub base: String,
    pub client: reqwest::Client,
    pub fakes: Fakes,
    pub store: SharedStore,
    _stop: ShutdownTrigger,
}

pub async fn spawn_fakes(fakes: Fakes) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(AuthServiceServer::new(fakes.clone()))
            .add_service(AccountsServiceServer::new(fakes.clone()))
            .add_service(ContentServiceServer::new(fakes.clone()))
            .add_service(RegistrationServiceServer::new(fakes.clone()))
            .add_service(MissionsServiceServer::new(fakes))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    format!("http://{address}")
}

/// Fresh stand-ins on a free port, and gateway settings on a free port that call them.
pub async fn stand_ins() -> (Fakes, Settings) {
    let fakes = Fakes {
        script: Arc::default(),
        keys: TestKeys::new(),
    };
    let url = spawn_fakes(fakes.clone()).await;
    let settings = Settings {
        host: "127.0.0.1".into(),
        port: 0,
        web_dir: None,
        auth: ClientSettings::for_url(url.clone()),
        accounts: ClientSettings::for_url(url.clone()),
        content: ClientSettings::for_url(url.clone()),
        registration: ClientSettings::for_url(url.clone()),
        missions: ClientSettings::for_url(url),
        ..Settings::default()
    };
    (fakes, settings)
}

pub async fn gateway_with(adjust: impl FnOnce(&mut Settings)) -> TestGateway {
    let (fakes, mut settings) = stand_ins().await;
    adjust(&mut settings);
    let store: SharedStore = Arc::new(MemoryStore::default());
    let deps = Dependencies {
        environment: Environment::Development,
        store: store.clone(),
        key_source: fakes.keys.key_source(),
        mailbox: None,
    };
    let app = Application::build(settings, deps).await.unwrap();
    let base = format!("http://127.0.0.1:{}", app.port());
    let (trigger, shutdown) = shutdown::channel();
    tokio::spawn(app.run_until_stopped(shutdown));
    TestGateway {
        base,
        client: reqwest::Client::new(),
        fakes,
        store,
        _stop: trigger,
    }
}

pub async fn gateway() -> TestGateway {
    gateway_with(|_| {}).await
}

impl TestGateway {
    pub fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.client
            .post(format!("{}{path}", self.base))
            .header("x-miclub-csrf", "1")
    }

    pub fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.get(format!("{}{path}", self.base))
    }

    /// A GET as a visitor, sent.
    pub async fn anonymous_get(&self, path: &str) -> reqwest::Response {
        self.get(path).send().await.unwrap()
    }

    /// `request` as the logged-in member: the bearer token the session cookie stands for.
    pub fn as_member(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        request.header("authorization", self.bearer())
    }

    /// A GET as the logged-in member, sent.
    pub async fn member_get(&self, path: &str) -> reqwest::Response {
        self.as_member(self.get(path)).send().await.unwrap()
    }

    /// A POST as the logged-in member, with the CSRF header; the caller adds a body and sends.
    pub fn member_post(&self, path: &str) -> reqwest::RequestBuilder {
        self.as_member(self.post(path))
    }

    /// A PUT as the logged-in member, with the CSRF header; the caller adds a body and sends.
    pub fn member_put(&self, path: &str) -> reqwest::RequestBuilder {
        self.as_member(self.put(path))
    }

    /// The code step of the login, with the challenge cookie the password step sets.
    pub async fn validate_otp(&self) -> reqwest::Response {
        self.post("/api/validate-otp")
            .header("cookie", "mc_challenge=challenge-1")
            .json(&json!({"otp": "123456"}))
            .send()
            .await
            .unwrap()
    }

    pub async fn login(&self) -> reqwest::Response {
        self.post("/api/login")
            .header("recaptcha-token", "t")
            .json(&json!({"user": "11.111.111-1", "password": "secreto"}))
            .send()
            .await
            .unwrap()
    }

    pub fn set_auth_error(&self, body: Option<ErrorBody>) {
        self.fakes.script.lock().unwrap().auth_error = body;
    }

    pub fn set_accounts_error(&self, body: Option<ErrorBody>) {
        self.fakes.script.lock().unwrap().accounts_error = body;
    }

    pub fn put(&self, path: &str) -> reqwest::RequestBuilder {
        self.client
            .put(format!("{}{path}", self.base))
            .header("x-miclub-csrf", "1")
    }

    pub fn set_content_error(&self, body: Option<ErrorBody>) {
        self.fakes.script.lock().unwrap().content_error = body;
    }

    pub fn script(&self) -> std::sync::MutexGuard<'_, Script> {
        self.fakes.script.lock().unwrap()
    }

    pub fn bearer(&self) -> String {
        format!(
            "Bearer {}",
            self.fakes.keys.member_token(MEMBER, "sid-1", 600)
        )
    }
}

pub fn set_cookies(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

pub fn cookie<'a>(cookies: &'a [String], name: &str) -> &'a str {
    cookies
        .iter()
        .find(|c| c.starts_with(&format!("{name}=")))
        .map(String::as_str)
        .unwrap_or_else(|| panic!("no {name} cookie in {cookies:?}"))
}

/// The cookies every end of a session expires (`CookiePolicy::clear_session`), as the browser
/// names them without TLS.
pub const SESSION_COOKIES: [&str; 4] = ["mc_session", "mc_refresh", "is-logged", "session-fresh"];

/// Asserts that the answer's `Set-Cookie` headers expire each of `names`.
pub fn assert_cleared(cookies: &[String], names: &[&str]) {
    for name in names {
        assert!(
            cookie(cookies, name).contains("Max-Age=0"),
            "{name} cleared"
        );
    }
}

/// Sends `request` and reads the error it is answered with.
pub async fn error_answer(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    error_of(request.send().await.unwrap()).await
}

pub async fn error_of(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// How long until the server closes `stream` (reads until end of file), or `None` when it is
/// still open after `limit`.
pub async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buffer = [0_u8; 1024];
    loop {
        match tokio::time::timeout_at((started + limit).into(), stream.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => continue,
        }
    }
}
