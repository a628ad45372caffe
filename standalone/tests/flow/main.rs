//! The whole member flow over HTTP against the real `miclub` binary: gateway, auth and
//! accounts in one process on SQLite, codes read from the dev mailbox. The account area
//! (profile, email confirmation, password change, terms, movements) is in [`account`]; Redis
//! stopped and restarted under the portal is in [`fault_drills`].

mod account;
mod club;
mod fault_drills;
mod joining;
mod reflection;
mod scopes;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

struct Portal {
    base: String,
    child: Child,
    /// The extra settings this portal started with (ports chosen for it, say).
    settings: Vec<(&'static str, String)>,
    _data: TempDir,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for Portal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Portal {
    async fn start() -> Self {
        Self::start_with(Vec::new).await
    }

    /// With more settings, as `APP_…` environment variables, made afresh for each attempt: a
    /// free port picked here can be taken by a parallel test before the binary binds it, and
    /// then the binary exits and the portal starts again on new ports.
    async fn start_with(settings: impl Fn() -> Vec<(&'static str, String)>) -> Self {
        for _attempt in 0..3 {
            let port = free_port();
            let extra = settings();
            let data = TempDir(
                std::env::temp_dir().join(format!("miclub-flow-{}-{port}", std::process::id())),
            );
            let child = Command::new(env!("CARGO_BIN_EXE_miclub"))
                .env("APP_GATEWAY__PORT", port.to_string())
                .env("APP_STANDALONE__DATA_DIR", &data.0)
                .env("APP_GATEWAY__WEB_DIR", data.0.join("no-web"))
                .env("APP_CONFIG_DIR", data.0.join("no-config"))
                .env("APP_GATEWAY__FLAGS__CHANGE_PASSWORD_ENABLE", "true")
                .env("RUST_LOG", "warn")
                .envs(extra.iter().map(|(k, v)| (*k, v.as_str())))
                .stdout(Stdio::null())
                .spawn()
                .expect("start the miclub binary");
            let mut portal = Portal {
                base: format!("http://127.0.0.1:{port}"),
                child,
                settings: extra,
                _data: data,
            };
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                if let Ok(r) = reqwest::get(format!("{}/api/health", portal.base)).await
                    && r.status() == StatusCode::OK
                {
                    return portal;
                }
                if let Ok(Some(status)) = portal.child.try_wait() {
                    eprintln!(
                        "the portal exited before it was ready ({status}); starting it again"
                    );
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "the portal did not start within 60 s"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        panic!("the portal exited before it was ready three times");
    }

    /// One of the extra settings it started with.
    fn setting(&self, name: &str) -> &str {
        self.settings
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no setting {name}"))
    }

    /// A browser-like client: keeps cookies, sends the CSRF header.
    fn browser(&self) -> Browser {
        let cookies = std::sync::Arc::new(reqwest::cookie::Jar::default());
        Browser {
            base: self.base.clone(),
            http: reqwest::Client::builder()
                .cookie_provider(cookies.clone())
                .build()
                .unwrap(),
            cookies,
        }
    }
}

/// A service token of `client_id` from auth's client-credentials grant at `auth_url`.
async fn service_token(auth_url: &str, client_id: &str, secret: &str) -> String {
    use miclub_proto::auth::v1::IssueServiceTokenRequest;
    use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
    AuthServiceClient::connect(auth_url.to_owned())
        .await
        .unwrap()
        .issue_service_token(IssueServiceTokenRequest {
            client_id: client_id.to_owned(),
            client_secret: secret.to_owned(),
        })
        .await
        .unwrap()
        .into_inner()
        .access_token
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Browser {
    base: String,
    http: reqwest::Client,
    cookies: std::sync::Arc<reqwest::cookie::Jar>,
}

impl Browser {
    /// The access token in the session cookie: what a thief of that cookie would hold.
    fn access_token(&self) -> String {
        use reqwest::cookie::CookieStore as _;
        let url = format!("{}/api/balance", self.base).parse().unwrap();
        let header = self.cookies.cookies(&url).expect("cookies after a login");
        header
            .to_str()
            .unwrap()
            .split("; ")
            .find_map(|pair| pair.strip_prefix("mc_session="))
            .expect("a session cookie")
            .to_owned()
    }

    async fn post(&self, path: &str, body: Option<Value>) -> reqwest::Response {
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("x-miclub-csrf", "1")
            .header("recaptcha-token", "standalone");
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send().await.unwrap()
    }

    async fn put(&self, path: &str, body: Value) -> reqwest::Response {
        self.http
            .put(format!("{}{path}", self.base))
            .header("x-miclub-csrf", "1")
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
    }

    async fn newest_code_for(&self, email: &str) -> String {
        let mails: Vec<Value> = self.get("/api/dev/mailbox").await.json().await.unwrap();
        let mail = mails
            .iter()
            .find(|m| m["to"] == email)
            .expect("a code was mailed");
        mail["code"].as_str().unwrap().to_owned()
    }

    /// Password then code; returns the validate-otp answer.
    async fn log_in(&self, user: &str, email: &str) -> Value {
        self.log_in_with(user, "MiClub2026!", email).await
    }

    async fn log_in_with(&self, user: &str, password: &str, email: &str) -> Value {
        let password = self
            .post(
                "/api/login",
                Some(json!({"user": user, "password": password})),
            )
            .await;
        assert_eq!(
            password.status(),
            StatusCode::OK,
            "{}",
            password.text().await.unwrap()
        );
        let code = self.newest_code_for(email).await;
        let answer = self
            .post("/api/validate-otp", Some(json!({"otp": code})))
            .await;
        assert_eq!(answer.status(), StatusCode::OK);
        answer.json().await.unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_logs_in_with_password_and_code_sees_the_balance_and_after_logout_is_refused() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    let answer = browser.log_in("11.111.111-1", "ana@example.cl").await;
    assert_eq!(answer["user"]["name"], "Ana");
    assert_eq!(answer["user"]["terms_agreement"]["agreement"], "accepted");
    assert_eq!(answer["is_user_migrating"], false);
    let token = answer["token"].as_str().unwrap().to_owned();

    let balance = browser.get("/api/balance").await;
    assert_eq!(balance.status(), StatusCode::OK);
    assert_eq!(balance.headers()["cache-control"], "no-store");
    assert_eq!(balance.json::<Value>().await.unwrap()["balance"], 12_345);
    assert_eq!(
        browser
            .get("/api/profile")
            .await
            .json::<Value>()
            .await
            .unwrap()["email"],
        "ana@example.cl"
    );

    assert_eq!(
        browser.post("/api/logout", None).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        browser.get("/api/balance").await.status(),
        StatusCode::UNAUTHORIZED
    );
    // The token itself is revoked, not only the cookie gone.
    let replay = reqwest::Client::new()
        .get(format!("{}/api/balance", portal.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_renewed_with_the_refresh_cookie_and_the_balance_still_answers() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    browser.log_in("111111111", "ana@example.cl").await;
    let refreshed = browser.post("/api/refresh", None).await;
    assert_eq!(refreshed.status(), StatusCode::OK);
    assert_eq!(browser.get("/api/balance").await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_without_a_club_account_gets_406_for_the_balance() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    browser.log_in("22.222.222-2", "bruno@example.cl").await;
    let balance = browser.get("/api/balance").await;
    assert_eq!(balance.status(), StatusCode::NOT_ACCEPTABLE);
    assert_eq!(
        balance.json::<Value>().await.unwrap()["code"],
        "ERR_NO_CLUB_ACCOUNT"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_whose_email_is_not_verified_is_told_so_with_a_link_to_resend_it() {
    let portal = Portal::start().await;
    let answer = portal
        .browser()
        .post(
            "/api/login",
            Some(json!({"user": "33.333.333-3", "password": "MiClub2026!"})),
        )
        .await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["code"], "ERR_EMAIL_NOT_VERIFIED");
    assert!(body["action"]["url"].as_str().unwrap().starts_with('/'));
    assert!(!body["action"]["urlName"].as_str().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migrated_member_is_migrating_on_the_first_login_only() {
    let portal = Portal::start().await;
    let first = portal
        .browser()
        .log_in("44.444.444-4", "diego@example.cl")
        .await;
    assert_eq!(first["is_user_migrating"], true);
    let second = portal
        .browser()
        .log_in("44444444-4", "diego@example.cl")
        .await;
    assert_eq!(second["is_user_migrating"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_to_the_real_services_gets_a_spanish_4xx_never_a_500() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    let cases = [
        (
            json!({"user": "11.111.111-2", "password": "x"}),
            400,
            "ERR_INVALID_RUT",
        ),
        (
            json!({"user": "", "password": "x"}),
            400,
            "ERR_INVALID_ARGUMENT",
        ),
        (
            json!({"user": "11.111.111-1", "password": ""}),
            400,
            "ERR_INVALID_ARGUMENT",
        ),
        (
            json!({"user": "11.111.111-1", "password": "incorrecta"}),
            401,
            "ERR_INVALID_CREDENTIALS",
        ),
        (
            json!({"user": "12.345.678-5", "password": "incorrecta"}),
            401,
            "ERR_INVALID_CREDENTIALS",
        ),
    ];
    let mut messages = Vec::new();
    for (body, status, code) in cases {
        let answer = browser.post("/api/login", Some(body.clone())).await;
        assert_eq!(answer.status().as_u16(), status, "{body}");
        let json: Value = answer.json().await.unwrap();
        assert_eq!(json["code"], code, "{body}");
        messages.push(json["message"].as_str().unwrap().to_owned());
    }
    // An unknown member and a wrong password are told the same thing.
    assert_eq!(messages[3], messages[4]);
    let wrong_code = browser
        .post("/api/validate-otp", Some(json!({"otp": "12"})))
        .await;
    assert!(wrong_code.status().is_client_error());
}
