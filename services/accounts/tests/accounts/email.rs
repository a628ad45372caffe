//! A new email and its confirmation: the link mailed to the new address, the hand-over to auth
//! before the address counts as confirmed, the links that must not work, the resend limit, and
//! the daily budget of mail of the address typed.

use miclub_accounts::domain::{ConfirmationToken, MAILS_PER_ADDRESS, Member, RESENDS_PER_WINDOW};
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    ConfirmEmailRequest, GetMemberRequest, ResendEmailConfirmationRequest, UpdateProfileRequest,
};
use sqlx::Row;

use crate::support::{PASSWORD, PUBLIC_URL, TestApp, count, link_token};

const NEW_EMAIL: &str = "ana.nueva@correo.cl";

/// The member's current fields with `email` instead.
fn form_with_email(member: &Member, email: &str) -> UpdateProfileRequest {
    UpdateProfileRequest {
        email: email.to_owned(),
        name: member.name.as_str().to_owned(),
        last_name: member.last_name.as_str().to_owned(),
        mother_surname: member
            .mother_surname
            .as_ref()
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default(),
        phone_number: member
            .phone_number
            .as_ref()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default(),
        birth_date: member.birth_date.map(|d| d.iso()).unwrap_or_default(),
        gender_id: member.gender_id.map(|g| g.get()).unwrap_or(0),
        current_password: PASSWORD.into(),
        ..Default::default()
    }
}

/// Changes `member`'s email to `email` over gRPC and answers the token of the link mailed.
async fn change_email(app: &TestApp, member: &Member, email: &str) -> String {
    let answer = app
        .client()
        .await
        .update_profile(app.authorized(form_with_email(member, email), &app.token(&member.id)))
        .await
        .expect("update profile")
        .into_inner();
    assert!(answer.email_confirmation_sent);
    let mail = app.mail.sent().into_iter().next().expect("a mail");
    assert_eq!(mail.to, email);
    link_token(&mail)
}

async fn confirm(app: &TestApp, token: &str) -> Result<String, tonic::Status> {
    app.client()
        .await
        .confirm_email(ConfirmEmailRequest {
            token: token.to_owned(),
        })
        .await
        .map(|answer| answer.into_inner().masked_email)
}

async fn resend(app: &TestApp, member: &Member) -> Result<(), tonic::Status> {
    app.client()
        .await
        .resend_email_confirmation(
            app.authorized(ResendEmailConfirmationRequest {}, &app.token(&member.id)),
        )
        .await
        .map(|_| ())
}

fn assert_confirmation_invalid(result: Result<String, tonic::Status>) {
    let status = result.expect_err("the link must not work");
    assert_eq!(status.code(), tonic::Code::NotFound);
    let body = ErrorBody::from_status(&status);
    assert_eq!(body.code, ErrorCode::ConfirmationInvalid);
    assert_eq!(
        body.message,
        "El enlace de confirmación no es válido o ya expiró. Pide uno nuevo."
    );
}

async fn a_new_email_is_unconfirmed_and_gets_one_mail_with_a_link_to_the_web_app(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let answer = app
        .client()
        .await
        .update_profile(app.authorized(
            form_with_email(&member, " Ana.Nueva@Correo.CL "),
            &app.token(&member.id),
        ))
        .await
        .expect("update profile")
        .into_inner();

    assert!(answer.email_confirmation_sent);
    let got = answer.member.expect("member");
    assert_eq!(got.email, NEW_EMAIL);
    assert!(!got.email_confirmed);
    let stored = app.stored(&member.id).await;
    assert_eq!(stored.email.as_str(), NEW_EMAIL);
    assert!(!stored.email_confirmed);

    let mails = app.mail.sent();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, NEW_EMAIL);
    assert_eq!(
        mails[0].subject,
        "Confirma tu correo electrónico de Mi Club"
    );
    assert!(
        mails[0]
            .body
            .contains(&format!("{PUBLIC_URL}/confirmar-correo?token=")),
        "{}",
        mails[0].body
    );
    assert!(mails[0].body.contains("48 horas"), "{}", mails[0].body);
    let token = link_token(&mails[0]);
    assert!(ConfirmationToken::parse(&token).is_some(), "{token}");
    assert!(
        app.login_emails.handed_over().is_empty(),
        "auth keeps the old address until the member confirms"
    );
}

async fn only_the_sha256_of_a_link_token_is_stored(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = change_email(&app, &member, NEW_EMAIL).await;

    let rows = sqlx::query("SELECT token_hash, email FROM email_confirmations")
        .fetch_all(app.store.database().pool())
        .await
        .unwrap();

    assert_eq!(rows.len(), 1);
    let hash: String = rows[0].get("token_hash");
    assert_eq!(hash, ConfirmationToken::parse(&token).unwrap().digest());
    assert_ne!(hash, token);
    assert_eq!(rows[0].get::<String, _>("email"), NEW_EMAIL);
}

async fn opening_the_link_hands_the_address_to_auth_then_confirms_it(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = change_email(&app, &member, NEW_EMAIL).await;

    let masked = confirm(&app, &token).await.expect("confirmed");

    assert_eq!(masked, "a***@correo.cl");
    assert_eq!(
        app.login_emails.handed_over(),
        [(member.id.as_str().to_owned(), NEW_EMAIL.to_owned())]
    );
    let stored = app.stored(&member.id).await;
    assert_eq!(stored.email.as_str(), NEW_EMAIL);
    assert!(stored.email_confirmed);
}

async fn when_auth_fails_nothing_changes_and_the_same_link_works_afterwards(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = change_email(&app, &member, NEW_EMAIL).await;
    app.login_emails.fail(true);

    let status = confirm(&app, &token).await.expect_err("auth is down");

    assert_eq!(status.code(), tonic::Code::Unavailable);
    assert_eq!(ErrorBody::from_status(&status).code, ErrorCode::Unavailable);
    assert_eq!(app.login_emails.attempts(), 1);
    assert!(!app.stored(&member.id).await.email_confirmed);

    app.login_emails.fail(false);
    confirm(&app, &token)
        .await
        .expect("the same link, now that auth answers");
    assert!(app.stored(&member.id).await.email_confirmed);
    assert_eq!(app.login_emails.handed_over().len(), 1);
}

async fn already_confirmed(app: &TestApp, token: &str) -> Result<bool, tonic::Status> {
    app.client()
        .await
        .confirm_email(ConfirmEmailRequest {
            token: token.to_owned(),
        })
        .await
        .map(|answer| {
            let answer = answer.into_inner();
            assert!(
                !answer.already_confirmed || answer.masked_email.is_empty(),
                "a second open tells no address"
            );
            answer.already_confirmed
        })
}

async fn a_second_open_of_a_used_link_says_already_confirmed_and_does_nothing_again(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = change_email(&app, &member, NEW_EMAIL).await;
    let before = app.mail.sent().len();
    assert!(!already_confirmed(&app, &token).await.expect("first use"));
    app.mail.after(before).await;
    let mails = app.mail.sent().len();
    let restores = count(&app.store, "email_restores").await;

    for _ in 0..2 {
        assert!(already_confirmed(&app, &token).await.expect("second open"));
    }
    assert_eq!(app.login_emails.attempts(), 1, "auth is not asked again");
    assert_eq!(app.mail.sent().len(), mails, "no second notice");
    assert_eq!(count(&app.store, "email_restores").await, restores);
    assert!(app.stored(&member.id).await.email_confirmed);
}

async fn a_used_link_of_an_address_the_member_changed_since_is_invalid(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = change_email(&app, &member, NEW_EMAIL).await;
    confirm(&app, &token).await.expect("first use");
    let member = app.stored(&member.id).await;
    change_email(&app, &member, "ana.otra@correo.cl").await;

    // The old link neither confirms the new address nor says anything about it.
    assert_confirmation_invalid(confirm(&app, &token).await);
    assert!(!app.stored(&member.id).await.email_confirmed);
    assert_eq!(app.login_emails.attempts(), 1);
}

/// What the hourly purge deletes when it runs `days` from now.
async fn purged_after_days(app: &TestApp, days: i64) -> u64 {
    app.store
        .purge_spent_confirmations(now_millis() + days * 86_400_000)
        .await
        .expect("purge")
}

async fn spent_confirmation_links_are_deleted_once_expired_and_the_used_link_of_the_current_address_stays(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    // Stays: the used link of the address the member has now.
    let kept = app.add_member_with_account().await;
    let kept_token = change_email(&app, &kept, NEW_EMAIL).await;
    confirm(&app, &kept_token).await.expect("confirmed");
    // Go: a used link of an address the member changed since, and an unused one.
    let moved = app.add_member_with_account().await;
    let used = change_email(&app, &moved, "bea.uno@correo.cl").await;
    confirm(&app, &used).await.expect("confirmed");
    let moved = app.stored(&moved.id).await;
    let unused = change_email(&app, &moved, "bea.dos@correo.cl").await;
    assert_eq!(count(&app.store, "email_confirmations").await, 3);

    assert_eq!(purged_after_days(&app, 0).await, 0, "none expired yet");
    // The links live 48 hours.
    assert_eq!(purged_after_days(&app, 3).await, 2);
    assert_eq!(count(&app.store, "email_confirmations").await, 1);
    assert!(
        already_confirmed(&app, &kept_token)
            .await
            .expect("still answers"),
        "the kept link answers as before"
    );
    assert_confirmation_invalid(confirm(&app, &used).await);
    assert_confirmation_invalid(confirm(&app, &unused).await);
}

async fn an_expired_link_does_not_work(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = change_email(&app, &member, NEW_EMAIL).await;
    let now = miclub_platform::storage::now_millis();
    sqlx::query("UPDATE email_confirmations SET expires_at = $1")
        .bind(now - 1)
        .execute(app.store.database().pool())
        .await
        .unwrap();

    assert_confirmation_invalid(confirm(&app, &token).await);
    assert!(!app.stored(&member.id).await.email_confirmed);
    assert_eq!(app.login_emails.attempts(), 0);
}

async fn a_link_superseded_by_a_newer_one_does_not_work_and_the_newer_one_does(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let first = change_email(&app, &member, NEW_EMAIL).await;
    resend(&app, &member).await.expect("resend");
    let second = link_token(&app.mail.sent()[0]);
    assert_ne!(first, second);

    assert_confirmation_invalid(confirm(&app, &first).await);
    confirm(&app, &second).await.expect("the newest link");
    assert_eq!(count(&app.store, "email_confirmations").await, 1);
}

async fn changing_the_email_again_voids_the_link_of_the_earlier_one(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let first = change_email(&app, &member, NEW_EMAIL).await;
    let second = change_email(&app, &member, "ana.otra@correo.cl").await;

    assert_confirmation_invalid(confirm(&app, &first).await);
    assert_eq!(app.login_emails.attempts(), 0);
    assert_eq!(
        confirm(&app, &second).await.expect("the current address"),
        "a***@correo.cl"
    );
    assert_eq!(
        app.login_emails.handed_over(),
        [(
            member.id.as_str().to_owned(),
            "ana.otra@correo.cl".to_owned()
        )]
    );
}

async fn a_link_for_an_address_the_member_no_longer_has_does_not_work(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = change_email(&app, &member, NEW_EMAIL).await;
    // Changed by another path than the profile form, which would also have voided the link.
    sqlx::query("UPDATE members SET email = $1 WHERE member_id = $2")
        .bind("ana.otra@correo.cl")
        .bind(member.id.as_str())
        .execute(app.store.database().pool())
        .await
        .unwrap();

    assert_confirmation_invalid(confirm(&app, &token).await);
    assert_eq!(app.login_emails.attempts(), 0);
    assert!(!app.stored(&member.id).await.email_confirmed);
}

async fn a_token_nobody_issued_does_not_work(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    change_email(&app, &member, NEW_EMAIL).await;

    for token in [
        String::new(),
        "not-a-token".into(),
        ConfirmationToken::generate().as_str().to_owned(),
    ] {
        assert_confirmation_invalid(confirm(&app, &token).await);
    }
    assert!(!app.stored(&member.id).await.email_confirmed);
}

async fn keeping_the_same_email_keeps_it_confirmed_and_sends_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let answer = app
        .client()
        .await
        .update_profile(app.authorized(
            form_with_email(&member, &member.email.as_str().to_uppercase()),
            &app.token(&member.id),
        ))
        .await
        .expect("update")
        .into_inner();

    assert!(!answer.email_confirmation_sent);
    assert!(answer.member.unwrap().email_confirmed);
    assert!(app.mail.sent().is_empty());
    assert_eq!(count(&app.store, "email_confirmations").await, 0);
}

async fn when_the_mail_cannot_be_sent_the_new_email_still_stands_and_a_resend_delivers(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    app.mail.fail(true);

    let answer = app
        .client()
        .await
        .update_profile(app.authorized(form_with_email(&member, NEW_EMAIL), &app.token(&member.id)))
        .await
        .expect("the change is kept")
        .into_inner();

    assert!(!answer.email_confirmation_sent);
    assert_eq!(app.stored(&member.id).await.email.as_str(), NEW_EMAIL);
    assert!(app.mail.sent().is_empty());

    app.mail.fail(false);
    resend(&app, &member).await.expect("resend");
    let token = link_token(&app.mail.sent()[0]);
    confirm(&app, &token).await.expect("confirmed");
    assert!(app.stored(&member.id).await.email_confirmed);
}

async fn a_resend_for_a_confirmed_email_is_refused(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let status = resend(&app, &member).await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(
        ErrorBody::from_status(&status).code,
        ErrorCode::EmailAlreadyConfirmed
    );
    assert!(app.mail.sent().is_empty());
}

async fn a_member_gets_at_most_five_confirmation_links_per_hour_the_change_included(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    change_email(&app, &member, NEW_EMAIL).await;

    for _ in 0..4 {
        resend(&app, &member).await.expect("within the limit");
    }
    let status = resend(&app, &member).await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::ResourceExhausted);
    assert_eq!(
        ErrorBody::from_status(&status).code,
        ErrorCode::TooManyAttempts
    );
    assert_eq!(
        app.mail.sent().len(),
        5,
        "the change's mail and four resends"
    );
    assert!(app.mail.sent().iter().all(|mail| mail.to == NEW_EMAIL));

    let other = app.add_member_with_account().await;
    change_email(&app, &other, "otra.persona@correo.cl").await;
    resend(&app, &other).await.expect("the limit is per member");
}

async fn changing_the_email_over_and_over_cannot_flood_mailboxes(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    for n in 0..5 {
        change_email(&app, &member, &format!("intento{n}@correo.cl")).await;
    }
    let status = app
        .client()
        .await
        .update_profile(app.authorized(
            form_with_email(&member, "victima@correo.cl"),
            &app.token(&member.id),
        ))
        .await
        .unwrap_err();

    assert_eq!(
        ErrorBody::from_status(&status).code,
        ErrorCode::TooManyAttempts
    );
    assert_eq!(app.mail.sent().len(), 5);
    assert!(
        app.mail
            .sent()
            .iter()
            .all(|mail| mail.to != "victima@correo.cl")
    );
    let stored = app
        .client()
        .await
        .get_member(app.authorized(GetMemberRequest {}, &app.token(&member.id)))
        .await
        .unwrap()
        .into_inner()
        .member
        .unwrap();
    assert_eq!(
        stored.email, "intento4@correo.cl",
        "the refused change changed nothing"
    );
}

async fn members_changing_to_one_address_send_it_no_more_than_its_daily_budget(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let victim = "victima@correo.cl";
    // Two accounts spend the address's budget within their own hourly limits: the first one's
    // change and resends are links, the second one's are in-use notices (the first holds it).
    for _ in 0..2 {
        let member = app.add_member_with_account().await;
        let answer = app
            .client()
            .await
            .update_profile(
                app.authorized(form_with_email(&member, victim), &app.token(&member.id)),
            )
            .await
            .expect("update profile")
            .into_inner();
        assert!(answer.email_confirmation_sent);
        for _ in 1..RESENDS_PER_WINDOW {
            resend(&app, &member)
                .await
                .expect("within the member's limit");
        }
    }
    assert_eq!(app.mail.sent().len() as i64, MAILS_PER_ADDRESS);

    // A third account: the change stands, unconfirmed, and is answered as a mail that could not
    // be sent, whether or not the address is in use; nothing leaves.
    let third = app.add_member_with_account().await;
    let answer = app
        .client()
        .await
        .update_profile(app.authorized(form_with_email(&third, victim), &app.token(&third.id)))
        .await
        .expect("the change stands")
        .into_inner();
    assert!(!answer.email_confirmation_sent);
    assert!(!app.stored(&third.id).await.email_confirmed);
    assert_eq!(app.mail.sent().len() as i64, MAILS_PER_ADDRESS);
    let refused = resend(&app, &third).await.unwrap_err();
    assert_eq!(
        ErrorBody::from_status(&refused).code,
        ErrorCode::TooManyAttempts
    );
    assert_eq!(app.mail.sent().len() as i64, MAILS_PER_ADDRESS);
}

backend_tests!(
    a_new_email_is_unconfirmed_and_gets_one_mail_with_a_link_to_the_web_app,
    only_the_sha256_of_a_link_token_is_stored,
    opening_the_link_hands_the_address_to_auth_then_confirms_it,
    when_auth_fails_nothing_changes_and_the_same_link_works_afterwards,
    a_second_open_of_a_used_link_says_already_confirmed_and_does_nothing_again,
    a_used_link_of_an_address_the_member_changed_since_is_invalid,
    an_expired_link_does_not_work,
    spent_confirmation_links_are_deleted_once_expired_and_the_used_link_of_the_current_address_stays,
    a_link_superseded_by_a_newer_one_does_not_work_and_the_newer_one_does,
    changing_the_email_again_voids_the_link_of_the_earlier_one,
    a_link_for_an_address_the_member_no_longer_has_does_not_work,
    a_token_nobody_issued_does_not_work,
    keeping_the_same_email_keeps_it_confirmed_and_sends_nothing,
    when_the_mail_cannot_be_sent_the_new_email_still_stands_and_a_resend_delivers,
    a_resend_for_a_confirmed_email_is_refused,
    a_member_gets_at_most_five_confirmation_links_per_hour_the_change_included,
    changing_the_email_over_and_over_cannot_flood_mailboxes,
    members_changing_to_one_address_send_it_no_more_than_its_daily_budget,
);

/// Auth's side of `SetLoginEmail` and `IssueServiceToken` as a stand-in gRPC server, to check
/// what [`miclub_accounts::GrpcLoginEmails`] really sends.
mod over_grpc {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use miclub_accounts::domain::{Email, MemberId};
    use miclub_accounts::{GrpcLoginEmails, LoginEmails};
    use miclub_platform::error::{ErrorBody, ErrorCode, ServiceError};
    use miclub_platform::grpc::ClientSettings;
    use miclub_platform::shutdown::ShutdownTrigger;
    use miclub_platform::tokens::{ServiceCredentials, ServiceTokens, bearer};
    use miclub_proto::auth::v1 as auth;
    use miclub_proto::auth::v1::auth_service_server::{AuthService, AuthServiceServer};
    use tonic::{Request, Response, Status};

    const SERVICE_TOKEN: &str = "service-token-of-accounts";

    #[derive(Debug, Default)]
    struct Seen {
        /// `(member_id, email, bearer token)` of each `SetLoginEmail`.
        set: Mutex<Vec<(String, String, Option<String>)>>,
        /// `(member_id, bearer token)` of each `DisableCredentials`.
        disabled: Mutex<Vec<(String, Option<String>, i64)>>,
        /// `(member_id, bearer token)` of each `EndSessions`.
        ended: Mutex<Vec<(String, Option<String>)>>,
        refuse: AtomicBool,
    }

    #[derive(Debug, Clone)]
    struct StandInAuth(Arc<Seen>);

    fn not_here<T>() -> Result<Response<T>, Status> {
        Err(Status::unimplemented("not part of the stand-in"))
    }

    #[tonic::async_trait]
    impl AuthService for StandInAuth {
        async fn start_password_reset(
            &self,
            _: Request<auth::StartPasswordResetRequest>,
        ) -> Result<Response<auth::StartPasswordResetResponse>, Status> {
            not_here()
        }
        async fn resend_password_reset(
            &self,
            _: Request<auth::ResendPasswordResetRequest>,
        ) -> Result<Response<auth::ResendPasswordResetResponse>, Status> {
            not_here()
        }
        async fn complete_password_reset(
            &self,
            _: Request<auth::CompletePasswordResetRequest>,
        ) -> Result<Response<auth::CompletePasswordResetResponse>, Status> {
            not_here()
        }
        async fn start_login(
            &self,
            _: Request<auth::StartLoginRequest>,
        ) -> Result<Response<auth::StartLoginResponse>, Status> {
            not_here()
        }
        async fn resend_otp(
            &self,
            _: Request<auth::ResendOtpRequest>,
        ) -> Result<Response<auth::ResendOtpResponse>, Status> {
            not_here()
        }
        async fn verify_otp(
            &self,
            _: Request<auth::VerifyOtpRequest>,
        ) -> Result<Response<auth::VerifyOtpResponse>, Status> {
            not_here()
        }
        async fn list_sessions(
            &self,
            _: Request<auth::ListSessionsRequest>,
        ) -> Result<Response<auth::ListSessionsResponse>, Status> {
            not_here()
        }
        async fn end_session(
            &self,
            _: Request<auth::EndSessionRequest>,
        ) -> Result<Response<auth::EndSessionResponse>, Status> {
            not_here()
        }
        async fn end_other_sessions(
            &self,
            _: Request<auth::EndOtherSessionsRequest>,
        ) -> Result<Response<auth::EndOtherSessionsResponse>, Status> {
            not_here()
        }
        async fn list_security_events(
            &self,
            _: Request<auth::ListSecurityEventsRequest>,
        ) -> Result<Response<auth::ListSecurityEventsResponse>, Status> {
            not_here()
        }
        async fn refresh_session(
            &self,
            _: Request<auth::RefreshSessionRequest>,
        ) -> Result<Response<auth::RefreshSessionResponse>, Status> {
            not_here()
        }
        async fn logout(
            &self,
            _: Request<auth::LogoutRequest>,
        ) -> Result<Response<auth::LogoutResponse>, Status> {
            not_here()
        }
        async fn get_jwks(
            &self,
            _: Request<auth::GetJwksRequest>,
        ) -> Result<Response<auth::GetJwksResponse>, Status> {
            not_here()
        }
        async fn change_password(
            &self,
            _: Request<auth::ChangePasswordRequest>,
        ) -> Result<Response<auth::ChangePasswordResponse>, Status> {
            not_here()
        }
        async fn issue_service_token(
            &self,
            request: Request<auth::IssueServiceTokenRequest>,
        ) -> Result<Response<auth::IssueServiceTokenResponse>, Status> {
            let request = request.into_inner();
            if (request.client_id.as_str(), request.client_secret.as_str())
                != ("accounts", "s3cret")
            {
                return Err(Status::unauthenticated("bad client credentials"));
            }
            Ok(Response::new(auth::IssueServiceTokenResponse {
                access_token: SERVICE_TOKEN.into(),
                expires_in_seconds: 300,
            }))
        }
        /// As the proto says: the password "right" passes, a throttled caller gets
        /// RESOURCE_EXHAUSTED with a wait, anything else ERR_WRONG_PASSWORD on currentPassword.
        async fn verify_password(
            &self,
            request: Request<auth::VerifyPasswordRequest>,
        ) -> Result<Response<auth::VerifyPasswordResponse>, Status> {
            if self.0.refuse.load(Ordering::SeqCst) {
                return Err(Status::unavailable("auth database down"));
            }
            let request = request.into_inner();
            if request.client_ip == "throttled" {
                return Err(ErrorBody::new(ErrorCode::TooManyAttempts)
                    .with_retry_after(Duration::from_secs(4))
                    .into_status());
            }
            if request.password != "right" {
                return Err(ErrorBody::new(ErrorCode::WrongPassword)
                    .with_field("currentPassword")
                    .into_status());
            }
            Ok(Response::new(auth::VerifyPasswordResponse {}))
        }

        async fn end_sessions(
            &self,
            request: Request<auth::EndSessionsRequest>,
        ) -> Result<Response<auth::EndSessionsResponse>, Status> {
            if self.0.refuse.load(Ordering::SeqCst) {
                return Err(Status::unavailable("auth database down"));
            }
            let token = bearer(request.metadata()).map(str::to_owned);
            self.0
                .ended
                .lock()
                .unwrap()
                .push((request.into_inner().member_id, token));
            Ok(Response::new(auth::EndSessionsResponse {
                revoked_sessions: 3,
            }))
        }

        async fn set_login_email(
            &self,
            request: Request<auth::SetLoginEmailRequest>,
        ) -> Result<Response<auth::SetLoginEmailResponse>, Status> {
            if self.0.refuse.load(Ordering::SeqCst) {
                return Err(Status::unavailable("auth database down"));
            }
            let token = bearer(request.metadata()).map(str::to_owned);
            let request = request.into_inner();
            self.0
                .set
                .lock()
                .unwrap()
                .push((request.member_id, request.email, token));
            Ok(Response::new(auth::SetLoginEmailResponse {}))
        }
        async fn check_password_rules(
            &self,
            _: Request<auth::CheckPasswordRulesRequest>,
        ) -> Result<Response<auth::CheckPasswordRulesResponse>, Status> {
            not_here()
        }
        async fn create_credentials(
            &self,
            _: Request<auth::CreateCredentialsRequest>,
        ) -> Result<Response<auth::CreateCredentialsResponse>, Status> {
            not_here()
        }
        async fn disable_credentials(
            &self,
            request: Request<auth::DisableCredentialsRequest>,
        ) -> Result<Response<auth::DisableCredentialsResponse>, Status> {
            if self.0.refuse.load(Ordering::SeqCst) {
                return Err(Status::unavailable("auth database down"));
            }
            let token = bearer(request.metadata()).map(str::to_owned);
            let request = request.into_inner();
            self.0.disabled.lock().unwrap().push((
                request.member_id,
                token,
                request.unsubscribed_at_millis,
            ));
            Ok(Response::new(auth::DisableCredentialsResponse {
                revoked_sessions: 2,
            }))
        }
    }

    async fn spawn_auth(seen: Arc<Seen>) -> (ClientSettings, ShutdownTrigger) {
        let (port, trigger) = miclub_platform::testing::serve_port(
            &Default::default(),
            |routes| routes.add_service(AuthServiceServer::new(StandInAuth(seen))),
            Arc::new(miclub_platform::testing::AdmitAll),
        )
        .await;
        (
            ClientSettings::for_url(format!("http://127.0.0.1:{port}")),
            trigger,
        )
    }

    fn login_emails(auth: &ClientSettings, secret: &str) -> GrpcLoginEmails {
        let credentials = ServiceCredentials {
            client_id: "accounts".into(),
            client_secret: secret.into(),
        };
        let tokens = ServiceTokens::new(auth.channel().unwrap(), credentials);
        GrpcLoginEmails::new(auth.channel().unwrap(), Arc::new(tokens))
    }

    #[tokio::test]
    async fn the_hand_over_calls_set_login_email_with_a_service_token_of_accounts() {
        let seen = Arc::new(Seen::default());
        let (auth, _running) = spawn_auth(seen.clone()).await;
        let member_id = MemberId::generate();

        login_emails(&auth, "s3cret")
            .set(&member_id, &Email::parse("ana.nueva@correo.cl").unwrap())
            .await
            .expect("handed over");

        assert_eq!(
            *seen.set.lock().unwrap(),
            [(
                member_id.as_str().to_owned(),
                "ana.nueva@correo.cl".to_owned(),
                Some(SERVICE_TOKEN.to_owned())
            )]
        );
    }

    #[tokio::test]
    async fn any_refusal_of_auth_is_unavailable_to_the_member() {
        let seen = Arc::new(Seen::default());
        let (auth, _running) = spawn_auth(seen.clone()).await;
        let email = Email::parse("ana.nueva@correo.cl").unwrap();

        let wrong_secret = login_emails(&auth, "not-the-secret")
            .set(&MemberId::generate(), &email)
            .await
            .unwrap_err();
        seen.refuse.store(true, Ordering::SeqCst);
        let auth_down = login_emails(&auth, "s3cret")
            .set(&MemberId::generate(), &email)
            .await
            .unwrap_err();

        for err in [wrong_secret, auth_down] {
            assert_eq!(err.code(), ErrorCode::Unavailable, "{err}");
        }
        assert!(seen.set.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn disabling_calls_disable_credentials_with_a_service_token_of_accounts() {
        let seen = Arc::new(Seen::default());
        let (auth, _running) = spawn_auth(seen.clone()).await;
        let member_id = MemberId::generate();

        login_emails(&auth, "s3cret")
            .disable_credentials(&member_id, 1_763_700_000_000)
            .await
            .expect("disabled");
        seen.refuse.store(true, Ordering::SeqCst);
        let auth_down = login_emails(&auth, "s3cret")
            .disable_credentials(&MemberId::generate(), 1_763_700_000_000)
            .await
            .unwrap_err();

        assert_eq!(
            *seen.disabled.lock().unwrap(),
            [(
                member_id.as_str().to_owned(),
                Some(SERVICE_TOKEN.to_owned()),
                1_763_700_000_000
            )]
        );
        assert_eq!(auth_down.code(), ErrorCode::Unavailable);
    }

    #[tokio::test]
    async fn auths_refusals_of_a_step_up_password_pass_through_unchanged() {
        let seen = Arc::new(Seen::default());
        let (auth, _running) = spawn_auth(seen.clone()).await;
        let port = login_emails(&auth, "s3cret");
        let member_id = MemberId::generate();

        port.verify_password(&member_id, "right", "198.51.100.1")
            .await
            .expect("the right password");
        let wrong = port
            .verify_password(&member_id, "wrong", "198.51.100.1")
            .await
            .unwrap_err()
            .body();
        let throttled = port
            .verify_password(&member_id, "right", "throttled")
            .await
            .unwrap_err()
            .body();
        seen.refuse.store(true, Ordering::SeqCst);
        let down = port
            .verify_password(&member_id, "right", "198.51.100.1")
            .await
            .unwrap_err();

        assert_eq!(wrong.code, ErrorCode::WrongPassword);
        assert_eq!(wrong.field.as_deref(), Some("currentPassword"));
        assert_eq!(wrong.message, "La contraseña actual no es correcta.");
        assert_eq!(throttled.code, ErrorCode::TooManyAttempts);
        assert_eq!(throttled.retry_after_secs, Some(4));
        assert_eq!(down.code(), ErrorCode::Unavailable, "fails closed");
    }

    #[tokio::test]
    async fn ending_sessions_calls_end_sessions_with_a_service_token_of_accounts() {
        let seen = Arc::new(Seen::default());
        let (auth, _running) = spawn_auth(seen.clone()).await;
        let member_id = MemberId::generate();

        let revoked = login_emails(&auth, "s3cret")
            .end_sessions(&member_id)
            .await
            .expect("ended");

        assert_eq!(revoked, 3);
        assert_eq!(
            *seen.ended.lock().unwrap(),
            [(
                member_id.as_str().to_owned(),
                Some(SERVICE_TOKEN.to_owned())
            )]
        );
    }
}
