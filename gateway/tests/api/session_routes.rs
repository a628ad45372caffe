//! A member's session at the gateway: the cookie stands for the bearer token, missing, expired,
//! foreign, revoked and service tokens (and one whose subject is no member id) are refused,
//! refresh rotates the cookies, and every state-changing request needs the CSRF header and an
//! allowed origin.

use crate::support::*;

#[tokio::test]
async fn the_session_cookie_works_like_a_bearer_token() {
    let gw = gateway().await;
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    let response = gw
        .get("/api/profile")
        .header("cookie", format!("mc_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.json::<Value>().await.unwrap()["name"], "Ana");
}

#[tokio::test]
async fn the_bearer_scheme_is_read_in_any_case_as_the_services_read_it() {
    let gw = gateway().await;
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let response = gw
            .get("/api/profile")
            .header("authorization", format!("{scheme} {token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{scheme}");
    }
    let request = gw
        .get("/api/profile")
        .header("authorization", format!("Basic {token}"));
    let (status, _) = error_answer(request).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "another scheme is no bearer"
    );
}

#[tokio::test]
async fn member_routes_refuse_missing_expired_foreign_and_revoked_tokens_with_401() {
    let gw = gateway().await;
    let foreign = TestKeys::new().member_token(MEMBER, "sid-1", 600);
    let expired = gw.fakes.keys.member_token(MEMBER, "sid-1", -600);
    let revoked = gw.fakes.keys.member_token(MEMBER, "sid-gone", 600);
    gw.store
        .set(
            &miclub_platform::tokens::revocation_key("sid-gone"),
            "1",
            std::time::Duration::from_secs(60),
        )
        .await
        .unwrap();
    for auth in [None, Some(foreign), Some(expired), Some(revoked)] {
        let mut request = gw.get("/api/balance");
        if let Some(token) = &auth {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let (status, json) = error_answer(request).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(json["code"], "ERR_UNAUTHENTICATED");
    }
}

#[tokio::test]
async fn a_signed_member_token_whose_subject_is_no_member_id_is_refused_with_401() {
    let gw = gateway().await;
    let token = gw.fakes.keys.member_token("no es un socio", "sid-1", 600);
    let request = gw
        .get("/api/balance")
        .header("authorization", format!("Bearer {token}"));
    let (status, json) = error_answer(request).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(json["code"], "ERR_UNAUTHENTICATED");
}

#[tokio::test]
async fn a_service_token_is_no_member_session_at_the_gateway() {
    let gw = gateway().await;
    let service = gw.fakes.keys.service_token("pos", 600);
    let request = gw
        .get("/api/balance")
        .header("authorization", format!("Bearer {service}"));
    let (status, json) = error_answer(request).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(json["code"], "ERR_FORBIDDEN");
}

#[tokio::test]
async fn a_401_from_a_service_is_a_401_at_the_gateway() {
    let gw = gateway().await;
    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::Unauthenticated)));
    let (status, _) = error_of(gw.member_get("/api/profile").await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn refresh_rotates_the_cookies_and_a_refused_refresh_clears_them() {
    let gw = gateway().await;
    let response = gw
        .post("/api/refresh")
        .header("cookie", "mc_refresh=refresh-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(cookie(&set_cookies(&response), "mc_session").contains("HttpOnly"));

    gw.set_auth_error(Some(ErrorBody::new(ErrorCode::Unauthenticated)));
    let response = gw
        .post("/api/refresh")
        .header("cookie", "mc_refresh=refresh-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(cookie(&set_cookies(&response), "mc_session").contains("Max-Age=0"));
    let response = gw.post("/api/refresh").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn state_changing_requests_need_the_csrf_header_and_an_allowed_origin() {
    let gw = gateway().await;
    let no_header = gw
        .client
        .post(format!("{}/api/login", gw.base))
        .header("recaptcha-token", "t")
        .json(&json!({"user": "1-9", "password": "x"}))
        .send()
        .await
        .unwrap();
    let (status, json) = error_of(no_header).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(json["code"], "ERR_CSRF");
    let cross_site = gw
        .post("/api/logout")
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status(), StatusCode::FORBIDDEN);
    let same_site = gw
        .post("/api/logout")
        .header("origin", gw.base.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(same_site.status(), StatusCode::NO_CONTENT);
}
