//! Registration never tells whether an email is a member's (ASVS 5.0 V6.3.8): the personal data
//! check does not look it up, and registering with an address an active member uses creates
//! nothing, mails that address one notice (however often the same registration retries) and
//! answers `email_in_use` for the registration service to answer like a success.

use miclub_accounts::domain::NOTICE_SUBJECT;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::notify::Mail;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    CheckRegistrationIdentityRequest, CheckRegistrationProfileRequest, NewMemberProfile,
    RegisterMemberRequest, RegisterMemberResponse,
};

use crate::support::{TestApp, count, full_member};

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

async fn register(
    app: &TestApp,
    member_id: &str,
    rut: &str,
    email: &str,
) -> Result<RegisterMemberResponse, tonic::Status> {
    app.client()
        .await
        .register_member(app.as_service(RegisterMemberRequest {
            member_id: member_id.into(),
            document_type: "RUT".into(),
            document_number: rut.into(),
            profile: Some(profile(email)),
            terms_version: "2026-11".into(),
        }))
        .await
        .map(|answer| answer.into_inner())
}

fn notices_to(app: &TestApp, email: &str) -> Vec<Mail> {
    app.mail
        .sent()
        .into_iter()
        .filter(|mail| mail.to == email && mail.subject == NOTICE_SUBJECT)
        .collect()
}

async fn step_2_answers_the_same_for_an_address_in_use_and_a_free_one(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let active = app.add_member_with_account().await;
    let mut client = app.client().await;

    let mut answers = Vec::new();
    for email in [
        active.email.as_str().to_owned(),
        active.email.as_str().to_uppercase(),
        "libre@correo.cl".to_owned(),
    ] {
        let answer = client
            .check_registration_profile(app.as_service(CheckRegistrationProfileRequest {
                profile: Some(profile(&email)),
            }))
            .await
            .expect("accepted, member or not");
        answers.push(answer.into_inner());
    }
    assert!(answers.windows(2).all(|pair| pair[0] == pair[1]));
    // The form is still checked.
    let refused = client
        .check_registration_profile(app.as_service(CheckRegistrationProfileRequest {
            profile: Some(profile("no-es-un-correo")),
        }))
        .await
        .unwrap_err();
    let refused = ErrorBody::from_status(&refused);
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    assert_eq!(refused.field.as_deref(), Some("email"));
    assert!(app.mail.sent().is_empty(), "step 2 mails nobody");
}

async fn an_address_in_use_registers_nobody_and_its_owner_gets_one_notice_however_often_it_is_retried(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let active = app.add_member_with_account().await;
    let rut = full_member().document.canonical();
    let member_id = uuid::Uuid::new_v4().to_string();
    let shouting = active.email.as_str().to_uppercase();

    let first = register(&app, &member_id, &rut, &shouting)
        .await
        .expect("answered, not refused");
    let retried = register(&app, &member_id, &rut, &shouting)
        .await
        .expect("the retry is answered the same");

    assert!(first.email_in_use);
    assert_eq!(first.member_id, "");
    assert_eq!(first.masked_email, active.email.masked());
    assert_eq!(retried, first);
    assert_eq!(count(&app.store, "members").await, 1, "only the owner");
    let notices = notices_to(&app, active.email.as_str());
    assert_eq!(notices.len(), 1, "one notice for one registration");
    let notice = &notices[0];
    assert!(
        notice.body.contains("/recuperar-contrasena"),
        "{}",
        notice.body
    );
    assert!(!notice.body.contains("token="), "no link that acts");
    assert!(
        !notice.body.contains("Carla"),
        "nothing the registrant typed"
    );
    assert_eq!(notice.code, None);
    assert_eq!(app.mail.sent().len(), 1, "no verification link anywhere");
    // The registrant's document was never taken: they can register with their own address.
    app.client()
        .await
        .check_registration_identity(app.as_service(CheckRegistrationIdentityRequest {
            document_type: "RUT".into(),
            document_number: rut.clone(),
        }))
        .await
        .expect("the document is still free");
    let own = register(
        &app,
        &uuid::Uuid::new_v4().to_string(),
        &rut,
        "carla@correo.cl",
    )
    .await
    .unwrap();
    assert!(!own.email_in_use);
    assert!(!own.member_id.is_empty());
    assert_eq!(count(&app.store, "members").await, 2);
}

async fn a_relay_down_at_the_notice_is_unavailable_and_the_retry_mails_it_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let active = app.add_member_with_account().await;
    let rut = full_member().document.canonical();
    let member_id = uuid::Uuid::new_v4().to_string();
    app.mail.fail(true);

    let down = register(&app, &member_id, &rut, active.email.as_str())
        .await
        .unwrap_err();
    assert_eq!(down.code(), tonic::Code::Unavailable);

    app.mail.fail(false);
    for _ in 0..2 {
        let answer = register(&app, &member_id, &rut, active.email.as_str())
            .await
            .unwrap();
        assert!(answer.email_in_use);
    }
    assert_eq!(notices_to(&app, active.email.as_str()).len(), 1);
    assert_eq!(count(&app.store, "members").await, 1);
}

backend_tests!(
    step_2_answers_the_same_for_an_address_in_use_and_a_free_one,
    an_address_in_use_registers_nobody_and_its_owner_gets_one_notice_however_often_it_is_retried,
    a_relay_down_at_the_notice_is_unavailable_and_the_retry_mails_it_once,
);
