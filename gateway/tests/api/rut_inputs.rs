//! Every route where a member types a RUT answers a malformed one the same way: 400
//! `ERR_INVALID_RUT` naming the field, before any service is asked; the forms members type
//! (dots or not, hyphen or not, zero-padded, `k` or `K`) pass through to the service.

use crate::support::*;

/// Shaped like a RUT, but not one: wrong check digit, body 0, more than 8 significant digits,
/// a check digit alone, no check digit, a letter other than K, padding beyond what is typed.
const MALFORMED: &[&str] = &[
    "11.111.111-2",
    "111111112",
    "0-0",
    "00.000.000-0",
    "123.456.789-0",
    "5",
    "K",
    "-9",
    "12.345.678",
    "1-K",
    "0000000000001-9",
];

/// What members type for Ana's RUT, 11.111.111-1, and a `k` check digit in both cases.
const TYPED: &[&str] = &[
    "11.111.111-1",
    "11111111-1",
    "111111111",
    "011.111.111-1",
    " 11111111 1 ",
];

/// Each RUT route: method path, the body with the RUT in it, the field named in the refusal,
/// and whether it needs a logged-in member.
fn routes(rut: &str) -> Vec<(&'static str, Value, &'static str, bool)> {
    vec![
        (
            "/api/login",
            json!({"user": rut, "password": "secreto"}),
            "user",
            false,
        ),
        (
            "/api/password-recovery",
            json!({"user": rut}),
            "user",
            false,
        ),
        (
            "/api/registration",
            json!({"documentType": "RUT", "rut": rut, "documentNumber": "100.123.456"}),
            "rut",
            false,
        ),
        (
            "/api/registration/verification-email",
            json!({"user": rut}),
            "user",
            false,
        ),
        (
            "/api/unsubscribe/validate",
            json!({"user": rut, "email": "ana@example.cl", "currentPassword": "secreto"}),
            "user",
            true,
        ),
        (
            "/api/unsubscribe",
            json!({"user": rut, "email": "ana@example.cl", "reasonId": 1, "currentPassword": "secreto"}),
            "user",
            true,
        ),
    ]
}

async fn send(gw: &TestGateway, path: &str, body: &Value, member: bool) -> reqwest::Response {
    let request = gw.post(path).header("recaptcha-token", "t").json(body);
    let request = if member {
        gw.as_member(request)
    } else {
        request
    };
    request.send().await.unwrap()
}

/// What the stand-in services were asked, route by route.
fn asked(gw: &TestGateway) -> usize {
    let script = gw.script();
    [
        script.last_login.is_some(),
        script.last_reset_start.is_some(),
        script.last_registration_start.is_some(),
        script.last_verification_resend.is_some(),
        script.last_unsubscribe_validation.is_some(),
        script.last_unsubscribe.is_some(),
    ]
    .into_iter()
    .filter(|asked| *asked)
    .count()
}

/// A gateway whose per-address limits leave room for a whole table of inputs (the limits run
/// first, so a flood of malformed RUTs is still counted).
async fn roomy_gateway() -> TestGateway {
    gateway_with(|settings| {
        settings.login_requests_per_minute = 1_000;
        settings.registration_requests_per_minute = 1_000;
        settings.recovery_requests_per_minute = 1_000;
    })
    .await
}

#[tokio::test]
async fn every_malformed_rut_on_every_rut_route_answers_err_invalid_rut_without_asking_a_service() {
    let gw = roomy_gateway().await;
    for rut in MALFORMED {
        for (path, body, field, member) in routes(rut) {
            let (status, answer) = error_of(send(&gw, path, &body, member).await).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{path} {rut:?}");
            assert_eq!(answer["code"], "ERR_INVALID_RUT", "{path} {rut:?}");
            assert_eq!(answer["field"], field, "{path} {rut:?}");
            assert_eq!(
                answer["message"], "El RUT ingresado no es válido.",
                "{path} {rut:?}"
            );
        }
    }
    assert_eq!(asked(&gw), 0, "no service heard of a malformed RUT");
}

#[tokio::test]
async fn the_registration_rut_field_refuses_anything_that_is_not_a_rut() {
    let gw = roomy_gateway().await;
    for rut in ["", "   ", "abc", "P1234567", "12,345,678-5"] {
        let body = json!({"documentType": "RUT", "rut": rut, "documentNumber": "100.123.456"});
        let (status, answer) = error_of(send(&gw, "/api/registration", &body, false).await).await;
        assert_eq!(
            (status, &answer["code"]),
            (StatusCode::BAD_REQUEST, &json!("ERR_INVALID_RUT")),
            "{rut:?}"
        );
    }
    assert!(gw.script().last_registration_start.is_none());
}

#[tokio::test]
async fn what_members_type_for_a_valid_rut_reaches_the_service_on_every_route() {
    for rut in TYPED.iter().chain(&["6-k", "6-K", "6k"]) {
        let gw = roomy_gateway().await;
        for (path, body, _, member) in routes(rut) {
            let response = send(&gw, path, &body, member).await;
            assert_ne!(response.status(), StatusCode::BAD_REQUEST, "{path} {rut:?}");
        }
        assert_eq!(asked(&gw), 6, "{rut:?}: every service was asked");
    }
}
