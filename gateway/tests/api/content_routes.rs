//! Content and missions at the edge: the public content in its documented shape with a short
//! public cache, the simulator's field errors in camelCase, the missions conflict state, the
//! login's `has_missions` from missions, and the runtime flags read from content without a
//! restart (the last known kept while content is away).

use crate::support::*;

fn flags(portal: bool, change_password: bool, login_maintenance: bool) -> content::Flags {
    content::Flags {
        portal_enabled: portal,
        change_password_enable: change_password,
        is_login_maintenance: login_maintenance,
    }
}

async fn context(gw: &TestGateway) -> Value {
    gw.anonymous_get("/api/context").await.json().await.unwrap()
}

#[tokio::test]
async fn public_content_answers_in_the_documented_shape_with_a_one_minute_public_cache() {
    let gw = gateway().await;
    let promotions = gw.anonymous_get("/api/promotions").await;
    assert_eq!(promotions.status(), StatusCode::OK);
    assert_eq!(promotions.headers()["cache-control"], "public, max-age=60");
    let body: Value = promotions.json().await.unwrap();
    assert_eq!(
        body["promotions"][0]["imageUrl"],
        "/images/promociones/carnes-2x1.svg"
    );
    assert_eq!(body["promotions"][0]["badge"], "2x1");

    let alliances: Value = gw
        .anonymous_get("/api/alliances")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(alliances["alliances"][0]["partner"], "Tarjeta Lider BCI");
    let banners: Value = gw.anonymous_get("/api/banners").await.json().await.unwrap();
    assert_eq!(banners["banners"][0]["imageAlt"], "Carro de compras");

    let login: Value = gw
        .anonymous_get("/api/faqs?audience=login")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(login["faqs"][0]["question"], "¿Por qué me piden un código?");
    let general: Value = gw.anonymous_get("/api/faqs").await.json().await.unwrap();
    assert_eq!(general["faqs"][0]["question"], "¿Qué es Mi Club?");
    let (status, body) = error_of(gw.anonymous_get("/api/faqs?audience=todas").await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "audience");
}

#[tokio::test]
async fn content_that_is_down_is_a_spanish_503_not_a_cached_error() {
    let gw = gateway().await;
    gw.set_content_error(Some(ErrorBody::new(ErrorCode::Unavailable)));
    let response = gw.anonymous_get("/api/promotions").await;
    assert_eq!(response.headers()["cache-control"], "no-store");
    let (status, body) = error_of(response).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["code"], "ERR_UNAVAILABLE");
}

#[tokio::test]
async fn the_simulator_passes_the_cart_and_names_a_bad_field_as_the_browser_sent_it() {
    let gw = gateway().await;
    let answer = gw
        .post("/api/simulator")
        .json(&json!({
            "weekDay": 2, "meatAmount": 0, "fruitsAndVegetablesAmount": 10000,
            "cleaningAmount": 0, "drinksAmount": 0, "otherAmount": 0
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["totalEarned"], 300);
    assert_eq!(body["lines"][0]["rule"], "Martes de frutas y verduras");
    assert_eq!(body["bankCardDiscount"], Value::Null);
    let sent = gw.script().last_simulation.unwrap();
    assert_eq!(
        (sent.week_day, sent.fruits_and_vegetables_amount),
        (2, 10_000)
    );
    assert!(!sent.partner_card);

    gw.set_content_error(Some(
        ErrorBody::new(ErrorCode::InvalidArgument)
            .with_field("meat_amount")
            .with_message("El monto no puede ser negativo."),
    ));
    let (status, body) = error_answer(
        gw.post("/api/simulator")
            .json(&json!({"weekDay": 1, "meatAmount": -5})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "meatAmount");
    assert_eq!(body["message"], "El monto no puede ser negativo.");

    let (status, body) = error_answer(
        gw.post("/api/simulator")
            .json(&json!({"weekDay": 1, "meatAmount": "mucho"})),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "not a number never reaches content"
    );
    assert_eq!(body["code"], "ERR_INVALID_ARGUMENT");
    assert_eq!(body["field"], "meatAmount");
    assert_eq!(body["message"], "Ingresa el monto en pesos, sin decimales.");
    // `null` is not a number either (the document's amounts are integers, left out for 0).
    for (field, value) in [
        ("drinksAmount", json!(10.5)),
        ("weekDay", json!("lunes")),
        ("otherAmount", json!(null)),
        ("weekDay", json!(null)),
    ] {
        let mut cart = json!({"weekDay": 1, "drinksAmount": 1000});
        cart[field] = value;
        let (status, body) = error_answer(gw.post("/api/simulator").json(&cart)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["field"], field);
    }
    assert_eq!(
        gw.script().last_simulation.map(|s| s.week_day),
        Some(2),
        "none of the bad carts was sent"
    );
}

#[tokio::test]
async fn missions_answer_with_progress_and_409_while_the_history_loads() {
    let gw = gateway().await;
    let (status, _) = error_of(gw.anonymous_get("/api/missions").await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let answer = gw.member_get("/api/missions").await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(answer.headers()["cache-control"], "no-store");
    let body: Value = answer.json().await.unwrap();
    let mission = &body["missions"][0];
    assert_eq!(mission["categoryId"], 10);
    assert_eq!(mission["goalKind"], "amount");
    assert_eq!(mission["status"], "in_progress");
    assert_eq!(
        (mission["progress"].clone(), mission["goal"].clone()),
        (json!(12_000), json!(20_000))
    );
    assert_eq!(mission["completedAt"], Value::Null);

    gw.script().missions_error = Some(ErrorBody::new(ErrorCode::MissionsNotReady));
    let (status, body) = error_of(gw.member_get("/api/missions").await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "ERR_MISSIONS_NOT_READY");
}

#[tokio::test]
async fn has_missions_at_login_comes_from_missions_and_its_outage_only_hides_the_menu() {
    let gw = gateway().await;
    gw.script().has_missions = true;
    gw.login().await;
    let with: Value = gw.validate_otp().await.json().await.unwrap();
    assert_eq!(with["has_missions"], true);

    gw.script().missions_error = Some(ErrorBody::new(ErrorCode::Unavailable));
    let without = gw.validate_otp().await;
    assert_eq!(without.status(), StatusCode::OK, "the login still works");
    assert_eq!(
        without.json::<Value>().await.unwrap()["has_missions"],
        false
    );
}

#[tokio::test]
async fn a_flag_changed_in_content_is_seen_without_a_restart_and_kept_while_content_is_away() {
    let gw = gateway_with(|s| s.flags_cache_secs = 0).await;
    // Content not reachable yet: the configured flags.
    assert_eq!(context(&gw).await["portalEnabled"], true);

    gw.script().flags = Some(flags(false, true, true));
    let now = context(&gw).await;
    assert_eq!(now["portalEnabled"], false);
    assert_eq!(now["isLoginMaintenance"], true);
    let (status, body) = error_of(gw.login().await).await;
    assert_eq!(
        status,
        StatusCode::SERVICE_UNAVAILABLE,
        "login maintenance from content"
    );
    assert_eq!(body["code"], "ERR_UNAVAILABLE");

    gw.script().flags = None;
    let kept = context(&gw).await;
    assert_eq!(kept["portalEnabled"], false, "the last flags content gave");
    assert_eq!(kept["changePasswordEnable"], true);
}

#[tokio::test]
async fn the_flags_are_read_from_content_once_per_cache_period() {
    let gw = gateway_with(|s| s.flags_cache_secs = 60).await;
    gw.script().flags = Some(flags(true, false, false));
    for _ in 0..5 {
        context(&gw).await;
    }
    assert_eq!(gw.script().flag_reads, 1);
}

#[tokio::test]
async fn the_simulator_answers_the_bank_card_discount_apart_from_the_pesos_earned() {
    let gw = gateway().await;
    let answer = gw
        .post("/api/simulator")
        .json(&json!({"weekDay": 1, "meatAmount": 10000, "partnerCard": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(
        body["bankCardDiscount"],
        json!({"pesos": 600, "rateBp": 600, "description": "Lunes 6% de descuento con Tarjeta Lider BCI"})
    );
    assert_eq!(
        body["totalEarned"], 300,
        "the discount is not added to the pesos earned"
    );
}
