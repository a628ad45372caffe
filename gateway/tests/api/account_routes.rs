//! The account area's routes: Mis Datos (genders, profile update, email confirmation, password
//! change), terms and conditions, and Mis Movimientos.

use crate::support::*;

fn profile_body() -> Value {
    json!({
        "email": "nueva@example.cl", "name": "Ana María", "last_name": "González",
        "mother_surname": "Pérez", "phone_number": "+56 9 1111 1111",
        "birth_date": "1988-03-14", "gender_id": 2
    })
}

#[tokio::test]
async fn the_gender_options_come_from_accounts_without_a_session() {
    let gw = gateway().await;
    let response = gw.anonymous_get("/api/profile/genders").await;
    assert_eq!(response.status(), StatusCode::OK);
    let genders: Value = response.json().await.unwrap();
    assert_eq!(genders[0], json!({"id": 1, "label": "Femenino"}));
    assert_eq!(genders.as_array().unwrap().len(), 3);

    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::Unavailable)));
    let (status, body) = error_of(gw.anonymous_get("/api/profile/genders").await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["code"], "ERR_UNAVAILABLE");
}

#[tokio::test]
async fn a_profile_update_reaches_accounts_and_answers_the_user_with_the_confirmation_flag() {
    let gw = gateway().await;
    let response = gw
        .member_put("/api/profile")
        .json(&profile_body())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["emailConfirmationSent"], true);
    assert_eq!(body["user"]["email"], "nueva@example.cl");
    assert_eq!(body["user"]["email_confirmed"], false);
    assert_eq!(body["user"]["documentNumber"], "11111111-1");
    let sent = gw.script().last_profile_update.clone().unwrap();
    assert_eq!(sent.name, "Ana María");
    assert_eq!(sent.phone_number, "+56 9 1111 1111");
    assert_eq!(sent.gender_id, 2);
}

#[tokio::test]
async fn a_missing_gender_or_optional_field_is_sent_as_cleared() {
    let gw = gateway().await;
    let response = gw.member_put("/api/profile")
        .json(&json!({"email": "ana@example.cl", "name": "Ana", "last_name": "González", "gender_id": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let sent = gw.script().last_profile_update.clone().unwrap();
    assert_eq!(sent.gender_id, 0);
    assert_eq!(sent.phone_number, "");
    assert_eq!(sent.birth_date, "");
}

#[tokio::test]
async fn a_field_error_from_accounts_keeps_its_field_and_spanish_message() {
    let gw = gateway().await;
    let message = "Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.";
    gw.set_accounts_error(Some(
        ErrorBody::new(ErrorCode::InvalidArgument)
            .with_field("phone_number")
            .with_message(message),
    ));
    let (status, body) = error_answer(gw.member_put("/api/profile").json(&profile_body())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "phone_number");
    assert_eq!(body["message"], message);
}

#[tokio::test]
async fn a_current_password_over_the_documented_limit_is_refused_even_for_the_same_email() {
    // The document's maxLength (256) holds whether accounts would read the password or not.
    let gw = gateway().await;
    for (email, length, status) in [
        ("ana@example.cl", 257, StatusCode::BAD_REQUEST),
        ("nueva@example.cl", 257, StatusCode::BAD_REQUEST),
        ("ana@example.cl", 256, StatusCode::OK),
    ] {
        let mut body = profile_body();
        body["email"] = json!(email);
        body["currentPassword"] = json!("ñ".repeat(length));
        let response = gw
            .member_put("/api/profile")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status, "{email} {length}");
        if status == StatusCode::BAD_REQUEST {
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["code"], "ERR_INVALID_ARGUMENT");
            assert_eq!(body["field"], "currentPassword");
        }
    }
    assert_eq!(
        gw.script().profile_updates,
        1,
        "only the one within the limit reached accounts"
    );
}

#[tokio::test]
async fn a_profile_update_needs_a_session_the_csrf_header_and_a_json_body() {
    let gw = gateway().await;
    let (status, _) = error_answer(gw.put("/api/profile").json(&profile_body())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (status, body) = error_answer(
        gw.client
            .put(format!("{}/api/profile", gw.base))
            .header("authorization", gw.bearer())
            .json(&profile_body()),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["code"], "ERR_CSRF");

    let (status, body) =
        error_answer(gw.member_put("/api/profile").json(&json!({"name": "Ana"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with(char::is_uppercase)
    );
    assert!(gw.script().last_profile_update.is_none());
}

#[tokio::test]
async fn the_confirmation_link_works_without_a_session_and_a_bad_token_is_404() {
    let gw = gateway().await;
    let response = gw
        .post("/api/profile/email/confirm")
        .json(&json!({"token": "good-token"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"maskedEmail": "n***@example.cl", "alreadyConfirmed": false})
    );

    let (status, body) = error_answer(
        gw.post("/api/profile/email/confirm")
            .json(&json!({"token": "stale"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "ERR_CONFIRMATION_INVALID");
}

#[tokio::test]
async fn a_second_open_of_a_used_link_answers_200_already_confirmed_with_no_address() {
    let gw = gateway().await;
    let response = gw
        .post("/api/profile/email/confirm")
        .json(&json!({"token": "used-token"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({"maskedEmail": "", "alreadyConfirmed": true}));
}

#[tokio::test]
async fn a_confirmation_resend_answers_204_and_an_already_confirmed_email_409() {
    let gw = gateway().await;
    let response = gw
        .member_post("/api/profile/email/resend")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(gw.script().email_resends, 1);

    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::EmailAlreadyConfirmed)));
    let (status, body) = error_answer(gw.member_post("/api/profile/email/resend")).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "ERR_EMAIL_ALREADY_CONFIRMED");
}

#[tokio::test]
async fn the_password_change_is_refused_while_the_flag_is_off() {
    let gw = gateway().await;
    let (status, body) = error_answer(
        gw.member_post("/api/profile/password")
            .json(&json!({"currentPassword": "MiClub2026!", "newPassword": "otra clave larga"})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["code"], "ERR_FORBIDDEN");
    assert!(gw.script().last_password_change.is_none());
}

#[tokio::test]
async fn a_password_change_ends_the_session_and_clears_every_cookie() {
    let gw = gateway_with(|s| s.flags.change_password_enable = true).await;
    let response = gw
        .member_post("/api/profile/password")
        .json(&json!({"currentPassword": "MiClub2026!", "newPassword": "otra clave larga"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let cookies = set_cookies(&response);
    assert_cleared(&cookies, &SESSION_COOKIES);
    let sent = gw.script().last_password_change.clone().unwrap();
    assert_eq!(sent.current_password, "MiClub2026!");
    assert_eq!(sent.new_password, "otra clave larga");
    // The address, for the password throttle of (account, address).
    assert_eq!(sent.client_ip, "127.0.0.1");
}

#[tokio::test]
async fn a_wrong_current_password_is_a_422_that_keeps_the_session() {
    let gw = gateway_with(|s| s.flags.change_password_enable = true).await;
    gw.set_auth_error(Some(
        ErrorBody::new(ErrorCode::WrongPassword).with_field("currentPassword"),
    ));
    let response = gw
        .member_post("/api/profile/password")
        .json(&json!({"currentPassword": "mala", "newPassword": "otra clave larga"}))
        .send()
        .await
        .unwrap();
    // Not 401: the web app logs out on any 401, and a typo must not end the session.
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(set_cookies(&response).is_empty());
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "ERR_WRONG_PASSWORD");
    assert_eq!(body["field"], "currentPassword");
    assert_eq!(body["message"], "La contraseña actual no es correcta.");
}

#[tokio::test]
async fn the_terms_text_is_public() {
    let gw = gateway().await;
    let response = gw.anonymous_get("/api/terms-and-conditions").await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["version"], "2026-11-01");
    assert_eq!(body["title"], "Términos y condiciones de Mi Club");
    assert!(body["body"].as_str().unwrap().contains("\n\n"));
    assert_eq!(body["publishedAt"], "2026-11-01T03:00:00Z");
}

#[tokio::test]
async fn a_terms_decision_is_recorded_for_the_version_in_force() {
    let gw = gateway().await;
    for (accept, agreement) in [(false, "rejected"), (true, "accepted")] {
        let response = gw
            .member_post("/api/terms-and-conditions")
            .json(&json!({"acceptTermsAndConditions": accept}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["terms_agreement"]["agreement"], agreement);
        assert_eq!(
            body["terms_agreement"]["event_date"],
            "2026-11-21T15:00:00Z"
        );
        assert_eq!(body["version"], "2026-11-01");
        assert_eq!(body["terms_agreement"]["version"], "2026-11-01");
        let sent = gw.script().last_terms_decision.clone().unwrap();
        assert_eq!(sent.accepted, accept);
        assert_eq!(sent.terms_version, "2026-11-01");
    }
}

#[tokio::test]
async fn a_decision_on_the_version_shown_is_recorded_only_while_it_is_in_force() {
    let gw = gateway().await;
    let response = gw
        .member_post("/api/terms-and-conditions")
        .json(&json!({"acceptTermsAndConditions": true, "version": "2026-11-01"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    gw.script().last_terms_decision = None;

    // An older version, one that does not exist, a future one: nothing is recorded.
    for shown in ["2025-01-01", "no-existe", "2099-01-01", ""] {
        let (status, body) = error_answer(
            gw.member_post("/api/terms-and-conditions")
                .json(&json!({"acceptTermsAndConditions": true, "version": shown})),
        )
        .await;
        assert_eq!(status, StatusCode::CONFLICT, "{shown}");
        assert_eq!(body["code"], "ERR_CONFLICT");
        assert_eq!(body["field"], "version");
        assert_eq!(
            body["message"],
            "Los términos y condiciones cambiaron mientras los leías. Revisa la nueva versión."
        );
        assert!(gw.script().last_terms_decision.is_none(), "{shown}");
    }
}

#[tokio::test]
async fn no_decision_is_recorded_when_the_terms_in_force_cannot_be_read() {
    let gw = gateway().await;
    gw.set_content_error(Some(ErrorBody::new(ErrorCode::Unavailable)));
    let (status, body) = error_answer(
        gw.member_post("/api/terms-and-conditions")
            .json(&json!({"acceptTermsAndConditions": true})),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["code"], "ERR_UNAVAILABLE");
    assert!(gw.script().last_terms_decision.is_none());
}

#[tokio::test]
async fn a_terms_decision_needs_a_boolean() {
    let gw = gateway().await;
    let (status, _) = error_answer(
        gw.member_post("/api/terms-and-conditions")
            .json(&json!({"acceptTermsAndConditions": "si"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(gw.script().last_terms_decision.is_none());
}

#[tokio::test]
async fn a_page_of_movements_is_passed_through_with_readable_kinds_and_never_cached() {
    let gw = gateway().await;
    let response = gw
        .member_get("/api/movements?year=2026&month=10&page=2")
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["year"], 2026);
    assert_eq!(body["month"], 10);
    assert_eq!(body["page"], 2);
    assert_eq!(body["pageSize"], 10);
    assert_eq!(body["totalCount"], 12);
    assert_eq!(body["totalPages"], 2);
    assert_eq!(
        body["items"][0],
        json!({"id": "m-2", "kind": "redemption", "status": "confirmed", "amount": -2000,
               "description": "movimiento m-2", "occurredAt": "2026-10-15T15:00:00Z"})
    );
    assert_eq!(body["items"][1]["kind"], "accrual");
    assert_eq!(body["items"][1]["status"], "pending");
    let sent = gw.script().last_movements_query.unwrap();
    assert_eq!((sent.year, sent.month, sent.page), (2026, 10, 2));
}

#[tokio::test]
async fn a_malformed_or_missing_month_is_a_field_error_in_spanish() {
    let gw = gateway().await;
    for (query, field) in [
        ("year=2026&month=octubre", "month"),
        ("year=2026", "month"),
        ("month=10", "year"),
        ("year=2026&month=10&page=x", "page"),
        ("year=2026&month=10&page=", "page"),
    ] {
        let (status, body) =
            error_of(gw.member_get(&format!("/api/movements?{query}")).await).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(body["field"], field, "{query}");
        assert!(body["message"].as_str().unwrap().starts_with("Elige"));
    }
    assert!(gw.script().last_movements_query.is_none());
}

#[tokio::test]
async fn movements_of_a_member_without_a_club_account_are_a_406() {
    let gw = gateway().await;
    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::NoClubAccount)));
    let (status, body) = error_of(gw.member_get("/api/movements?year=2026&month=10").await).await;
    assert_eq!(status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(body["code"], "ERR_NO_CLUB_ACCOUNT");
    let (status, _) = error_of(gw.anonymous_get("/api/movements?year=2026&month=10").await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_profile_update_passes_the_current_password_and_the_client_address_to_accounts() {
    let gw = gateway().await;
    let mut body = profile_body();
    body["currentPassword"] = json!("MiClub2026!");
    let response = gw
        .member_put("/api/profile")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let sent = gw.script().last_profile_update.clone().unwrap();
    assert_eq!(sent.current_password, "MiClub2026!");
    assert_eq!(sent.client_ip, "127.0.0.1");
}

#[tokio::test]
async fn the_step_up_refusals_of_a_profile_update_reach_the_form_on_current_password() {
    let gw = gateway().await;
    let put = |gw: &TestGateway| gw.member_put("/api/profile").json(&profile_body()).send();
    let missing = "Ingresa tu contraseña actual para cambiar tu correo.";
    gw.set_accounts_error(Some(
        ErrorBody::new(ErrorCode::InvalidArgument)
            .with_field("current_password")
            .with_message(missing),
    ));
    let (status, body) = error_of(put(&gw).await.unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "currentPassword");
    assert_eq!(body["message"], missing);

    gw.set_accounts_error(Some(
        ErrorBody::new(ErrorCode::WrongPassword).with_field("currentPassword"),
    ));
    let (status, body) = error_of(put(&gw).await.unwrap()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "ERR_WRONG_PASSWORD");
    assert_eq!(body["field"], "currentPassword");

    gw.set_accounts_error(Some(
        ErrorBody::new(ErrorCode::TooManyAttempts)
            .with_retry_after(std::time::Duration::from_secs(30)),
    ));
    let response = put(&gw).await.unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(response.headers()["retry-after"], "30");
}

#[tokio::test]
async fn the_restore_link_works_without_a_session_leaves_cookies_alone_and_a_bad_token_is_404() {
    let gw = gateway().await;
    let response = gw
        .post("/api/profile/email/restore")
        .json(&json!({"token": "good-restore"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(set_cookies(&response).is_empty(), "cookies untouched");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({"maskedEmail": "a***@example.cl"}));

    let (status, body) = error_answer(
        gw.post("/api/profile/email/restore")
            .json(&json!({"token": "used"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "ERR_CONFIRMATION_INVALID");
}

#[tokio::test]
async fn the_balance_is_never_cached_and_a_member_without_club_account_gets_406() {
    let gw = gateway().await;
    let response = gw.member_get("/api/balance").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"balance": 12345, "updatedAt": "2026-11-01T10:00:00Z"})
    );

    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::NoClubAccount)));
    let (status, json) = error_of(gw.member_get("/api/balance").await).await;
    assert_eq!(status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(json["code"], "ERR_NO_CLUB_ACCOUNT");
}

#[tokio::test]
async fn joining_opens_the_club_account_with_the_terms_in_force_and_a_repeat_changes_nothing() {
    let gw = gateway().await;
    let join = || {
        gw.member_post("/api/account")
            .json(&json!({"acceptTermsAndConditions": true}))
            .send()
    };

    let first = join().await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let body: Value = first.json().await.unwrap();
    assert_eq!(body["balance"], 0);
    assert_eq!(body["opened"], true);
    assert_eq!(body["termsVersion"], "2026-11-01");
    assert_eq!(body["terms_agreement"]["agreement"], "accepted");
    // A double click or a retry after a lost answer: 200, the same balance, nothing opened.
    let second = join().await.unwrap();
    assert_eq!(second.status(), StatusCode::OK);
    let body: Value = second.json().await.unwrap();
    assert_eq!(
        (body["balance"].clone(), body["opened"].clone()),
        (json!(0), json!(false))
    );
    let opens = gw.script().club_account_opens.clone();
    assert_eq!(opens.len(), 2);
    // The version is content's, whatever the browser might add.
    assert!(
        opens
            .iter()
            .all(|o| o.accept_terms && o.terms_version == "2026-11-01")
    );
}

#[tokio::test]
async fn joining_needs_a_session_the_csrf_header_and_nothing_in_the_body_names_a_member() {
    let gw = gateway().await;
    // No session: 401, accounts is never asked.
    let (status, body) = error_answer(
        gw.post("/api/account")
            .json(&json!({"acceptTermsAndConditions": true})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("ERR_UNAUTHENTICATED"))
    );
    // A session but no CSRF header (a form posted from another site): 403.
    let (status, body) = error_answer(
        gw.as_member(gw.client.post(format!("{}/api/account", gw.base)))
            .json(&json!({"acceptTermsAndConditions": true})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("ERR_CSRF"))
    );
    assert!(gw.script().club_account_opens.is_empty());
    // Another member's id in the body is not a field of the route: refused before accounts.
    let (status, _) = error_answer(
        gw.member_post("/api/account")
            .json(&json!({"acceptTermsAndConditions": true, "memberId": "member-2"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(gw.script().club_account_opens.is_empty());
}

#[tokio::test]
async fn joining_without_accepting_the_terms_is_refused_with_accounts_text() {
    let gw = gateway().await;
    let (status, body) = error_answer(
        gw.member_post("/api/account")
            .json(&json!({"acceptTermsAndConditions": false})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "ERR_TERMS_NOT_ACCEPTED");
    assert_eq!(body["field"], "acceptTermsAndConditions");
}

#[tokio::test]
async fn a_flood_of_joins_from_one_member_is_refused_with_retry_after() {
    let gw = gateway_with(|s| s.registration_requests_per_minute = 2).await;
    let join = || {
        gw.member_post("/api/account")
            .json(&json!({"acceptTermsAndConditions": true}))
            .send()
    };
    assert!(join().await.unwrap().status().is_success());
    assert!(join().await.unwrap().status().is_success());
    let refused = join().await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().contains_key("retry-after"));
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "ERR_TOO_MANY_ATTEMPTS");
    assert_eq!(gw.script().club_account_opens.len(), 2);
}

#[tokio::test]
async fn a_movements_explanation_lists_its_lines_with_rule_and_rate_and_is_never_cached() {
    let gw = gateway().await;
    let response = gw.member_get("/api/movements/m-1").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(gw.script().last_movement_detail.as_deref(), Some("m-1"));
    assert_eq!(
        body,
        json!({
            "id": "m-1", "kind": "accrual", "status": "pending", "amount": 509,
            "description": "Compra en Lider Providencia", "occurredAt": "2026-11-03T15:00:00Z",
            "confirmedAt": null, "confirmsAt": "2026-11-17T15:00:00Z",
            "purchase": {
                "storeName": "Lider Providencia", "purchasedAt": "2026-11-03T15:00:00Z",
                "weekDay": 2, "paymentMethod": "partner_card", "total": 33333, "accrued": 509,
                "rulesVersion": "2026-11-2",
                "lines": [
                    {"category": "fruits_and_vegetables", "amount": 10000, "earned": 300,
                     "rateBp": 300, "rule": "Martes 3% en frutas y verduras"},
                    {"category": "meat", "amount": 20000, "earned": 180, "rateBp": 90,
                     "rule": "0,9% en todas tus compras con tarjeta Lider BCI"},
                    {"category": "drinks", "amount": 3333, "earned": 29, "rateBp": 90,
                     "rule": "0,9% en todas tus compras con tarjeta Lider BCI"}
                ]
            }
        })
    );
}

#[tokio::test]
async fn a_movement_without_a_purchase_or_a_stored_breakdown_answers_without_lines() {
    let gw = gateway().await;
    let redemption: Value = gw
        .member_get("/api/movements/m-2")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(redemption["kind"], "redemption");
    assert_eq!(redemption["purchase"], Value::Null);
    assert_eq!(redemption["confirmedAt"], "2026-11-03T15:00:00Z");
    assert_eq!(redemption["confirmsAt"], Value::Null);

    let response = gw.member_get("/api/movements/m-old").await;
    assert_eq!(response.status(), StatusCode::OK);
    let old: Value = response.json().await.unwrap();
    assert_eq!(old["purchase"]["total"], 33333);
    assert_eq!(old["purchase"]["lines"], Value::Null);
}

#[tokio::test]
async fn an_unknown_movement_is_a_404_a_malformed_id_a_spanish_400_and_no_session_a_401() {
    let gw = gateway().await;
    // Accounts answers another member's movement exactly as an unknown one.
    let (status, body) = error_of(gw.member_get("/api/movements/m-someone-elses").await).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "ERR_NOT_FOUND");

    gw.set_accounts_error(Some(
        ErrorBody::new(ErrorCode::InvalidArgument)
            .with_field("movement_id")
            .with_message(
                "El movimiento indicado no es válido. Revisa el enlace e intenta de nuevo.",
            ),
    ));
    let (status, body) = error_of(gw.member_get("/api/movements/a%20b").await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "ERR_INVALID_ARGUMENT");
    assert_eq!(body["field"], "movementId");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("El movimiento")
    );
    gw.set_accounts_error(None);

    // Not even text: refused at the edge, accounts never asked.
    gw.script().last_movement_detail = None;
    let (status, body) = error_of(gw.member_get("/api/movements/%FF").await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "movementId");
    assert!(gw.script().last_movement_detail.is_none());

    let (status, _) = error_of(gw.anonymous_get("/api/movements/m-1").await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}
