//! Every rejection under `/api` is the documented JSON error body with a Spanish message:
//! unsupported media type, repeated or malformed query parameters, unknown paths, wrong
//! methods, oversized and malformed bodies; and a sweep of every route of the contract.

use crate::support::*;

async fn assert_json_error(response: reqwest::Response, status: u16, code: &str) -> Value {
    let got = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    assert_eq!(got, status, "{text}");
    assert_eq!(content_type, "application/json", "{status} {code}: {text}");
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["code"], code, "{text}");
    assert!(json["message"].as_str().unwrap().len() > 10, "{text}");
    json
}

#[tokio::test]
async fn each_kind_of_rejection_is_the_json_error_body() {
    let gw = gateway().await;
    let login = || gw.post("/api/login").header("recaptcha-token", "t");
    assert_json_error(
        login()
            .header("content-type", "text/plain")
            .body("user=1")
            .send()
            .await
            .unwrap(),
        415,
        "ERR_UNSUPPORTED_MEDIA_TYPE",
    )
    .await;
    assert_json_error(
        login()
            .header("content-type", "application/json")
            .body("{\"user\": ")
            .send()
            .await
            .unwrap(),
        400,
        "ERR_INVALID_JSON",
    )
    .await;
    assert_json_error(
        login()
            .json(&json!({"user": "1", "password": "x".repeat(20_000)}))
            .send()
            .await
            .unwrap(),
        413,
        "ERR_PAYLOAD_TOO_LARGE",
    )
    .await;
    assert_json_error(
        gw.anonymous_get("/api/no-such-thing").await,
        404,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_json_error(gw.anonymous_get("/api").await, 404, "ERR_NOT_FOUND").await;
    let wrong_method = gw
        .client
        .delete(format!("{}/api/balance", gw.base))
        .header("x-miclub-csrf", "1")
        .send()
        .await
        .unwrap();
    assert_json_error(wrong_method, 405, "ERR_METHOD_NOT_ALLOWED").await;
}

#[tokio::test]
async fn a_repeated_or_malformed_query_parameter_is_a_400_naming_it() {
    let gw = gateway().await;
    for (query, field) in [
        ("year=2026&year=2025&month=11", "year"),
        ("year=abc&month=11", "year"),
        ("year=2026&month=11&month=12", "month"),
        ("year=2026&month=", "month"),
    ] {
        let response = gw.member_get(&format!("/api/movements?{query}")).await;
        let json = assert_json_error(response, 400, "ERR_INVALID_ARGUMENT").await;
        assert_eq!(json["field"], field, "{query}");
    }
    let faqs = gw
        .anonymous_get("/api/faqs?audience=login&audience=general")
        .await;
    let json = assert_json_error(faqs, 400, "ERR_INVALID_ARGUMENT").await;
    assert_eq!(json["field"], "audience");
}

#[tokio::test]
async fn no_route_of_the_contract_answers_a_wrong_method_or_content_type_in_plain_text() {
    let gw = gateway().await;
    let doc: Value = gw
        .anonymous_get("/api/openapi.json")
        .await
        .json()
        .await
        .unwrap();
    let mut swept = 0;
    for (path, operations) in doc["paths"].as_object().unwrap() {
        if path.contains('{') || path == "/api/dev/mailbox" {
            continue;
        }
        let methods: Vec<&str> = operations
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        // A method the route does not take.
        let wrong = ["patch", "put", "delete", "post"]
            .into_iter()
            .find(|m| !methods.contains(m))
            .unwrap();
        let response = gw
            .client
            .request(
                wrong.to_uppercase().parse().unwrap(),
                format!("{}{path}", gw.base),
            )
            .header("x-miclub-csrf", "1")
            .header("authorization", gw.bearer())
            .send()
            .await
            .unwrap();
        assert_json_error(response, 405, "ERR_METHOD_NOT_ALLOWED").await;
        // A body that is not JSON, on every operation that takes one.
        for (method, operation) in operations.as_object().unwrap() {
            if operation.get("requestBody").is_none() {
                continue;
            }
            let response = gw
                .client
                .request(
                    method.to_uppercase().parse().unwrap(),
                    format!("{}{path}", gw.base),
                )
                .header("x-miclub-csrf", "1")
                .header("recaptcha-token", "t")
                .header("authorization", gw.bearer())
                .header("content-type", "application/x-www-form-urlencoded")
                .body("user=1")
                .send()
                .await
                .unwrap();
            assert_json_error(response, 415, "ERR_UNSUPPORTED_MEDIA_TYPE").await;
            swept += 1;
        }
    }
    assert!(
        swept >= 10,
        "the sweep reached the body-taking routes ({swept})"
    );
}

#[tokio::test]
async fn bad_input_gets_a_4xx_with_a_spanish_message_never_a_500() {
    let gw = gateway().await;
    let cases: Vec<(reqwest::RequestBuilder, u16, &str)> = vec![
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .header("content-type", "application/json")
                .body("{\"user\": "),
            400,
            "ERR_INVALID_JSON",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .header("content-type", "text/plain")
                .body("user=1"),
            415,
            "ERR_UNSUPPORTED_MEDIA_TYPE",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .json(&json!({"user": "1"})),
            400,
            "ERR_INVALID_ARGUMENT",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .json(&json!({"user": 5, "password": []})),
            400,
            "ERR_INVALID_ARGUMENT",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .json(&json!({"user": "1", "password": "x".repeat(20_000)})),
            413,
            "ERR_PAYLOAD_TOO_LARGE",
        ),
        (
            gw.post("/api/login")
                .json(&json!({"user": "11.111.111-1", "password": "x"})),
            400,
            "ERR_RECAPTCHA",
        ),
        (gw.get("/api/nothing-here"), 404, "ERR_NOT_FOUND"),
        (
            gw.client
                .delete(format!("{}/api/balance", gw.base))
                .header("x-miclub-csrf", "1"),
            405,
            "ERR_METHOD_NOT_ALLOWED",
        ),
    ];
    for (request, status, code) in cases {
        let (got, json) = error_answer(request).await;
        assert_eq!(
            (got.as_u16(), json["code"].as_str().unwrap()),
            (status, code)
        );
        assert!(json["message"].as_str().unwrap().len() > 10);
    }
}
