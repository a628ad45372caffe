//! The request decoders under arbitrary input (issue #8, point 6): every route that reads a
//! JSON body gets arbitrary bytes, arbitrary JSON values (nested, long, unicode, huge numbers)
//! and its own valid-looking body with one field of the wrong type, missing, or a number
//! literal no integer holds. Whatever arrives, the gateway must never answer a 5xx, and every
//! 4xx must be the Spanish error body (`code` starting with `ERR_`, a non-empty `message`).
//!
//! The real router runs behind the stand-in services of `main.rs`, with the member's bearer
//! token and a reCAPTCHA token on every request, so the body decoder is what gets exercised.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reqwest::Method;
use serde_json::Map;

use crate::support::*;

/// Cases per route: enough to reach every kind of body, small enough for a quick suite.
const CASES_PER_ROUTE: u32 = 64;

/// The routes with a JSON body, each with a body the route would accept.
fn json_routes() -> Vec<(Method, &'static str, Value)> {
    let personal_data = json!({
        "name": "Ana", "lastName": "González", "motherSurname": "Pérez",
        "phoneNumber": "+56911111111", "birthDate": "1988-03-14", "genderId": 1,
        "email": "ana@example.cl",
    });
    vec![
        (
            Method::POST,
            "/api/login",
            json!({"user": "11.111.111-1", "password": "secreto"}),
        ),
        (Method::POST, "/api/validate-otp", json!({"otp": "123456"})),
        (
            Method::POST,
            "/api/account",
            json!({"acceptTermsAndConditions": true}),
        ),
        (
            Method::PUT,
            "/api/profile",
            json!({
                "email": "ana@example.cl", "name": "Ana", "last_name": "González",
                "mother_surname": "Pérez", "phone_number": "+56911111111",
                "birth_date": "1988-03-14", "gender_id": 1,
            }),
        ),
        (
            Method::POST,
            "/api/profile/email/confirm",
            json!({"token": "token-1"}),
        ),
        (
            Method::POST,
            "/api/profile/email/restore",
            json!({"token": "token-1"}),
        ),
        (
            Method::POST,
            "/api/profile/password",
            json!({"currentPassword": "secreto", "newPassword": "Otra-Clave-2026"}),
        ),
        (
            Method::POST,
            "/api/terms-and-conditions",
            json!({"acceptTermsAndConditions": true}),
        ),
        (
            Method::POST,
            "/api/password-recovery",
            json!({"user": "11.111.111-1"}),
        ),
        (
            Method::POST,
            "/api/password-recovery/reset",
            json!({"code": "123456", "newPassword": "Otra-Clave-2026"}),
        ),
        (
            Method::POST,
            "/api/registration",
            json!({"documentType": "RUT", "rut": "11.111.111-1", "documentNumber": "100200300"}),
        ),
        (
            Method::PUT,
            "/api/registration/personal-data",
            personal_data,
        ),
        (
            Method::POST,
            "/api/registration/complete",
            json!({"password": "Otra-Clave-2026", "acceptTerms": true}),
        ),
        (
            Method::POST,
            "/api/registration/verification-email",
            json!({"user": "11.111.111-1"}),
        ),
        (
            Method::POST,
            "/api/unsubscribe/validate",
            json!({"user": "11.111.111-1", "email": "ana@example.cl"}),
        ),
        (
            Method::POST,
            "/api/unsubscribe",
            json!({"user": "11.111.111-1", "email": "ana@example.cl", "reasonId": 1, "reasonText": ""}),
        ),
        (
            Method::POST,
            "/api/simulator",
            json!({"weekDay": 2, "meatAmount": 10000, "fruitsAndVegetablesAmount": 0,
                   "cleaningAmount": 0, "drinksAmount": 0, "otherAmount": 0, "partnerCard": true}),
        ),
    ]
}

/// Any JSON value: every scalar kind, strings from empty to past the body limit, unicode and
/// control characters, and arrays and objects nested a few levels.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        "\\PC{0,40}".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
        (1usize..12_000).prop_map(|n| Value::String("ñ".repeat(n))),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("\\PC{0,12}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Number literals that no Rust integer or finite float holds, and other raw JSON text.
fn raw_literal() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("1e400".to_owned()),
        Just("-1e400".to_owned()),
        Just("123456789012345678901234567890".to_owned()),
        Just("-0".to_owned()),
        Just("0.5".to_owned()),
        Just("2147483648".to_owned()),
        Just("-9223372036854775809".to_owned()),
        Just("\"\\ud800\"".to_owned()),
        (1usize..400).prop_map(|depth| format!("{}{}", "[".repeat(depth), "]".repeat(depth))),
    ]
}

/// A body for a route whose valid body is `template`.
fn body(template: Value) -> impl Strategy<Value = Vec<u8>> {
    let fields: Vec<String> = template
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default();
    let field = proptest::sample::select(fields);
    let object = template.as_object().cloned().unwrap_or_default();
    let (replaced, missing, literal) = (object.clone(), object.clone(), object);
    prop_oneof![
        // Arbitrary bytes, usually not JSON at all.
        proptest::collection::vec(any::<u8>(), 0..512),
        // Any JSON value in place of the object.
        json_value().prop_map(|value| serde_json::to_vec(&value).unwrap()),
        // The valid body with one field of an arbitrary value (usually the wrong type).
        (field.clone(), json_value()).prop_map(move |(field, value)| {
            let mut object = replaced.clone();
            object.insert(field, value);
            serde_json::to_vec(&object).unwrap()
        }),
        // The valid body without one field, plus an unknown one.
        (field.clone(), "\\PC{1,12}", json_value()).prop_map(move |(field, extra, value)| {
            let mut object = missing.clone();
            object.remove(&field);
            object.insert(extra, value);
            serde_json::to_vec(&object).unwrap()
        }),
        // The valid body with one field as a raw literal serde_json may refuse.
        (field, raw_literal()).prop_map(move |(field, raw)| {
            let mut object: Map<String, Value> = literal.clone();
            object.remove(&field);
            let rest = serde_json::to_string(&object).unwrap();
            let separator = if object.is_empty() { "" } else { "," };
            format!("{{{}:{raw}{separator}{}", Value::String(field), &rest[1..]).into_bytes()
        }),
    ]
}

/// Sends `body` and checks the answer: no 5xx, and a 4xx carries the Spanish error body.
async fn check(
    gw: &TestGateway,
    method: &Method,
    path: &str,
    body: Vec<u8>,
) -> Result<(), TestCaseError> {
    let response = gw
        .client
        .request(method.clone(), format!("{}{path}", gw.base))
        .header("x-miclub-csrf", "1")
        .header("recaptcha-token", "t")
        .header("authorization", gw.bearer())
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .map_err(|err| TestCaseError::fail(format!("no answer: {err}")))?;
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    prop_assert!(!status.is_server_error(), "{status}: {text}");
    if status.is_client_error() {
        let json: Value = serde_json::from_str(&text)
            .map_err(|err| TestCaseError::fail(format!("{status} is not JSON ({err}): {text}")))?;
        let code = json["code"].as_str().unwrap_or_default();
        prop_assert!(code.starts_with("ERR_"), "{status}: {text}");
        let message = json["message"].as_str().unwrap_or_default();
        prop_assert!(!message.trim().is_empty(), "{status}: {text}");
    }
    Ok(())
}

#[test]
fn arbitrary_bodies_on_every_json_route_get_a_spanish_4xx_or_an_answer_never_a_5xx() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let gw = runtime.block_on(gateway_with(|settings| {
        settings.login_requests_per_minute = 1_000_000;
    }));
    for (method, path, template) in json_routes() {
        let mut runner = TestRunner::new(Config {
            cases: CASES_PER_ROUTE,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&body(template), |body| {
            runtime.block_on(check(&gw, &method, path, body))
        });
        if let Err(failure) = result {
            panic!("{method} {path}: {failure}");
        }
    }
}

#[test]
fn every_route_with_a_json_body_in_the_router_is_fuzzed_here() {
    // A new body route must join `json_routes`: the OpenAPI document lists every route with its
    // request body, so compare against it.
    let document = serde_json::to_value(miclub_gateway::routes::document()).unwrap();
    let mut with_body: Vec<(String, String)> = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if operation.get("requestBody").is_some() {
                with_body.push((method.to_uppercase(), path.clone()));
            }
        }
    }
    with_body.sort();
    let mut fuzzed: Vec<(String, String)> = json_routes()
        .into_iter()
        .map(|(method, path, _)| (method.to_string(), path.to_owned()))
        .collect();
    fuzzed.sort();
    assert_eq!(fuzzed, with_body);
}
