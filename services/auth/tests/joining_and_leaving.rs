//! Joining and leaving over gRPC against the real `Application`, on PostgreSQL + Redis and on
//! SQLite + memory: CheckPasswordRules and CreateCredentials (registration only), the email
//! verified by SetLoginEmail before the first login, idempotent and race-safe creation, and
//! DisableCredentials (accounts only) ending every session, erasing the email and answering
//! later logins with the date the member left, until the member rejoins.

mod support;

use chrono::DateTime;
use miclub_platform::backend_tests;
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::error::ErrorCode;
use miclub_platform::storage::Database;
use miclub_platform::testing::TestEnv;
use miclub_platform::tokens::with_bearer;
use miclub_proto::auth::v1 as pb;
use sqlx::Row;
use support::{
    Answer, OTHER_CLIENT, OTHER_SECRET, SERVICE_CLIENT, SERVICE_SECRET, TestApp, ana, bruno,
    spawn_app, spawn_app_with,
};

/// A member registering: not one of the demo members.
const MEMBER_ID: &str = "9c1e7a52-0000-4000-8000-00000000a001";
const RUT: &str = "12.345.678-5";
const CANONICAL_RUT: &str = "12345678-5";
const EMAIL: &str = "nueva@correo.cl";
const PASSWORD: &str = "Cóndor sobre los Andes";
const OTHER_PASSWORD: &str = "Llamas en Parinacota";

/// A whole login of anyone; the code is read from the mailbox of `email`.
async fn login(
    app: &TestApp,
    user: &str,
    password: &str,
    email: &str,
) -> Answer<pb::VerifyOtpResponse> {
    let started = app.start_login(user, password).await?;
    let code = app.last_code_for(email);
    app.verify(&started.challenge_id, &code).await
}

/// The stored credentials of a member, straight from the table.
#[derive(Debug)]
struct Stored {
    login_id: String,
    email: String,
    email_verified: bool,
    disabled: bool,
    disabled_at: Option<i64>,
}

async fn stored(app: &TestApp, member_id: &str) -> Option<Stored> {
    let db = Database::connect(&app.env.database).await.unwrap();
    let row = sqlx::query(
        "SELECT login_id, email, email_verified, disabled, disabled_at FROM credentials \
         WHERE member_id = $1",
    )
    .bind(member_id)
    .fetch_optional(db.pool())
    .await
    .unwrap();
    let found = row.map(|row| Stored {
        login_id: row.get("login_id"),
        email: row.get("email"),
        email_verified: miclub_platform::storage::flag(&row, "email_verified").unwrap(),
        disabled: miclub_platform::storage::flag(&row, "disabled").unwrap(),
        disabled_at: row.get("disabled_at"),
    });
    db.close().await;
    found
}

/// How many credential rows hold `login_id` or belong to `member_id`.
async fn rows_for(app: &TestApp, member_id: &str, login_id: &str) -> i64 {
    let db = Database::connect(&app.env.database).await.unwrap();
    let count: i64 =
        sqlx::query("SELECT COUNT(*) AS n FROM credentials WHERE member_id = $1 OR login_id = $2")
            .bind(member_id)
            .bind(login_id)
            .fetch_one(db.pool())
            .await
            .unwrap()
            .get("n");
    db.close().await;
    count
}

/// The day of `millis` in Santiago, as the unsubscribed message writes it.
fn santiago_day(millis: i64) -> String {
    miclub_platform::calendar::member_date(
        miclub_platform::calendar::in_chile(DateTime::from_timestamp_millis(millis).unwrap())
            .date_naive(),
    )
}

async fn accounts_token(app: &TestApp) -> String {
    app.token_of(SERVICE_CLIENT, SERVICE_SECRET).await
}

async fn a_new_member_logs_in_once_accounts_confirms_the_email(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.registration_token().await;
    let created = app
        .create_credentials(&registration, MEMBER_ID, RUT, " Nueva@Correo.CL ", PASSWORD)
        .await
        .unwrap();
    assert!(created.created);
    let row = stored(&app, MEMBER_ID).await.unwrap();
    assert_eq!(row.login_id, CANONICAL_RUT);
    assert_eq!(row.email, EMAIL);
    assert!(!row.email_verified && !row.disabled);

    let unverified = app.start_login(RUT, PASSWORD).await.unwrap_err();
    assert_eq!(unverified.code, ErrorCode::EmailNotVerified);
    assert_eq!(unverified.action.unwrap().url, "/registro/verificar-correo");
    assert_eq!(
        app.mails_to(EMAIL),
        0,
        "no code before the email is verified"
    );

    app.set_login_email(&accounts_token(&app).await, MEMBER_ID, EMAIL)
        .await
        .unwrap();
    // Any common form of the RUT logs in.
    let done = login(&app, "123456785", PASSWORD, EMAIL).await.unwrap();
    assert_eq!(done.member_id, MEMBER_ID);
    let session = done.session.unwrap();
    let claims = app
        .verifier()
        .await
        .verify(&session.access_token)
        .await
        .unwrap();
    assert_eq!(claims.sub, MEMBER_ID);
}

async fn a_verified_active_member_is_never_registered_over(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.registration_token().await;
    app.create_credentials(&registration, MEMBER_ID, RUT, EMAIL, PASSWORD)
        .await
        .unwrap();
    app.set_login_email(&accounts_token(&app).await, MEMBER_ID, EMAIL)
        .await
        .unwrap();
    let refused = app
        .create_credentials(&registration, MEMBER_ID, RUT, EMAIL, OTHER_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::RutAlreadyRegistered);
    let row = stored(&app, MEMBER_ID).await.unwrap();
    assert!(row.email_verified && !row.disabled, "nothing changed");
    assert!(login(&app, RUT, PASSWORD, EMAIL).await.is_ok());
}

async fn a_retried_create_leaves_one_row_and_the_second_password_wins(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.registration_token().await;
    let first = app
        .create_credentials(&registration, MEMBER_ID, RUT, EMAIL, PASSWORD)
        .await
        .unwrap();
    assert!(first.created);
    let second = app
        .create_credentials(
            &registration,
            MEMBER_ID,
            CANONICAL_RUT,
            "otra@correo.cl",
            OTHER_PASSWORD,
        )
        .await
        .unwrap();
    assert!(!second.created);
    assert_eq!(rows_for(&app, MEMBER_ID, CANONICAL_RUT).await, 1);
    let row = stored(&app, MEMBER_ID).await.unwrap();
    assert_eq!(row.email, "otra@correo.cl");
    assert!(!row.email_verified);

    app.set_login_email(&accounts_token(&app).await, MEMBER_ID, "otra@correo.cl")
        .await
        .unwrap();
    assert_eq!(
        app.start_login(RUT, PASSWORD).await.unwrap_err().code,
        ErrorCode::InvalidCredentials
    );
    assert!(
        login(&app, RUT, OTHER_PASSWORD, "otra@correo.cl")
            .await
            .is_ok()
    );
}

async fn concurrent_identical_creates_end_in_one_row(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.registration_token().await;
    let calls: Vec<_> = (0..4)
        .map(|_| {
            let mut client = app.client();
            let request = with_bearer(
                pb::CreateCredentialsRequest {
                    member_id: MEMBER_ID.to_owned(),
                    login_id: RUT.to_owned(),
                    email: EMAIL.to_owned(),
                    password: PASSWORD.to_owned(),
                },
                &registration,
            );
            tokio::spawn(async move { client.create_credentials(request).await })
        })
        .collect();
    let mut created = 0;
    for call in calls {
        let answer = call.await.unwrap().expect("every call succeeds");
        created += usize::from(answer.into_inner().created);
    }
    assert_eq!(created, 1);
    assert_eq!(rows_for(&app, MEMBER_ID, CANONICAL_RUT).await, 1);
}

async fn another_member_cannot_take_a_registered_login_id(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.registration_token().await;
    // Ana's RUT, written another way, for a new member.
    let taken = app
        .create_credentials(&registration, MEMBER_ID, "11111111-1", EMAIL, PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(taken.code, ErrorCode::RutAlreadyRegistered);
    assert_eq!(
        taken.action.unwrap().url,
        "/recuperar-contrasena",
        "the holder may recover the password"
    );
    assert!(stored(&app, MEMBER_ID).await.is_none());

    // A member registered here holds a RUT against later members too.
    app.create_credentials(&registration, MEMBER_ID, RUT, EMAIL, PASSWORD)
        .await
        .unwrap();
    let later = app
        .create_credentials(
            &registration,
            "9c1e7a52-0000-4000-8000-00000000a002",
            "12345678-5",
            "otra@correo.cl",
            OTHER_PASSWORD,
        )
        .await
        .unwrap_err();
    assert_eq!(later.code, ErrorCode::RutAlreadyRegistered);
    assert_eq!(rows_for(&app, MEMBER_ID, CANONICAL_RUT).await, 1);
    assert_eq!(stored(&app, MEMBER_ID).await.unwrap().email, EMAIL);

    // The same member under another login id is refused too, and nothing changes.
    let moved = app
        .create_credentials(&registration, MEMBER_ID, "P1234567", EMAIL, PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(moved.code, ErrorCode::Conflict);
    assert_eq!(
        stored(&app, MEMBER_ID).await.unwrap().login_id,
        CANONICAL_RUT
    );
    // Ana is untouched.
    assert!(app.login(ana()).await.session.is_some());
}

async fn a_weak_password_is_refused_on_the_password_field_and_creates_nothing(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.registration_token().await;
    for (weak, message) in [
        ("", "La contraseña debe tener al menos 8 caracteres."),
        ("ñandú12", "La contraseña debe tener al menos 8 caracteres."),
        (
            &"x".repeat(65) as &str,
            "La contraseña puede tener hasta 64 caracteres.",
        ),
        (
            "PassWord1",
            "Esa contraseña es muy común. Elige otra más difícil de adivinar.",
        ),
    ] {
        let checked = app
            .check_password_rules(&registration, weak)
            .await
            .unwrap_err();
        assert_eq!(checked.code, ErrorCode::WeakPassword, "{weak:?}");
        assert_eq!(checked.field.as_deref(), Some("password"), "{weak:?}");
        assert_eq!(checked.message, message, "{weak:?}");
        let refused = app
            .create_credentials(&registration, MEMBER_ID, RUT, EMAIL, weak)
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::WeakPassword, "{weak:?}");
        assert_eq!(refused.field.as_deref(), Some("password"), "{weak:?}");
        assert_eq!(refused.message, message, "{weak:?}");
    }
    app.check_password_rules(&registration, PASSWORD)
        .await
        .unwrap();
    assert!(stored(&app, MEMBER_ID).await.is_none());
}

async fn a_malformed_login_id_email_or_member_id_is_refused(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.registration_token().await;
    let bad_rut = app
        .create_credentials(&registration, MEMBER_ID, "12.345.678-4", EMAIL, PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(bad_rut.code, ErrorCode::InvalidRut);
    let bad_email = app
        .create_credentials(&registration, MEMBER_ID, RUT, "nueva@correo", PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(bad_email.code, ErrorCode::InvalidArgument);
    assert_eq!(bad_email.field.as_deref(), Some("email"));
    let bad_member = app
        .create_credentials(&registration, "a b", RUT, EMAIL, PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(bad_member.code, ErrorCode::InvalidArgument);
    assert_eq!(rows_for(&app, MEMBER_ID, CANONICAL_RUT).await, 0);
}

async fn only_the_allowed_clients_may_join_and_leave_members(env: TestEnv) {
    let app = spawn_app(env).await;
    let accounts = accounts_token(&app).await;
    let registration = app.registration_token().await;
    let other = app.token_of(OTHER_CLIENT, OTHER_SECRET).await;
    let member = app.login(bruno()).await.session.unwrap().access_token;

    for token in [&accounts, &other, &member] {
        let checked = app.check_password_rules(token, PASSWORD).await.unwrap_err();
        assert_eq!(checked.code, ErrorCode::Forbidden);
        let created = app
            .create_credentials(token, MEMBER_ID, RUT, EMAIL, PASSWORD)
            .await
            .unwrap_err();
        assert_eq!(created.code, ErrorCode::Forbidden);
    }
    for token in [&registration, &other, &member] {
        let disabled = app
            .disable_credentials(token, ana().member_id)
            .await
            .unwrap_err();
        assert_eq!(disabled.code, ErrorCode::Forbidden);
        let email = app
            .set_login_email(token, ana().member_id, "ana.nueva@correo.cl")
            .await
            .unwrap_err();
        assert_eq!(email.code, ErrorCode::Forbidden);
    }
    // Without a token: unauthenticated.
    assert_eq!(
        app.check_password_rules("", PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::Unauthenticated
    );
    assert_eq!(
        app.create_credentials("", MEMBER_ID, RUT, EMAIL, PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::Unauthenticated
    );
    assert_eq!(
        app.disable_credentials("", ana().member_id)
            .await
            .unwrap_err()
            .code,
        ErrorCode::Unauthenticated
    );
    let status = app
        .client()
        .disable_credentials(with_bearer(
            pb::DisableCredentialsRequest {
                member_id: ana().member_id.to_owned(),
                unsubscribed_at_millis: 0,
            },
            &other,
        ))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
    // Nothing changed.
    assert!(stored(&app, MEMBER_ID).await.is_none());
    let started = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap();
    assert_eq!(started.masked_destination, "a***@example.cl");
}

async fn unsubscribing_ends_every_session_and_the_login_gives_the_date(env: TestEnv) {
    let app = spawn_app(env).await;
    let first = app.login(ana()).await.session.unwrap();
    let second = app.login(ana()).await.session.unwrap();
    let someone_else = app.login(bruno()).await.session.unwrap();
    let verifier = app.verifier().await;
    assert!(verifier.verify(&first.access_token).await.is_ok());

    let accounts = accounts_token(&app).await;
    let disabled = app
        .disable_credentials(&accounts, ana().member_id)
        .await
        .unwrap();
    assert_eq!(disabled.revoked_sessions, 2);
    for session in [&first, &second] {
        app.assert_session_over(&verifier, session).await;
    }
    assert!(verifier.verify(&someone_else.access_token).await.is_ok());
    assert!(app.refresh(&someone_else.refresh_token).await.is_ok());

    // The credentials stay, disabled, without the email.
    let row = stored(&app, ana().member_id).await.unwrap();
    assert!(row.disabled);
    assert_eq!(row.email, "");
    assert!(!row.email_verified);
    let disabled_at = row.disabled_at.expect("the instant is recorded");

    let mails = app.mailbox.list().len();
    let unsubscribed = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap_err();
    assert_eq!(unsubscribed.code, ErrorCode::MemberUnsubscribed);
    assert_eq!(
        unsubscribed.message,
        format!(
            "Te diste de baja de Mi Club el {}. Si quieres volver, puedes registrarte de nuevo.",
            santiago_day(disabled_at)
        )
    );
    let action = unsubscribed.action.unwrap();
    assert_eq!(action.url, "/registro");
    assert_eq!(action.url_name, "Registrarme");
    // A wrong password learns nothing.
    let wrong = app
        .start_login(ana().rut, "NoEsLaClave1")
        .await
        .unwrap_err();
    assert_eq!(wrong.code, ErrorCode::InvalidCredentials);
    assert_eq!(wrong.action, None);
    assert_eq!(app.mailbox.list().len(), mails, "no code was sent");

    // Again: idempotent, nothing left to revoke, the first instant stays.
    let again = app
        .disable_credentials(&accounts, ana().member_id)
        .await
        .unwrap();
    assert_eq!(again.revoked_sessions, 0);
    assert_eq!(
        stored(&app, ana().member_id).await.unwrap().disabled_at,
        Some(disabled_at)
    );
    // A late confirmation from accounts does not bring the address back.
    let late = app
        .set_login_email(&accounts, ana().member_id, ana().email)
        .await
        .unwrap_err();
    assert_eq!(late.code, ErrorCode::NotFound);
    assert_eq!(stored(&app, ana().member_id).await.unwrap().email, "");
    // An unknown member has nothing to disable.
    let unknown = app
        .disable_credentials(&accounts, "9c1e7a52-0000-4000-8000-0000000000ff")
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
}

async fn a_login_waiting_for_its_code_when_the_member_unsubscribes_cannot_complete(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.resend_cooldown_secs = 0).await;
    let (pending, code) = app.password_step(ana()).await;
    app.disable_credentials(&accounts_token(&app).await, ana().member_id)
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
}

async fn recovery_for_an_unsubscribed_member_sends_no_mail(env: TestEnv) {
    let app = spawn_app(env).await;
    app.disable_credentials(&accounts_token(&app).await, ana().member_id)
        .await
        .unwrap();
    let mails = app.mailbox.list().len();
    let started = app
        .start_password_reset_from(ana().rut, "203.0.113.9")
        .await
        .unwrap();
    // The same answer as for anyone: a reset id and its times.
    assert_eq!(started.reset_id.len(), 43);
    assert_eq!(started.expires_in_seconds, 300);
    assert_eq!(app.mailbox.list().len(), mails, "no mail at all");
}

async fn a_member_who_unsubscribed_can_join_again(env: TestEnv) {
    let app = spawn_app(env).await;
    let accounts = accounts_token(&app).await;
    let registration = app.registration_token().await;
    app.disable_credentials(&accounts, ana().member_id)
        .await
        .unwrap();

    let rejoined = app
        .create_credentials(
            &registration,
            ana().member_id,
            ana().rut,
            "ana.vuelve@correo.cl",
            PASSWORD,
        )
        .await
        .unwrap();
    assert!(!rejoined.created);
    let row = stored(&app, ana().member_id).await.unwrap();
    assert!(!row.disabled);
    assert_eq!(row.disabled_at, None);
    assert_eq!(row.email, "ana.vuelve@correo.cl");
    assert!(!row.email_verified);
    assert_eq!(
        app.start_login(ana().rut, PASSWORD).await.unwrap_err().code,
        ErrorCode::EmailNotVerified
    );

    app.set_login_email(&accounts, ana().member_id, "ana.vuelve@correo.cl")
        .await
        .unwrap();
    let done = login(&app, ana().rut, PASSWORD, "ana.vuelve@correo.cl")
        .await
        .unwrap();
    assert_eq!(done.member_id, ana().member_id);
    assert_eq!(
        app.start_login(ana().rut, DEMO_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::InvalidCredentials
    );
}

async fn a_late_unsubscribe_retry_leaves_a_member_who_rejoined_alone(env: TestEnv) {
    let app = spawn_app(env).await;
    let accounts = accounts_token(&app).await;
    let left_at = miclub_platform::storage::now_millis();
    app.disable_credentials_left_at(&accounts, ana().member_id, left_at)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    app.create_credentials(
        &app.registration_token().await,
        ana().member_id,
        ana().rut,
        ana().email,
        PASSWORD,
    )
    .await
    .unwrap();
    // accounts' retry of the old unsubscribe arrives after the rejoin.
    let late = app
        .disable_credentials_left_at(&accounts, ana().member_id, left_at)
        .await
        .unwrap();
    assert_eq!(late.revoked_sessions, 0);
    let row = stored(&app, ana().member_id).await.unwrap();
    assert!(
        !row.disabled,
        "the rejoined member keeps the new credentials"
    );
    assert_eq!(row.email, ana().email);
}

async fn a_reset_asked_before_unsubscribing_cannot_complete_after_rejoining(env: TestEnv) {
    let app = spawn_app(env).await;
    let started = app
        .start_password_reset_from(ana().rut, "203.0.113.9")
        .await
        .unwrap();
    let code = app.last_code_for(ana().email);
    app.disable_credentials(&accounts_token(&app).await, ana().member_id)
        .await
        .unwrap();
    app.create_credentials(
        &app.registration_token().await,
        ana().member_id,
        ana().rut,
        ana().email,
        PASSWORD,
    )
    .await
    .unwrap();
    let refused = app
        .complete_password_reset(&started.reset_id, &code, OTHER_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::OtpExpired);
    // The password of the rejoin stands.
    app.set_login_email(&accounts_token(&app).await, ana().member_id, ana().email)
        .await
        .unwrap();
    assert!(login(&app, ana().rut, PASSWORD, ana().email).await.is_ok());
}

backend_tests!(
    a_new_member_logs_in_once_accounts_confirms_the_email,
    a_verified_active_member_is_never_registered_over,
    a_retried_create_leaves_one_row_and_the_second_password_wins,
    concurrent_identical_creates_end_in_one_row,
    another_member_cannot_take_a_registered_login_id,
    a_weak_password_is_refused_on_the_password_field_and_creates_nothing,
    a_malformed_login_id_email_or_member_id_is_refused,
    only_the_allowed_clients_may_join_and_leave_members,
    unsubscribing_ends_every_session_and_the_login_gives_the_date,
    a_login_waiting_for_its_code_when_the_member_unsubscribes_cannot_complete,
    recovery_for_an_unsubscribed_member_sends_no_mail,
    a_member_who_unsubscribed_can_join_again,
    a_reset_asked_before_unsubscribing_cannot_complete_after_rejoining,
    a_late_unsubscribe_retry_leaves_a_member_who_rejoined_alone,
);
