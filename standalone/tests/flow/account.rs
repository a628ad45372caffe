//! The account area against the real services: a new email confirmed by link becomes where
//! login codes go (accounts hands it to auth with a service token), the takeover of issue #16
//! replayed (a stolen session cannot move the account to another mailbox; the previous address
//! is told and takes it back), a password change ends
//! every session, terms come from content and the decision lands in accounts, and Ana's
//! seeded movements page by month.

use super::*;

fn profile_of(user: &Value, email: &str) -> Value {
    json!({
        "email": email,
        "name": user["name"], "last_name": user["last_name"],
        "mother_surname": user["mother_surname"], "phone_number": "+56 9 8765 4321",
        "birth_date": user["birth_date"], "gender_id": user["gender_id"]
    })
}

pub(super) fn token_in_link(body: &str) -> String {
    let start = body.find("token=").expect("a link with a token") + "token=".len();
    body[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_email_confirmed_by_link_is_where_the_next_login_code_goes() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    let answer = browser.log_in("11.111.111-1", "ana@example.cl").await;

    let new_email = "ana.nueva@example.cl";
    let mut form = profile_of(&answer["user"], new_email);
    form["currentPassword"] = json!("MiClub2026!");
    let updated = browser.put("/api/profile", form).await;
    assert_eq!(updated.status(), StatusCode::OK);
    let updated: Value = updated.json().await.unwrap();
    assert_eq!(updated["emailConfirmationSent"], true);
    assert_eq!(updated["user"]["email_confirmed"], false);
    assert_eq!(updated["user"]["phone_number"], "+56987654321");

    let link = browser.mail_where(|m| m["to"] == new_email).await;
    let token = token_in_link(link["body"].as_str().unwrap());

    // Until confirmed, codes still go to the old, proven address.
    let confirm = portal
        .browser()
        .post("/api/profile/email/confirm", Some(json!({"token": token})))
        .await;
    assert_eq!(
        confirm.status(),
        StatusCode::OK,
        "{}",
        confirm.text().await.unwrap()
    );
    let profile: Value = browser.get("/api/profile").await.json().await.unwrap();
    assert_eq!(profile["email"], new_email);
    assert_eq!(profile["email_confirmed"], true);

    let again = portal
        .browser()
        .post("/api/profile/email/confirm", Some(json!({"token": token})))
        .await;
    // A second open of the spent link says the address is already confirmed, and nothing more.
    assert_eq!(again.status(), StatusCode::OK);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["alreadyConfirmed"], true);

    let later = portal.browser();
    later.log_in("11.111.111-1", new_email).await;
    assert_eq!(later.get("/api/balance").await.status(), StatusCode::OK);
}

async fn mailbox(browser: &Browser) -> Vec<Value> {
    browser.mailbox().await
}

/// Issue #16's takeover, as an attacker holding Ana's session would try it: moving the email to
/// their own mailbox needs her password; with it (say, watched over her shoulder) the change
/// goes through, but her old address is told and takes the account back, ending the attacker's
/// session, and login codes go to her again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stolen_session_cannot_take_the_account_and_the_previous_address_takes_it_back() {
    let portal = Portal::start().await;
    let ana = portal.browser();
    let answer = ana.log_in("11.111.111-1", "ana@example.cl").await;
    let attacker_mail = "atacante@example.cl";
    let before = mailbox(&ana).await.len();

    // The session alone: refused on the password field, nothing changed, nothing mailed.
    let session_only = ana
        .put("/api/profile", profile_of(&answer["user"], attacker_mail))
        .await;
    assert_eq!(session_only.status(), StatusCode::BAD_REQUEST);
    let session_only: Value = session_only.json().await.unwrap();
    assert_eq!(session_only["field"], "currentPassword");
    assert_eq!(
        session_only["message"],
        "Ingresa tu contraseña actual para cambiar tu correo."
    );

    // A guessed password: 422, nothing changed, nothing mailed.
    let mut guess = profile_of(&answer["user"], attacker_mail);
    guess["currentPassword"] = json!("Adivinanza2026!");
    let wrong = ana.put("/api/profile", guess).await;
    assert_eq!(wrong.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let wrong: Value = wrong.json().await.unwrap();
    assert_eq!(wrong["code"], "ERR_WRONG_PASSWORD");
    let profile: Value = ana.get("/api/profile").await.json().await.unwrap();
    assert_eq!(profile["email"], "ana@example.cl");
    assert_eq!(profile["email_confirmed"], true);
    assert_eq!(mailbox(&ana).await.len(), before, "nothing mailed");

    // The right password: the link goes to the new address and is confirmed from it.
    let mut right = profile_of(&answer["user"], attacker_mail);
    right["currentPassword"] = json!("MiClub2026!");
    assert_eq!(
        ana.put("/api/profile", right).await.status(),
        StatusCode::OK
    );
    let link = ana.mail_where(|m| m["to"] == attacker_mail).await;
    let confirm = portal
        .browser()
        .post(
            "/api/profile/email/confirm",
            Some(json!({"token": token_in_link(link["body"].as_str().unwrap())})),
        )
        .await;
    assert_eq!(confirm.status(), StatusCode::OK);

    // The previous address is told, with the new one masked and a restore link, no code.
    let notice = ana
        .mail_where(|m| {
            m["to"] == "ana@example.cl" && m["subject"] == "Tu correo de Mi Club cambió"
        })
        .await;
    let body = notice["body"].as_str().unwrap();
    assert!(body.contains("a***@example.cl"), "{body}");
    assert!(!body.contains(attacker_mail), "{body}");
    assert!(body.contains("/restaurar-correo?token="), "{body}");
    assert!(notice["code"].is_null(), "no code in a notice");

    // Ana restores it: the attacker's session ends, cookies of the restoring browser untouched.
    let restorer = portal.browser();
    let restored = restorer
        .post(
            "/api/profile/email/restore",
            Some(json!({"token": token_in_link(body)})),
        )
        .await;
    assert_eq!(
        restored.status(),
        StatusCode::OK,
        "{}",
        restored.text().await.unwrap()
    );
    assert_eq!(
        restored.json::<Value>().await.unwrap()["maskedEmail"],
        "a***@example.cl"
    );
    assert_eq!(
        ana.get("/api/balance").await.status(),
        StatusCode::UNAUTHORIZED,
        "the session that changed the email is over"
    );
    let replay = restorer
        .post(
            "/api/profile/email/restore",
            Some(json!({"token": token_in_link(body)})),
        )
        .await;
    assert_eq!(
        replay.status(),
        StatusCode::NOT_FOUND,
        "a restore link works once"
    );

    // Login codes go to Ana's address again.
    let later = portal.browser();
    later.log_in("11.111.111-1", "ana@example.cl").await;
    let profile: Value = later.get("/api/profile").await.json().await.unwrap();
    assert_eq!(profile["email"], "ana@example.cl");
    assert_eq!(profile["email_confirmed"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_every_session_and_only_the_new_password_logs_in() {
    let portal = Portal::start().await;
    let phone = portal.browser();
    let laptop = portal.browser();
    phone.log_in("44.444.444-4", "diego@example.cl").await;
    laptop.log_in("44.444.444-4", "diego@example.cl").await;

    let weak = laptop
        .post(
            "/api/profile/password",
            Some(json!({"currentPassword": "MiClub2026!", "newPassword": "password"})),
        )
        .await;
    assert_eq!(weak.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let weak: Value = weak.json().await.unwrap();
    assert_eq!(weak["code"], "ERR_WEAK_PASSWORD");
    assert_eq!(weak["field"], "newPassword");

    let changed = laptop
        .post(
            "/api/profile/password",
            Some(json!({"currentPassword": "MiClub2026!", "newPassword": "un paseo por el cerro"})),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        laptop.get("/api/balance").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        phone.get("/api/balance").await.status(),
        StatusCode::UNAUTHORIZED
    );

    let old = portal
        .browser()
        .post(
            "/api/login",
            Some(json!({"user": "44.444.444-4", "password": "MiClub2026!"})),
        )
        .await;
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let fresh = portal.browser();
    fresh
        .log_in_with("44.444.444-4", "un paseo por el cerro", "diego@example.cl")
        .await;
    assert_eq!(fresh.get("/api/balance").await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terms_in_force_come_from_content_and_a_rejection_is_recorded_with_its_date() {
    let portal = Portal::start().await;
    let anonymous = portal.browser();
    let terms: Value = anonymous
        .get("/api/terms-and-conditions")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(terms["version"], "2026-11-01");
    assert!(terms["body"].as_str().unwrap().len() > 500);

    let browser = portal.browser();
    browser.log_in("11.111.111-1", "ana@example.cl").await;
    let decided = browser
        .post(
            "/api/terms-and-conditions",
            Some(json!({"acceptTermsAndConditions": false})),
        )
        .await;
    assert_eq!(decided.status(), StatusCode::OK);
    let decided: Value = decided.json().await.unwrap();
    assert_eq!(decided["terms_agreement"]["agreement"], "rejected");
    assert_eq!(decided["version"], "2026-11-01");
    let profile: Value = browser.get("/api/profile").await.json().await.unwrap();
    assert_eq!(profile["terms_agreement"]["agreement"], "rejected");
    assert_eq!(
        profile["terms_agreement"]["event_date"],
        decided["terms_agreement"]["event_date"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anas_previous_month_pages_ten_then_three_and_the_current_month_is_not_empty() {
    use chrono::{Datelike, Months};
    let portal = Portal::start().await;
    let browser = portal.browser();
    browser.log_in("11.111.111-1", "ana@example.cl").await;
    let today = miclub_platform::calendar::today();
    let previous = today.with_day(1).unwrap() - Months::new(1);
    let page = |n: u32| {
        format!(
            "/api/movements?year={}&month={}&page={n}",
            previous.year(),
            previous.month()
        )
    };
    let first: Value = browser.get(&page(1)).await.json().await.unwrap();
    assert_eq!(first["totalCount"], 13);
    assert_eq!(first["totalPages"], 2);
    assert_eq!(first["items"].as_array().unwrap().len(), 10);
    let second: Value = browser.get(&page(2)).await.json().await.unwrap();
    assert_eq!(second["items"].as_array().unwrap().len(), 3);
    let newest_of_second = second["items"][0]["occurredAt"].as_str().unwrap();
    let oldest_of_first = first["items"][9]["occurredAt"].as_str().unwrap();
    assert!(
        newest_of_second <= oldest_of_first,
        "newest first across pages"
    );

    let current = browser.this_months_movements().await;
    assert!(current["totalCount"].as_i64().unwrap() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_password_is_reset_with_a_mailed_code_and_old_sessions_end() {
    let portal = Portal::start().await;
    let old_session = portal.browser();
    old_session.log_in("44.444.444-4", "diego@example.cl").await;

    let stranger = portal.browser();
    let unknown = stranger
        .post(
            "/api/password-recovery",
            Some(json!({"user": "55.555.555-5"})),
        )
        .await;
    assert_eq!(unknown.status(), StatusCode::OK);
    let unknown: Value = unknown.json().await.unwrap();

    let diego = portal.browser();
    let seen = diego.codes_to("diego@example.cl").await;
    let asked = diego
        .post(
            "/api/password-recovery",
            Some(json!({"user": "44.444.444-4"})),
        )
        .await;
    assert_eq!(asked.status(), StatusCode::OK);
    let asked: Value = asked.json().await.unwrap();
    assert_eq!(
        asked, unknown,
        "the answer says nothing about who is a member"
    );

    let code = diego.new_code_for("diego@example.cl", seen).await;
    let reset = diego
        .post(
            "/api/password-recovery/reset",
            Some(json!({"code": code, "newPassword": "un paseo por el cerro"})),
        )
        .await;
    assert_eq!(
        reset.status(),
        StatusCode::NO_CONTENT,
        "{}",
        reset.text().await.unwrap()
    );
    assert_eq!(
        old_session.get("/api/balance").await.status(),
        StatusCode::UNAUTHORIZED
    );
    let again = diego
        .post(
            "/api/password-recovery/reset",
            Some(json!({"code": code, "newPassword": "otra vuelta al cerro"})),
        )
        .await;
    assert_eq!(
        again.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "single use"
    );

    let fresh = portal.browser();
    fresh
        .log_in_with("44.444.444-4", "un paseo por el cerro", "diego@example.cl")
        .await;
    assert_eq!(fresh.get("/api/balance").await.status(), StatusCode::OK);
}
