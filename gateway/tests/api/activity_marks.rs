//! Activity marks: an authenticated member request marks its session seen (the idle limit
//! auth applies before a refresh counts from it), a refresh does not, and a busy session is
//! written at most once a minute.

use miclub_platform::storage::now_millis;
use miclub_platform::tokens::seen_key;

use crate::support::*;

fn fresh_sid() -> String {
    format!("sid-{}", uuid::Uuid::new_v4().simple())
}

async fn mark_of(gw: &TestGateway, sid: &str) -> Option<i64> {
    gw.store
        .get(&seen_key(sid))
        .await
        .unwrap()
        .map(|raw| raw.parse().unwrap())
}

#[tokio::test]
async fn an_authenticated_request_marks_its_session_seen() {
    let gw = gateway().await;
    let sid = fresh_sid();
    let token = gw.fakes.keys.member_token(MEMBER, &sid, 600);
    let before = now_millis();
    let response = gw
        .get("/api/balance")
        .header("authorization", format!("Bearer {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let seen = mark_of(&gw, &sid)
        .await
        .expect("the session is marked seen");
    assert!(seen >= before && seen <= now_millis());
}

#[tokio::test]
async fn a_busy_session_is_marked_once_a_minute_not_once_a_request() {
    let gw = gateway().await;
    let sid = fresh_sid();
    let token = gw.fakes.keys.member_token(MEMBER, &sid, 600);
    let balance = || {
        gw.get("/api/balance")
            .header("authorization", format!("Bearer {token}"))
            .send()
    };
    assert_eq!(balance().await.unwrap().status(), StatusCode::OK);
    // Older than it is: a second write would replace it.
    gw.store
        .set(&seen_key(&sid), "1", std::time::Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(balance().await.unwrap().status(), StatusCode::OK);
    assert_eq!(mark_of(&gw, &sid).await, Some(1));
}

#[tokio::test]
async fn a_refresh_is_not_activity() {
    let gw = gateway().await;
    let sid = fresh_sid();
    let token = gw.fakes.keys.member_token(MEMBER, &sid, 600);
    let response = gw
        .post("/api/refresh")
        .header(
            "cookie",
            format!("mc_refresh=refresh-1; mc_session={token}"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(mark_of(&gw, &sid).await, None);
    // Nor is the session the refresh answered with marked.
    assert_eq!(mark_of(&gw, "sid-1").await, None);
}
