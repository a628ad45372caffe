//! Actividad de la cuenta: the member's sessions and security events through the gateway. The
//! member's own token is what reaches auth (which acts on its subject only), the user agent is
//! shown as browser and system, closing the caller's own session clears its cookies, auth's
//! "not found" and field errors reach the member as they are, and a revoked or absent token is
//! refused by the gateway before auth is asked.

use crate::support::*;

fn delete(gw: &TestGateway, path: &str) -> reqwest::RequestBuilder {
    gw.as_member(
        gw.client
            .delete(format!("{}{path}", gw.base))
            .header("x-miclub-csrf", "1"),
    )
}

#[tokio::test]
async fn the_sessions_name_browser_and_system_and_mark_the_current_one() {
    let gw = gateway().await;
    let response = gw.member_get("/api/security/sessions").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let json: Value = response.json().await.unwrap();
    assert_eq!(
        json,
        json!({"sessions": [
            {"id": "sid-1", "startedAt": "2026-11-18T11:06:40.000Z", "lastSeenAt": "2026-11-18T11:16:40.000Z",
             "browser": "Chrome", "os": "Linux", "current": true},
            {"id": "sid-2", "startedAt": "2026-11-18T08:20:00.000Z", "lastSeenAt": "2026-11-18T10:50:00.000Z",
             "browser": "Safari", "os": "iOS", "current": false},
            {"id": "sid-3", "startedAt": "2026-11-18T05:33:20.000Z", "lastSeenAt": "2026-11-18T05:33:20.000Z",
             "browser": null, "os": null, "current": false},
        ]})
    );
}

#[tokio::test]
async fn the_events_name_browser_and_system_newest_first() {
    let gw = gateway().await;
    let response = gw.member_get("/api/security/events").await;
    assert_eq!(response.status(), StatusCode::OK);
    let json: Value = response.json().await.unwrap();
    let kinds: Vec<&str> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["login_succeeded", "wrong_password", "password_changed"]
    );
    assert_eq!(json["events"][1]["browser"], "Safari");
    assert_eq!(json["events"][1]["os"], "iOS");
    assert_eq!(json["events"][2]["browser"], Value::Null);
    assert_eq!(json["events"][0]["occurredAt"], "2026-11-18T11:06:40.000Z");
}

#[tokio::test]
async fn closing_another_session_is_a_204_that_leaves_this_ones_cookies_alone() {
    let gw = gateway().await;
    let response = delete(&gw, "/api/security/sessions/sid-2")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(set_cookies(&response).is_empty());
    assert_eq!(gw.script().ended_sessions, ["sid-2"]);
}

#[tokio::test]
async fn closing_ones_own_session_is_a_logout_that_clears_the_cookies() {
    let gw = gateway().await;
    let response = delete(&gw, "/api/security/sessions/sid-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_cleared(&set_cookies(&response), &SESSION_COOKIES);
}

#[tokio::test]
async fn a_session_that_is_not_the_members_is_a_404_in_spanish_and_a_bad_id_a_400_on_its_field() {
    let gw = gateway().await;
    let (status, json) = error_answer(delete(
        &gw,
        "/api/security/sessions/0b7f4c1e-8f4a-4a57-9a40-5d0f3c1b2a11",
    ))
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(json["code"], "ERR_NOT_FOUND");
    assert_eq!(
        json["message"],
        "No encontramos esa sesión abierta. Puede que ya esté cerrada."
    );
    let (status, json) = error_answer(delete(&gw, "/api/security/sessions/not-a-uuid")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["field"], "id");
    assert_eq!(json["message"], "La sesión indicada no es válida.");
    // A segment that is not UTF-8 is refused by the gateway with the JSON body, auth never asked.
    let response = delete(&gw, "/api/security/sessions/%FF%FE")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(response.headers()["content-type"], "application/json");
    let json: Value = response.json().await.unwrap();
    assert_eq!(json["code"], "ERR_INVALID_ARGUMENT");
    assert_eq!(json["field"], "id");
    assert_eq!(gw.script().ended_sessions.len(), 2);
}

#[tokio::test]
async fn closing_the_other_sessions_answers_how_many() {
    let gw = gateway().await;
    let response = gw
        .member_post("/api/security/sessions/close-others")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(set_cookies(&response).is_empty(), "this session stays");
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"closed": 2})
    );
    assert_eq!(gw.script().other_sessions_ends, 1);
}

#[tokio::test]
async fn without_a_live_session_every_security_route_is_a_401_and_auth_is_not_asked() {
    let gw = gateway().await;
    let revoked = gw.fakes.keys.member_token(MEMBER, "sid-closed", 600);
    gw.store
        .set(
            &miclub_platform::tokens::revocation_key("sid-closed"),
            "1",
            std::time::Duration::from_secs(60),
        )
        .await
        .unwrap();
    for token in [None, Some(revoked)] {
        let with = |request: reqwest::RequestBuilder| match &token {
            Some(token) => request.header("authorization", format!("Bearer {token}")),
            None => request,
        };
        let requests = [
            with(gw.get("/api/security/sessions")),
            with(gw.get("/api/security/events")),
            with(gw.post("/api/security/sessions/close-others")),
            with(
                gw.client
                    .delete(format!("{}/api/security/sessions/sid-2", gw.base))
                    .header("x-miclub-csrf", "1"),
            ),
        ];
        for request in requests {
            let (status, json) = error_answer(request).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED);
            assert_eq!(json["code"], "ERR_UNAUTHENTICATED");
        }
    }
    let script = gw.script();
    assert!(script.ended_sessions.is_empty());
    assert_eq!(script.other_sessions_ends, 0);
}

#[tokio::test]
async fn closing_sessions_needs_the_csrf_header() {
    let gw = gateway().await;
    let request = gw.as_member(
        gw.client
            .delete(format!("{}/api/security/sessions/sid-2", gw.base)),
    );
    let (status, json) = error_answer(request).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(json["code"], "ERR_CSRF");
    let request = gw.as_member(
        gw.client
            .post(format!("{}/api/security/sessions/close-others", gw.base)),
    );
    assert_eq!(error_answer(request).await.0, StatusCode::FORBIDDEN);
    assert!(gw.script().ended_sessions.is_empty());
}

#[tokio::test]
async fn the_login_tells_auth_the_browser_it_came_from() {
    let gw = gateway().await;
    gw.post("/api/login")
        .header("recaptcha-token", "t")
        .header("user-agent", SAFARI_ON_IPHONE)
        .json(&json!({"user": "11.111.111-1", "password": "secreto"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        gw.script().last_login.as_ref().unwrap().user_agent,
        SAFARI_ON_IPHONE
    );
    gw.post("/api/validate-otp")
        .header("cookie", "mc_challenge=challenge-1")
        .header("user-agent", CHROME_ON_LINUX)
        .json(&json!({"otp": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        gw.script().last_verify.as_ref().unwrap().user_agent,
        CHROME_ON_LINUX
    );
}
