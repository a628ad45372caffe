//! HTTP hardening at the edge: the security headers on every kind of answer (API, static file,
//! SPA fallback, errors), a policy that loads nothing on API answers, the CSP's reCAPTCHA
//! origins only in the app's policy and only with a site key, HSTS over TLS,
//! `no-store` on every `/api` answer with personal data or a credential, `__Host-` credential
//! cookies over TLS, and the 404 of a missing asset.

use std::path::PathBuf;

use crate::support::*;

/// A built web app in a temporary folder: `index.html` and one hashed asset.
fn web_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("miclub-web-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><div id=root></div>").unwrap();
    std::fs::write(dir.join("assets/app-1a2b3c.js"), "console.log(1)").unwrap();
    std::fs::write(dir.join("favicon.svg"), "<svg/>").unwrap();
    dir
}

fn directive<'a>(csp: &'a str, name: &str) -> &'a str {
    csp.split(';')
        .map(str::trim)
        .find(|d| d.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no {name} in {csp}"))
}

fn csp_of<'a>(response: &'a reqwest::Response, what: &str) -> &'a str {
    response
        .headers()
        .get("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no csp"))
        .to_str()
        .unwrap()
}

/// The headers every answer carries, page or data.
fn assert_common_headers(response: &reqwest::Response, what: &str) {
    let h = response.headers();
    assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(h["x-frame-options"], "DENY", "{what}");
    assert_eq!(
        h["referrer-policy"], "strict-origin-when-cross-origin",
        "{what}"
    );
}

/// An `/api` answer: a policy under which a browser rendering it loads and runs nothing.
fn assert_api_hardened(response: &reqwest::Response, what: &str) {
    let csp = csp_of(response, what);
    for expected in [
        "default-src 'none'",
        "base-uri 'none'",
        "object-src 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ] {
        let name = expected.split_whitespace().next().unwrap();
        assert_eq!(directive(csp, name), expected, "{what}");
    }
    assert!(
        !csp.contains("'self'") && !csp.contains("script-src") && !csp.contains("google"),
        "{what}: an api answer allows nothing: {csp}"
    );
    assert_common_headers(response, what);
}

/// A page or file of the web app: the app's own policy and no powerful browser features.
fn assert_document_hardened(response: &reqwest::Response, what: &str) {
    let h = response.headers();
    let csp = csp_of(response, what);
    assert_eq!(
        directive(csp, "default-src"),
        "default-src 'self'",
        "{what}"
    );
    assert_eq!(directive(csp, "script-src"), "script-src 'self'", "{what}");
    assert_eq!(
        directive(csp, "frame-ancestors"),
        "frame-ancestors 'none'",
        "{what}"
    );
    assert_eq!(
        directive(csp, "connect-src"),
        "connect-src 'self'",
        "{what}"
    );
    assert_eq!(directive(csp, "base-uri"), "base-uri 'none'", "{what}");
    assert_eq!(
        directive(csp, "form-action"),
        "form-action 'self'",
        "{what}"
    );
    assert_eq!(directive(csp, "object-src"), "object-src 'none'", "{what}");
    assert!(
        !csp.contains("google"),
        "{what}: no recaptcha origins without a site key"
    );
    assert_common_headers(response, what);
    let permissions = h["permissions-policy"].to_str().unwrap();
    for feature in [
        "camera=()",
        "microphone=()",
        "geolocation=()",
        "payment=()",
        "usb=()",
    ] {
        assert!(permissions.contains(feature), "{what}: {feature}");
    }
}

#[tokio::test]
async fn every_kind_of_answer_carries_the_security_headers() {
    let dir = web_dir();
    let gw = gateway_with(|s| s.web_dir = Some(dir.clone())).await;
    let csrf_less_post = gw
        .client
        .post(format!("{}/api/logout", gw.base))
        .send()
        .await
        .unwrap();
    let answers = [
        ("api 200", gw.anonymous_get("/api/health").await),
        ("api 404", gw.anonymous_get("/api/nothing").await),
        (
            "api 405",
            gw.client
                .patch(format!("{}/api/health", gw.base))
                .send()
                .await
                .unwrap(),
        ),
        ("api 401", gw.anonymous_get("/api/balance").await),
        ("api 403 csrf", csrf_less_post),
        ("index", gw.anonymous_get("/").await),
        ("spa fallback", gw.anonymous_get("/mis-movimientos").await),
        ("static file", gw.anonymous_get("/favicon.svg").await),
        ("asset", gw.anonymous_get("/assets/app-1a2b3c.js").await),
        (
            "missing asset",
            gw.anonymous_get("/assets/gone-9z.js").await,
        ),
    ];
    for (what, response) in &answers {
        if what.starts_with("api") {
            assert_api_hardened(response, what);
        } else {
            assert_document_hardened(response, what);
        }
        assert!(
            response
                .headers()
                .get("strict-transport-security")
                .is_none(),
            "{what}: no hsts over plain http"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn a_missing_asset_is_a_404_that_is_not_cached_and_not_the_app() {
    let dir = web_dir();
    let gw = gateway_with(|s| s.web_dir = Some(dir.clone())).await;
    let found = gw.anonymous_get("/assets/app-1a2b3c.js").await;
    assert_eq!(found.status(), StatusCode::OK);
    assert!(
        found.headers()["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    let missing = gw.anonymous_get("/assets/app-000000.js").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let cache = missing.headers()["cache-control"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(!cache.contains("immutable") && !cache.contains("max-age=31536000"));
    assert!(!missing.text().await.unwrap().contains("id=root"));
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn the_recaptcha_origins_are_allowed_only_when_a_site_key_is_configured() {
    let dir = web_dir();
    let gw = gateway_with(|s| {
        s.recaptcha.kind = miclub_gateway::config::RecaptchaKind::Google;
        s.recaptcha.site_key = Some("site-key".into());
        s.recaptcha.secret = Some("secret".to_owned().into());
        s.web_dir = Some(dir.clone());
    })
    .await;
    // The page loads Google's script and frame; an API answer still allows nothing.
    assert_api_hardened(
        &gw.anonymous_get("/api/health").await,
        "api with a site key",
    );
    let response = gw.anonymous_get("/").await;
    let csp = csp_of(&response, "page with a site key");
    let scripts = directive(csp, "script-src");
    assert!(scripts.contains("https://www.google.com/recaptcha/"));
    assert!(scripts.contains("https://www.gstatic.com/recaptcha/"));
    assert!(!scripts.contains("unsafe-inline") && !scripts.contains("unsafe-eval"));
    assert!(directive(csp, "frame-src").contains("https://www.google.com/recaptcha/"));
    assert_eq!(directive(csp, "frame-ancestors"), "frame-ancestors 'none'");
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn over_tls_every_answer_asks_for_https_for_a_year_with_subdomains() {
    let gw = gateway_with(|s| s.secure_cookies = true).await;
    for path in ["/api/health", "/api/nothing"] {
        let response = gw.anonymous_get(path).await;
        assert_eq!(
            response.headers()["strict-transport-security"],
            "max-age=31536000; includeSubDomains",
            "{path}"
        );
    }
}

#[tokio::test]
async fn every_api_answer_with_personal_data_or_a_credential_is_never_stored() {
    let gw = gateway_with(|s| {
        s.login_requests_per_minute = 1_000;
        s.recovery_requests_per_minute = 1_000;
        s.registration_requests_per_minute = 1_000;
    })
    .await;
    let bearer = gw.bearer();
    let cookies = "mc_challenge=challenge-1; mc_refresh=refresh-1; mc_reset=reset-1; \
                   mc_registration=flow-1";
    let person = json!({"name": "Ana", "lastName": "González", "motherSurname": "Pérez",
        "phoneNumber": "+56911111111", "birthDate": "1988-03-14", "genderId": 1,
        "email": "ana@example.cl"});
    let cases: Vec<(&str, &str, Option<Value>)> = vec![
        (
            "POST",
            "/api/login",
            Some(json!({"user": "11.111.111-1", "password": "secreto"})),
        ),
        ("POST", "/api/resend-otp", None),
        ("POST", "/api/validate-otp", Some(json!({"otp": "123456"}))),
        ("POST", "/api/refresh", None),
        ("GET", "/api/profile", None),
        ("PUT", "/api/profile", Some(person.clone())),
        (
            "POST",
            "/api/profile/email/confirm",
            Some(json!({"token": "good-token"})),
        ),
        ("GET", "/api/balance", None),
        ("GET", "/api/movements?year=2026&month=11", None),
        ("GET", "/api/movements/m-1", None),
        ("GET", "/api/missions", None),
        ("GET", "/api/unsubscribe/reasons", None),
        (
            "POST",
            "/api/unsubscribe/validate",
            Some(json!({"documentNumber": "11111111-1", "email": "ana@example.cl"})),
        ),
        ("POST", "/api/unsubscribe", Some(json!({"reasonId": 1}))),
        (
            "POST",
            "/api/registration",
            Some(json!({"documentType": "RUT", "rut": "12.345.678-5",
                "documentNumber": "100.123.456"})),
        ),
        ("GET", "/api/registration", None),
        ("PUT", "/api/registration/personal-data", Some(person)),
        (
            "POST",
            "/api/registration/complete",
            Some(json!({"password": "un paseo por el cerro", "acceptTerms": true})),
        ),
        (
            "POST",
            "/api/registration/verification-email",
            Some(json!({"user": "11.111.111-1"})),
        ),
        (
            "POST",
            "/api/password-recovery",
            Some(json!({"user": "11.111.111-1"})),
        ),
        ("POST", "/api/password-recovery/resend", None),
        (
            "POST",
            "/api/password-recovery/reset",
            Some(json!({"code": "123456", "newPassword": "un paseo por el cerro"})),
        ),
        ("POST", "/api/logout", None),
    ];
    for (method, path, body) in cases {
        let mut request = gw
            .client
            .request(method.parse().unwrap(), format!("{}{path}", gw.base))
            .header("x-miclub-csrf", "1")
            .header("recaptcha-token", "t")
            .header("authorization", &bearer)
            .header("cookie", cookies);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        assert!(
            status != StatusCode::NOT_FOUND && status != StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}: the route exists ({status})"
        );
        assert_eq!(
            response
                .headers()
                .get("cache-control")
                .map(|v| v.to_str().unwrap()),
            Some("no-store"),
            "{method} {path} ({status})"
        );
    }
    // Public content keeps its own short cache.
    let promotions = gw.anonymous_get("/api/promotions").await;
    assert_ne!(promotions.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn over_tls_credential_cookies_are_host_prefixed_and_planted_unprefixed_ones_are_ignored() {
    let gw = gateway_with(|s| s.secure_cookies = true).await;
    let cookies = set_cookies(&gw.login().await);
    let challenge = cookie(&cookies, "__Host-mc_challenge");
    let attributes: Vec<&str> = challenge.split("; ").collect();
    for attribute in ["Secure", "Path=/", "HttpOnly", "SameSite=Strict"] {
        assert!(
            attributes.contains(&attribute),
            "{attribute} in {challenge}"
        );
    }
    assert!(!challenge.to_ascii_lowercase().contains("domain="));

    let response = gw
        .post("/api/validate-otp")
        .header("cookie", "__Host-mc_challenge=challenge-1")
        .json(&json!({"otp": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let cookies = set_cookies(&response);
    for name in ["__Host-mc_session", "__Host-mc_refresh"] {
        let attributes: Vec<&str> = cookie(&cookies, name).split("; ").collect();
        for attribute in ["Secure", "Path=/", "HttpOnly"] {
            assert!(attributes.contains(&attribute), "{name}: {attribute}");
        }
    }
    assert!(cookie(&cookies, "__Host-mc_refresh").contains("SameSite=Strict"));
    // The web app reads is-logged by its name; it is no credential.
    let is_logged = cookie(&cookies, "is-logged");
    assert!(is_logged.contains("Secure") && !is_logged.contains("HttpOnly"));

    // A cookie planted without the prefix (by a sibling subdomain, or over http) is not read.
    let planted = gw.validate_otp().await;
    let (status, json) = error_of(planted).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(json["code"], "ERR_OTP_EXPIRED");
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    let planted_session = gw
        .get("/api/profile")
        .header("cookie", format!("mc_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(planted_session.status(), StatusCode::UNAUTHORIZED);
    let real_session = gw
        .get("/api/profile")
        .header("cookie", format!("__Host-mc_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(real_session.status(), StatusCode::OK);
}

#[tokio::test]
async fn every_answer_carries_a_request_id() {
    let gw = gateway().await;
    let response = gw.anonymous_get("/api/health").await;
    assert_eq!(
        response.headers()["x-request-id"].to_str().unwrap().len(),
        36
    );
    let response = gw
        .get("/api/health")
        .header("x-request-id", "abc")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "abc");
}
