//! The whole member flow over HTTP against the real portal: the `miclub` binary, or the six
//! production processes with `MICLUB_TOPOLOGY=distributed` (see [`portal`]); codes read from
//! its mail. The account area (profile, email confirmation, password change, terms, movements)
//! is in [`account`]; Redis stopped and restarted under the standalone portal is in
//! [`fault_drills`].

mod account;
mod club;
mod fault_drills;
mod joining;
mod portal;
mod reflection;

use std::time::{Duration, Instant};

use portal::{MailSource, Portal, free_port};

use reqwest::StatusCode;
use serde_json::{Value, json};

/// A service token of internal client `client_id` from auth's client-credentials grant.
async fn service_token(portal: &Portal, client_id: &str) -> String {
    use miclub_proto::auth::v1::IssueServiceTokenRequest;
    use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
    AuthServiceClient::new(portal.channel("auth"))
        .issue_service_token(IssueServiceTokenRequest {
            client_id: client_id.to_owned(),
            client_secret: portal.client_secret(client_id).to_owned(),
        })
        .await
        .unwrap()
        .into_inner()
        .access_token
}

struct Browser {
    base: String,
    mail: MailSource,
    http: reqwest::Client,
}

/// The reCAPTCHA token a form's request carries: anything passes the standalone binary's
/// pass-through verifier; the distributed topology's siteverify stand-in accepts
/// `local:<action>` for the form's action only.
fn recaptcha_token(path: &str) -> String {
    if !portal::distributed() {
        return "standalone".into();
    }
    let action = if path.starts_with("/api/password-recovery") {
        "password_recovery"
    } else if path.contains("verification-email") {
        "verification_email"
    } else if path.starts_with("/api/registration") {
        "registration"
    } else {
        "login"
    };
    format!("local:{action}")
}

impl Browser {
    async fn post(&self, path: &str, body: Option<Value>) -> reqwest::Response {
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("x-miclub-csrf", "1")
            .header("recaptcha-token", recaptcha_token(path));
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

    /// The first page of the member's movements of the current month in Chile.
    async fn this_months_movements(&self) -> Value {
        use chrono::Datelike;
        let today = miclub_platform::calendar::today();
        let path = format!(
            "/api/movements?year={}&month={}",
            today.year(),
            today.month()
        );
        self.get(&path).await.json().await.unwrap()
    }

    /// The mail the portal sent, newest first, in the dev mailbox's shape.
    async fn mailbox(&self) -> Vec<Value> {
        self.mail.read().await
    }

    /// The newest mail to `email` beyond the `seen` it had, waiting for it: over SMTP it lands
    /// shortly after the request that sent it was answered.
    async fn new_mail_to(&self, email: &str, seen: usize) -> Value {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let mails = self.mailbox().await;
            let to: Vec<&Value> = mails.iter().filter(|m| m["to"] == email).collect();
            if to.len() > seen {
                return to[0].clone();
            }
            assert!(
                Instant::now() < deadline,
                "no new mail to {email}; the mailbox holds {mails:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The newest mail `wanted` picks, waiting for it to arrive.
    async fn mail_where(&self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let mails = self.mailbox().await;
            if let Some(mail) = mails.iter().find(|m| wanted(m)) {
                return mail.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no such mail arrived; the mailbox holds {mails:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// How many one-time codes `email` has received so far.
    async fn codes_to(&self, email: &str) -> usize {
        self.mailbox()
            .await
            .iter()
            .filter(|m| m["to"] == email && m["code"].is_string())
            .count()
    }

    /// The newest code mailed to `email` beyond the `seen` it had, waiting for it (other mail,
    /// such as a notice of a changed password, may land in between).
    async fn new_code_for(&self, email: &str, seen: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let mails = self.mailbox().await;
            let codes: Vec<&str> = mails
                .iter()
                .filter(|m| m["to"] == email)
                .filter_map(|m| m["code"].as_str())
                .collect();
            if codes.len() > seen {
                return codes[0].to_owned();
            }
            assert!(
                Instant::now() < deadline,
                "no new code for {email}; the mailbox holds {mails:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// How many mails `email` has received so far.
    async fn mails_to(&self, email: &str) -> usize {
        self.mailbox()
            .await
            .iter()
            .filter(|m| m["to"] == email)
            .count()
    }

    /// Password then code; returns the validate-otp answer.
    async fn log_in(&self, user: &str, email: &str) -> Value {
        self.log_in_with(user, "MiClub2026!", email).await
    }

    async fn log_in_with(&self, user: &str, password: &str, email: &str) -> Value {
        let seen = self.codes_to(email).await;
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
        let code = self.new_code_for(email, seen).await;
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
