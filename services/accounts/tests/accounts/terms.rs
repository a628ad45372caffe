//! `RecordTermsDecision`: the member accepts or rejects a version of the terms; the decision,
//! the version and the instant are kept.

use miclub_accounts::domain::{MemberId, TermsDecision as Decision};
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{GetMemberRequest, RecordTermsDecisionRequest, TermsDecision};

use crate::support::TestApp;

async fn decide(
    app: &TestApp,
    member_id: &MemberId,
    accepted: bool,
    version: &str,
) -> Result<miclub_proto::accounts::v1::TermsAgreement, tonic::Status> {
    app.client()
        .await
        .record_terms_decision(app.authorized(
            RecordTermsDecisionRequest {
                accepted,
                terms_version: version.to_owned(),
            },
            &app.token(member_id),
        ))
        .await
        .map(|answer| answer.into_inner().terms_agreement.expect("agreement"))
}

fn rfc3339_millis(raw: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(raw)
        .unwrap_or_else(|err| panic!("{raw:?}: {err}"))
        .timestamp_millis()
}

async fn an_acceptance_is_recorded_with_its_version_and_the_instant(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let before = chrono::Utc::now().timestamp_millis();

    let agreement = decide(&app, &member.id, true, "2026-11")
        .await
        .expect("recorded");

    let after = chrono::Utc::now().timestamp_millis();
    assert_eq!(agreement.decision(), TermsDecision::Accepted);
    assert_eq!(agreement.version, "2026-11", "the answer names the version");
    let at = rfc3339_millis(&agreement.event_date);
    assert!((before - 1_000..=after + 1_000).contains(&at), "{at}");
    let stored = app.stored(&member.id).await.terms.expect("a decision");
    assert_eq!(stored.decision, Decision::Accepted);
    assert_eq!(stored.version.as_deref(), Some("2026-11"));
    assert_eq!(at, stored.decided_at - stored.decided_at.rem_euclid(1_000));

    let read = app
        .client()
        .await
        .get_member(app.authorized(GetMemberRequest {}, &app.token(&member.id)))
        .await
        .expect("get member")
        .into_inner()
        .member
        .expect("member")
        .terms_agreement
        .expect("terms");
    assert_eq!(read, agreement);
}

async fn a_rejection_replaces_an_earlier_acceptance(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    assert_eq!(
        member.terms.as_ref().map(|t| t.decision),
        Some(Decision::Accepted)
    );

    let agreement = decide(&app, &member.id, false, "2026-11")
        .await
        .expect("recorded");

    assert_eq!(agreement.decision(), TermsDecision::Rejected);
    let stored = app.stored(&member.id).await.terms.expect("a decision");
    assert_eq!(stored.decision, Decision::Rejected);
    assert_eq!(stored.version.as_deref(), Some("2026-11"));
    assert!(stored.decided_at > member.terms.unwrap().decided_at);
}

async fn a_decision_without_a_version_or_with_an_oversized_one_is_refused(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;

    for version in ["".to_owned(), "   ".to_owned(), "v".repeat(41)] {
        let status = decide(&app, &member.id, true, &version)
            .await
            .expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{version:?}");
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some("terms_version"));
    }
    assert_eq!(app.stored(&member.id).await.terms, None);
    decide(&app, &member.id, true, &"v".repeat(40))
        .await
        .expect("forty characters are fine");
}

async fn a_decision_for_a_member_who_does_not_exist_is_not_found(env: TestEnv) {
    let app = TestApp::spawn(env).await;

    let status = decide(&app, &MemberId::generate(), true, "2026-11")
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::NotFound);
}

backend_tests!(
    an_acceptance_is_recorded_with_its_version_and_the_instant,
    a_rejection_replaces_an_earlier_acceptance,
    a_decision_without_a_version_or_with_an_oversized_one_is_refused,
    a_decision_for_a_member_who_does_not_exist_is_not_found,
);
