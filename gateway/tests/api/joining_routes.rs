//! Joining and leaving: the registration flow bound to the browser by its httpOnly cookie, the
//! camelCase field names of its errors, the neutral verification-email resend, and the
//! unsubscribe routes that end the session.

use crate::support::*;

const RUT_IDENTITY: &str =
    r#"{"documentType":"RUT","rut":"12.345.678-5","documentNumber":"100.123.456"}"#;

fn cookie_pair(cookies: &[String], name: &str) -> String {
    cookie(cookies, name).split(';').next().unwrap().to_owned()
}

async fn start(gw: &TestGateway) -> reqwest::Response {
    gw.post("/api/registration")
        .header("content-type", "application/json")
        .body(RUT_IDENTITY)
        .send()
        .await
        .unwrap()
}

fn personal_data() -> Value {
    json!({
        "name": "Nora", "lastName": "Soto", "motherSurname": "", "phoneNumber": "+56912345678",
        "birthDate": "1990-05-01", "genderId": 1, "email": "nora@correo.cl"
    })
}

#[tokio::test]
async fn step_one_starts_a_flow_whose_id_only_lives_in_an_httponly_cookie() {
    let gw = gateway().await;
    let response = start(&gw).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let cookies = set_cookies(&response);
    let flow = cookie(&cookies, "mc_registration");
    assert!(flow.starts_with("mc_registration=flow-1"));
    assert!(flow.contains("HttpOnly") && flow.contains("Path=/api/registration"));
    assert!(flow.contains("SameSite=Strict") && flow.contains("Max-Age=1800"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["step"], 2);
    assert_eq!(body["identity"]["documentType"], "RUT");
    assert_eq!(body["identity"]["rut"], "12.345.678-5");
    assert_eq!(body["personalData"], Value::Null);
    assert!(
        !body.to_string().contains("flow-1"),
        "the flow id never reaches scripts"
    );
    let sent = gw.script().last_registration_start.clone().unwrap();
    assert!(
        !sent.client_ip.is_empty(),
        "registration limits per address"
    );
}

#[tokio::test]
async fn the_next_steps_and_a_reload_use_the_flow_of_the_cookie() {
    let gw = gateway().await;
    let flow = cookie_pair(&set_cookies(&start(&gw).await), "mc_registration");

    let response = gw
        .put("/api/registration/personal-data")
        .header("cookie", &flow)
        .json(&personal_data())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["step"], 3);
    assert_eq!(body["personalData"]["lastName"], "Soto");
    let sent = gw.script().last_personal_data.clone().unwrap();
    assert_eq!(sent.phone_number, "+56912345678");
    assert_eq!(sent.gender_id, 1);

    let reload = gw
        .get("/api/registration")
        .header("cookie", &flow)
        .send()
        .await
        .unwrap();
    assert_eq!(reload.status(), StatusCode::OK);
    let body: Value = reload.json().await.unwrap();
    assert_eq!(body["step"], 3);
    assert_eq!(body["personalData"]["email"], "nora@correo.cl");

    let done = gw
        .post("/api/registration/complete")
        .header("cookie", &flow)
        .json(&json!({"password": "un paseo por el cerro", "acceptTerms": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(done.status(), StatusCode::CREATED);
    assert!(cookie(&set_cookies(&done), "mc_registration").contains("Max-Age=0"));
    let body: Value = done.json().await.unwrap();
    assert_eq!(body["maskedEmail"], "n***@correo.cl");
    let completion = gw.script().last_completion.clone().unwrap();
    assert!(completion.accept_terms);
    assert_eq!(completion.password, "un paseo por el cerro");
    assert!(
        gw.script().registration_ids.iter().all(|id| id == "flow-1"),
        "every step went to the cookie's flow"
    );
}

#[tokio::test]
async fn without_a_flow_cookie_there_is_nothing_to_resume_and_no_step_to_save() {
    let gw = gateway().await;
    let first_visit = gw.anonymous_get("/api/registration").await;
    assert_eq!(
        first_visit.status(),
        StatusCode::NO_CONTENT,
        "a first visit to /registro is not an error"
    );
    assert!(first_visit.bytes().await.unwrap().is_empty());
    let (status, body) = error_answer(
        gw.put("/api/registration/personal-data")
            .json(&personal_data()),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "ERR_REGISTRATION_EXPIRED");
    assert!(gw.script().registration_ids.is_empty());
}

#[tokio::test]
async fn a_field_error_of_a_service_names_the_field_as_the_browser_sent_it() {
    let gw = gateway().await;
    let flow = cookie_pair(&set_cookies(&start(&gw).await), "mc_registration");
    gw.script().registration_error = Some(
        ErrorBody::new(ErrorCode::InvalidArgument)
            .with_field("birth_date")
            .with_message("Debes ser mayor de 18 años."),
    );
    let (status, body) = error_answer(
        gw.put("/api/registration/personal-data")
            .header("cookie", &flow)
            .json(&personal_data()),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "birthDate");
    assert_eq!(body["message"], "Debes ser mayor de 18 años.");
}

#[tokio::test]
async fn a_registered_rut_or_email_gets_its_own_409() {
    let gw = gateway().await;
    gw.script().registration_error = Some(
        ErrorBody::new(ErrorCode::RutAlreadyRegistered)
            .with_action("/recuperar-contrasena", "Recuperar contraseña"),
    );
    let (status, body) = error_of(start(&gw).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "ERR_RUT_ALREADY_REGISTERED");
    assert_eq!(body["action"]["url"], "/recuperar-contrasena");

    gw.script().registration_error =
        Some(ErrorBody::new(ErrorCode::EmailAlreadyRegistered).with_field("email"));
    let (status, body) = error_answer(
        gw.put("/api/registration/personal-data")
            .header("cookie", "mc_registration=flow-9")
            .json(&personal_data()),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "ERR_EMAIL_ALREADY_REGISTERED");
    assert_eq!(body["field"], "email");
}

#[tokio::test]
async fn an_unknown_document_type_is_a_400_with_a_spanish_message() {
    let gw = gateway().await;
    let response = gw
        .post("/api/registration")
        .json(&json!({"documentType": "LICENCIA", "documentNumber": "X1"}))
        .send()
        .await
        .unwrap();
    let (status, body) = error_of(response).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "ERR_INVALID_ARGUMENT");
    assert_eq!(body["message"], "Revisa los datos ingresados.");
    assert!(gw.script().last_registration_start.is_none());
}

#[tokio::test]
async fn cancelling_clears_the_flow_cookie() {
    let gw = gateway().await;
    let response = gw
        .client
        .delete(format!("{}/api/registration", gw.base))
        .header("x-miclub-csrf", "1")
        .header("cookie", "mc_registration=flow-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(cookie(&set_cookies(&response), "mc_registration").contains("Max-Age=0"));
}

/// DELETE /api/registration as the web app sends it, with `cookie` when given.
async fn cancel(gw: &TestGateway, cookie: Option<&str>) -> reqwest::Response {
    let mut request = gw
        .client
        .delete(format!("{}/api/registration", gw.base))
        .header("x-miclub-csrf", "1");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn cancelling_asks_the_registration_service_to_end_the_flow_of_the_cookie() {
    let gw = gateway().await;
    let response = cancel(&gw, Some("mc_registration=flow-1")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(gw.script().cancelled_registrations, ["flow-1"]);
}

#[tokio::test]
async fn cancelling_without_a_flow_cookie_asks_the_registration_service_nothing() {
    let gw = gateway().await;
    let response = cancel(&gw, None).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(gw.script().cancelled_registrations.is_empty());
}

#[tokio::test]
async fn cancelling_while_registration_is_unavailable_still_clears_the_cookie_and_answers_204() {
    let gw = gateway().await;
    gw.script().registration_error = Some(ErrorBody::new(ErrorCode::Unavailable));
    let response = cancel(&gw, Some("mc_registration=flow-1")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(cookie(&set_cookies(&response), "mc_registration").contains("Max-Age=0"));
}

#[tokio::test]
async fn the_verification_email_resend_answers_202_with_nothing_in_it() {
    let gw = gateway().await;
    let response = gw
        .post("/api/registration/verification-email")
        .json(&json!({"user": "12.345.678-5"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    assert_eq!(
        gw.script().last_verification_resend.as_deref(),
        Some("12.345.678-5")
    );
}

#[tokio::test]
async fn unsubscribe_routes_need_a_session() {
    let gw = gateway().await;
    for (method, path) in [
        ("GET", "/api/unsubscribe/reasons"),
        ("POST", "/api/unsubscribe/validate"),
        ("POST", "/api/unsubscribe"),
    ] {
        let request = if method == "GET" {
            gw.get(path)
        } else {
            gw.post(path)
                .json(&json!({"user": "1-9", "email": "a@b.cl", "reasonId": 1}))
        };
        let (status, body) = error_answer(request).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(body["code"], "ERR_UNAUTHENTICATED");
    }
}

#[tokio::test]
async fn the_reasons_and_step_one_answer_in_the_documented_shape() {
    let gw = gateway().await;
    let reasons: Value = gw
        .member_get("/api/unsubscribe/reasons")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(reasons["reasons"][1]["label"], "Otro motivo");
    assert_eq!(reasons["reasons"][1]["requiresText"], true);

    let check = |gw: &TestGateway| {
        gw.member_post("/api/unsubscribe/validate")
            .json(&json!({"user": "11.111.111-1", "email": "ana@example.cl"}))
            .send()
    };
    let body: Value = check(&gw).await.unwrap().json().await.unwrap();
    assert_eq!(body, json!({"alreadyUnsubscribed": false}));

    gw.script().unsubscribed_at = Some("2026-11-20T12:00:00Z".into());
    let body: Value = check(&gw).await.unwrap().json().await.unwrap();
    assert_eq!(body["alreadyUnsubscribed"], true);
    assert_eq!(body["unsubscribedAt"], "2026-11-20T12:00:00Z");

    gw.script().accounts_error = Some(ErrorBody::new(ErrorCode::IdentityMismatch));
    let (status, body) = error_of(check(&gw).await.unwrap()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "ERR_IDENTITY_MISMATCH");
}

#[tokio::test]
async fn unsubscribing_passes_the_reason_and_clears_every_session_cookie() {
    let gw = gateway().await;
    let response = gw
        .member_post("/api/unsubscribe")
        .json(&json!({
            "user": "11.111.111-1", "email": "ana@example.cl",
            "reasonId": 99, "reasonText": "Me cambio de país"
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let cookies = set_cookies(&response);
    assert_cleared(&cookies, &SESSION_COOKIES);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["unsubscribedAt"], "2026-11-21T15:04:05Z");
    let sent = gw.script().last_unsubscribe.clone().unwrap();
    assert_eq!(sent.reason_id, 99);
    assert_eq!(sent.reason_text, "Me cambio de país");

    gw.script().accounts_error = Some(ErrorBody::new(ErrorCode::AlreadyUnsubscribed));
    let (status, body) = error_answer(
        gw.member_post("/api/unsubscribe")
            .json(&json!({"user": "11.111.111-1", "email": "ana@example.cl", "reasonId": 1})),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "ERR_ALREADY_UNSUBSCRIBED");
}

#[tokio::test]
async fn both_unsubscribe_steps_pass_the_current_password_and_the_client_address() {
    let gw = gateway().await;
    gw.member_post("/api/unsubscribe/validate")
        .json(&json!({"user": "11.111.111-1", "email": "ana@example.cl", "currentPassword": "MiClub2026!"}))
        .send()
        .await
        .unwrap();
    let sent = gw.script().last_unsubscribe_validation.clone().unwrap();
    assert_eq!(sent.current_password, "MiClub2026!");
    assert_eq!(sent.client_ip, "127.0.0.1");

    gw.member_post("/api/unsubscribe")
        .json(&json!({
            "user": "11.111.111-1", "email": "ana@example.cl", "reasonId": 1,
            "currentPassword": "MiClub2026!"
        }))
        .send()
        .await
        .unwrap();
    let sent = gw.script().last_unsubscribe.clone().unwrap();
    assert_eq!(sent.current_password, "MiClub2026!");
    assert_eq!(sent.client_ip, "127.0.0.1");

    gw.script().accounts_error = Some(
        ErrorBody::new(ErrorCode::InvalidArgument)
            .with_field("current_password")
            .with_message("Ingresa tu contraseña actual."),
    );
    let (status, body) = error_answer(
        gw.member_post("/api/unsubscribe/validate")
            .json(&json!({"user": "11.111.111-1", "email": "ana@example.cl"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "currentPassword");
    assert_eq!(body["message"], "Ingresa tu contraseña actual.");
}
