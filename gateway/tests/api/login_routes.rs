//! The login: the password step's challenge cookie and the client address it passes, the code
//! step that opens the session and answers the spec's user, every service error as the browser
//! sees it, maintenance, the edge limit per address, and auth being down.

use crate::support::*;

#[tokio::test]
async fn every_service_error_reaches_the_browser_with_its_status_code_and_spanish_text() {
    // One login per code: more than the edge allows a single address by default.
    let gw = gateway_with(|s| s.login_requests_per_minute = 1_000).await;
    for code in ErrorCode::ALL {
        let body = ErrorBody::new(*code).with_field("user");
        gw.set_auth_error(Some(body.clone()));
        let (status, json) = error_of(gw.login().await).await;
        assert_eq!(status.as_u16(), code.http_status().as_u16(), "{code}");
        assert_eq!(json["code"], code.as_str());
        assert_eq!(json["message"], code.message());
        assert_eq!(json["field"], "user");
    }
}

#[tokio::test]
async fn an_email_not_verified_error_keeps_its_action_link() {
    let gw = gateway().await;
    gw.set_auth_error(Some(
        ErrorBody::new(ErrorCode::EmailNotVerified).with_action(
            "/registro/verificar-correo",
            "Reenviar correo de verificación",
        ),
    ));
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        json["action"],
        json!({"url": "/registro/verificar-correo?rut=11.111.111-1", "urlName": "Reenviar correo de verificación"})
    );
}

#[tokio::test]
async fn the_verification_action_carries_the_typed_document_in_display_form_and_nothing_else() {
    let gw = gateway().await;
    let not_verified = ErrorBody::new(ErrorCode::EmailNotVerified).with_action(
        "/registro/verificar-correo",
        "Reenviar correo de verificación",
    );
    for (typed, url) in [
        ("333333333", "/registro/verificar-correo?rut=33.333.333-3"),
        (
            " ab-123.456 ",
            "/registro/verificar-correo?documento=AB123456",
        ),
    ] {
        gw.set_auth_error(Some(not_verified.clone()));
        let response = gw
            .post("/api/login")
            .header("recaptcha-token", "t")
            .json(&json!({"user": typed, "password": "x"}))
            .send()
            .await
            .unwrap();
        let (_, json) = error_of(response).await;
        assert_eq!(json["action"]["url"], url, "{typed}");
    }
    // Not a document (a wrong check digit): refused at the edge with ERR_INVALID_RUT before auth
    // is asked, so no verification link (and nothing typed) comes back.
    gw.set_auth_error(Some(not_verified.clone()));
    let response = gw
        .post("/api/login")
        .header("recaptcha-token", "t")
        .json(&json!({"user": "12.345.678-0", "password": "x"}))
        .send()
        .await
        .unwrap();
    let (status, json) = error_of(response).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["code"], "ERR_INVALID_RUT");
    assert!(json["action"].is_null(), "{json}");
    // Another code's action is left as the service wrote it.
    gw.set_auth_error(Some(
        ErrorBody::new(ErrorCode::InvalidCredentials).with_action("/registro", "Registrarme"),
    ));
    let (_, json) = error_of(gw.login().await).await;
    assert_eq!(json["action"]["url"], "/registro");
}

#[tokio::test]
async fn the_password_step_sets_an_httponly_challenge_cookie_and_passes_the_client_address() {
    let gw = gateway().await;
    let response = gw.login().await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookies = set_cookies(&response);
    let challenge = cookie(&cookies, "mc_challenge");
    assert!(
        challenge.contains("challenge-1")
            && challenge.contains("HttpOnly")
            && challenge.contains("SameSite=Strict")
    );
    let json: Value = response.json().await.unwrap();
    assert_eq!(
        json,
        json!({"destination": "a***@example.cl", "expiresInSeconds": 300, "resendAfterSeconds": 60})
    );
    let login = gw.fakes.script.lock().unwrap().last_login.clone().unwrap();
    assert_eq!(login.client_ip, "127.0.0.1");
    assert_eq!(login.user, "11.111.111-1");
}

#[tokio::test]
async fn the_code_step_opens_the_session_and_returns_the_user_of_the_spec() {
    let gw = gateway().await;
    let response = gw.validate_otp().await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookies = set_cookies(&response);
    let session = cookie(&cookies, "mc_session");
    assert!(
        session.contains("HttpOnly")
            && session.contains("SameSite=Lax")
            && session.contains("Path=/")
    );
    assert!(!session.contains("Secure"), "plain http in development");
    assert!(cookie(&cookies, "mc_refresh").contains("Path=/api"));
    let is_logged = cookie(&cookies, "is-logged");
    assert!(is_logged.starts_with("is-logged=true") && !is_logged.contains("HttpOnly"));
    let fresh = cookie(&cookies, "session-fresh");
    assert!(fresh.starts_with("session-fresh=true") && !fresh.contains("HttpOnly"));
    assert_eq!(
        max_age(fresh) + 60,
        max_age(session),
        "the reloaded page trusts the access cookie only while a minute of it is left"
    );
    let json: Value = response.json().await.unwrap();
    assert_eq!(json["has_missions"], false);
    assert_eq!(json["is_user_migrating"], true);
    assert!(json["token"].as_str().unwrap().len() > 20);
    assert_eq!(
        json["user"],
        json!({
            "name": "Ana", "last_name": "González", "mother_surname": "Pérez",
            "phone_number": "+56911111111", "gender_id": 1, "birth_date": "1988-03-14",
            "email": "ana@example.cl",
            "terms_agreement": {"agreement": "accepted", "event_date": "2026-01-10T12:00:00Z", "version": "2026-11-01"},
            "email_confirmed": true, "documentType": "RUT", "documentNumber": "11111111-1"
        })
    );
}

#[tokio::test]
async fn secure_cookies_are_marked_secure_when_configured() {
    let gw = gateway_with(|s| s.secure_cookies = true).await;
    let cookies = set_cookies(&gw.login().await);
    assert!(cookie(&cookies, "__Host-mc_challenge").contains("Secure"));
}

#[tokio::test]
async fn a_code_step_without_a_pending_login_is_told_the_code_expired() {
    let gw = gateway().await;
    let (status, json) =
        error_answer(gw.post("/api/validate-otp").json(&json!({"otp": "123456"}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(json["code"], "ERR_OTP_EXPIRED");
    let (status, _) = error_answer(gw.post("/api/resend-otp")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_failed_member_lookup_after_the_code_closes_the_new_session() {
    let gw = gateway().await;
    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::Unavailable)));
    let response = gw.validate_otp().await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        set_cookies(&response)
            .iter()
            .all(|c| !c.starts_with("mc_session=ey"))
    );
    assert_eq!(gw.fakes.script.lock().unwrap().logouts.len(), 1);
}

#[tokio::test]
async fn login_in_maintenance_answers_503_with_a_clear_message() {
    let gw = gateway_with(|s| s.flags.is_login_maintenance = true).await;
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        json["message"],
        miclub_gateway::routes::session::LOGIN_MAINTENANCE_MESSAGE
    );
    let context: Value = gw.anonymous_get("/api/context").await.json().await.unwrap();
    assert_eq!(context["isLoginMaintenance"], true);
    assert_eq!(context["portalEnabled"], true);
    assert_eq!(context["changePasswordEnable"], false);
    assert_eq!(context["recaptchaSiteKey"], Value::Null);
}

#[tokio::test]
async fn login_requests_past_the_edge_limit_are_refused_per_client_address() {
    let gw = gateway_with(|s| s.login_requests_per_minute = 3).await;
    for _ in 0..3 {
        assert_eq!(gw.login().await.status(), StatusCode::OK);
    }
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(json["code"], "ERR_TOO_MANY_ATTEMPTS");
}

#[tokio::test]
async fn a_service_that_is_down_gives_a_spanish_503() {
    let gw = gateway_with(|s| s.auth = ClientSettings::for_url("http://127.0.0.1:1")).await;
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(json["code"], "ERR_UNAVAILABLE");
}

fn max_age(cookie: &str) -> i64 {
    cookie
        .split(';')
        .find_map(|part| part.trim().strip_prefix("Max-Age="))
        .and_then(|secs| secs.parse().ok())
        .unwrap_or_else(|| panic!("no Max-Age in {cookie}"))
}
