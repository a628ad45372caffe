//! `GetMember`: a member reads their own record.

use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{GetMemberRequest, TermsDecision};

use crate::support::TestApp;

async fn a_member_reads_their_own_record_with_every_field(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);

    let response = app
        .client()
        .await
        .get_member(app.authorized(GetMemberRequest {}, &token))
        .await
        .expect("get member");

    let got = response.into_inner().member.expect("a member");
    assert_eq!(got.member_id, member.id.as_str());
    assert_eq!(got.document_type, "RUT");
    assert_eq!(got.document_number, member.document.canonical());
    assert_eq!(got.name, "Ana");
    assert_eq!(got.last_name, "González");
    assert_eq!(got.mother_surname, "Pérez");
    assert_eq!(got.phone_number, "+56912345678");
    assert_eq!(got.gender_id, 1);
    assert_eq!(got.birth_date, "1990-05-17");
    assert_eq!(got.email, member.email.as_str());
    assert!(got.email_confirmed);
    let terms = got.terms_agreement.expect("terms");
    assert_eq!(terms.decision(), TermsDecision::Accepted);
    assert_eq!(terms.event_date, "2026-01-10T12:00:00Z");
    assert!(got.has_club_account);
}

async fn a_member_who_never_decided_on_the_terms_and_has_no_account_reads_exactly_that(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let token = app.token(&member.id);

    let got = app
        .client()
        .await
        .get_member(app.authorized(GetMemberRequest {}, &token))
        .await
        .expect("get member")
        .into_inner()
        .member
        .expect("a member");

    let terms = got.terms_agreement.expect("terms");
    assert_eq!(terms.decision(), TermsDecision::Unspecified);
    assert_eq!(terms.event_date, "");
    assert!(!got.has_club_account);
}

async fn a_token_of_a_member_who_does_not_exist_gets_not_found(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let nobody = miclub_accounts::domain::MemberId::generate();

    let status = app
        .client()
        .await
        .get_member(app.authorized(GetMemberRequest {}, &app.token(&nobody)))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::NotFound);
    assert_eq!(ErrorBody::from_status(&status).code, ErrorCode::NotFound);
}

backend_tests!(
    a_member_reads_their_own_record_with_every_field,
    a_member_who_never_decided_on_the_terms_and_has_no_account_reads_exactly_that,
    a_token_of_a_member_who_does_not_exist_gets_not_found,
);
