//! `ListGenders` and `UpdateProfile`: the options of the form, and what a member may change in
//! their own record with the exact Spanish message of each refused field.

use chrono::{Datelike, Months};
use miclub_platform::backend_tests;
use miclub_platform::calendar;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    GetMemberRequest, ListGendersRequest, TermsDecision, UpdateProfileRequest,
};

use crate::support::{PASSWORD, TestApp};

/// A valid form that keeps `email`.
fn form(email: &str) -> UpdateProfileRequest {
    UpdateProfileRequest {
        email: email.to_owned(),
        name: "María José".into(),
        last_name: "O'Higgins".into(),
        mother_surname: "Pérez-Cotapos".into(),
        phone_number: "+56 9 8765 4321".into(),
        birth_date: "1985-12-01".into(),
        gender_id: 6,
        current_password: PASSWORD.into(),
        ..Default::default()
    }
}

async fn the_genders_list_is_the_spec_list_and_needs_no_session(env: TestEnv) {
    let app = TestApp::spawn(env).await;

    let genders = app
        .client()
        .await
        .list_genders(ListGendersRequest {})
        .await
        .expect("list genders")
        .into_inner()
        .genders;

    let listed: Vec<(i32, &str)> = genders.iter().map(|g| (g.id, g.label.as_str())).collect();
    assert_eq!(
        listed,
        [
            (1, "Femenino"),
            (2, "Masculino"),
            (3, "Prefiero no decir"),
            (6, "No me identifico con las opciones disponibles"),
            (7, "Otros"),
        ]
    );
}

async fn a_valid_update_is_stored_and_answered_with_the_phone_in_international_form(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);

    let answer = app
        .client()
        .await
        .update_profile(app.authorized(form(member.email.as_str()), &token))
        .await
        .expect("update profile")
        .into_inner();

    assert!(!answer.email_confirmation_sent);
    let got = answer.member.expect("the member");
    assert_eq!(got.name, "María José");
    assert_eq!(got.last_name, "O'Higgins");
    assert_eq!(got.mother_surname, "Pérez-Cotapos");
    assert_eq!(got.phone_number, "+56987654321");
    assert_eq!(got.birth_date, "1985-12-01");
    assert_eq!(got.gender_id, 6);
    assert_eq!(got.email, member.email.as_str());
    assert!(got.email_confirmed, "the same email stays confirmed");
    assert_eq!(got.document_number, member.document.canonical());
    assert_eq!(
        got.terms_agreement.expect("terms").decision(),
        TermsDecision::Accepted,
        "terms are not part of the form"
    );
    assert!(got.has_club_account);

    let stored = app.stored(&member.id).await;
    assert_eq!(stored.name.as_str(), "María José");
    assert_eq!(stored.last_name.as_str(), "O'Higgins");
    assert_eq!(
        stored.phone_number.as_ref().map(|p| p.as_str()),
        Some("+56987654321")
    );
    assert_eq!(
        stored.birth_date.map(|d| d.iso()).as_deref(),
        Some("1985-12-01")
    );
    assert_eq!(stored.gender_id.map(|g| g.get()), Some(6));
    assert!(app.mail.sent().is_empty(), "no mail without a new email");
}

async fn each_short_form_of_a_chilean_mobile_is_stored_with_the_country_code(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);
    let mut client = app.client().await;

    for (typed, kept) in [
        ("912345670", "+56912345670"),
        ("56912345671", "+56912345671"),
        ("+56 9 1234 5672", "+56912345672"),
    ] {
        let got = client
            .update_profile(app.authorized(
                UpdateProfileRequest {
                    phone_number: typed.into(),
                    ..form(member.email.as_str())
                },
                &token,
            ))
            .await
            .expect("update profile")
            .into_inner()
            .member
            .expect("member");
        assert_eq!(got.phone_number, kept, "{typed}");
        assert_eq!(
            app.stored(&member.id).await.phone_number.unwrap().as_str(),
            kept
        );
    }
}

async fn empty_optional_fields_clear_them(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);

    let got = app
        .client()
        .await
        .update_profile(app.authorized(
            UpdateProfileRequest {
                mother_surname: " ".into(),
                phone_number: String::new(),
                birth_date: String::new(),
                gender_id: 0,
                ..form(member.email.as_str())
            },
            &token,
        ))
        .await
        .expect("update profile")
        .into_inner()
        .member
        .expect("member");

    assert_eq!(got.mother_surname, "");
    assert_eq!(got.phone_number, "");
    assert_eq!(got.birth_date, "");
    assert_eq!(got.gender_id, 0);
    let stored = app.stored(&member.id).await;
    assert_eq!(stored.mother_surname, None);
    assert_eq!(stored.phone_number, None);
    assert_eq!(stored.birth_date, None);
    assert_eq!(stored.gender_id, None);
}

async fn each_invalid_field_is_refused_with_its_own_spanish_message_and_changes_nothing(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);
    let mut client = app.client().await;
    let email = member.email.as_str();
    let today = calendar::today();
    let seventeen = today
        .checked_sub_months(Months::new(17 * 12))
        .unwrap()
        .format("%Y-%m-%d")
        .to_string();
    let future = format!("{}-01-01", today.year() + 1);
    let names = "Usa solo letras, espacios, apóstrofes o guiones.";
    let phone = "Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.";
    let birth = "Ingresa una fecha de nacimiento válida.";

    let cases: Vec<(UpdateProfileRequest, &str, &str)> = vec![
        (
            UpdateProfileRequest {
                email: "ana.example.cl".into(),
                ..form(email)
            },
            "email",
            "Ingresa un correo electrónico válido.",
        ),
        (
            UpdateProfileRequest {
                email: "ana@example".into(),
                ..form(email)
            },
            "email",
            "Ingresa un correo electrónico válido.",
        ),
        (
            UpdateProfileRequest {
                name: "  ".into(),
                ..form(email)
            },
            "name",
            "Ingresa tu nombre.",
        ),
        (
            UpdateProfileRequest {
                name: "Ana2".into(),
                ..form(email)
            },
            "name",
            names,
        ),
        (
            UpdateProfileRequest {
                last_name: String::new(),
                ..form(email)
            },
            "last_name",
            "Ingresa tu apellido paterno.",
        ),
        (
            UpdateProfileRequest {
                last_name: "a".repeat(51),
                ..form(email)
            },
            "last_name",
            names,
        ),
        (
            UpdateProfileRequest {
                mother_surname: "Pérez;".into(),
                ..form(email)
            },
            "mother_surname",
            names,
        ),
        (
            UpdateProfileRequest {
                phone_number: "+56 2 2345 6789".into(),
                ..form(email)
            },
            "phone_number",
            phone,
        ),
        (
            UpdateProfileRequest {
                phone_number: "12345".into(),
                ..form(email)
            },
            "phone_number",
            phone,
        ),
        (
            UpdateProfileRequest {
                birth_date: "01-12-1985".into(),
                ..form(email)
            },
            "birth_date",
            birth,
        ),
        (
            UpdateProfileRequest {
                birth_date: future,
                ..form(email)
            },
            "birth_date",
            birth,
        ),
        (
            UpdateProfileRequest {
                birth_date: "1890-01-01".into(),
                ..form(email)
            },
            "birth_date",
            birth,
        ),
        (
            UpdateProfileRequest {
                birth_date: seventeen,
                ..form(email)
            },
            "birth_date",
            "Debes ser mayor de 18 años.",
        ),
        (
            UpdateProfileRequest {
                gender_id: 4,
                ..form(email)
            },
            "gender_id",
            "Selecciona una opción de la lista.",
        ),
    ];

    for (request, field, message) in cases {
        let status = client
            .update_profile(app.authorized(request.clone(), &token))
            .await
            .expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{request:?}");
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::InvalidArgument, "{request:?}");
        assert_eq!(body.field.as_deref(), Some(field), "{request:?}");
        assert_eq!(body.message, message, "{request:?}");
    }
    assert_eq!(app.stored(&member.id).await, member);
    assert!(app.mail.sent().is_empty());
}

async fn the_first_invalid_field_in_form_order_is_the_one_reported(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);

    let status = app
        .client()
        .await
        .update_profile(app.authorized(
            UpdateProfileRequest {
                email: "not-an-email".into(),
                name: String::new(),
                gender_id: 99,
                ..form(member.email.as_str())
            },
            &token,
        ))
        .await
        .unwrap_err();

    let body = ErrorBody::from_status(&status);
    assert_eq!(body.field.as_deref(), Some("email"));
    assert_eq!(body.message, "Ingresa un correo electrónico válido.");
}

async fn an_update_for_a_member_who_does_not_exist_is_not_found(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let nobody = miclub_accounts::domain::MemberId::generate();

    let status = app
        .client()
        .await
        .update_profile(app.authorized(form("ana@example.cl"), &app.token(&nobody)))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::NotFound);
    assert!(app.mail.sent().is_empty());
}

async fn get_member_reads_back_what_the_update_stored(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let token = app.token(&member.id);
    let mut client = app.client().await;
    let updated = client
        .update_profile(app.authorized(form(member.email.as_str()), &token))
        .await
        .expect("update")
        .into_inner()
        .member;

    let read = client
        .get_member(app.authorized(GetMemberRequest {}, &token))
        .await
        .expect("get member")
        .into_inner()
        .member;

    assert_eq!(read, updated);
}

backend_tests!(
    the_genders_list_is_the_spec_list_and_needs_no_session,
    a_valid_update_is_stored_and_answered_with_the_phone_in_international_form,
    each_short_form_of_a_chilean_mobile_is_stored_with_the_country_code,
    empty_optional_fields_clear_them,
    each_invalid_field_is_refused_with_its_own_spanish_message_and_changes_nothing,
    the_first_invalid_field_in_form_order_is_the_one_reported,
    an_update_for_a_member_who_does_not_exist_is_not_found,
    get_member_reads_back_what_the_update_stored,
);
