//! `OpenClubAccount`: a member with a login but no club account joins from Mi Cuenta. One call
//! or many (a retry, a double click, concurrent calls) end with one account, a zero balance, no
//! ledger row and the terms accepted with their version; the member is the token's, never the
//! request's.

use miclub_accounts::domain::{MemberId, TermsDecision as Decision, UnsubscribeChoice};
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::notify::Notice;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    GetBalanceRequest, GetMemberRequest, OpenClubAccountRequest, OpenClubAccountResponse,
    TermsDecision,
};

use crate::support::{TERMS_ACCEPTED_AT, TestApp, count, movement};

fn accepting(version: &str) -> OpenClubAccountRequest {
    OpenClubAccountRequest {
        accept_terms: true,
        terms_version: version.to_owned(),
    }
}

async fn open(
    app: &TestApp,
    member_id: &MemberId,
    request: OpenClubAccountRequest,
) -> Result<OpenClubAccountResponse, tonic::Status> {
    app.client()
        .await
        .open_club_account(app.authorized(request, &app.token(member_id)))
        .await
        .map(|answer| answer.into_inner())
}

async fn a_member_without_an_account_joins_with_a_zero_balance_and_the_terms_accepted(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let before = chrono::Utc::now().timestamp_millis();

    let answer = open(&app, &member.id, accepting("2026-11"))
        .await
        .expect("opened");

    assert!(answer.opened);
    assert_eq!(answer.balance, 0);
    let terms = answer.terms_agreement.expect("terms");
    assert_eq!(terms.decision(), TermsDecision::Accepted);
    let stored = app.stored(&member.id).await.terms.expect("a decision");
    assert_eq!(stored.decision, Decision::Accepted);
    assert_eq!(stored.version.as_deref(), Some("2026-11"));
    assert!(stored.decided_at >= before - 1_000, "{}", stored.decided_at);
    // The balance answers now instead of ERR_NO_CLUB_ACCOUNT, and GetMember says so too.
    let token = app.token(&member.id);
    let mut client = app.client().await;
    let balance = client
        .get_balance(app.authorized(GetBalanceRequest {}, &token))
        .await
        .expect("balance")
        .into_inner();
    assert_eq!(
        (balance.balance, balance.updated_at),
        (0, answer.updated_at)
    );
    let read = client
        .get_member(app.authorized(GetMemberRequest {}, &token))
        .await
        .unwrap()
        .into_inner()
        .member
        .unwrap();
    assert!(read.has_club_account);
    assert_eq!(count(&app.store, "movements").await, 0);
}

async fn a_second_call_opens_nothing_and_keeps_the_first_terms_decision(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let first = open(&app, &member.id, accepting("2026-11")).await.unwrap();
    let decided = app.stored(&member.id).await.terms.unwrap();

    // A retry after a lost answer, or a double click: same answer, nothing written.
    let second = open(&app, &member.id, accepting("2026-12")).await.unwrap();

    assert!(first.opened);
    assert!(!second.opened);
    assert_eq!(
        (second.balance, &second.updated_at, &second.terms_agreement),
        (first.balance, &first.updated_at, &first.terms_agreement)
    );
    assert_eq!(app.stored(&member.id).await.terms.unwrap(), decided);
    assert_eq!(count(&app.store, "club_accounts").await, 1);
    assert_eq!(count(&app.store, "movements").await, 0);
}

async fn concurrent_calls_of_one_member_open_one_account(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;

    let call = || open(&app, &member.id, accepting("2026-11"));
    let (a, b, c, d) = tokio::join!(call(), call(), call(), call());

    let answers: Vec<_> = [a, b, c, d]
        .into_iter()
        .map(|answer| answer.expect("every call answers"))
        .collect();
    assert_eq!(answers.iter().filter(|a| a.opened).count(), 1);
    assert!(answers.iter().all(|a| a.balance == 0));
    assert_eq!(count(&app.store, "club_accounts").await, 1);
    assert_eq!(count(&app.store, "movements").await, 0);
}

async fn a_member_who_already_has_an_account_keeps_balance_and_terms(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let earned = movement(
        &member.id,
        miclub_accounts::domain::MovementKind::Accrual,
        miclub_accounts::domain::MovementStatus::Confirmed,
        2_500,
        "Compra en Lider Providencia",
        TERMS_ACCEPTED_AT,
    );
    app.store
        .record_movement(&earned, TERMS_ACCEPTED_AT)
        .await
        .unwrap();
    let terms_before = app.stored(&member.id).await.terms;

    let answer = open(&app, &member.id, accepting("2099-01")).await.unwrap();

    assert!(!answer.opened);
    assert_eq!(answer.balance, 2_500);
    assert_eq!(app.stored(&member.id).await.terms, terms_before);
    assert_eq!(count(&app.store, "movements").await, 1);
}

async fn joining_without_accepting_the_terms_is_refused_and_writes_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;

    let status = open(
        &app,
        &member.id,
        OpenClubAccountRequest {
            accept_terms: false,
            terms_version: "2026-11".into(),
        },
    )
    .await
    .unwrap_err();

    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let body = ErrorBody::from_status(&status);
    assert_eq!(body.code, ErrorCode::TermsNotAccepted);
    assert_eq!(
        body.message,
        "Debes aceptar los términos y condiciones para unirte a Mi Club."
    );
    assert_eq!(body.field.as_deref(), Some("acceptTermsAndConditions"));
    assert_eq!(count(&app.store, "club_accounts").await, 0);
    assert_eq!(app.stored(&member.id).await.terms, None);
    // An empty version is refused as well: the decision must name what was accepted.
    let status = open(&app, &member.id, accepting("")).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert_eq!(count(&app.store, "club_accounts").await, 0);
}

async fn a_member_unknown_to_accounts_gets_not_found_and_nothing_is_created(env: TestEnv) {
    let app = TestApp::spawn(env).await;

    let status = open(&app, &MemberId::generate(), accepting("2026-11"))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::NotFound);
    assert_eq!(count(&app.store, "club_accounts").await, 0);
}

async fn a_member_who_left_is_told_to_register_again(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let choice = UnsubscribeChoice::new(1, "").unwrap();
    assert!(
        app.store
            .unsubscribe_member(
                &member.id,
                member.email.as_str(),
                &choice,
                &Notice {
                    to: member.email.as_str().to_owned(),
                    subject: "Te diste de baja de Mi Club".to_owned(),
                    body: "Hola".to_owned(),
                },
                TERMS_ACCEPTED_AT
            )
            .await
            .unwrap()
    );

    let status = open(&app, &member.id, accepting("2026-11"))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(
        ErrorBody::from_status(&status).code,
        ErrorCode::MemberUnsubscribed
    );
    assert_eq!(count(&app.store, "club_accounts").await, 0);
}

async fn only_a_member_token_opens_an_account_and_only_its_own(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let other = app.add_member_without_account().await;

    // An internal caller's token is refused: no service joins on a member's behalf.
    let status = app
        .client()
        .await
        .open_club_account(app.authorized(accepting("2026-11"), &app.service_token()))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
    // Without a token (the gateway's service token only): refused too.
    let status = app
        .client()
        .await
        .open_club_account(accepting("2026-11"))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
    assert_eq!(count(&app.store, "club_accounts").await, 0);

    // A member's token opens that member's account and nobody else's.
    open(&app, &member.id, accepting("2026-11")).await.unwrap();
    assert!(app.store.balance(&member.id).await.unwrap().is_some());
    assert!(app.store.balance(&other.id).await.unwrap().is_none());
}

backend_tests!(
    a_member_without_an_account_joins_with_a_zero_balance_and_the_terms_accepted,
    a_second_call_opens_nothing_and_keeps_the_first_terms_decision,
    concurrent_calls_of_one_member_open_one_account,
    a_member_who_already_has_an_account_keeps_balance_and_terms,
    joining_without_accepting_the_terms_is_refused_and_writes_nothing,
    a_member_unknown_to_accounts_gets_not_found_and_nothing_is_created,
    a_member_who_left_is_told_to_register_again,
    only_a_member_token_opens_an_account_and_only_its_own,
);
