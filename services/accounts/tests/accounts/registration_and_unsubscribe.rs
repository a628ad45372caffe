//! Registration (the registration service's internal calls) and leaving the club: duplicates,
//! the takeover of a pending member, idempotent retries, activation with its verification link,
//! the anonymous resend, the daily budget of mail one address can be sent, the identity check
//! of unsubscribing, the erasure of personal data with the ledger kept (and given back only to a
//! registration with the address the member left with), and auth's `DisableCredentials` with its
//! background retry.

use std::time::Duration;

use miclub_accounts::domain::{
    CONFIRMATION_SUBJECT, Email, MAILS_PER_ADDRESS, Member, MemberId, MovementKind, MovementStatus,
    NOTICE_SUBJECT,
};
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    ActivateMemberRequest, Category, CheckRegistrationIdentityRequest,
    CheckRegistrationProfileRequest, ConfirmEmailRequest, GetBalanceRequest, GetMemberRequest,
    ListUnsubscribeReasonsRequest, NewMemberProfile, PaymentMethod, RegisterMemberRequest,
    ResendVerificationEmailRequest, UnsubscribeRequest, ValidateUnsubscribeRequest,
};
use sqlx::Row;

use crate::support::{PASSWORD, TERMS_ACCEPTED_AT, TestApp, count, link_token, movement, purchase};

/// A valid RUT nobody in the test database holds.
fn fresh_rut() -> String {
    crate::support::full_member().document.canonical()
}

fn profile(email: &str) -> NewMemberProfile {
    NewMemberProfile {
        name: "Carla".into(),
        last_name: "Soto".into(),
        mother_surname: String::new(),
        phone_number: "+56 9 8765 4321".into(),
        birth_date: "1992-02-29".into(),
        gender_id: 2,
        email: email.into(),
    }
}

fn register_request(member_id: &str, rut: &str, email: &str) -> RegisterMemberRequest {
    RegisterMemberRequest {
        member_id: member_id.into(),
        document_type: "RUT".into(),
        document_number: rut.into(),
        profile: Some(profile(email)),
        terms_version: "2026-11".into(),
    }
}

async fn register(app: &TestApp, request: RegisterMemberRequest) -> Result<String, tonic::Status> {
    app.client()
        .await
        .register_member(app.as_service(request))
        .await
        .map(|answer| answer.into_inner().member_id)
}

/// `ActivateMember` as registration calls it, answered as it came.
async fn try_activate(app: &TestApp, member_id: &str) -> Result<(String, bool), tonic::Status> {
    app.client()
        .await
        .activate_member(app.as_service(ActivateMemberRequest {
            member_id: member_id.into(),
        }))
        .await
        .map(|answer| {
            let answer = answer.into_inner();
            (answer.masked_email, answer.verification_sent)
        })
}

async fn activate(app: &TestApp, member_id: &str) -> (String, bool) {
    try_activate(app, member_id).await.expect("activate")
}

async fn resend(app: &TestApp, user: &str) -> Result<(), tonic::Status> {
    app.client()
        .await
        .resend_verification_email(ResendVerificationEmailRequest { user: user.into() })
        .await
        .map(|_| ())
}

/// A registered and activated member, answered with its id and email.
async fn registered_member(app: &TestApp, email: &str) -> (MemberId, String) {
    let rut = fresh_rut();
    let id = uuid::Uuid::new_v4().to_string();
    let id = register(app, register_request(&id, &rut, email))
        .await
        .expect("register");
    activate(app, &id).await;
    (MemberId::parse(&id).unwrap(), rut)
}

/// The member row, straight from the table.
async fn row(app: &TestApp, member_id: &str) -> sqlx::any::AnyRow {
    sqlx::query(
        "SELECT status, name, last_name, mother_surname, phone_number, email, birth_date, \
         gender_id, unsubscribed_at, CAST(unsubscribe_reason_id AS BIGINT) AS unsubscribe_reason_id, \
         unsubscribe_reason_text, \
         credentials_disabled_at, terms_version, terms_decision FROM members WHERE member_id = $1",
    )
    .bind(member_id)
    .fetch_one(app.store.database().pool())
    .await
    .expect("member row")
}

fn status_of(row: &sqlx::any::AnyRow) -> String {
    row.get("status")
}

fn body(status: &tonic::Status) -> ErrorBody {
    ErrorBody::from_status(status)
}

async fn registration_refuses_a_document_or_an_email_an_active_member_holds(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let active = app.add_member_with_account().await;
    let mut client = app.client().await;

    let refused = client
        .check_registration_identity(app.as_service(CheckRegistrationIdentityRequest {
            document_type: "RUT".into(),
            document_number: active.document.canonical(),
        }))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::AlreadyExists);
    let refused = body(&refused);
    assert_eq!(refused.code, ErrorCode::RutAlreadyRegistered);
    let action = refused.action.expect("the recovery action");
    assert_eq!(
        (action.url.as_str(), action.url_name.as_str()),
        ("/recuperar-contrasena", "Recuperar contraseña")
    );
    client
        .check_registration_identity(app.as_service(CheckRegistrationIdentityRequest {
            document_type: "RUT".into(),
            document_number: fresh_rut(),
        }))
        .await
        .expect("a free document may register");

    let shouting = active.email.as_str().to_uppercase();
    // The email is never refused where the registrant sees it (registration_email.rs).
    client
        .check_registration_profile(app.as_service(CheckRegistrationProfileRequest {
            profile: Some(profile(&shouting)),
        }))
        .await
        .expect("step 2 does not look the email up");
    client
        .check_registration_profile(app.as_service(CheckRegistrationProfileRequest {
            profile: Some(profile("libre@correo.cl")),
        }))
        .await
        .expect("a free email may register");

    let by_document = register(
        &app,
        register_request(
            &uuid::Uuid::new_v4().to_string(),
            &active.document.canonical(),
            "otra@correo.cl",
        ),
    )
    .await
    .unwrap_err();
    assert_eq!(body(&by_document).code, ErrorCode::RutAlreadyRegistered);
    let by_email = register(
        &app,
        register_request(&uuid::Uuid::new_v4().to_string(), &fresh_rut(), &shouting),
    )
    .await
    .expect("answered as email_in_use, not refused");
    assert_eq!(by_email, "", "no member id: nothing was created");
    assert_eq!(count(&app.store, "members").await, 1);
}

async fn a_registered_foreign_document_is_refused_with_the_documento_text(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = uuid::Uuid::new_v4().to_string();
    let request = RegisterMemberRequest {
        document_type: "FOREIGN".into(),
        document_number: "p1234567".into(),
        ..register_request(&id, "", "extranjera@correo.cl")
    };
    register(&app, request).await.expect("register");
    activate(&app, &id).await;

    let refused = app
        .client()
        .await
        .check_registration_identity(app.as_service(CheckRegistrationIdentityRequest {
            document_type: "FOREIGN".into(),
            document_number: "P1234567".into(),
        }))
        .await
        .unwrap_err();
    let refused = body(&refused);
    assert_eq!(refused.code, ErrorCode::RutAlreadyRegistered);
    assert_eq!(
        refused.message,
        "Este documento ya está registrado en Mi Club. Inicia sesión o recupera tu contraseña."
    );
}

async fn registration_calls_need_a_service_token_and_validate_every_field(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let as_member = app.authorized(
        CheckRegistrationIdentityRequest {
            document_type: "RUT".into(),
            document_number: fresh_rut(),
        },
        &app.token(&member.id),
    );
    let refused = app
        .client()
        .await
        .check_registration_identity(as_member)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::PermissionDenied);

    let minor = NewMemberProfile {
        birth_date: (chrono::Utc::now().date_naive() - chrono::Days::new(365 * 17))
            .format("%Y-%m-%d")
            .to_string(),
        ..profile("menor@correo.cl")
    };
    let refused = app
        .client()
        .await
        .check_registration_profile(app.as_service(CheckRegistrationProfileRequest {
            profile: Some(minor),
        }))
        .await
        .unwrap_err();
    let refused = body(&refused);
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    assert_eq!(refused.field.as_deref(), Some("birth_date"));
    assert_eq!(
        refused.message,
        "Debes ser mayor de 18 años para registrarte."
    );

    let no_phone = NewMemberProfile {
        phone_number: String::new(),
        ..profile("sinfono@correo.cl")
    };
    let refused = register(
        &app,
        RegisterMemberRequest {
            profile: Some(no_phone),
            ..register_request(&uuid::Uuid::new_v4().to_string(), &fresh_rut(), "")
        },
    )
    .await
    .unwrap_err();
    assert_eq!(body(&refused).field.as_deref(), Some("phone_number"));
    assert_eq!(count(&app.store, "members").await, 1);
}

async fn a_retried_registration_leaves_exactly_one_pending_member_with_an_empty_account(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let rut = fresh_rut();
    let id = uuid::Uuid::new_v4().to_string();

    let first = register(&app, register_request(&id, &rut, "Carla@Correo.cl"))
        .await
        .expect("register");
    let again = register(&app, register_request(&id, &rut, "carla@correo.cl"))
        .await
        .expect("a retry");

    assert_eq!((first.as_str(), again.as_str()), (id.as_str(), id.as_str()));
    assert_eq!(count(&app.store, "members").await, 1);
    assert_eq!(count(&app.store, "club_accounts").await, 1);
    let member_id = MemberId::parse(&id).unwrap();
    assert_eq!(app.balance_of(&member_id).await, 0);
    let stored = row(&app, &id).await;
    assert_eq!(status_of(&stored), "pending");
    assert_eq!(stored.get::<String, _>("email"), "carla@correo.cl");
    assert_eq!(stored.get::<String, _>("phone_number"), "+56987654321");
    assert_eq!(stored.get::<String, _>("terms_decision"), "accepted");
    assert_eq!(stored.get::<String, _>("terms_version"), "2026-11");
    assert!(!app.stored(&member_id).await.email_confirmed);
    assert!(app.mail.sent().is_empty(), "registering mails nothing");
}

async fn a_second_registration_of_a_pending_document_takes_the_member_over(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let rut = fresh_rut();
    let first_id = uuid::Uuid::new_v4().to_string();
    register(&app, register_request(&first_id, &rut, "primera@correo.cl"))
        .await
        .expect("first registration");

    let answered = register(
        &app,
        register_request(&uuid::Uuid::new_v4().to_string(), &rut, "segunda@correo.cl"),
    )
    .await
    .expect("second registration");

    assert_eq!(answered, first_id, "the pending member is reused");
    assert_eq!(count(&app.store, "members").await, 1);
    assert_eq!(count(&app.store, "club_accounts").await, 1);
    let stored = row(&app, &first_id).await;
    assert_eq!(stored.get::<String, _>("email"), "segunda@correo.cl");
    assert_eq!(status_of(&stored), "pending");
}

async fn concurrent_registrations_of_one_document_end_with_one_member(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let rut = fresh_rut();
    let (a, b) = (
        uuid::Uuid::new_v4().to_string(),
        uuid::Uuid::new_v4().to_string(),
    );

    let (first, second) = tokio::join!(
        register(&app, register_request(&a, &rut, "a@correo.cl")),
        register(&app, register_request(&b, &rut, "b@correo.cl")),
    );

    let (first, second) = (first.expect("first"), second.expect("second"));
    assert_eq!(first, second, "both answer the one member");
    assert!(first == a || first == b);
    assert_eq!(count(&app.store, "members").await, 1);
    assert_eq!(count(&app.store, "club_accounts").await, 1);
}

async fn activation_mails_one_link_that_confirms_the_email_and_tells_auth(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let rut = fresh_rut();
    let id = uuid::Uuid::new_v4().to_string();
    register(&app, register_request(&id, &rut, "carla@correo.cl"))
        .await
        .expect("register");

    let (masked, sent) = activate(&app, &id).await;
    let (_, sent_again) = activate(&app, &id).await;

    assert_eq!(masked, "c***@correo.cl");
    assert!(sent);
    assert!(!sent_again, "an active member gets no second mail");
    let mails = app.mail.sent();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "carla@correo.cl");
    assert_eq!(status_of(&row(&app, &id).await), "active");

    let confirmed = app
        .client()
        .await
        .confirm_email(ConfirmEmailRequest {
            token: link_token(&mails[0]),
        })
        .await
        .expect("the link confirms")
        .into_inner();
    assert_eq!(confirmed.masked_email, "c***@correo.cl");
    assert_eq!(
        app.login_emails.handed_over(),
        [(id.clone(), "carla@correo.cl".to_owned())]
    );
    let member_id = MemberId::parse(&id).unwrap();
    assert!(app.stored(&member_id).await.email_confirmed);

    let unknown = try_activate(&app, &uuid::Uuid::new_v4().to_string())
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
}

async fn an_activation_whose_mail_fails_changes_nothing_and_can_be_retried(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = uuid::Uuid::new_v4().to_string();
    register(&app, register_request(&id, &fresh_rut(), "carla@correo.cl"))
        .await
        .expect("register");
    app.mail.fail(true);

    let refused = try_activate(&app, &id).await.unwrap_err();

    assert_eq!(body(&refused).code, ErrorCode::Unavailable);
    assert_eq!(status_of(&row(&app, &id).await), "pending");
    app.mail.fail(false);
    let (_, sent) = activate(&app, &id).await;
    assert!(sent);
    assert_eq!(app.mail.sent().len(), 1);
    assert_eq!(status_of(&row(&app, &id).await), "active");
}

async fn the_verification_resend_answers_the_same_whoever_asks(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let confirmed = app.add_member_with_account().await;
    let (_, unconfirmed_rut) = registered_member(&app, "nueva@correo.cl").await;
    let pending_rut = fresh_rut();
    register(
        &app,
        register_request(
            &uuid::Uuid::new_v4().to_string(),
            &pending_rut,
            "pendiente@correo.cl",
        ),
    )
    .await
    .expect("register");
    assert_eq!(app.mail.sent().len(), 1, "the activation link");

    resend(&app, &fresh_rut()).await.expect("unknown: ok");
    resend(&app, &confirmed.document.canonical())
        .await
        .expect("confirmed: ok");
    resend(&app, &pending_rut).await.expect("pending: ok");
    assert_eq!(app.mail.sent().len(), 1, "none of them mailed");

    let formatted = miclub_platform::identity::Rut::parse(&unconfirmed_rut)
        .unwrap()
        .formatted();
    resend(&app, &formatted).await.expect("unconfirmed: ok");
    let mails = app.mail.sent();
    assert_eq!(mails.len(), 2);
    assert_eq!(mails[0].to, "nueva@correo.cl");

    for _ in 0..5 {
        resend(&app, &unconfirmed_rut).await.expect("still ok");
    }
    assert_eq!(
        app.mail.sent().len(),
        6,
        "five links per hour, then silence with the same answer"
    );

    let malformed = resend(&app, "12.345.678-9").await.unwrap_err();
    assert_eq!(body(&malformed).code, ErrorCode::InvalidRut);
}

/// Mails with `subject` that `app` sent to `address` so far.
fn sent_to(app: &TestApp, address: &str, subject: &str) -> usize {
    app.mail
        .sent()
        .iter()
        .filter(|mail| mail.to == address && mail.subject == subject)
        .count()
}

async fn an_address_is_sent_ten_links_or_notices_a_day_however_many_registrations_type_it(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let budget = MAILS_PER_ADDRESS as usize;
    let victim = "victima@correo.cl";
    // A registration left pending with the address before anything else happened to it.
    let pending_rut = fresh_rut();
    let pending = register(
        &app,
        register_request(&uuid::Uuid::new_v4().to_string(), &pending_rut, victim),
    )
    .await
    .expect("register");
    // The address's owner, a member.
    let owner = Member {
        email: Email::parse(victim).unwrap(),
        ..crate::support::full_member()
    };
    app.store
        .insert_member(&owner, TERMS_ACCEPTED_AT)
        .await
        .unwrap();
    app.store
        .open_club_account(&owner.id, TERMS_ACCEPTED_AT)
        .await
        .unwrap();

    // A stranger types the address in registration after registration, each with a made-up
    // RUT (a new member id each time): the in-use notices stop at the budget, and every
    // registration still answers like a success.
    for _ in 0..=budget {
        let answer = register(
            &app,
            register_request(
                &uuid::Uuid::new_v4().to_string(),
                &fresh_rut(),
                &victim.to_uppercase(),
            ),
        )
        .await
        .expect("answered as email_in_use");
        assert_eq!(answer, "", "nothing created");
    }
    assert_eq!(sent_to(&app, victim, NOTICE_SUBJECT), budget);

    // Once the owner has left, the pending registration is activated past the budget: the
    // member is active and answered as before, and no link leaves, nor on a resend.
    unsubscribe(&app, &owner, &app.token(&owner.id), 1, "")
        .await
        .expect("the owner leaves");
    let (masked, sent) = activate(&app, &pending).await;
    assert_eq!(masked, "v***@correo.cl");
    assert!(!sent, "no link mailed");
    assert_eq!(status_of(&row(&app, &pending).await), "active");
    resend(&app, &pending_rut)
        .await
        .expect("the resend answers as always");
    assert_eq!(sent_to(&app, victim, CONFIRMATION_SUBJECT), 0);

    // A tag reaches the same mailbox, so it gets no budget of its own.
    let tagged = "victima+registro@correo.cl";
    let id = register(
        &app,
        register_request(&uuid::Uuid::new_v4().to_string(), &fresh_rut(), tagged),
    )
    .await
    .expect("register");
    let (_, sent) = activate(&app, &id).await;
    assert!(!sent);
    assert_eq!(sent_to(&app, tagged, CONFIRMATION_SUBJECT), 0);

    // The budget is the mailbox's own: another one gets its link.
    registered_member(&app, "otra@correo.cl").await;
    assert_eq!(sent_to(&app, "otra@correo.cl", CONFIRMATION_SUBJECT), 1);
}

async fn mail_the_relay_refused_does_not_count_against_the_address(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = uuid::Uuid::new_v4().to_string();
    register(&app, register_request(&id, &fresh_rut(), "carla@correo.cl"))
        .await
        .expect("register");
    app.mail.fail(true);
    for _ in 0..=MAILS_PER_ADDRESS {
        let refused = try_activate(&app, &id).await.unwrap_err();
        assert_eq!(body(&refused).code, ErrorCode::Unavailable);
    }

    app.mail.fail(false);
    let (_, sent) = activate(&app, &id).await;

    assert!(sent, "the outage spent none of the address's mails");
    assert_eq!(sent_to(&app, "carla@correo.cl", CONFIRMATION_SUBJECT), 1);
}

async fn validating_the_unsubscribe_compares_the_document_and_the_email(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);
    let validate = |user: String, email: String| {
        let request = app.authorized(
            ValidateUnsubscribeRequest {
                user,
                email,
                current_password: PASSWORD.into(),
                ..Default::default()
            },
            &token,
        );
        async { app.client().await.validate_unsubscribe(request).await }
    };
    let rut = miclub_platform::identity::Rut::parse(&member.document.canonical())
        .unwrap()
        .formatted();

    for (user, email) in [
        (fresh_rut(), member.email.as_str().to_owned()),
        (rut.clone(), "otra@correo.cl".to_owned()),
        (rut.clone(), String::new()),
        ("no soy un rut".to_owned(), member.email.as_str().to_owned()),
    ] {
        let refused = validate(user, email).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument);
        assert_eq!(body(&refused).code, ErrorCode::IdentityMismatch);
    }

    let ok = validate(
        rut.clone(),
        format!("  {}  ", member.email.as_str().to_uppercase()),
    )
    .await
    .expect("the caller's own data")
    .into_inner();
    assert!(!ok.already_unsubscribed);
    assert_eq!(ok.unsubscribed_at, "");

    let left = unsubscribe(&app, &member, &token, 1, "")
        .await
        .expect("unsubscribe");
    // The email is erased once the member left: the document alone answers the date.
    let already = validate(rut, String::new())
        .await
        .expect("already left")
        .into_inner();
    assert!(already.already_unsubscribed);
    assert_eq!(already.unsubscribed_at, left);
}

async fn unsubscribe(
    app: &TestApp,
    member: &Member,
    token: &str,
    reason_id: i32,
    reason_text: &str,
) -> Result<String, tonic::Status> {
    app.client()
        .await
        .unsubscribe(app.authorized(
            UnsubscribeRequest {
                user: member.document.canonical(),
                email: member.email.as_str().to_owned(),
                reason_id,
                reason_text: reason_text.into(),
                current_password: PASSWORD.into(),
                ..Default::default()
            },
            token,
        ))
        .await
        .map(|answer| answer.into_inner().unsubscribed_at)
}

async fn unsubscribing_erases_the_personal_data_and_keeps_the_ledger(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    for m in [
        movement(
            &member.id,
            MovementKind::Adjustment,
            MovementStatus::Confirmed,
            5_000,
            "Ajuste de bienvenida",
            TERMS_ACCEPTED_AT,
        ),
        movement(
            &member.id,
            MovementKind::Accrual,
            MovementStatus::Pending,
            300,
            "Compra en Lider Providencia",
            TERMS_ACCEPTED_AT + 1,
        ),
    ] {
        app.store
            .record_movement(&m, TERMS_ACCEPTED_AT)
            .await
            .unwrap();
    }
    let token = app.token(&member.id);
    // A pending link for a new address, which must go with the member's data.
    sqlx::query(
        "INSERT INTO email_confirmations (token_hash, member_id, email, expires_at, created_at) \
         VALUES ('x', $1, 'ana.nueva@correo.cl', $2, $2)",
    )
    .bind(member.id.as_str())
    .bind(i64::MAX / 2)
    .execute(app.store.database().pool())
    .await
    .unwrap();
    let balance_before = app.balance_of(&member.id).await;
    let movements_before = app.store.movements(&member.id).await.unwrap();

    let reason = unsubscribe(&app, &member, &token, 6, "").await.unwrap_err();
    assert_eq!(body(&reason).field.as_deref(), Some("reason_id"));
    let text = unsubscribe(&app, &member, &token, 99, "  ")
        .await
        .unwrap_err();
    assert_eq!(body(&text).field.as_deref(), Some("reason_text"));
    let at = unsubscribe(&app, &member, &token, 99, "Me cambio de ciudad")
        .await
        .expect("unsubscribe");

    let stored = row(&app, member.id.as_str()).await;
    assert_eq!(status_of(&stored), "unsubscribed");
    for column in [
        "name",
        "last_name",
        "mother_surname",
        "phone_number",
        "email",
    ] {
        assert_eq!(stored.get::<String, _>(column), "", "{column}");
    }
    assert_eq!(stored.get::<Option<String>, _>("birth_date"), None);
    assert_eq!(stored.get::<Option<i64>, _>("gender_id"), None);
    assert_eq!(
        stored.get::<Option<i64>, _>("unsubscribe_reason_id"),
        Some(99)
    );
    assert_eq!(
        stored
            .get::<Option<String>, _>("unsubscribe_reason_text")
            .as_deref(),
        Some("Me cambio de ciudad")
    );
    assert_eq!(
        miclub_platform::storage::millis_to_rfc3339(stored.get::<i64, _>("unsubscribed_at")),
        at
    );
    assert_eq!(count(&app.store, "email_confirmations").await, 0);
    assert_eq!(app.balance_of(&member.id).await, balance_before);
    assert_eq!(
        app.store.movements(&member.id).await.unwrap(),
        movements_before
    );
    assert_eq!(balance_before, 5_000);

    assert_eq!(app.login_emails.disabled(), [member.id.as_str().to_owned()]);
    assert!(
        row(&app, member.id.as_str())
            .await
            .get::<Option<i64>, _>("credentials_disabled_at")
            .is_some()
    );

    // The member's own token still reads what is left.
    let mut client = app.client().await;
    let read = client
        .get_member(app.authorized(GetMemberRequest {}, &token))
        .await
        .expect("get member")
        .into_inner()
        .member
        .unwrap();
    assert_eq!(read.member_id, member.id.as_str());
    assert_eq!((read.name.as_str(), read.email.as_str()), ("", ""));
    let balance = client
        .get_balance(app.authorized(GetBalanceRequest {}, &token))
        .await
        .expect("get balance")
        .into_inner();
    assert_eq!(balance.balance, 5_000);

    let again = unsubscribe(&app, &member, &token, 1, "").await.unwrap_err();
    assert_eq!(again.code(), tonic::Code::FailedPrecondition);
    assert_eq!(body(&again).code, ErrorCode::AlreadyUnsubscribed);

    let posted = client
        .post_purchase(app.as_service(purchase(
            &member,
            "purchase-of-someone-who-left",
            &crate::support::days_ago(1),
            PaymentMethod::Cash,
            &[(Category::Meat, 10_000)],
        )))
        .await
        .unwrap_err();
    assert_eq!(body(&posted).code, ErrorCode::NotFound);
}

async fn credentials_auth_could_not_disable_are_disabled_later_in_the_background(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    app.login_emails.fail_disabling(true);

    unsubscribe(&app, &member, &app.token(&member.id), 2, "")
        .await
        .expect("the member leaves even when auth is down");
    assert!(app.login_emails.disabled().is_empty());
    assert!(
        row(&app, member.id.as_str())
            .await
            .get::<Option<i64>, _>("credentials_disabled_at")
            .is_none()
    );

    // The background task keeps trying while auth is down...
    wait_for(|| app.login_emails.disable_attempts() >= 2).await;
    assert!(app.login_emails.disabled().is_empty());
    // ...and disables the credentials once auth answers.
    app.login_emails.fail_disabling(false);
    wait_for(|| !app.login_emails.disabled().is_empty()).await;
    assert_eq!(app.login_emails.disabled(), [member.id.as_str().to_owned()]);
    for _ in 0..50 {
        let done = row(&app, member.id.as_str())
            .await
            .get::<Option<i64>, _>("credentials_disabled_at")
            .is_some();
        if done {
            // Once recorded, nobody asks auth again.
            let attempts = app.login_emails.disable_attempts();
            tokio::time::sleep(Duration::from_millis(2_200)).await;
            assert_eq!(app.login_emails.disable_attempts(), attempts);
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("credentials_disabled_at never set");
}

async fn wait_for(mut done: impl FnMut() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("condition not reached in 10 s");
}

/// A member with 1,234 pesos who then left the club.
async fn left_with_pesos(env: TestEnv) -> (TestApp, Member) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    app.store
        .record_movement(
            &movement(
                &member.id,
                MovementKind::Adjustment,
                MovementStatus::Confirmed,
                1_234,
                "Ajuste",
                TERMS_ACCEPTED_AT,
            ),
            TERMS_ACCEPTED_AT,
        )
        .await
        .unwrap();
    unsubscribe(&app, &member, &app.token(&member.id), 3, "")
        .await
        .expect("unsubscribe");
    (app, member)
}

async fn a_member_who_left_can_register_again_and_finds_the_balance_kept(env: TestEnv) {
    let (app, member) = left_with_pesos(env).await;

    // The address they left with, typed as a member might type it.
    let answered = register(
        &app,
        register_request(
            &uuid::Uuid::new_v4().to_string(),
            &member.document.canonical(),
            &member.email.as_str().to_uppercase(),
        ),
    )
    .await
    .expect("register again");

    assert_eq!(answered, member.id.as_str());
    assert_eq!(count(&app.store, "members").await, 1);
    let stored = row(&app, &answered).await;
    assert_eq!(status_of(&stored), "pending");
    assert_eq!(stored.get::<Option<i64>, _>("unsubscribed_at"), None);
    assert_eq!(stored.get::<Option<i64>, _>("unsubscribe_reason_id"), None);
    assert_eq!(stored.get::<String, _>("name"), "Carla");
    assert_eq!(app.balance_of(&member.id).await, 1_234);
}

/// The SHA-256 kept of the address `member_id` left with, if any.
async fn left_email_digest(app: &TestApp, member_id: &str) -> Option<String> {
    sqlx::query("SELECT left_email_digest FROM members WHERE member_id = $1")
        .bind(member_id)
        .fetch_one(app.store.database().pool())
        .await
        .unwrap()
        .get("left_email_digest")
}

async fn a_stranger_who_knows_the_rut_of_a_member_who_left_takes_neither_pesos_nor_history(
    env: TestEnv,
) {
    let (app, member) = left_with_pesos(env).await;
    assert!(left_email_digest(&app, member.id.as_str()).await.is_some());
    let rut = member.document.canonical();
    let strangers = uuid::Uuid::new_v4().to_string();

    let refused = register(
        &app,
        register_request(&strangers, &rut, "extrano@correo.cl"),
    )
    .await
    .unwrap_err();

    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert_eq!(body(&refused).code, ErrorCode::PreviousEmailRequired);
    assert_eq!(
        body(&refused).message,
        "Este documento estuvo inscrito en Mi Club. Para volver, usa el correo que tenías \
         registrado o escríbenos a través de la sección de ayuda."
    );
    let stored = row(&app, member.id.as_str()).await;
    assert_eq!(status_of(&stored), "unsubscribed", "nothing taken over");
    assert_eq!(stored.get::<String, _>("email"), "");
    assert_eq!(count(&app.store, "members").await, 1);

    // The owner comes back with the address they left with; until that registration is
    // activated, the stranger still cannot take it over.
    let owners = register(
        &app,
        register_request(
            &uuid::Uuid::new_v4().to_string(),
            &rut,
            member.email.as_str(),
        ),
    )
    .await
    .expect("the owner comes back");
    assert_eq!(owners, member.id.as_str());
    let again = register(
        &app,
        register_request(&strangers, &rut, "extrano@correo.cl"),
    )
    .await
    .unwrap_err();
    assert_eq!(body(&again).code, ErrorCode::PreviousEmailRequired);
    assert_eq!(
        row(&app, &owners).await.get::<String, _>("email"),
        member.email.as_str()
    );

    activate(&app, &owners).await;
    assert_eq!(status_of(&row(&app, &owners).await), "active");
    assert_eq!(left_email_digest(&app, &owners).await, None);
    assert_eq!(app.balance_of(&member.id).await, 1_234);
}

async fn the_reasons_are_listed_to_anyone(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let reasons = app
        .client()
        .await
        .list_unsubscribe_reasons(ListUnsubscribeReasonsRequest {})
        .await
        .expect("anonymous")
        .into_inner()
        .reasons;
    assert_eq!(reasons.len(), 6);
    assert_eq!(reasons[0].label, "No uso los beneficios del club");
    let other = reasons.last().unwrap();
    assert_eq!((other.id, other.label.as_str()), (99, "Otro motivo"));
    assert!(other.requires_text);
    assert!(reasons[..5].iter().all(|r| !r.requires_text));
}

backend_tests!(
    registration_refuses_a_document_or_an_email_an_active_member_holds,
    a_registered_foreign_document_is_refused_with_the_documento_text,
    registration_calls_need_a_service_token_and_validate_every_field,
    a_retried_registration_leaves_exactly_one_pending_member_with_an_empty_account,
    a_second_registration_of_a_pending_document_takes_the_member_over,
    concurrent_registrations_of_one_document_end_with_one_member,
    activation_mails_one_link_that_confirms_the_email_and_tells_auth,
    an_activation_whose_mail_fails_changes_nothing_and_can_be_retried,
    the_verification_resend_answers_the_same_whoever_asks,
    an_address_is_sent_ten_links_or_notices_a_day_however_many_registrations_type_it,
    mail_the_relay_refused_does_not_count_against_the_address,
    validating_the_unsubscribe_compares_the_document_and_the_email,
    unsubscribing_erases_the_personal_data_and_keeps_the_ledger,
    credentials_auth_could_not_disable_are_disabled_later_in_the_background,
    a_member_who_left_can_register_again_and_finds_the_balance_kept,
    a_stranger_who_knows_the_rut_of_a_member_who_left_takes_neither_pesos_nor_history,
    the_reasons_are_listed_to_anyone,
);
