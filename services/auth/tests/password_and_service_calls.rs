//! The calls added for profile and internal callers, over gRPC against the real
//! `Application`: ChangePassword (rules, limits, every session revoked), IssueServiceToken (the
//! client-credentials grant) and SetLoginEmail (where codes go). Scenarios that store anything
//! run on PostgreSQL + Redis and on SQLite + memory.

mod support;

use std::sync::Arc;

use miclub_platform::backend_tests;
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::error::ErrorCode;
use miclub_platform::grpc::ClientSettings;
use miclub_platform::notify::{DevMailbox, Notifier, Outgoing, QueuedNotifier};
use miclub_platform::storage::Database;
use miclub_platform::testing::{TestEnv, mail_outbox, mail_outbox_tried};
use miclub_platform::tokens::{
    MAX_ACCESS_TTL, ServiceCredentials, ServiceTokens, TokenKind, VerifyError,
};
use support::{
    SERVICE_CLIENT, SERVICE_SECRET, TestApp, ana, bruno, carla, spawn_app, spawn_app_mailing,
    spawn_app_with,
};

const NEW_PASSWORD: &str = "Vicuña en el Altiplano";
const WEAK: ErrorCode = ErrorCode::WeakPassword;

/// Ana's access token of a fresh session.
async fn ana_token(app: &TestApp) -> String {
    app.login(ana()).await.session.unwrap().access_token
}

async fn a_password_change_revokes_every_session_of_the_member(env: TestEnv) {
    let app = spawn_app(env).await;
    let first = app.login(ana()).await.session.unwrap();
    let second = app.login(ana()).await.session.unwrap();
    let someone_else = app.login(bruno()).await.session.unwrap();
    let verifier = app.verifier().await;
    assert!(verifier.verify(&second.access_token).await.is_ok());

    let changed = app
        .change_password(&first.access_token, DEMO_PASSWORD, NEW_PASSWORD)
        .await
        .unwrap();
    assert_eq!(changed.revoked_sessions, 2);

    for session in [&first, &second] {
        app.assert_session_over(&verifier, session).await;
    }
    // Another member's session is untouched.
    assert!(verifier.verify(&someone_else.access_token).await.is_ok());
    assert!(app.refresh(&someone_else.refresh_token).await.is_ok());

    let notice = app.notice(CHANGED).await;
    assert_eq!(notice.to, ana().email);
    assert!(notice.body.contains("(hora de Chile)"), "{}", notice.body);
    assert!(notice.body.contains("Si no fuiste tú"), "{}", notice.body);
    assert_eq!(notice.code, None);
}

async fn the_new_password_logs_in_and_the_old_one_does_not(env: TestEnv) {
    let app = spawn_app(env).await;
    let token = ana_token(&app).await;
    app.change_password(&token, DEMO_PASSWORD, NEW_PASSWORD)
        .await
        .unwrap();
    let old = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap_err();
    assert_eq!(old.code, ErrorCode::InvalidCredentials);
    let done = app
        .login_with(ana(), NEW_PASSWORD, ana().email)
        .await
        .unwrap();
    assert_eq!(done.member_id, ana().member_id);
    let verifier = app.verifier().await;
    assert!(
        verifier
            .verify(&done.session.unwrap().access_token)
            .await
            .is_ok()
    );
}

/// Subject of the notice of a changed password.
const CHANGED: &str = "Tu contraseña de Mi Club fue cambiada";

/// Delivers to the dev mailbox, except the password-change notice, which fails.
#[derive(Debug)]
struct NoticeFails(Arc<DevMailbox>);

#[async_trait::async_trait]
impl Notifier for NoticeFails {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        if message.subject == CHANGED {
            anyhow::bail!("smtp down");
        }
        self.0.send(message).await
    }
}

async fn a_password_change_stands_when_the_notice_cannot_be_sent(env: TestEnv) {
    let app = spawn_app_mailing(env, |_| {}, |mailbox| Arc::new(NoticeFails(mailbox))).await;
    let session = app.login(ana()).await.session.unwrap();
    let changed = app
        .change_password(&session.access_token, DEMO_PASSWORD, NEW_PASSWORD)
        .await
        .unwrap();
    assert_eq!(changed.revoked_sessions, 1);
    assert_eq!(
        app.verifier()
            .await
            .verify(&session.access_token)
            .await
            .unwrap_err(),
        VerifyError::Revoked
    );
    assert!(
        app.login_with(ana(), NEW_PASSWORD, ana().email)
            .await
            .is_ok()
    );
}

async fn the_notice_is_sent_by_the_next_auth_when_the_relay_was_down_until_this_one_stopped(
    env: TestEnv,
) {
    // Production's wiring: the codes go through the queue, which would take the notice at once;
    // the outbox's relay sends it past the queue and knows it failed.
    let app = spawn_app_mailing(
        env,
        |_| {},
        |mailbox| QueuedNotifier::spawn(Arc::new(NoticeFails(mailbox)), 16),
    )
    .await;
    let token = ana_token(&app).await;
    app.change_password(&token, DEMO_PASSWORD, NEW_PASSWORD)
        .await
        .unwrap();
    let db = Database::connect(&app.env.database).await.unwrap();
    mail_outbox_tried(&db, CHANGED).await;
    db.close().await;

    // A rollout (or a crash) ends this auth before the mail relay is back: the notice is in
    // the database, not in a queue that ends with the process.
    let next = spawn_app(app.stopped().await).await;

    let notice = next.notice(CHANGED).await;
    assert_eq!(notice.to, ana().email);
    let db = Database::connect(&next.env.database).await.unwrap();
    assert_eq!(mail_outbox(&db).await, [], "nothing more is due");
    db.close().await;
}

async fn a_wrong_current_password_is_refused_on_its_field_and_changes_nothing(env: TestEnv) {
    let app = spawn_app(env).await;
    let token = ana_token(&app).await;
    let wrong = app
        .change_password(&token, "NoEsLaClave1", NEW_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(wrong.code, ErrorCode::WrongPassword);
    assert_eq!(wrong.field.as_deref(), Some("currentPassword"));
    assert_eq!(wrong.message, "La contraseña actual no es correcta.");
    let empty = app
        .change_password(&token, "", NEW_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(empty.code, ErrorCode::InvalidArgument);
    assert_eq!(empty.field.as_deref(), Some("currentPassword"));

    assert!(app.verifier().await.verify(&token).await.is_ok());
    assert!(app.start_login(ana().rut, DEMO_PASSWORD).await.is_ok());
    assert_eq!(app.mails_to(ana().email), 2, "two codes and no notice");
}

async fn each_weak_password_is_refused_with_the_rule_it_breaks(env: TestEnv) {
    let app = spawn_app(env).await;
    let token = ana_token(&app).await;
    for (new, message) in [
        ("", "La contraseña debe tener al menos 8 caracteres."),
        ("ñandú12", "La contraseña debe tener al menos 8 caracteres."),
        (
            &"x".repeat(65) as &str,
            "La contraseña puede tener hasta 64 caracteres.",
        ),
        (
            "iloveyou",
            "Esa contraseña es muy común. Elige otra más difícil de adivinar.",
        ),
        (
            DEMO_PASSWORD,
            "La nueva contraseña debe ser distinta de la actual.",
        ),
    ] {
        let refused = app
            .change_password(&token, DEMO_PASSWORD, new)
            .await
            .unwrap_err();
        assert_eq!(refused.code, WEAK, "{new:?}");
        assert_eq!(refused.field.as_deref(), Some("newPassword"), "{new:?}");
        assert_eq!(refused.message, message, "{new:?}");
    }
    // Nothing changed: the session lives and the demo password still logs in.
    assert!(app.verifier().await.verify(&token).await.is_ok());
    assert!(app.start_login(ana().rut, DEMO_PASSWORD).await.is_ok());
}

async fn sixty_four_characters_are_accepted_and_sixty_five_refused(env: TestEnv) {
    let app = spawn_app(env).await;
    // Accented letters: 64 characters are more than 64 bytes, and still allowed.
    let sixty_four: String = "ñandú-Atacama-".chars().cycle().take(64).collect();
    assert!(sixty_four.len() > 64);
    let sixty_five = format!("{sixty_four}z");
    let token = ana_token(&app).await;
    let refused = app
        .change_password(&token, DEMO_PASSWORD, &sixty_five)
        .await
        .unwrap_err();
    assert_eq!(refused.code, WEAK);
    assert_eq!(
        refused.message,
        "La contraseña puede tener hasta 64 caracteres."
    );
    app.change_password(&token, DEMO_PASSWORD, &sixty_four)
        .await
        .unwrap();
    assert!(
        app.login_with(ana(), &sixty_four, ana().email)
            .await
            .is_ok()
    );
}

async fn a_common_password_is_refused_whatever_its_case(env: TestEnv) {
    let app = spawn_app(env).await;
    let token = ana_token(&app).await;
    for common in [
        "password1",
        "PASSWORD1",
        "PassWord1",
        "qwerty123",
        "ColoColo",
    ] {
        let refused = app
            .change_password(&token, DEMO_PASSWORD, common)
            .await
            .unwrap_err();
        assert_eq!(refused.code, WEAK, "{common}");
        assert_eq!(
            refused.message, "Esa contraseña es muy común. Elige otra más difícil de adivinar.",
            "{common}"
        );
    }
}

async fn wrong_current_passwords_are_throttled_per_member_and_address(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.first_delay_secs = 30).await;
    let token = ana_token(&app).await;
    let free = app.settings.policy.free_failures;
    assert_eq!(free, 3);
    for i in 0..free {
        let wrong = app
            .change_password(&token, &format!("equivocada-{i}"), NEW_PASSWORD)
            .await
            .unwrap_err();
        assert_eq!(wrong.code, ErrorCode::WrongPassword);
    }
    // The pair now waits: even the right password is refused, with the wait.
    let limited = app
        .change_password(&token, DEMO_PASSWORD, NEW_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(limited.code, ErrorCode::TooManyAttempts);
    assert_eq!(limited.retry_after_secs, Some(30));
    assert!(app.verifier().await.verify(&token).await.is_ok());
    // Another member is not limited.
    let other = app.login(bruno()).await.session.unwrap().access_token;
    assert!(
        app.change_password(&other, DEMO_PASSWORD, NEW_PASSWORD)
            .await
            .is_ok()
    );
    // Nor is the same member from another address.
    assert!(
        app.change_password_from(&token, DEMO_PASSWORD, NEW_PASSWORD, "198.51.100.9")
            .await
            .is_ok()
    );
}

async fn a_right_current_password_clears_the_wrong_tries(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.free_failures = 5).await;
    let token = ana_token(&app).await;
    for _ in 0..4 {
        app.change_password(&token, "equivocada", NEW_PASSWORD)
            .await
            .unwrap_err();
    }
    // Right current password, refused for another reason: the count starts again.
    let same = app
        .change_password(&token, DEMO_PASSWORD, DEMO_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(same.code, WEAK);
    for _ in 0..4 {
        let wrong = app
            .change_password(&token, "equivocada", NEW_PASSWORD)
            .await
            .unwrap_err();
        assert_eq!(wrong.code, ErrorCode::WrongPassword);
    }
    assert!(
        app.change_password(&token, DEMO_PASSWORD, NEW_PASSWORD)
            .await
            .is_ok()
    );
}

async fn only_a_live_member_session_can_change_a_password(env: TestEnv) {
    let app = spawn_app(env).await;
    let service = app.service_token().await;
    let forbidden = app
        .change_password(&service, DEMO_PASSWORD, NEW_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(forbidden.code, ErrorCode::Forbidden);
    assert_eq!(
        app.change_password("", DEMO_PASSWORD, NEW_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::Unauthenticated
    );
    // A session that logged out is revoked for auth too.
    let token = ana_token(&app).await;
    app.logout(&token).await.unwrap();
    assert_eq!(
        app.change_password(&token, DEMO_PASSWORD, NEW_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::Unauthenticated
    );
    assert!(app.start_login(ana().rut, DEMO_PASSWORD).await.is_ok());
}

async fn a_login_waiting_for_its_code_when_the_password_changes_cannot_complete(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.resend_cooldown_secs = 0).await;
    // Someone with the old password is at the code step...
    let (pending, code) = app.password_step(ana()).await;
    // ...when the member changes it.
    let token = ana_token(&app).await;
    app.change_password(&token, DEMO_PASSWORD, NEW_PASSWORD)
        .await
        .unwrap();
    assert_eq!(
        app.resend(&pending).await.unwrap_err().code,
        ErrorCode::OtpExpired
    );
    assert_eq!(
        app.verify(&pending, &code).await.unwrap_err().code,
        ErrorCode::OtpExpired
    );
    // A login with the new password completes.
    assert!(
        app.login_with(ana(), NEW_PASSWORD, ana().email)
            .await
            .is_ok()
    );
}

async fn a_service_token_is_issued_for_the_right_secret_and_verifies_as_kind_service(env: TestEnv) {
    let app = spawn_app(env).await;
    let issued = app
        .issue_service_token(SERVICE_CLIENT, SERVICE_SECRET)
        .await
        .unwrap();
    assert_eq!(issued.expires_in_seconds, 300);
    let claims = app
        .verifier()
        .await
        .verify_service(&issued.access_token)
        .await
        .unwrap();
    assert_eq!(claims.kind, TokenKind::Service);
    assert_eq!(claims.sub, SERVICE_CLIENT);
    assert!(claims.sid.starts_with("svc-"), "{}", claims.sid);
    assert_eq!(claims.exp - claims.iat, 300);
    assert!(claims.exp - claims.iat <= MAX_ACCESS_TTL.as_secs() as i64);
    let header = jsonwebtoken::decode_header(&issued.access_token).unwrap();
    assert_eq!(header.alg, jsonwebtoken::Algorithm::EdDSA);

    // The platform's client side of the grant gets one too.
    let channel = ClientSettings::for_url(format!("http://127.0.0.1:{}", app.port))
        .channel()
        .unwrap();
    let tokens = ServiceTokens::new(
        channel,
        ServiceCredentials {
            client_id: SERVICE_CLIENT.into(),
            client_secret: SERVICE_SECRET.to_owned().into(),
        },
    );
    let token = tokens.token().await.unwrap();
    let claims = app.verifier().await.verify_service(&token).await.unwrap();
    assert_eq!(claims.kind, TokenKind::Service);
}

async fn a_wrong_secret_or_an_unknown_client_gets_invalid_credentials(env: TestEnv) {
    let app = spawn_app(env).await;
    for (client, secret) in [
        (SERVICE_CLIENT, "not-the-secret"),
        (SERVICE_CLIENT, ""),
        ("registration", SERVICE_SECRET),
        ("", SERVICE_SECRET),
        (
            SERVICE_CLIENT,
            &miclub_auth::secret_digest(SERVICE_SECRET) as &str,
        ),
    ] {
        let refused = app.issue_service_token(client, secret).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidCredentials, "{client:?}");
    }
    let status = app
        .client()
        .issue_service_token(miclub_proto::auth::v1::IssueServiceTokenRequest {
            client_id: SERVICE_CLIENT.into(),
            client_secret: "nope".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);
}

async fn the_service_token_lifetime_follows_the_settings(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.service_token_ttl_secs = 60).await;
    let issued = app
        .issue_service_token(SERVICE_CLIENT, SERVICE_SECRET)
        .await
        .unwrap();
    assert_eq!(issued.expires_in_seconds, 60);
    let claims = app
        .verifier()
        .await
        .verify_service(&issued.access_token)
        .await
        .unwrap();
    assert_eq!(claims.exp - claims.iat, 60);
}

async fn set_login_email_refuses_member_tokens_and_anonymous_callers(env: TestEnv) {
    let app = spawn_app(env).await;
    let member = ana_token(&app).await;
    let forbidden = app
        .set_login_email(&member, ana().member_id, "ana.nueva@correo.cl")
        .await
        .unwrap_err();
    assert_eq!(forbidden.code, ErrorCode::Forbidden);
    let anonymous = app
        .set_login_email("", ana().member_id, "ana.nueva@correo.cl")
        .await
        .unwrap_err();
    assert_eq!(anonymous.code, ErrorCode::Unauthenticated);
    // The codes still go to the old address.
    let started = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap();
    assert_eq!(started.masked_destination, "a***@example.cl");
}

async fn the_next_login_code_goes_to_the_address_a_service_sets(env: TestEnv) {
    let app = spawn_app(env).await;
    let service = app.service_token().await;
    app.set_login_email(&service, ana().member_id, " Ana.Nueva@Correo.CL ")
        .await
        .unwrap();
    // Idempotent.
    app.set_login_email(&service, ana().member_id, "ana.nueva@correo.cl")
        .await
        .unwrap();
    let before = app.mails_to(ana().email);
    let started = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap();
    assert_eq!(started.masked_destination, "a***@correo.cl");
    assert_eq!(app.mails_to(ana().email), before);
    let code = app.last_code_for("ana.nueva@correo.cl");
    assert!(app.verify(&started.challenge_id, &code).await.is_ok());
}

async fn an_address_set_by_a_service_counts_as_verified(env: TestEnv) {
    let app = spawn_app(env).await;
    let member = carla();
    assert_eq!(
        app.start_login(member.rut, DEMO_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::EmailNotVerified
    );
    let service = app.service_token().await;
    app.set_login_email(&service, member.member_id, member.email)
        .await
        .unwrap();
    assert!(
        app.login_with(member, DEMO_PASSWORD, member.email)
            .await
            .is_ok()
    );
}

async fn set_login_email_checks_the_address_and_the_member(env: TestEnv) {
    let app = spawn_app(env).await;
    let service = app.service_token().await;
    let unknown = app
        .set_login_email(
            &service,
            "7b0f6d2e-0000-4000-8000-0000000000ff",
            "nadie@correo.cl",
        )
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    for bad in ["", "sin-arroba", "ana@correo", "ana @correo.cl"] {
        let refused = app
            .set_login_email(&service, ana().member_id, bad)
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidArgument, "{bad:?}");
        assert_eq!(refused.field.as_deref(), Some("email"), "{bad:?}");
    }
    let no_member = app
        .set_login_email(&service, "", "ana@correo.cl")
        .await
        .unwrap_err();
    assert_eq!(no_member.code, ErrorCode::InvalidArgument);
    // Nothing was changed.
    let started = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap();
    assert_eq!(started.masked_destination, "a***@example.cl");
}

backend_tests!(
    a_password_change_revokes_every_session_of_the_member,
    a_password_change_stands_when_the_notice_cannot_be_sent,
    the_notice_is_sent_by_the_next_auth_when_the_relay_was_down_until_this_one_stopped,
    the_new_password_logs_in_and_the_old_one_does_not,
    a_wrong_current_password_is_refused_on_its_field_and_changes_nothing,
    each_weak_password_is_refused_with_the_rule_it_breaks,
    sixty_four_characters_are_accepted_and_sixty_five_refused,
    a_common_password_is_refused_whatever_its_case,
    wrong_current_passwords_are_throttled_per_member_and_address,
    a_right_current_password_clears_the_wrong_tries,
    only_a_live_member_session_can_change_a_password,
    a_login_waiting_for_its_code_when_the_password_changes_cannot_complete,
    set_login_email_refuses_member_tokens_and_anonymous_callers,
    the_next_login_code_goes_to_the_address_a_service_sets,
    an_address_set_by_a_service_counts_as_verified,
    set_login_email_checks_the_address_and_the_member,
);

/// The grant stores nothing: one backend is enough.
mod service_tokens {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_service_token_is_issued_for_the_right_secret_and_verifies_as_kind_service() {
        super::a_service_token_is_issued_for_the_right_secret_and_verifies_as_kind_service(
            TestEnv::sqlite_memory().await,
        )
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_wrong_secret_or_an_unknown_client_gets_invalid_credentials() {
        super::a_wrong_secret_or_an_unknown_client_gets_invalid_credentials(
            TestEnv::sqlite_memory().await,
        )
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_service_token_lifetime_follows_the_settings() {
        super::the_service_token_lifetime_follows_the_settings(TestEnv::sqlite_memory().await).await
    }
}
