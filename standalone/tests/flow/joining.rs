//! Joining and leaving the club against the real services: registration in three steps through
//! the gateway (registration calls accounts, auth and content with its service token), the
//! verification link from the dev mailbox, the first login; and unsubscribing, after which the
//! login is refused with the date and the balance history stays in accounts.

use super::account::token_in_link;
use super::*;

/// A RUT that no seeded member has: body plus its modulo-11 check digit.
fn fresh_rut(body: u32) -> String {
    let mut sum = 0;
    let mut factor = 2;
    let mut rest = body;
    while rest > 0 {
        sum += (rest % 10) * factor;
        rest /= 10;
        factor = if factor == 7 { 2 } else { factor + 1 };
    }
    let check = match 11 - (sum % 11) {
        11 => "0".to_owned(),
        10 => "K".to_owned(),
        d => d.to_string(),
    };
    format!("{body}-{check}")
}

fn personal_data(email: &str) -> Value {
    json!({
        "name": "Nora", "lastName": "Soto", "motherSurname": "Lagos",
        "phoneNumber": "+56 9 1234 5678", "birthDate": "1991-04-12", "genderId": 1,
        "email": email
    })
}

const PASSWORD: &str = "un paseo largo por el cerro";

/// Registers through the three steps; answers the RUT.
async fn register(browser: &Browser, body: u32, email: &str) -> String {
    let rut = fresh_rut(body);
    start_registration(browser, &rut).await;
    let step3 = complete_registration(browser, email).await;
    assert_eq!(
        step3.status(),
        StatusCode::CREATED,
        "{}",
        step3.text().await.unwrap()
    );
    rut
}

/// Step 1 with `rut`, which must be accepted.
async fn start_registration(browser: &Browser, rut: &str) {
    let step1 = browser
        .post(
            "/api/registration",
            Some(json!({"documentType": "RUT", "rut": rut, "documentNumber": "100.123.456"})),
        )
        .await;
    assert_eq!(
        step1.status(),
        StatusCode::CREATED,
        "{}",
        step1.text().await.unwrap()
    );
}

/// Step 2 with `email`, which must be accepted, then step 3; answers step 3's response.
async fn complete_registration(browser: &Browser, email: &str) -> reqwest::Response {
    let step2 = browser
        .put("/api/registration/personal-data", personal_data(email))
        .await;
    assert_eq!(
        step2.status(),
        StatusCode::OK,
        "{}",
        step2.text().await.unwrap()
    );
    browser
        .post(
            "/api/registration/complete",
            Some(json!({"password": PASSWORD, "acceptTerms": true})),
        )
        .await
}

async fn verification_token(browser: &Browser, email: &str) -> String {
    let mail = browser.mail_where(|m| m["to"] == email).await;
    token_in_link(mail["body"].as_str().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_member_registers_in_three_steps_verifies_the_email_and_logs_in() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    let email = "nora.soto@example.cl";

    let step1 = browser
        .post(
            "/api/registration",
            Some(json!({"documentType": "RUT", "rut": fresh_rut(15_555_555), "documentNumber": "100123456"})),
        )
        .await;
    assert_eq!(step1.status(), StatusCode::CREATED);
    // A reload resumes at the step the member was on, with what was entered.
    browser
        .put("/api/registration/personal-data", personal_data(email))
        .await;
    let resumed: Value = browser.get("/api/registration").await.json().await.unwrap();
    assert_eq!(resumed["step"], 3);
    assert_eq!(resumed["personalData"]["email"], email);
    // As typed: the form comes back the way the member left it; accounts normalises on save.
    assert_eq!(resumed["personalData"]["phoneNumber"], "+56 9 1234 5678");

    let done = browser
        .post(
            "/api/registration/complete",
            Some(json!({"password": PASSWORD, "acceptTerms": true})),
        )
        .await;
    assert_eq!(
        done.status(),
        StatusCode::CREATED,
        "{}",
        done.text().await.unwrap()
    );
    let rut = fresh_rut(15_555_555);

    // Until the link is opened, the login says so and offers to resend it.
    let early = portal
        .browser()
        .post(
            "/api/login",
            Some(json!({"user": rut, "password": PASSWORD})),
        )
        .await;
    assert_eq!(early.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        early.json::<Value>().await.unwrap()["code"],
        "ERR_EMAIL_NOT_VERIFIED"
    );

    let token = verification_token(&browser, email).await;
    let confirmed = portal
        .browser()
        .post("/api/profile/email/confirm", Some(json!({"token": token})))
        .await;
    assert_eq!(
        confirmed.status(),
        StatusCode::OK,
        "{}",
        confirmed.text().await.unwrap()
    );

    let member = portal.browser();
    let answer = member.log_in_with(&rut, PASSWORD, email).await;
    assert_eq!(answer["user"]["name"], "Nora");
    assert_eq!(answer["user"]["terms_agreement"]["agreement"], "accepted");
    let balance = member.get("/api/balance").await;
    assert_eq!(balance.status(), StatusCode::OK);
    assert_eq!(balance.json::<Value>().await.unwrap()["balance"], 0);

    // The same RUT cannot register twice.
    let again = portal
        .browser()
        .post(
            "/api/registration",
            Some(json!({"documentType": "RUT", "rut": rut, "documentNumber": "100123456"})),
        )
        .await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(
        again.json::<Value>().await.unwrap()["code"],
        "ERR_RUT_ALREADY_REGISTERED"
    );
}

/// The flow cookie a response set, as the `name=value` pair a copy of it would send.
fn flow_cookie(response: &reqwest::Response) -> String {
    response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|cookie| cookie.contains("mc_registration="))
        .and_then(|cookie| cookie.split(';').next())
        .expect("the flow cookie is set")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copied_flow_cookie_used_after_the_member_cancels_gets_the_expired_answer() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    let step1 = browser
        .post(
            "/api/registration",
            Some(json!({"documentType": "RUT", "rut": fresh_rut(18_888_888), "documentNumber": "100123456"})),
        )
        .await;
    assert_eq!(step1.status(), StatusCode::CREATED);
    let copied = flow_cookie(&step1);
    let step2 = browser
        .put(
            "/api/registration/personal-data",
            personal_data("copia@example.cl"),
        )
        .await;
    assert_eq!(step2.status(), StatusCode::OK);

    // Someone else holding a copy of the cookie, as another client would send it.
    let other = reqwest::Client::new();
    let read_with_copy = || {
        other
            .get(format!("{}/api/registration", browser.base))
            .header("cookie", &copied)
            .send()
    };
    let before = read_with_copy().await.unwrap();
    assert_eq!(
        before.status(),
        StatusCode::OK,
        "the copy works until the cancel"
    );

    let cancelled = browser
        .http
        .delete(format!("{}/api/registration", browser.base))
        .header("x-miclub-csrf", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), StatusCode::NO_CONTENT);

    let read = read_with_copy().await.unwrap();
    let submitted = other
        .put(format!("{}/api/registration/personal-data", browser.base))
        .header("cookie", &copied)
        .header("x-miclub-csrf", "1")
        .json(&personal_data("copia@example.cl"))
        .send()
        .await
        .unwrap();
    let completed = other
        .post(format!("{}/api/registration/complete", browser.base))
        .header("cookie", &copied)
        .header("x-miclub-csrf", "1")
        .json(&json!({"password": PASSWORD, "acceptTerms": true}))
        .send()
        .await
        .unwrap();
    for (call, answer) in [
        ("read", read),
        ("submit", submitted),
        ("complete", completed),
    ] {
        assert_eq!(answer.status(), StatusCode::NOT_FOUND, "{call}");
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["code"], "ERR_REGISTRATION_EXPIRED", "{call}");
    }
    assert_eq!(browser.mails_to("copia@example.cl").await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_minor_is_refused_at_step_two_and_a_members_email_is_never_told() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    browser
        .post(
            "/api/registration",
            Some(
                json!({"documentType": "PASSPORT", "documentNumber": "XK123456", "country": "AR"}),
            ),
        )
        .await;
    let mut minor = personal_data("menor@example.cl");
    minor["birthDate"] = json!("2015-01-01");
    let refused = browser.put("/api/registration/personal-data", minor).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["field"], "birthDate");

    // Ana's address: accepted at step 2 and answered like a success at completion.
    let done = complete_registration(&browser, "ana@example.cl").await;
    assert_eq!(done.status(), StatusCode::CREATED);
    let body: Value = done.json().await.unwrap();
    assert_eq!(body["maskedEmail"], "a***@example.cl");
    browser.mail_where(|m| m["to"] == "ana@example.cl").await;
    let mails = browser.mailbox().await;
    let to_ana: Vec<&Value> = mails
        .iter()
        .filter(|m| m["to"] == "ana@example.cl")
        .collect();
    assert_eq!(to_ana.len(), 1);
    assert_eq!(
        to_ana[0]["subject"],
        "Intento de registro en Mi Club con tu correo"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unverified_member_can_ask_for_a_new_link_and_anyone_gets_the_same_answer() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    let email = "tomas@example.cl";
    let rut = register(&browser, 16_666_666, email).await;
    // The link of the registration itself has arrived before counting.
    browser.mail_where(|m| m["to"] == email).await;
    let sent_before = browser.mails_to(email).await;

    for user in [rut.as_str(), "9.999.999-3"] {
        let answer = browser
            .post(
                "/api/registration/verification-email",
                Some(json!({"user": user})),
            )
            .await;
        assert_eq!(answer.status(), StatusCode::ACCEPTED, "{user}");
    }
    browser.new_mail_to(email, sent_before).await;
    assert_eq!(
        browser.mails_to(email).await,
        sent_before + 1,
        "one more link, to the member only"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsubscribed_member_cannot_log_in_and_the_personal_data_is_gone() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    let email = "ines@example.cl";
    let rut = register(&browser, 17_777_777, email).await;
    let token = verification_token(&browser, email).await;
    browser
        .post("/api/profile/email/confirm", Some(json!({"token": token})))
        .await;
    browser.log_in_with(&rut, PASSWORD, email).await;

    let reasons: Value = browser
        .get("/api/unsubscribe/reasons")
        .await
        .json()
        .await
        .unwrap();
    let other = reasons["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["requiresText"] == true)
        .expect("an 'other' reason");

    let mismatch = browser
        .post(
            "/api/unsubscribe/validate",
            Some(json!({"user": rut, "email": "otra@example.cl", "currentPassword": PASSWORD})),
        )
        .await;
    assert_eq!(mismatch.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let step1 = browser
        .post(
            "/api/unsubscribe/validate",
            Some(json!({"user": rut, "email": email.to_uppercase(), "currentPassword": PASSWORD})),
        )
        .await;
    assert_eq!(step1.status(), StatusCode::OK);
    assert_eq!(
        step1.json::<Value>().await.unwrap()["alreadyUnsubscribed"],
        false
    );

    let without_text = browser
        .post(
            "/api/unsubscribe",
            Some(json!({"user": rut, "email": email, "reasonId": other["id"], "currentPassword": PASSWORD})),
        )
        .await;
    assert_eq!(without_text.status(), StatusCode::BAD_REQUEST);

    let done = browser
        .post(
            "/api/unsubscribe",
            Some(json!({
                "user": rut, "email": email, "reasonId": other["id"],
                "reasonText": "Me voy a vivir al sur", "currentPassword": PASSWORD
            })),
        )
        .await;
    assert_eq!(
        done.status(),
        StatusCode::OK,
        "{}",
        done.text().await.unwrap()
    );
    assert_eq!(
        browser.get("/api/balance").await.status(),
        StatusCode::UNAUTHORIZED,
        "the session ended"
    );

    let login = portal
        .browser()
        .post(
            "/api/login",
            Some(json!({"user": rut, "password": PASSWORD})),
        )
        .await;
    assert_eq!(login.status(), StatusCode::FORBIDDEN);
    let body: Value = login.json().await.unwrap();
    assert_eq!(body["code"], "ERR_MEMBER_UNSUBSCRIBED");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Te diste de baja"),
        "{body}"
    );
    assert_eq!(body["action"]["url"], "/registro");
    let wrong = portal
        .browser()
        .post(
            "/api/login",
            Some(json!({"user": rut, "password": "otra clave cualquiera"})),
        )
        .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);

    // Someone else who knows the RUT registers it with their own address: refused at step 3,
    // the flow kept; typed again with the address the member left with, it completes.
    let stranger = portal.browser();
    start_registration(&stranger, &rut).await;
    for (typed, expected) in [
        ("alguien@example.cl", StatusCode::CONFLICT),
        ("INES@example.cl", StatusCode::CREATED),
    ] {
        let step3 = complete_registration(&stranger, typed).await;
        assert_eq!(step3.status(), expected, "{typed}");
        if expected == StatusCode::CONFLICT {
            let body: Value = step3.json().await.unwrap();
            assert_eq!(body["code"], "ERR_PREVIOUS_EMAIL_REQUIRED", "{body}");
        }
    }
}
