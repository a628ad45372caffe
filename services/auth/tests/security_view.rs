//! The member's security view against the real auth `Application`, on PostgreSQL + Redis and
//! on SQLite + memory: the open sessions with their start, last sighting and user agent, ending
//! one or all the others at both hops (refresh tokens in SQL, access tokens through the
//! revocation list), a member never reaching another member's sessions or events, and the
//! security events the flows record, kept 90 days.

mod support;

use miclub_auth::store::Store;
use miclub_platform::backend_tests;
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::error::ErrorCode;
use miclub_platform::storage::{Database, now_millis};
use miclub_platform::testing::TestEnv;
use miclub_platform::tokens::VerifyError;
use support::{CLIENT_IP, SERVICE_CLIENT, SERVICE_SECRET, USER_AGENT, ana, bruno, spawn_app};

const NEW_PASSWORD: &str = "Cóndor sobre los Andes";

async fn a_login_lists_its_session_with_its_user_agent_and_the_current_one_first(env: TestEnv) {
    let app = spawn_app(env).await;
    let first = app.login(ana()).await.session.unwrap();
    let second = app.login(ana()).await.session.unwrap();
    let bruno = app.login(bruno()).await.session.unwrap();
    let sessions = app.list_sessions(&second.access_token).await.unwrap();
    assert_eq!(sessions.len(), 2, "Ana's two sessions, none of Bruno's");
    assert!(sessions[0].current);
    assert_eq!(sessions[0].id, app.sid_of(&second.access_token).await);
    assert_eq!(sessions[1].id, app.sid_of(&first.access_token).await);
    assert!(!sessions[1].current);
    for session in &sessions {
        assert_eq!(session.user_agent, USER_AGENT);
        assert!(session.started_at_millis > 0);
        assert!(session.last_seen_at_millis >= session.started_at_millis);
    }
    let bruno_sid = app.sid_of(&bruno.access_token).await;
    assert!(sessions.iter().all(|s| s.id != bruno_sid));
}

async fn a_renewal_moves_the_last_sighting_and_keeps_the_start(env: TestEnv) {
    let app = spawn_app(env).await;
    let session = app.login(ana()).await.session.unwrap();
    let sid = app.sid_of(&session.access_token).await;
    let db = Database::connect(&app.env.database).await.unwrap();
    sqlx::query("UPDATE sessions SET started_at = $1, last_seen_at = $1 WHERE session_id = $2")
        .bind(now_millis() - 60_000)
        .bind(&sid)
        .execute(db.pool())
        .await
        .unwrap();
    app.refresh(&session.refresh_token).await.unwrap();
    let store = Store::new(db);
    let open = store
        .open_session_of(
            &miclub_platform::member::MemberId::parse(ana().member_id).unwrap(),
            &sid,
            0,
            now_millis(),
        )
        .await
        .unwrap()
        .expect("still open");
    assert!(open.last_seen_at > open.started_at + 50_000);
    assert!(open.started_at <= now_millis() - 60_000);
    store.database().close().await;
}

async fn ending_a_session_refuses_its_tokens_at_once_and_leaves_the_caller_in(env: TestEnv) {
    let app = spawn_app(env).await;
    let mine = app.login(ana()).await.session.unwrap();
    let other = app.login(ana()).await.session.unwrap();
    let other_sid = app.sid_of(&other.access_token).await;
    let was_current = app
        .end_session(&mine.access_token, &other_sid)
        .await
        .unwrap();
    assert!(!was_current);
    app.assert_session_over(&app.verifier().await, &other).await;
    // auth's own port refuses the ended session's access token too.
    assert_eq!(
        app.list_sessions(&other.access_token)
            .await
            .unwrap_err()
            .code,
        ErrorCode::Unauthenticated
    );
    let left = app.list_sessions(&mine.access_token).await.unwrap();
    assert_eq!(left.len(), 1);
    assert!(left[0].current);
    // Ended already: the same answer as an id nobody has.
    assert_eq!(
        app.end_session(&mine.access_token, &other_sid)
            .await
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
}

async fn another_members_session_is_not_found_like_an_unknown_one_and_stays_open(env: TestEnv) {
    let app = spawn_app(env).await;
    let ana_session = app.login(ana()).await.session.unwrap();
    let bruno_session = app.login(bruno()).await.session.unwrap();
    let bruno_sid = app.sid_of(&bruno_session.access_token).await;
    let theirs = app
        .end_session(&ana_session.access_token, &bruno_sid)
        .await
        .unwrap_err();
    let nobodys = app
        .end_session(
            &ana_session.access_token,
            "0b7f4c1e-8f4a-4a57-9a40-5d0f3c1b2a11",
        )
        .await
        .unwrap_err();
    assert_eq!(theirs.code, ErrorCode::NotFound);
    assert_eq!(theirs, nobodys, "nothing tells the two apart");
    assert!(theirs.message.contains("sesión"));
    // Bruno is still in, at both hops.
    app.verifier()
        .await
        .verify(&bruno_session.access_token)
        .await
        .expect("Bruno's access token still works");
    assert_eq!(
        app.list_sessions(&bruno_session.access_token)
            .await
            .unwrap()
            .len(),
        1
    );
    let renewed = app.refresh(&bruno_session.refresh_token).await;
    assert!(renewed.is_ok(), "Bruno's session renews");
    // "The others" of Ana are never Bruno's.
    assert_eq!(
        app.end_other_sessions(&ana_session.access_token)
            .await
            .unwrap(),
        0
    );
    let renewed = renewed.unwrap();
    app.verifier()
        .await
        .verify(&renewed.access_token)
        .await
        .expect("still in");
}

async fn a_session_id_that_is_not_one_is_refused_on_its_field_in_spanish(env: TestEnv) {
    let app = spawn_app(env).await;
    let session = app.login(ana()).await.session.unwrap();
    for bad in ["", "sid-1", "' OR '1'='1", "%00"] {
        let err = app
            .end_session(&session.access_token, bad)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{bad:?}");
        assert_eq!(err.field.as_deref(), Some("id"));
        assert_eq!(err.message, "La sesión indicada no es válida.");
    }
    app.verifier()
        .await
        .verify(&session.access_token)
        .await
        .expect("nothing ended");
}

async fn ending_ones_own_session_is_a_logout_and_says_so(env: TestEnv) {
    let app = spawn_app(env).await;
    let session = app.login(ana()).await.session.unwrap();
    let sid = app.sid_of(&session.access_token).await;
    assert!(app.end_session(&session.access_token, &sid).await.unwrap());
    app.assert_session_over(&app.verifier().await, &session)
        .await;
}

async fn ending_the_other_sessions_keeps_only_the_callers_and_is_idempotent(env: TestEnv) {
    let app = spawn_app(env).await;
    let mine = app.login(ana()).await.session.unwrap();
    let second = app.login(ana()).await.session.unwrap();
    let third = app.login(ana()).await.session.unwrap();
    assert_eq!(app.end_other_sessions(&mine.access_token).await.unwrap(), 2);
    let verifier = app.verifier().await;
    app.assert_session_over(&verifier, &second).await;
    app.assert_session_over(&verifier, &third).await;
    verifier
        .verify(&mine.access_token)
        .await
        .expect("the caller stays in");
    app.refresh(&mine.refresh_token)
        .await
        .expect("and can renew");
    assert_eq!(app.end_other_sessions(&mine.access_token).await.unwrap(), 0);
}

async fn the_flows_record_the_members_security_events_newest_first(env: TestEnv) {
    let app = spawn_app(env).await;
    // A wrong password and a wrong code, then a login.
    assert!(app.start_login(ana().rut, "no-es-la-clave").await.is_err());
    let (challenge, code) = app.password_step(ana()).await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    assert_eq!(
        app.verify(&challenge, wrong).await.unwrap_err().code,
        ErrorCode::OtpInvalid
    );
    let session = app
        .verify(&challenge, &code)
        .await
        .unwrap()
        .session
        .unwrap();
    let other = app.login(ana()).await.session.unwrap();
    let other_sid = app.sid_of(&other.access_token).await;
    app.end_session(&session.access_token, &other_sid)
        .await
        .unwrap();
    let events = app.security_events(&session.access_token).await.unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "session_ended",
            "login_succeeded",
            "login_succeeded",
            "wrong_code",
            "wrong_password"
        ]
    );
    assert_eq!(events[1].user_agent, USER_AGENT);
    assert!(
        events
            .windows(2)
            .all(|w| w[0].occurred_at_millis >= w[1].occurred_at_millis)
    );
    // Bruno sees his own login only.
    let bruno_session = app.login(bruno()).await.session.unwrap();
    let his = app
        .security_events(&bruno_session.access_token)
        .await
        .unwrap();
    assert_eq!(
        his.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
        ["login_succeeded"]
    );
    // A password change ends every session; the next login sees it.
    app.change_password(
        &session.access_token,
        DEMO_PASSWORD,
        "Vicuña en el Altiplano",
    )
    .await
    .unwrap();
    let after = app
        .login_with(ana(), "Vicuña en el Altiplano", ana().email)
        .await
        .unwrap()
        .session
        .unwrap();
    let kinds: Vec<String> = app
        .security_events(&after.access_token)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds[..2], ["login_succeeded", "password_changed"]);
}

async fn recovery_step_ups_email_changes_and_closed_sessions_are_recorded_with_their_browser(
    env: TestEnv,
) {
    let app = spawn_app(env).await;
    // Consecutive quick steps a few milliseconds apart, so the newest-first order is theirs.
    let tick = || tokio::time::sleep(std::time::Duration::from_millis(5));
    // Recovery: asked, a wrong code, then the right one.
    let reset = app
        .start_password_reset_from(ana().rut, CLIENT_IP)
        .await
        .unwrap();
    let code = app.last_code_for(ana().email);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    assert_eq!(
        app.complete_password_reset(&reset.reset_id, wrong, NEW_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::OtpInvalid
    );
    app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
        .await
        .unwrap();
    // A stranger's recovery of a RUT nobody holds records nothing for anyone.
    app.start_password_reset_from("55.555.555-5", CLIENT_IP)
        .await
        .unwrap();
    let session = app
        .login_with(ana(), NEW_PASSWORD, ana().email)
        .await
        .unwrap()
        .session
        .unwrap();
    // A wrong current password at accounts' step-up (no session of hers asks) and at a change
    // from her session.
    let accounts = app.token_of(SERVICE_CLIENT, SERVICE_SECRET).await;
    assert!(
        app.verify_password(&accounts, ana().member_id, "no-es-la-clave", CLIENT_IP)
            .await
            .is_err()
    );
    assert!(
        app.change_password(
            &session.access_token,
            "no-es-la-clave",
            "Vicuña en el Altiplano"
        )
        .await
        .is_err()
    );
    // A confirmed new address; the same one again is no change.
    app.set_login_email(&accounts, ana().member_id, "ana.nueva@correo.cl")
        .await
        .unwrap();
    tick().await;
    app.set_login_email(&accounts, ana().member_id, "ana.nueva@correo.cl")
        .await
        .unwrap();
    let other = app
        .login_with(ana(), NEW_PASSWORD, "ana.nueva@correo.cl")
        .await
        .unwrap()
        .session
        .unwrap();
    tick().await;
    assert_eq!(
        app.end_other_sessions(&session.access_token).await.unwrap(),
        1
    );
    app.assert_session_over(&app.verifier().await, &other).await;
    tick().await;
    app.end_sessions(&accounts, ana().member_id).await.unwrap();
    let last = app
        .login_with(ana(), NEW_PASSWORD, "ana.nueva@correo.cl")
        .await
        .unwrap()
        .session
        .unwrap();
    let events = app.security_events(&last.access_token).await.unwrap();
    let seen: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e.kind.as_str(), e.user_agent.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("login_succeeded", USER_AGENT),
            // Asked by accounts (a restored address), from no browser.
            ("all_sessions_ended", ""),
            // Done from her first session: its browser.
            ("other_sessions_ended", USER_AGENT),
            ("login_succeeded", USER_AGENT),
            ("email_changed", ""),
            ("wrong_current_password", USER_AGENT),
            ("wrong_current_password", ""),
            ("login_succeeded", USER_AGENT),
            ("password_reset", USER_AGENT),
            ("wrong_recovery_code", USER_AGENT),
            ("recovery_requested", USER_AGENT),
        ]
    );
    // Bruno's list stays his own.
    let bruno_session = app.login(bruno()).await.session.unwrap();
    assert_eq!(
        app.security_events(&bruno_session.access_token)
            .await
            .unwrap()
            .len(),
        1
    );
}

async fn events_older_than_90_days_are_neither_listed_nor_kept(env: TestEnv) {
    let app = spawn_app(env).await;
    let session = app.login(ana()).await.session.unwrap();
    let db = Database::connect(&app.env.database).await.unwrap();
    let store = Store::new(db);
    let ana_id = miclub_platform::member::MemberId::parse(ana().member_id).unwrap();
    let day = 24 * 3600 * 1000;
    store
        .insert_security_event(&ana_id, "wrong_password", now_millis() - 91 * day, "")
        .await
        .unwrap();
    store
        .insert_security_event(&ana_id, "wrong_code", now_millis() - 89 * day, "")
        .await
        .unwrap();
    let kinds: Vec<String> = app
        .security_events(&session.access_token)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds, ["login_succeeded", "wrong_code"]);
    let (events, _) = store
        .purge_security_history(now_millis() - 90 * day)
        .await
        .unwrap();
    assert_eq!(events, 1);
    store.database().close().await;
}

async fn the_security_view_takes_a_member_token_and_nothing_else(env: TestEnv) {
    let app = spawn_app(env).await;
    let service = app.service_token().await;
    let err = app.list_sessions(&service).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    let err = app.end_other_sessions("not-a-token").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Unauthenticated);
    // A logged-out token is refused on auth's own port.
    let session = app.login(ana()).await.session.unwrap();
    app.logout(&session.access_token).await.unwrap();
    assert_eq!(
        app.security_events(&session.access_token)
            .await
            .unwrap_err()
            .code,
        ErrorCode::Unauthenticated
    );
    assert_eq!(
        app.verifier()
            .await
            .verify(&session.access_token)
            .await
            .unwrap_err(),
        VerifyError::Revoked
    );
}

backend_tests!(
    a_login_lists_its_session_with_its_user_agent_and_the_current_one_first,
    a_renewal_moves_the_last_sighting_and_keeps_the_start,
    ending_a_session_refuses_its_tokens_at_once_and_leaves_the_caller_in,
    another_members_session_is_not_found_like_an_unknown_one_and_stays_open,
    a_session_id_that_is_not_one_is_refused_on_its_field_in_spanish,
    ending_ones_own_session_is_a_logout_and_says_so,
    ending_the_other_sessions_keeps_only_the_callers_and_is_idempotent,
    the_flows_record_the_members_security_events_newest_first,
    recovery_step_ups_email_changes_and_closed_sessions_are_recorded_with_their_browser,
    events_older_than_90_days_are_neither_listed_nor_kept,
    the_security_view_takes_a_member_token_and_nothing_else,
);
