//! Account security against the real auth `Application`, on PostgreSQL + Redis and on
//! SQLite + memory: the password throttle of the pair (account, address) with its account
//! ceiling and the recovery that lifts both, the step-up and session-ending calls of accounts,
//! sessions that end (idle and absolute limits), the reset notice, and recovery answering a
//! member as promptly as a stranger while the mail is still on its way.
//!
//! Time is driven by writing what the service reads (the pair's gate, the session's activity
//! mark, its start in SQL), never by sleeping.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use miclub_platform::backend_tests;
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::notify::{DevMailbox, Notifier, Outgoing, QueuedNotifier};
use miclub_platform::storage::{Database, now_millis};
use miclub_platform::testing::TestEnv;
use miclub_proto::auth::v1 as pb;
use support::{
    CLIENT_IP, REGISTRATION_CLIENT, REGISTRATION_SECRET, TestApp, ana, bruno, spawn_app,
    spawn_app_mailing, spawn_app_with,
};

const NEW_PASSWORD: &str = "Vicuña en el Altiplano";
const STRANGER_IP: &str = "198.51.100.66";
const ANA_LOGIN: &str = "11111111-1";

async fn start_reset(
    app: &TestApp,
    user: &str,
) -> Result<pb::StartPasswordResetResponse, ErrorBody> {
    app.start_password_reset_from(user, CLIENT_IP).await
}

/// A whole recovery of `email`'s member to [`NEW_PASSWORD`].
async fn recover(app: &TestApp, user: &str, email: &str) {
    let reset = start_reset(app, user).await.expect("reset started");
    let code = app.last_code_for(email);
    app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
        .await
        .expect("reset completed");
}

/// Ends the wait of the pair (Ana, `ip`), as time passing would.
async fn wait_over(app: &TestApp, ip: &str) {
    app.env
        .store
        .delete(&format!("pw:gate:0:{ANA_LOGIN}:{ip}"))
        .await
        .unwrap();
}

/// Sets when the session of `sid` was last seen, `ago_secs` seconds ago.
async fn seen_ago(app: &TestApp, sid: &str, ago_secs: i64) {
    let at = now_millis() - ago_secs * 1000;
    app.env
        .store
        .set(
            &format!("seen:sid:{sid}"),
            &at.to_string(),
            std::time::Duration::from_secs(3600),
        )
        .await
        .unwrap();
}

async fn sid_of(app: &TestApp, access_token: &str) -> String {
    app.verifier()
        .await
        .verify(access_token)
        .await
        .expect("a live session")
        .sid
}

async fn a_strangers_wrong_passwords_from_one_address_do_not_slow_the_member_at_another(
    env: TestEnv,
) {
    let app = spawn_app(env).await;
    for i in 0..12 {
        let refused = app
            .start_login_from(ana().rut, &format!("adivina-{i}"), STRANGER_IP)
            .await
            .unwrap_err();
        assert!(
            matches!(
                refused.code,
                ErrorCode::InvalidCredentials | ErrorCode::TooManyAttempts
            ),
            "{refused:?}"
        );
    }
    // The stranger's address waits; Ana at her own address does not.
    let stranger = app
        .start_login_from(ana().rut, DEMO_PASSWORD, STRANGER_IP)
        .await
        .unwrap_err();
    assert_eq!(stranger.code, ErrorCode::TooManyAttempts);
    assert!(app.start_login(ana().rut, DEMO_PASSWORD).await.is_ok());
}

async fn each_wrong_password_past_the_free_ones_waits_longer_and_says_how_long(env: TestEnv) {
    let app = spawn_app_with(env, |s| {
        s.policy.free_failures = 3;
        s.policy.first_delay_secs = 1;
        s.policy.max_delay_secs = 8;
    })
    .await;
    let wrong = |app: &TestApp| {
        let app_client = app.client();
        async move {
            let mut client = app_client;
            let answer = client
                .start_login(pb::StartLoginRequest {
                    user: ana().rut.to_owned(),
                    password: "equivocada".to_owned(),
                    client_ip: CLIENT_IP.to_owned(),
                    user_agent: String::new(),
                })
                .await;
            ErrorBody::from_status(&answer.unwrap_err())
        }
    };
    assert_eq!(wrong(&app).await.code, ErrorCode::InvalidCredentials);
    // The wait each next attempt is told (0 when it was checked at once).
    let mut waits = Vec::new();
    for _ in 0..8 {
        let next = wrong(&app).await;
        match next.code {
            ErrorCode::InvalidCredentials => waits.push(0),
            ErrorCode::TooManyAttempts => {
                waits.push(next.retry_after_secs.expect("retry after"));
                wait_over(&app, CLIENT_IP).await;
                assert_eq!(wrong(&app).await.code, ErrorCode::InvalidCredentials);
            }
            other => panic!("unexpected {other}"),
        }
    }
    // Waits before attempts 2 to 9: three free failures, then 1 s doubling up to the cap.
    assert_eq!(waits, [0, 0, 1, 2, 4, 8, 8, 8]);
}

async fn the_account_refuses_every_password_past_its_daily_ceiling(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.account_daily_failures = 6).await;
    for i in 0..6 {
        let wrong = app
            .start_login_from(ana().rut, "adivina", &format!("198.51.100.{i}"))
            .await
            .unwrap_err();
        assert_eq!(wrong.code, ErrorCode::InvalidCredentials, "{i}");
    }
    // From a fresh address, with the right password: the ceiling holds for a day.
    let refused = app
        .start_login_from(ana().rut, DEMO_PASSWORD, "192.0.2.1")
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::TooManyAttempts);
    assert!(refused.retry_after_secs.is_some_and(|s| s > 23 * 3600));
    // Another member is not affected.
    assert!(
        app.start_login_from(bruno().rut, DEMO_PASSWORD, "192.0.2.1")
            .await
            .is_ok()
    );
}

async fn a_password_recovery_lifts_every_throttle_on_the_account(env: TestEnv) {
    let app = spawn_app_with(env, |s| {
        s.policy.account_daily_failures = 8;
        s.policy.first_delay_secs = 30;
    })
    .await;
    // The stranger's pair waits, and the account reaches its ceiling from other addresses.
    for i in 0..3 {
        app.start_login_from(ana().rut, &format!("x{i}"), STRANGER_IP)
            .await
            .unwrap_err();
    }
    for i in 0..5 {
        app.start_login_from(ana().rut, "adivina", &format!("198.51.100.{i}"))
            .await
            .unwrap_err();
    }
    assert_eq!(
        app.start_login(ana().rut, DEMO_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::TooManyAttempts
    );
    recover(&app, ana().rut, ana().email).await;
    assert!(app.start_login(ana().rut, NEW_PASSWORD).await.is_ok());
    assert!(
        app.start_login_from(ana().rut, NEW_PASSWORD, STRANGER_IP)
            .await
            .is_ok()
    );
}

async fn recoveries_asked_by_a_stranger_do_not_use_up_the_login_codes(env: TestEnv) {
    let app = spawn_app_with(env, |s| {
        s.policy.daily_send_cap = 2;
        s.policy.account_attempts = 10;
    })
    .await;
    for _ in 0..5 {
        assert!(start_reset(&app, ana().rut).await.is_ok());
    }
    assert_eq!(app.mails_to(ana().email), 2);
    // Login codes have their own budget.
    let session = app.login(ana()).await;
    assert!(session.session.is_some());
}

async fn a_password_reset_tells_the_member_without_a_code(env: TestEnv) {
    let app = spawn_app(env).await;
    recover(&app, ana().rut, ana().email).await;
    let newest = app
        .notice("Tu contraseña de Mi Club fue restablecida")
        .await;
    assert_eq!(newest.to, ana().email);
    assert_eq!(newest.code, None);
    let reset_code = app
        .mailbox
        .list()
        .into_iter()
        .find_map(|mail| mail.code)
        .unwrap();
    assert!(!newest.body.contains(&reset_code));
}

async fn the_step_up_accepts_the_right_password_and_refuses_a_wrong_one_on_its_field(env: TestEnv) {
    let app = spawn_app(env).await;
    let accounts = app.service_token().await;
    let member_id = ana().member_id;
    assert!(
        app.verify_password(&accounts, member_id, DEMO_PASSWORD, CLIENT_IP)
            .await
            .is_ok()
    );
    let wrong = app
        .verify_password(&accounts, member_id, "equivocada", CLIENT_IP)
        .await
        .unwrap_err();
    assert_eq!(wrong.code, ErrorCode::WrongPassword);
    assert_eq!(wrong.field.as_deref(), Some("currentPassword"));
    let unknown = app
        .verify_password(&accounts, "no-such-member", DEMO_PASSWORD, CLIENT_IP)
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::Unauthenticated);
}

async fn step_up_change_and_login_failures_share_one_throttle(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.first_delay_secs = 30).await;
    let accounts = app.service_token().await;
    let token = app.login(ana()).await.session.unwrap().access_token;
    app.verify_password(&accounts, ana().member_id, "uno", CLIENT_IP)
        .await
        .unwrap_err();
    app.change_password(&token, "dos", NEW_PASSWORD)
        .await
        .unwrap_err();
    app.start_login(ana().rut, "tres").await.unwrap_err();
    for refused in [
        app.verify_password(&accounts, ana().member_id, DEMO_PASSWORD, CLIENT_IP)
            .await
            .unwrap_err(),
        app.change_password(&token, DEMO_PASSWORD, NEW_PASSWORD)
            .await
            .unwrap_err(),
        app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap_err(),
    ] {
        assert_eq!(refused.code, ErrorCode::TooManyAttempts);
        assert_eq!(refused.retry_after_secs, Some(30));
    }
    assert!(
        app.verify_password(&accounts, ana().member_id, DEMO_PASSWORD, STRANGER_IP)
            .await
            .is_ok()
    );
}

async fn parallel_step_up_guesses_get_no_more_checks_than_the_free_failures(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.first_delay_secs = 30).await;
    let accounts = app.service_token().await;
    let guesses: Vec<_> = (0..12)
        .map(|i| {
            let mut client = app.client();
            let token = accounts.clone();
            tokio::spawn(async move {
                let request = miclub_platform::tokens::with_bearer(
                    pb::VerifyPasswordRequest {
                        member_id: ana().member_id.to_owned(),
                        password: format!("adivina-{i}"),
                        client_ip: CLIENT_IP.to_owned(),
                    },
                    &token,
                );
                client.verify_password(request).await
            })
        })
        .collect();
    let mut checked = 0;
    for guess in guesses {
        let status = guess.await.unwrap().unwrap_err();
        match ErrorBody::from_status(&status).code {
            ErrorCode::WrongPassword => checked += 1,
            ErrorCode::TooManyAttempts => {}
            other => panic!("unexpected {other}"),
        }
    }
    assert!(checked <= app.settings.policy.free_failures, "{checked}");
}

async fn only_accounts_may_check_passwords_and_end_sessions(env: TestEnv) {
    let app = spawn_app(env).await;
    let registration = app.token_of(REGISTRATION_CLIENT, REGISTRATION_SECRET).await;
    let member = app.login(ana()).await.session.unwrap().access_token;
    for token in [registration.as_str(), member.as_str()] {
        let verify = app
            .verify_password(token, ana().member_id, DEMO_PASSWORD, CLIENT_IP)
            .await
            .unwrap_err();
        let end = app.end_sessions(token, ana().member_id).await.unwrap_err();
        assert!(
            matches!(
                verify.code,
                ErrorCode::Forbidden | ErrorCode::Unauthenticated
            ),
            "{verify:?}"
        );
        assert_eq!(verify.code, end.code);
    }
    assert!(app.verifier().await.verify(&member).await.is_ok());
}

async fn ending_sessions_revokes_every_session_of_the_member_and_is_idempotent(env: TestEnv) {
    let app = spawn_app(env).await;
    let accounts = app.service_token().await;
    let first = app.login(ana()).await.session.unwrap();
    let second = app.login(ana()).await.session.unwrap();
    let other = app.login(bruno()).await.session.unwrap();
    let ended = app.end_sessions(&accounts, ana().member_id).await.unwrap();
    assert_eq!(ended.revoked_sessions, 2);
    let verifier = app.verifier().await;
    for session in [&first, &second] {
        assert!(verifier.verify(&session.access_token).await.is_err());
        assert_eq!(
            app.refresh(&session.refresh_token).await.unwrap_err().code,
            ErrorCode::Unauthenticated
        );
    }
    assert!(verifier.verify(&other.access_token).await.is_ok());
    let again = app.end_sessions(&accounts, ana().member_id).await.unwrap();
    assert_eq!(again.revoked_sessions, 0);
    // The password is unchanged.
    assert!(app.start_login(ana().rut, DEMO_PASSWORD).await.is_ok());
}

async fn a_refresh_after_the_idle_limit_without_requests_is_refused(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.session_idle_secs = 60).await;
    let session = app.login(ana()).await.session.unwrap();
    let sid = sid_of(&app, &session.access_token).await;
    seen_ago(&app, &sid, 61).await;
    assert_eq!(
        app.refresh(&session.refresh_token).await.unwrap_err().code,
        ErrorCode::Unauthenticated
    );
}

async fn refreshes_go_on_while_requests_keep_coming_and_are_not_activity(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.session_idle_secs = 60).await;
    let session = app.login(ana()).await.session.unwrap();
    let sid = sid_of(&app, &session.access_token).await;
    // A request 50 s ago (the gateway's mark): refreshes go on.
    seen_ago(&app, &sid, 50).await;
    let renewed = app.refresh(&session.refresh_token).await.unwrap();
    let renewed = app.refresh(&renewed.refresh_token).await.unwrap();
    // The refreshes did not count as activity: the mark still says 50 s, so once the last
    // request is 61 s old the session is idle whatever the refreshes.
    let mark: i64 = app
        .env
        .store
        .get(&format!("seen:sid:{sid}"))
        .await
        .unwrap()
        .unwrap()
        .parse()
        .unwrap();
    assert!(now_millis() - mark >= 50_000);
    seen_ago(&app, &sid, 61).await;
    assert_eq!(
        app.refresh(&renewed.refresh_token).await.unwrap_err().code,
        ErrorCode::Unauthenticated
    );
}

async fn a_session_past_its_absolute_limit_cannot_be_refreshed_whatever_the_refreshes(
    env: TestEnv,
) {
    let app = spawn_app_with(env, |s| s.policy.session_absolute_secs = 3600).await;
    let session = app.login(ana()).await.session.unwrap();
    // No token outlives the session.
    assert!(session.refresh_expires_in_seconds <= 3600);
    let sid = sid_of(&app, &session.access_token).await;
    let db = Database::connect(&app.env.database).await.unwrap();
    let started = now_millis() - 3500 * 1000;
    sqlx::query("UPDATE refresh_tokens SET session_started_at = $1 WHERE family_id = $2")
        .bind(started)
        .bind(&sid)
        .execute(db.pool())
        .await
        .unwrap();
    let renewed = app.refresh(&session.refresh_token).await.unwrap();
    assert!(renewed.refresh_expires_in_seconds <= 100);
    assert!(renewed.access_expires_in_seconds <= 100);
    // Kept alive by refreshes or not, the session ends at its start plus the limit.
    sqlx::query("UPDATE refresh_tokens SET session_started_at = $1 WHERE family_id = $2")
        .bind(now_millis() - 3601 * 1000)
        .bind(&sid)
        .execute(db.pool())
        .await
        .unwrap();
    assert_eq!(
        app.refresh(&renewed.refresh_token).await.unwrap_err().code,
        ErrorCode::Unauthenticated
    );
    db.close().await;
}

/// A notifier whose sends never finish; says whether one started.
#[derive(Debug, Default)]
struct NeverSends {
    started: AtomicBool,
    finished: AtomicBool,
}

#[async_trait]
impl Notifier for NeverSends {
    async fn send(&self, _message: Outgoing) -> anyhow::Result<()> {
        self.started.store(true, Ordering::SeqCst);
        std::future::pending::<()>().await;
        self.finished.store(true, Ordering::SeqCst);
        Ok(())
    }
}

/// Delivers to its mailbox after a pause, as a slow relay does: long enough that a loaded
/// machine still finds the code queued when the password step returns.
#[derive(Debug)]
struct SlowRelay {
    mailbox: Arc<DevMailbox>,
}

#[async_trait]
impl Notifier for SlowRelay {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        self.mailbox.send(message).await
    }
}

async fn a_code_still_queued_when_auth_stops_is_sent_before_it_stops(env: TestEnv) {
    let app = spawn_app_mailing(
        env,
        |_| {},
        |mailbox| QueuedNotifier::spawn(Arc::new(SlowRelay { mailbox }), 16),
    )
    .await;
    let mailbox = app.mailbox.clone();
    app.start_login(ANA_LOGIN, DEMO_PASSWORD)
        .await
        .expect("password step");
    assert!(mailbox.list().is_empty(), "the code is still queued");
    // A rollout stops the pod now: its code reaches the member all the same.
    app.stopped().await;
    let mails = mailbox.list();
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0].to, ana().email);
    assert!(mails[0].code.is_some());
}

async fn a_recovery_for_a_member_answers_like_a_strangers_while_the_mail_is_still_pending(
    env: TestEnv,
) {
    let never = Arc::new(NeverSends::default());
    let sender = never.clone();
    let app = spawn_app_mailing(
        env,
        |_| {},
        move |_| QueuedNotifier::spawn(sender, QueuedNotifier::DEFAULT_CAPACITY),
    )
    .await;
    let member = start_reset(&app, ana().rut).await.unwrap();
    assert!(!never.finished.load(Ordering::SeqCst));
    let stranger = start_reset(&app, "12.345.678-5").await.unwrap();
    assert_eq!(member.reset_id.len(), stranger.reset_id.len());
    assert_eq!(member.expires_in_seconds, stranger.expires_in_seconds);
    assert_eq!(member.resend_after_seconds, stranger.resend_after_seconds);
    // The member's mail did go to the sender, and is still being sent.
    while !never.started.load(Ordering::SeqCst) {
        tokio::task::yield_now().await;
    }
    assert!(!never.finished.load(Ordering::SeqCst));
}

backend_tests!(
    a_strangers_wrong_passwords_from_one_address_do_not_slow_the_member_at_another,
    each_wrong_password_past_the_free_ones_waits_longer_and_says_how_long,
    the_account_refuses_every_password_past_its_daily_ceiling,
    a_password_recovery_lifts_every_throttle_on_the_account,
    recoveries_asked_by_a_stranger_do_not_use_up_the_login_codes,
    a_password_reset_tells_the_member_without_a_code,
    the_step_up_accepts_the_right_password_and_refuses_a_wrong_one_on_its_field,
    step_up_change_and_login_failures_share_one_throttle,
    parallel_step_up_guesses_get_no_more_checks_than_the_free_failures,
    only_accounts_may_check_passwords_and_end_sessions,
    ending_sessions_revokes_every_session_of_the_member_and_is_idempotent,
    a_refresh_after_the_idle_limit_without_requests_is_refused,
    refreshes_go_on_while_requests_keep_coming_and_are_not_activity,
    a_session_past_its_absolute_limit_cannot_be_refreshed_whatever_the_refreshes,
    a_recovery_for_a_member_answers_like_a_strangers_while_the_mail_is_still_pending,
    a_code_still_queued_when_auth_stops_is_sent_before_it_stops,
);
