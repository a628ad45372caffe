//! Steps 1 and 2, the stored view, expiry and cleanup, and the step 1 limit.

use std::time::Duration;

use miclub_platform::backend_tests;
use miclub_platform::error::ErrorCode;
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::registration::v1 as pb;
use miclub_registration::domain::IdentityInput;
use miclub_registration::error::RegistrationError;

use crate::support::{CARD, RUT, TestApp, body, chilean, foreign, personal_data, proto_data};

async fn step_1_opens_a_flow_at_step_2_that_a_reload_finds_as_entered(env: TestEnv) {
    let app = TestApp::spawn(env).await;

    let started = app.start_chilean("12345678-5").await;

    assert_eq!(started.registration_id.len(), 43);
    assert_eq!(started.step(), pb::Step::PersonalData);
    assert!(started.personal_data.is_none());
    assert!((1_799..=1_800).contains(&started.expires_in_seconds));
    let Some(pb::registration::Identity::Chilean(identity)) = &started.identity else {
        panic!("not chilean: {started:?}");
    };
    assert_eq!(identity.rut, RUT);
    assert_eq!(identity.document_number, "100123456");
    assert_eq!(app.fakes.calls("check_identity"), 1);

    let reloaded = app.get(&started.registration_id).await.unwrap();
    assert_eq!(reloaded.identity, started.identity);
    assert_eq!(reloaded.step(), pb::Step::PersonalData);
    assert_eq!(app.store.count().await.unwrap(), 1);
}

async fn step_2_stores_the_data_and_moves_to_step_3_and_may_be_sent_again(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.start_chilean(RUT).await.registration_id;

    let at_3 = app
        .submit(&id, proto_data(" ana@correo.cl "))
        .await
        .unwrap();
    assert_eq!(at_3.step(), pb::Step::Password);
    let data = at_3.personal_data.unwrap();
    assert_eq!(data.email, "ana@correo.cl");
    assert_eq!(data.name, "Ana");
    assert_eq!(data.birth_date, "1990-05-17");
    assert_eq!(data.gender_id, 2);

    // "Volver" from step 3: the new data replaces the old.
    let again = app
        .submit(&id, proto_data("ana.perez@correo.cl"))
        .await
        .unwrap();
    assert_eq!(again.step(), pb::Step::Password);
    let reloaded = app.get(&id).await.unwrap();
    assert_eq!(reloaded.step(), pb::Step::Password);
    assert_eq!(reloaded.personal_data.unwrap().email, "ana.perez@correo.cl");
}

async fn a_foreign_document_opens_a_flow_with_its_type_number_and_country(env: TestEnv) {
    let app = TestApp::spawn(env).await;

    let started = app
        .client()
        .await
        .start_registration(foreign(
            pb::ForeignDocumentType::Passport,
            "p123-4567",
            "ar",
        ))
        .await
        .unwrap()
        .into_inner()
        .registration
        .unwrap();

    let Some(pb::registration::Identity::Foreign(identity)) = started.identity else {
        panic!("not foreign");
    };
    assert_eq!(identity.document_type(), pb::ForeignDocumentType::Passport);
    assert_eq!(identity.document_number, "P1234567");
    assert_eq!(identity.country, "AR");
}

async fn invalid_documents_are_refused_with_their_field_and_open_no_flow(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut client = app.client().await;
    let cases = [
        (
            chilean("12.345.678-4", CARD, ""),
            ErrorCode::InvalidRut,
            "rut",
            "El RUT ingresado no es válido.",
        ),
        (
            chilean(RUT, "12345", ""),
            ErrorCode::InvalidArgument,
            "documentNumber",
            "El número de documento no es válido.",
        ),
        (
            foreign(pb::ForeignDocumentType::Unspecified, "P1234567", "AR"),
            ErrorCode::InvalidArgument,
            "documentType",
            "Selecciona el tipo de documento.",
        ),
        (
            foreign(pb::ForeignDocumentType::Passport, "P1234567", "CL"),
            ErrorCode::InvalidArgument,
            "country",
            "Selecciona el país que emitió tu documento.",
        ),
        (
            foreign(pb::ForeignDocumentType::NationalId, "12345678K", "PE"),
            ErrorCode::InvalidArgument,
            "documentNumber",
            "El número de documento debe tener entre 5 y 20 letras y números, con al menos una letra.",
        ),
        (
            pb::StartRegistrationRequest {
                identity: None,
                client_ip: String::new(),
            },
            ErrorCode::InvalidArgument,
            "documentType",
            "Selecciona el tipo de documento.",
        ),
    ];
    for (request, code, field, message) in cases {
        let status = client.start_registration(request).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{field}");
        let body = body(&status);
        assert_eq!(body.code, code, "{field}");
        assert_eq!(body.field.as_deref(), Some(field));
        assert_eq!(body.message, message);
    }
    assert_eq!(app.fakes.calls("check_identity"), 0);
    assert_eq!(app.store.count().await.unwrap(), 0);
}

async fn a_registered_rut_is_refused_at_step_1_with_its_own_code_and_action(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.fakes.add_active_member(
        "11111111-1111-4111-8111-111111111111",
        "12345678-5",
        "otra@correo.cl",
    );

    let status = app
        .client()
        .await
        .start_registration(chilean("12.345.678-5", CARD, "10.0.0.1"))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::AlreadyExists);
    let body = body(&status);
    assert_eq!(body.code, ErrorCode::RutAlreadyRegistered);
    assert_eq!(body.message, ErrorCode::RutAlreadyRegistered.message());
    let action = body.action.unwrap();
    assert_eq!(action.url, "/recuperar-contrasena");
    assert_eq!(action.url_name, "Recuperar contraseña");
    assert_eq!(app.store.count().await.unwrap(), 0);
}

async fn accounts_field_messages_reach_the_caller_at_step_2(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.start_chilean(RUT).await.registration_id;

    let mut minor = proto_data("nueva@correo.cl");
    minor.birth_date = "2015-01-01".into();
    let minor = body(&app.submit(&id, minor).await.unwrap_err());
    assert_eq!(minor.code, ErrorCode::InvalidArgument);
    assert_eq!(minor.field.as_deref(), Some("birthDate"));
    assert_eq!(
        minor.message,
        "Debes ser mayor de 18 años para registrarte."
    );

    // Refused data is not stored: the flow is still at step 2.
    let reloaded = app.get(&id).await.unwrap();
    assert_eq!(reloaded.step(), pb::Step::PersonalData);
    assert!(reloaded.personal_data.is_none());
}

async fn an_unknown_or_malformed_flow_id_is_expired(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let unknown = "A".repeat(43);
    for id in ["", "no-es-un-id", unknown.as_str()] {
        let status = app.get(id).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::NotFound);
        assert_eq!(body(&status).code, ErrorCode::RegistrationExpired);
        let status = app
            .submit(id, proto_data("ana@correo.cl"))
            .await
            .unwrap_err();
        assert_eq!(body(&status).code, ErrorCode::RegistrationExpired);
    }
}

async fn an_abandoned_flow_expires_step_2_is_refused_and_cleanup_deletes_it(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let flows = &app.registrations;
    let t0 = now_millis();
    let ttl = 1_800_000;
    let started = flows
        .start(
            &IdentityInput::Chilean {
                rut: RUT.into(),
                document_number: CARD.into(),
            },
            "",
            t0,
        )
        .await
        .unwrap();
    let id = started.id.as_str().to_owned();
    let other = flows
        .start(
            &IdentityInput::Chilean {
                rut: "11.111.111-1".into(),
                document_number: CARD.into(),
            },
            "",
            t0 + 60_000,
        )
        .await
        .unwrap();

    // Reading does not extend the flow.
    assert_eq!(
        flows.get(&id, t0 + ttl - 1).await.unwrap().expires_at,
        t0 + ttl
    );
    assert!(matches!(
        flows.get(&id, t0 + ttl).await,
        Err(RegistrationError::Expired)
    ));
    assert!(matches!(
        flows
            .submit_personal_data(&id, personal_data(), t0 + ttl)
            .await,
        Err(RegistrationError::Expired)
    ));
    assert_eq!(app.fakes.calls("check_profile"), 0);

    assert_eq!(flows.delete_expired(t0 + ttl).await.unwrap(), 1);
    assert_eq!(app.store.count().await.unwrap(), 1);
    assert!(flows.get(other.id.as_str(), t0 + ttl).await.is_ok());
}

async fn an_accepted_step_2_gives_the_flow_a_new_life(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let flows = &app.registrations;
    let t0 = now_millis();
    let ttl = 1_800_000;
    let id = flows
        .start(
            &IdentityInput::Chilean {
                rut: RUT.into(),
                document_number: CARD.into(),
            },
            "",
            t0,
        )
        .await
        .unwrap()
        .id;

    let at_3 = flows
        .submit_personal_data(id.as_str(), personal_data(), t0 + ttl - 1_000)
        .await
        .unwrap();

    assert_eq!(at_3.expires_at, t0 + 2 * ttl - 1_000);
    let later = flows.get(id.as_str(), t0 + ttl + 60_000).await.unwrap();
    assert_eq!(later.personal_data, Some(personal_data()));
    assert_eq!(
        later.expires_in_seconds(t0 + ttl + 60_000),
        (ttl - 61_000) / 1_000
    );
}

async fn the_background_task_deletes_flows_nobody_came_back_to(env: TestEnv) {
    let app = TestApp::spawn_with(env, |settings| {
        settings.flow_ttl_secs = 1;
        settings.cleanup_interval_secs = 1;
    })
    .await;
    let id = app.start_chilean(RUT).await.registration_id;
    assert_eq!(app.store.count().await.unwrap(), 1);

    tokio::time::sleep(Duration::from_millis(2_600)).await;

    assert_eq!(app.store.count().await.unwrap(), 0);
    let status = app.get(&id).await.unwrap_err();
    assert_eq!(body(&status).code, ErrorCode::RegistrationExpired);
}

async fn step_1_is_limited_per_client_address(env: TestEnv) {
    let app = TestApp::spawn_with(env, |settings| settings.start_attempts = 3).await;
    let mut client = app.client().await;
    // Refused attempts count too: step 1 tells whether a document is a member's.
    client
        .start_registration(chilean("12.345.678-4", CARD, "10.9.9.9"))
        .await
        .unwrap_err();
    for _ in 0..2 {
        client
            .start_registration(chilean(RUT, CARD, "10.9.9.9"))
            .await
            .unwrap();
    }

    let status = client
        .start_registration(chilean(RUT, CARD, "10.9.9.9"))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::ResourceExhausted);
    assert_eq!(body(&status).code, ErrorCode::TooManyAttempts);
    assert_eq!(app.fakes.calls("check_identity"), 2);
    client
        .start_registration(chilean(RUT, CARD, "10.8.8.8"))
        .await
        .expect("another address is not limited");
}

backend_tests!(
    step_1_opens_a_flow_at_step_2_that_a_reload_finds_as_entered,
    step_2_stores_the_data_and_moves_to_step_3_and_may_be_sent_again,
    a_foreign_document_opens_a_flow_with_its_type_number_and_country,
    invalid_documents_are_refused_with_their_field_and_open_no_flow,
    a_registered_rut_is_refused_at_step_1_with_its_own_code_and_action,
    accounts_field_messages_reach_the_caller_at_step_2,
    an_unknown_or_malformed_flow_id_is_expired,
    an_abandoned_flow_expires_step_2_is_refused_and_cleanup_deletes_it,
    an_accepted_step_2_gives_the_flow_a_new_life,
    the_background_task_deletes_flows_nobody_came_back_to,
    step_1_is_limited_per_client_address,
);
