//! Who may call: only a member with a valid, unexpired, unrevoked access token.

use std::time::Duration;

use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::testing::{TestEnv, TestKeys};
use miclub_platform::tokens::{TokenKind, revocation_key};
use miclub_proto::accounts::v1::{
    GetBalanceRequest, GetMemberRequest, RecordTermsDecisionRequest,
    ResendEmailConfirmationRequest, UpdateProfileRequest,
};

use crate::support::TestApp;

fn request<T>(app: &TestApp, message: T, token: Option<&str>) -> tonic::Request<T> {
    match token {
        Some(token) => app.authorized(message, token),
        None => tonic::Request::new(message),
    }
}

/// Calls both RPCs with `token` (none when `None`); both must fail.
async fn both_calls_fail(app: &TestApp, token: Option<&str>) -> [tonic::Status; 2] {
    let mut client = app.bare_client().await;
    let member = client
        .get_member(request(app, GetMemberRequest {}, token))
        .await
        .unwrap_err();
    let balance = client
        .get_balance(request(app, GetBalanceRequest {}, token))
        .await
        .unwrap_err();
    [member, balance]
}

fn assert_unauthenticated(statuses: [tonic::Status; 2]) {
    for status in statuses {
        assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");
        assert_eq!(
            ErrorBody::from_status(&status).code,
            ErrorCode::Unauthenticated
        );
    }
}

async fn a_call_without_a_token_is_unauthenticated(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.add_member_with_account().await;

    assert_unauthenticated(both_calls_fail(&app, None).await);
    assert_unauthenticated(both_calls_fail(&app, Some("not-a-jwt")).await);
}

async fn a_call_with_an_expired_token_is_unauthenticated(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let expired = app
        .keys
        .member_token(member.id.as_str(), "sid-expired", -60);

    assert_unauthenticated(both_calls_fail(&app, Some(&expired)).await);
}

async fn a_call_from_a_revoked_session_is_unauthenticated(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app
        .keys
        .member_token(member.id.as_str(), "sid-logged-out", 300);
    let mut client = app.bare_client().await;
    client
        .get_balance(app.authorized(GetBalanceRequest {}, &token))
        .await
        .expect("valid first");

    app.env
        .store
        .set(
            &revocation_key("sid-logged-out"),
            "1",
            Duration::from_secs(900),
        )
        .await
        .unwrap();

    assert_unauthenticated(both_calls_fail(&app, Some(&token)).await);
}

async fn a_token_signed_by_another_key_is_unauthenticated(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let forged = TestKeys::new().member_token(member.id.as_str(), "sid", 300);

    assert_unauthenticated(both_calls_fail(&app, Some(&forged)).await);
}

async fn a_service_token_cannot_read_a_member_record(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let service = app
        .keys
        .sign(TokenKind::Service, member.id.as_str(), "sid", 300);

    for status in both_calls_fail(&app, Some(&service)).await {
        assert_eq!(status.code(), tonic::Code::PermissionDenied);
    }
}

/// Calls the member's profile calls (update, resend, terms) with `token`; all must fail.
async fn profile_calls_fail(app: &TestApp, token: Option<&str>) -> [tonic::Status; 3] {
    let mut client = app.bare_client().await;
    let update = UpdateProfileRequest {
        email: "intruso@correo.cl".into(),
        name: "Intruso".into(),
        last_name: "Intruso".into(),
        ..Default::default()
    };
    let update = client
        .update_profile(request(app, update, token))
        .await
        .unwrap_err();
    let resend = client
        .resend_email_confirmation(request(app, ResendEmailConfirmationRequest {}, token))
        .await
        .unwrap_err();
    let terms = RecordTermsDecisionRequest {
        accepted: false,
        terms_version: "2026-11".into(),
    };
    let terms = client
        .record_terms_decision(request(app, terms, token))
        .await
        .unwrap_err();
    [update, resend, terms]
}

async fn the_profile_calls_refuse_a_call_without_a_member_token_and_change_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    for status in profile_calls_fail(&app, None).await {
        assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");
        assert_eq!(
            ErrorBody::from_status(&status).code,
            ErrorCode::Unauthenticated
        );
    }
    assert_eq!(app.stored(&member.id).await, member);
    assert!(app.mail.sent().is_empty());
}

async fn the_profile_calls_refuse_a_service_token_even_with_a_member_id_as_subject(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let service = app
        .keys
        .sign(TokenKind::Service, member.id.as_str(), "sid", 300);

    for token in [service, app.service_token()] {
        for status in profile_calls_fail(&app, Some(&token)).await {
            assert_eq!(status.code(), tonic::Code::PermissionDenied, "{status:?}");
            assert_eq!(ErrorBody::from_status(&status).code, ErrorCode::Forbidden);
        }
    }
    assert_eq!(app.stored(&member.id).await, member);
    assert!(app.mail.sent().is_empty());
}

backend_tests!(
    a_call_without_a_token_is_unauthenticated,
    a_call_with_an_expired_token_is_unauthenticated,
    a_call_from_a_revoked_session_is_unauthenticated,
    a_token_signed_by_another_key_is_unauthenticated,
    a_service_token_cannot_read_a_member_record,
    the_profile_calls_refuse_a_call_without_a_member_token_and_change_nothing,
    the_profile_calls_refuse_a_service_token_even_with_a_member_id_as_subject,
);
