//! A logout is never lost: when auth cannot record the revocation the member is told (503),
//! and the browser's cookies are cleared all the same; a session already over is still a 204.

use crate::support::*;

fn session_cookies(gw: &TestGateway) -> String {
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    format!("mc_session={token}; mc_refresh=refresh-1; is-logged=true")
}

/// A logout from a browser holding every session cookie.
async fn logout(gw: &TestGateway) -> reqwest::Response {
    gw.post("/api/logout")
        .header("cookie", session_cookies(gw))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_logout_auth_could_not_record_is_a_503_that_still_clears_every_cookie() {
    let gw = gateway().await;
    gw.script().logout_error = Some(ErrorBody::new(ErrorCode::Unavailable));
    let response = logout(&gw).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert_eq!(response.headers()["cache-control"], "no-store");
    let cookies = set_cookies(&response);
    assert_cleared(&cookies, &SESSION_COOKIES);
    assert_cleared(&cookies, &["mc_challenge"]);
    let json: Value = response.json().await.unwrap();
    assert_eq!(json["code"], "ERR_UNAVAILABLE");
    assert_eq!(
        json["message"],
        miclub_gateway::routes::session::LOGOUT_NOT_RECORDED_MESSAGE
    );
    assert_eq!(gw.script().logouts.len(), 1, "auth was asked");
}

#[tokio::test]
async fn an_auth_that_cannot_be_reached_at_logout_is_a_503_too() {
    let gw = gateway_with(|s| s.auth = ClientSettings::for_url("http://127.0.0.1:1")).await;
    let response = logout(&gw).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(cookie(&set_cookies(&response), "mc_session").contains("Max-Age=0"));
}

#[tokio::test]
async fn the_logout_of_a_session_already_over_is_still_a_204() {
    let gw = gateway().await;
    gw.script().logout_error = Some(ErrorBody::new(ErrorCode::Unauthenticated));
    let response = logout(&gw).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(cookie(&set_cookies(&response), "mc_refresh").contains("Max-Age=0"));
    // Without any token there is nothing to revoke, and auth is not asked.
    let response = gw.post("/api/logout").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(gw.script().logouts.len(), 1);
}

#[tokio::test]
async fn logout_revokes_the_session_in_auth_and_clears_every_cookie() {
    let gw = gateway().await;
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    let response = gw
        .post("/api/logout")
        .header(
            "cookie",
            format!("mc_session={token}; mc_refresh=refresh-1"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let cookies = set_cookies(&response);
    assert_cleared(&cookies, &SESSION_COOKIES);
    assert_cleared(&cookies, &["mc_challenge"]);
    assert_eq!(gw.fakes.script.lock().unwrap().logouts, vec![token]);
}

#[tokio::test]
async fn logout_with_only_the_refresh_cookie_still_revokes_the_session_in_auth() {
    let gw = gateway().await;
    let response = gw
        .post("/api/logout")
        .header("cookie", "mc_refresh=refresh-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        gw.fakes.script.lock().unwrap().logouts,
        vec![String::new()],
        "auth asked once, without an access token"
    );
}

#[tokio::test]
async fn logout_reads_the_bearer_header_by_the_same_rule_as_every_member_route() {
    let gw = gateway().await;
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    let response = gw
        .post("/api/logout")
        .header("authorization", format!("bearer {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(gw.fakes.script.lock().unwrap().logouts, vec![token]);
}
