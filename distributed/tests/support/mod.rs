//! What the distributed tests share: the prerequisites check, the test topology's options,
//! and a member's login through the running portal (cookies, the code read from the mail
//! catcher).

#![allow(dead_code)] // each test file uses its own part

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use miclub_distributed::mailcatcher::{self, CaughtMail};
use miclub_distributed::topology::Running;
use miclub_distributed::{Options, postgres, recaptcha};
use reqwest::StatusCode;
use serde_json::json;
use sqlx::{Connection, PgConnection};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `<target>/debug`: this test runs from `<target>/debug/deps/`.
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_owned()
}

/// The server the topology provisions its databases on, as every test of the workspace finds
/// it (`miclub_platform::testing::servers`: the machine's, or testcontainers' where Docker is).
pub fn postgres_admin_url() -> String {
    miclub_platform::testing::servers().postgres.clone()
}

pub fn redis_url() -> String {
    miclub_platform::testing::servers().redis.clone()
}

/// What is missing on this machine for the topology to run, if anything.
pub async fn missing_prerequisite(needs_servers: bool, needs_node: bool) -> Option<String> {
    let runs = |program: &str, arg: &str| {
        std::process::Command::new(program)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !runs("kubectl", "version") && !runs("kubectl", "help") {
        return Some("kubectl is not installed".into());
    }
    if needs_node && !runs("node", "--version") {
        return Some("node is not installed".into());
    }
    if needs_servers {
        if PgConnection::connect(&postgres_admin_url()).await.is_err() {
            return Some(format!(
                "PostgreSQL is not reachable at {}",
                postgres::redact(&postgres_admin_url())
            ));
        }
        let redis = url::Url::parse(&redis_url()).unwrap();
        let address = format!(
            "{}:{}",
            redis.host_str().unwrap_or("127.0.0.1"),
            redis.port().unwrap_or(6379)
        );
        if tokio::net::TcpStream::connect(&address).await.is_err() {
            return Some(format!("Redis is not reachable at {address}"));
        }
    }
    None
}

#[macro_export]
macro_rules! require {
    ($servers:expr, $node:expr) => {
        if let Some(missing) = $crate::support::missing_prerequisite($servers, $node).await {
            // scripts/test installs and starts everything these tests need: there, a missing
            // prerequisite is a failure, not a skip.
            if std::env::var_os("MICLUB_DISTRIBUTED_REQUIRED").is_some() {
                panic!("{missing}: MICLUB_DISTRIBUTED_REQUIRED is set, so this test may not skip");
            }
            eprintln!(
                "\n!!!!!!!! SKIPPED: {missing}; this distributed test did not run !!!!!!!!\n"
            );
            return;
        }
    };
}

pub fn test_options(state: &Path) -> Options {
    Options {
        postgres_admin_url: postgres_admin_url(),
        redis_url: redis_url(),
        ..Options::for_test(&repo_root(), state, &bin_dir())
    }
}

/// A tiny cookie jar: the gateway's cookies are `Secure` (production), which a client would
/// not send back over http://127.0.0.1; a browser treats loopback as secure, and so does this.
#[derive(Default)]
pub struct Jar(BTreeMap<String, String>);

impl Jar {
    pub fn keep(&mut self, response: &reqwest::Response) {
        for header in response.headers().get_all(reqwest::header::SET_COOKIE) {
            let text = header.to_str().unwrap();
            let pair = text.split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                self.0
                    .insert(name.trim().to_owned(), value.trim().to_owned());
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    pub fn header(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The newest one-time code mailed to `to`, waiting for the mail to arrive (mail leaves
/// through a queue, so it lands shortly after the request that sent it was answered).
pub async fn code_mailed_to(client: &reqwest::Client, mail_json_url: &str, to: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mails = mailcatcher::caught(client, mail_json_url).await.unwrap();
        let code = mails
            .iter()
            .filter(|mail| mail.to.iter().any(|address| address == to))
            .find_map(CaughtMail::code);
        if let Some(code) = code {
            return code;
        }
        assert!(
            Instant::now() < deadline,
            "no code reached the mail catcher for {to}: {mails:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every key on the test Redis under `prefix` (a test run's prefix holds no glob character).
pub async fn redis_keys_under(prefix: &str) -> Vec<String> {
    let client = redis::Client::open(redis_url()).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut connection)
        .await
        .unwrap()
}

/// Logs `user` in through the running portal (password, then the code mailed to `email`) and
/// returns the session's cookies.
pub async fn log_in(running: &Running, client: &reqwest::Client, user: &str, email: &str) -> Jar {
    let base = &running.gateway_url;
    let mut jar = Jar::default();
    let login = client
        .post(format!("{base}/api/login"))
        .header("x-miclub-csrf", "1")
        .header("recaptcha-token", recaptcha::token("login"))
        .json(&json!({"user": user, "password": "MiClub2026!"}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), StatusCode::OK, "{:?}", login.text().await);
    jar.keep(&login);
    let code = code_mailed_to(client, &running.mail_json_url, email).await;
    let validated = client
        .post(format!("{base}/api/validate-otp"))
        .header("x-miclub-csrf", "1")
        .header("cookie", jar.header())
        .json(&json!({"otp": code}))
        .send()
        .await
        .unwrap();
    assert_eq!(validated.status(), StatusCode::OK);
    jar.keep(&validated);
    jar
}

/// A gRPC channel to `address` over TLS, trusting only the topology's CA (as its processes do).
pub fn tls_channel(
    ca_file: &Path,
    address: std::net::SocketAddr,
) -> miclub_platform::grpc::TracedChannel {
    let tls = miclub_platform::tls::InternalTlsSettings {
        enabled: true,
        mesh: false,
        ca_file: ca_file.display().to_string(),
        cert_file: String::new(),
        key_file: String::new(),
    }
    .load(miclub_platform::config::Environment::Production)
    .unwrap();
    miclub_platform::grpc::ClientSettings::for_url(format!("https://{address}"))
        .with_tls(&tls)
        .channel()
        .unwrap()
}
