//! Registration and password recovery at the edge: a per-address budget answered 429
//! `ERR_TOO_MANY_ATTEMPTS` with `Retry-After`, and reCAPTCHA tokens checked with Google's
//! siteverify (here a stand-in HTTP server) for success, the form's action, the host name and
//! the least score.

use std::collections::HashMap;

use axum::Form;
use miclub_gateway::config::RecaptchaKind;

use crate::support::*;

fn registration_body() -> Value {
    json!({"documentType": "RUT", "rut": "12.345.678-5", "documentNumber": "100.123.456"})
}

async fn assert_throttled(response: reqwest::Response) {
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    let json: Value = response.json().await.unwrap();
    assert_eq!(json["code"], "ERR_TOO_MANY_ATTEMPTS");
}

#[tokio::test]
async fn a_flood_of_recovery_requests_from_one_address_is_refused_with_retry_after() {
    let gw = gateway_with(|s| s.recovery_requests_per_minute = 3).await;
    let ask = || {
        gw.post("/api/password-recovery")
            .header("recaptcha-token", "t")
            .json(&json!({"user": "11.111.111-1"}))
    };
    for _ in 0..3 {
        assert_eq!(ask().send().await.unwrap().status(), StatusCode::OK);
    }
    assert_throttled(ask().send().await.unwrap()).await;
    // The resend shares the budget.
    let resend = gw
        .post("/api/password-recovery/resend")
        .header("cookie", "mc_reset=reset-1")
        .send()
        .await
        .unwrap();
    assert_throttled(resend).await;
    // Login keeps its own.
    assert_eq!(gw.login().await.status(), StatusCode::OK);
}

#[tokio::test]
async fn registration_and_the_verification_email_are_limited_per_address() {
    let gw = gateway_with(|s| s.registration_requests_per_minute = 2).await;
    for _ in 0..2 {
        let response = gw
            .post("/api/registration")
            .json(&registration_body())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    let refused = gw
        .post("/api/registration")
        .json(&registration_body())
        .send()
        .await
        .unwrap();
    assert_throttled(refused).await;
    let resend = || {
        gw.post("/api/registration/verification-email")
            .json(&json!({"user": "11.111.111-1"}))
    };
    for _ in 0..2 {
        assert_eq!(
            resend().send().await.unwrap().status(),
            StatusCode::ACCEPTED
        );
    }
    assert_throttled(resend().send().await.unwrap()).await;
}

/// A stand-in for Google's siteverify: the token names the answer.
async fn siteverify() -> String {
    async fn verify(Form(form): Form<HashMap<String, String>>) -> axum::Json<Value> {
        assert_eq!(
            form.get("secret").map(String::as_str),
            Some("recaptcha-secret")
        );
        let token = form.get("response").cloned().unwrap_or_default();
        let (action, hostname, score) = match token.split_once(':') {
            Some((action, "other-host")) => (action.to_owned(), "evil.example", 0.9),
            Some((action, "low-score")) => (action.to_owned(), "127.0.0.1", 0.1),
            Some((action, _)) => (action.to_owned(), "127.0.0.1", 0.9),
            None => {
                return axum::Json(
                    json!({"success": false, "error-codes": ["invalid-input-response"]}),
                );
            }
        };
        axum::Json(json!({
            "success": true, "action": action, "hostname": hostname, "score": score,
            "challenge_ts": "2026-11-20T12:00:00Z"
        }))
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/siteverify", axum::routing::post(verify));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}/siteverify")
}

async fn google_gateway() -> TestGateway {
    let url = siteverify().await;
    gateway_with(move |s| {
        s.recaptcha.kind = RecaptchaKind::Google;
        s.recaptcha.site_key = Some("site-key".into());
        s.recaptcha.secret = Some("recaptcha-secret".to_owned().into());
        s.recaptcha.verify_url = url;
        s.login_requests_per_minute = 1_000;
        s.recovery_requests_per_minute = 1_000;
        s.registration_requests_per_minute = 1_000;
    })
    .await
}

#[tokio::test]
async fn a_recaptcha_token_counts_only_for_its_own_form_host_and_a_human_score() {
    let gw = google_gateway().await;
    let forms: [(&str, &str, Value, StatusCode); 4] = [
        (
            "/api/login",
            "login",
            json!({"user": "11.111.111-1", "password": "secreto"}),
            StatusCode::OK,
        ),
        (
            "/api/password-recovery",
            "password_recovery",
            json!({"user": "11.111.111-1"}),
            StatusCode::OK,
        ),
        (
            "/api/registration",
            "registration",
            registration_body(),
            StatusCode::CREATED,
        ),
        (
            "/api/registration/verification-email",
            "verification_email",
            json!({"user": "11.111.111-1"}),
            StatusCode::ACCEPTED,
        ),
    ];
    for (path, action, body, ok) in forms {
        let send = |token: String| {
            gw.post(path)
                .header("recaptcha-token", token)
                .json(&body)
                .send()
        };
        let foreign_action = if action == "login" {
            "password_recovery"
        } else {
            "login"
        };
        for (token, why) in [
            (
                format!("{foreign_action}:ok"),
                "a token minted for another form",
            ),
            (
                format!("{action}:other-host"),
                "a token minted on another site",
            ),
            (format!("{action}:low-score"), "a bot's score"),
            ("garbage".to_owned(), "a token Google does not know"),
        ] {
            let (status, json) = error_of(send(token).await.unwrap()).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {why}");
            assert_eq!(json["code"], "ERR_RECAPTCHA", "{path}: {why}");
        }
        let missing = gw.post(path).json(&body).send().await.unwrap();
        assert_eq!(
            missing.status(),
            StatusCode::BAD_REQUEST,
            "{path}: no token"
        );
        assert_eq!(
            send(format!("{action}:ok")).await.unwrap().status(),
            ok,
            "{path}"
        );
    }
}

#[tokio::test]
async fn the_expected_host_name_can_be_set_instead_of_the_served_host() {
    let url = siteverify().await;
    let gw = gateway_with(move |s| {
        s.recaptcha.kind = RecaptchaKind::Google;
        s.recaptcha.site_key = Some("site-key".into());
        s.recaptcha.secret = Some("recaptcha-secret".to_owned().into());
        s.recaptcha.verify_url = url;
        s.recaptcha.hostname = Some("miclub.cl".into());
    })
    .await;
    // The stand-in reports 127.0.0.1, which is not the configured portal host.
    let response = gw
        .post("/api/login")
        .header("recaptcha-token", "login:ok")
        .json(&json!({"user": "11.111.111-1", "password": "secreto"}))
        .send()
        .await
        .unwrap();
    let (status, json) = error_of(response).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["code"], "ERR_RECAPTCHA");
}
