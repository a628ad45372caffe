//! The runtime flags: the shipped defaults on a fresh database, SetFlag (service token) seen by
//! the very next GetFlags and kept across a restart, one flag at a time.

use miclub_platform::backend_tests;
use miclub_platform::error::ErrorCode;
use miclub_platform::testing::TestEnv;
use miclub_proto::content::v1 as pb;
use sqlx::Row;

use crate::support::{TestApp, refused};

async fn get_flags(app: &TestApp) -> pb::Flags {
    app.client()
        .await
        .get_flags(pb::GetFlagsRequest {})
        .await
        .unwrap()
        .into_inner()
        .flags
        .unwrap()
}

async fn set_flag(app: &TestApp, flag: pb::FlagName, value: bool) -> pb::Flags {
    app.client()
        .await
        .set_flag(app.as_service(pb::SetFlagRequest {
            flag: flag as i32,
            value,
        }))
        .await
        .unwrap()
        .into_inner()
        .flags
        .unwrap()
}

async fn a_fresh_database_serves_the_portal_on_password_change_on_and_no_login_maintenance(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;

    assert_eq!(
        get_flags(&app).await,
        pb::Flags {
            portal_enabled: true,
            change_password_enable: true,
            is_login_maintenance: false,
        }
    );
}

async fn a_flag_set_by_an_operator_is_seen_by_the_next_read_alone_and_after_a_restart(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;

    let answered = set_flag(&app, pb::FlagName::PortalEnabled, false).await;

    let expected = pb::Flags {
        portal_enabled: false,
        change_password_enable: true,
        is_login_maintenance: false,
    };
    assert_eq!(answered, expected);
    assert_eq!(get_flags(&app).await, expected);
    let row = sqlx::query("SELECT updated_by FROM flags WHERE name = 'portal_enabled'")
        .fetch_one(app.store.database().pool())
        .await
        .unwrap();
    assert_eq!(row.get::<String, _>("updated_by"), "backoffice");

    let both = set_flag(&app, pb::FlagName::IsLoginMaintenance, true).await;
    assert!(!both.portal_enabled && both.is_login_maintenance);
    // Setting a flag to the value it has is harmless.
    let again = set_flag(&app, pb::FlagName::IsLoginMaintenance, true).await;
    assert_eq!(again, both);

    let app = app.restart().await;
    assert_eq!(get_flags(&app).await, both);
    let back_on = set_flag(&app, pb::FlagName::PortalEnabled, true).await;
    assert!(back_on.portal_enabled && back_on.is_login_maintenance);
    assert_eq!(app.count("flags").await, 3);
}

async fn an_unspecified_flag_is_refused(env: TestEnv) {
    let app = TestApp::spawn(env).await;

    let status = app
        .client()
        .await
        .set_flag(app.as_service(pb::SetFlagRequest {
            flag: pb::FlagName::Unspecified as i32,
            value: false,
        }))
        .await
        .unwrap_err();

    let body = refused(
        &status,
        tonic::Code::InvalidArgument,
        ErrorCode::InvalidArgument,
    );
    assert_eq!(body.field.as_deref(), Some("flag"));
    assert!(get_flags(&app).await.portal_enabled);
}

backend_tests!(
    a_fresh_database_serves_the_portal_on_password_change_on_and_no_login_maintenance,
    a_flag_set_by_an_operator_is_seen_by_the_next_read_alone_and_after_a_restart,
    an_unspecified_flag_is_refused,
);
