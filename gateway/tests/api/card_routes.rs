//! The digital member card (`GET /api/card`, #21 part 1): the contract the web page is built
//! against, never cached, and the errors mapped as `/api/balance` maps them.

use crate::support::*;

#[tokio::test]
async fn the_card_answers_the_contract_with_the_member_token_and_is_never_cached() {
    let gw = gateway().await;
    let response = gw.member_get("/api/card").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({
            "name": "Ana",
            "lastName": "González",
            "cardNumber": CARD_NUMBER,
            "balance": 12345,
            "balanceUpdatedAt": "2026-11-01T10:00:00Z",
            "asOf": "2026-11-25T12:00:00Z",
        })
    );
    // The stand-in refuses a call without the member's bearer: it was forwarded.
    assert_eq!(gw.script().card_calls, 1);
}

#[tokio::test]
async fn the_card_needs_a_session() {
    let gw = gateway().await;
    let (status, body) = error_of(gw.anonymous_get("/api/card").await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["code"], "ERR_UNAUTHENTICATED");
    assert_eq!(gw.script().card_calls, 0, "accounts is not asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_errors_map_as_the_balance_errors_do() {
    let gw = gateway().await;
    for (error, status) in [
        (ErrorCode::NoClubAccount, StatusCode::NOT_ACCEPTABLE),
        (ErrorCode::MemberUnsubscribed, StatusCode::FORBIDDEN),
        (ErrorCode::Unavailable, StatusCode::SERVICE_UNAVAILABLE),
    ] {
        gw.set_accounts_error(Some(ErrorBody::new(error)));
        let card = error_of(gw.member_get("/api/card").await).await;
        let balance = error_of(gw.member_get("/api/balance").await).await;
        assert_eq!(card.0, status, "{error:?}");
        assert_eq!(card.1["code"], error.as_str());
        assert_eq!(
            card, balance,
            "{error:?}: /api/card and /api/balance differ"
        );
    }
}
