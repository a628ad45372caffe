//! Password recovery: the neutral answer, the httpOnly recovery cookie that binds the code step
//! to the browser, and the errors of the code step under their fields.

use crate::support::*;

async fn ask(gw: &TestGateway) -> reqwest::Response {
    gw.post("/api/password-recovery")
        .header("recaptcha-token", "t")
        .json(&json!({"user": "44.444.444-4"}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn asking_for_a_code_gets_a_neutral_answer_and_an_httponly_cookie_for_the_recovery_routes() {
    let gw = gateway().await;
    let response = ask(&gw).await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookies = set_cookies(&response);
    let reset = cookie(&cookies, "mc_reset");
    assert!(reset.starts_with("mc_reset=reset-1"));
    assert!(reset.contains("HttpOnly") && reset.contains("Path=/api/password-recovery"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["message"],
        "Si el RUT o documento está registrado, enviamos un código a su correo electrónico."
    );
    assert_eq!(body["resendAfterSeconds"], 60);
    let sent = gw.script().last_reset_start.clone().unwrap();
    assert_eq!(sent.user, "44.444.444-4");
    assert!(!sent.client_ip.is_empty(), "auth limits per client address");
}

#[tokio::test]
async fn the_code_step_sends_the_cookies_reset_id_and_clears_every_cookie_on_success() {
    let gw = gateway().await;
    let reset_cookie = cookie(&set_cookies(&ask(&gw).await), "mc_reset")
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let response = gw
        .post("/api/password-recovery/reset")
        .header("cookie", &reset_cookie)
        .json(&json!({"code": "123456", "newPassword": "un paseo por el cerro"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let cookies = set_cookies(&response);
    assert_cleared(&cookies, &SESSION_COOKIES);
    assert_cleared(&cookies, &["mc_reset"]);
    let sent = gw.script().last_reset.clone().unwrap();
    assert_eq!(sent.reset_id, "reset-1");
    assert_eq!(sent.code, "123456");
    assert_eq!(sent.new_password, "un paseo por el cerro");

    let resent = gw
        .post("/api/password-recovery/resend")
        .header("cookie", &reset_cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(resent.status(), StatusCode::OK);
}

#[tokio::test]
async fn without_a_pending_recovery_the_code_step_is_told_the_code_expired() {
    let gw = gateway().await;
    for path in [
        "/api/password-recovery/reset",
        "/api/password-recovery/resend",
    ] {
        let (status, body) = error_answer(
            gw.post(path)
                .json(&json!({"code": "123456", "newPassword": "un paseo por el cerro"})),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}");
        assert_eq!(body["code"], "ERR_OTP_EXPIRED", "{path}");
    }
    assert!(gw.script().last_reset.is_none());
}

#[tokio::test]
async fn a_wrong_code_lands_under_the_code_field_and_a_weak_password_under_its_own() {
    let gw = gateway().await;
    let reset_cookie = "mc_reset=reset-1";
    gw.set_auth_error(Some(ErrorBody::new(ErrorCode::OtpInvalid)));
    let (status, body) = error_answer(
        gw.post("/api/password-recovery/reset")
            .header("cookie", reset_cookie)
            .json(&json!({"code": "000000", "newPassword": "un paseo por el cerro"})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "ERR_OTP_INVALID");
    assert_eq!(body["field"], "code");

    let message = "Esa contraseña es muy común. Elige otra más difícil de adivinar.";
    gw.set_auth_error(Some(
        ErrorBody::new(ErrorCode::WeakPassword)
            .with_field("newPassword")
            .with_message(message),
    ));
    let (status, body) = error_answer(
        gw.post("/api/password-recovery/reset")
            .header("cookie", reset_cookie)
            .json(&json!({"code": "123456", "newPassword": "password"})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["field"], "newPassword");
    assert_eq!(body["message"], message);
}

#[tokio::test]
async fn recovery_requests_past_the_edge_limit_are_refused_per_client_address() {
    let gw = gateway_with(|s| s.recovery_requests_per_minute = 2).await;
    assert_eq!(ask(&gw).await.status(), StatusCode::OK);
    assert_eq!(ask(&gw).await.status(), StatusCode::OK);
    let (status, body) = error_of(ask(&gw).await).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["code"], "ERR_TOO_MANY_ATTEMPTS");
}
