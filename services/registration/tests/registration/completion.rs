//! Step 3: the member, its credentials and its activation, and how a retry heals a failure.

use miclub_platform::backend_tests;
use miclub_platform::error::ErrorCode;
use miclub_platform::member::MemberId;
use miclub_platform::testing::TestEnv;
use miclub_proto::registration::v1 as pb;
use miclub_registration::domain::FlowId;

use crate::support::{PASSWORD, TERMS_VERSION, TestApp, body, foreign, proto_data};

async fn the_three_steps_create_one_active_member_with_credentials(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.at_step_3("12.345.678-5", "ana@correo.cl").await;

    let done = app.complete(&id).await.unwrap();

    assert_eq!(done.masked_email, "a***@correo.cl");
    assert_eq!(
        uuid::Uuid::parse_str(&done.member_id)
            .unwrap()
            .get_version_num(),
        4
    );
    assert_eq!(app.counts(), (1, 1, 1));
    let member = app.fakes.members.lock().unwrap()[&done.member_id].clone();
    assert_eq!(member.document_type, "RUT");
    assert_eq!(member.document_number, "12345678-5");
    assert_eq!(member.profile.email, "ana@correo.cl");
    assert_eq!(member.profile.name, "Ana");
    assert_eq!(member.terms_version, TERMS_VERSION);
    assert_eq!(member.activations_mailed, 1);
    let credential = app.fakes.credentials.lock().unwrap()[&done.member_id].clone();
    assert_eq!(credential.login_id, "12345678-5");
    assert_eq!(credential.email, "ana@correo.cl");
    assert_eq!(credential.password, PASSWORD);
}

async fn a_foreign_member_logs_in_with_the_document_number(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app
        .client()
        .await
        .start_registration(foreign(
            pb::ForeignDocumentType::NationalId,
            "ab-12345",
            "PE",
        ))
        .await
        .unwrap()
        .into_inner()
        .registration
        .unwrap()
        .registration_id;
    app.submit(&id, proto_data("luis@correo.pe")).await.unwrap();

    let done = app.complete(&id).await.unwrap();

    let member = app.fakes.members.lock().unwrap()[&done.member_id].clone();
    assert_eq!(member.document_type, "FOREIGN");
    assert_eq!(member.document_number, "AB12345");
    let credential = app.fakes.credentials.lock().unwrap()[&done.member_id].clone();
    assert_eq!(credential.login_id, "AB12345");
}

async fn the_password_step_before_the_personal_data_is_refused(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.start_chilean("12.345.678-5").await.registration_id;

    let status = app.complete(&id).await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::Aborted);
    assert_eq!(body(&status).code, ErrorCode::Conflict);
    assert_eq!(app.fakes.calls("check_password_rules"), 0);
    assert_eq!(app.counts(), (0, 0, 0));
}

async fn terms_not_accepted_or_a_weak_password_creates_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.at_step_3("12.345.678-5", "ana@correo.cl").await;
    let mut client = app.client().await;

    let status = client
        .complete_registration(pb::CompleteRegistrationRequest {
            registration_id: id.clone(),
            password: PASSWORD.into(),
            accept_terms: false,
        })
        .await
        .unwrap_err();
    let refused = body(&status);
    assert_eq!(refused.code, ErrorCode::TermsNotAccepted);
    assert_eq!(refused.field.as_deref(), Some("acceptTerms"));

    let status = client
        .complete_registration(pb::CompleteRegistrationRequest {
            registration_id: id.clone(),
            password: "corta".into(),
            accept_terms: true,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let weak = body(&status);
    assert_eq!(weak.code, ErrorCode::WeakPassword);
    assert_eq!(weak.field.as_deref(), Some("password"));
    assert_eq!(
        weak.message,
        "La contraseña debe tener al menos 8 caracteres."
    );

    assert_eq!(app.fakes.calls("register_member"), 0);
    assert_eq!(app.counts(), (0, 0, 0));
    // The flow is still usable.
    assert_eq!(app.get(&id).await.unwrap().step(), pb::Step::Password);
}

async fn a_retry_after_a_failure_between_member_and_credentials_leaves_exactly_one_member(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let id = app.at_step_3("12.345.678-5", "ana@correo.cl").await;
    app.fakes.fail_once("create_credentials");

    let status = app.complete(&id).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable);
    assert_eq!(body(&status).code, ErrorCode::Unavailable);
    assert_eq!(
        app.counts(),
        (1, 0, 0),
        "a pending member and no credentials"
    );
    let pending = app
        .fakes
        .members
        .lock()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();

    let done = app.complete(&id).await.unwrap();

    assert_eq!(done.member_id, pending);
    assert_eq!(app.counts(), (1, 1, 1));
    assert!(app.fakes.credentials.lock().unwrap().contains_key(&pending));
    assert_eq!(app.fakes.calls("register_member"), 2);
    assert_eq!(
        app.fakes.calls("current_version"),
        1,
        "the terms version is kept too"
    );
}

async fn a_retry_after_a_failed_activation_finishes_the_same_member(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.at_step_3("12.345.678-5", "ana@correo.cl").await;
    app.fakes.fail_once("activate_member");
    app.complete(&id).await.unwrap_err();
    assert_eq!(app.counts(), (1, 0, 1));
    // The flow still answers while completing, at step 3 with what was entered.
    assert_eq!(app.get(&id).await.unwrap().step(), pb::Step::Password);

    let done = app.complete(&id).await.unwrap();

    assert_eq!(app.counts(), (1, 1, 1));
    assert!(
        app.fakes
            .credentials
            .lock()
            .unwrap()
            .contains_key(&done.member_id)
    );
    assert_eq!(
        app.fakes.members.lock().unwrap()[&done.member_id].activations_mailed,
        1
    );
}

async fn a_second_completion_after_success_is_expired_and_creates_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.at_step_3("12.345.678-5", "ana@correo.cl").await;
    app.complete(&id).await.unwrap();
    let calls = app.fakes.calls("register_member");

    let status = app.complete(&id).await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::NotFound);
    assert_eq!(body(&status).code, ErrorCode::RegistrationExpired);
    assert_eq!(
        body(&app.get(&id).await.unwrap_err()).code,
        ErrorCode::RegistrationExpired
    );
    assert_eq!(
        body(
            &app.submit(&id, proto_data("ana@correo.cl"))
                .await
                .unwrap_err()
        )
        .code,
        ErrorCode::RegistrationExpired
    );
    assert_eq!(app.fakes.calls("register_member"), calls);
    assert_eq!(app.counts(), (1, 1, 1));
}

async fn the_member_id_accounts_answers_is_the_one_that_gets_credentials(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let reused = "22222222-2222-4222-8222-222222222222";
    *app.fakes.reuse_member_id.lock().unwrap() = Some(reused.into());
    let id = app.at_step_3("12.345.678-5", "ana@correo.cl").await;
    app.fakes.fail_once("activate_member");
    app.complete(&id).await.unwrap_err();
    *app.fakes.reuse_member_id.lock().unwrap() = None;
    let key = FlowId::parse(&id).unwrap().key();
    let stored = app.store.find(&key).await.unwrap().unwrap();
    assert_eq!(
        stored.member_id.as_ref().map(MemberId::as_str),
        Some(reused),
        "kept for the retry"
    );

    let done = app.complete(&id).await.unwrap();

    assert_eq!(done.member_id, reused);
    assert_eq!(app.counts(), (1, 1, 1));
    assert!(app.fakes.credentials.lock().unwrap().contains_key(reused));
}

async fn an_email_in_use_completes_like_a_success_creating_nothing_and_mailing_one_notice(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let owner = "33333333-3333-4333-8333-333333333333";
    app.fakes
        .add_active_member(owner, "11111111-1", "ana@correo.cl");
    // Someone finishing first with the same address is the same case.
    let id = app.at_step_3("12.345.678-5", "ANA@correo.cl").await;

    let done = app.complete(&id).await.expect("answered as a success");

    assert_eq!(done.masked_email, "a***@correo.cl");
    assert_eq!(done.member_id, "", "no member was created");
    assert_eq!(app.counts(), (1, 1, 0), "only the owner, no credentials");
    assert_eq!(app.fakes.calls("create_credentials"), 0);
    assert_eq!(app.fakes.calls("activate_member"), 0);
    assert_eq!(app.fakes.notices_to("ana@correo.cl"), 1);
    // The flow is finished exactly as after a success, and a retry creates and mails nothing.
    let again = app.complete(&id).await.unwrap_err();
    assert_eq!(body(&again).code, ErrorCode::RegistrationExpired);
    assert_eq!(
        body(&app.get(&id).await.unwrap_err()).code,
        ErrorCode::RegistrationExpired
    );
    assert_eq!(app.fakes.notices_to("ana@correo.cl"), 1);
    assert_eq!(app.counts(), (1, 1, 0));
    // The document was never taken: the registrant starts over with their own address.
    let id = app.at_step_3("12.345.678-5", "ana.perez@correo.cl").await;
    let done = app.complete(&id).await.unwrap();
    assert_eq!(
        app.fakes.credentials.lock().unwrap()[&done.member_id].email,
        "ana.perez@correo.cl"
    );
    assert_eq!(app.counts(), (2, 2, 1));
}

backend_tests!(
    the_three_steps_create_one_active_member_with_credentials,
    a_foreign_member_logs_in_with_the_document_number,
    the_password_step_before_the_personal_data_is_refused,
    terms_not_accepted_or_a_weak_password_creates_nothing,
    a_retry_after_a_failure_between_member_and_credentials_leaves_exactly_one_member,
    a_retry_after_a_failed_activation_finishes_the_same_member,
    a_second_completion_after_success_is_expired_and_creates_nothing,
    the_member_id_accounts_answers_is_the_one_that_gets_credentials,
    an_email_in_use_completes_like_a_success_creating_nothing_and_mailing_one_notice,
);
