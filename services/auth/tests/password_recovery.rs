//! Password recovery over gRPC against the real `Application`, on PostgreSQL + Redis and on
//! SQLite + memory: the same answer for strangers, a code that is single use and limited in
//! tries, weak passwords refused before any try, and every old session ended by a reset.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use miclub_platform::backend_tests;
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::ephemeral::{EphemeralStore, SharedStore, StoreError};
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::testing::TestEnv;
use miclub_proto::auth::v1 as pb;
use support::{TestApp, ana, carla, diego, spawn_app, spawn_app_with};
use tokio::sync::Notify;

const NEW_PASSWORD: &str = "Vicuña en el Altiplano";
const CLIENT_IP: &str = "203.0.113.9";

async fn start(app: &TestApp, user: &str) -> Result<pb::StartPasswordResetResponse, ErrorBody> {
    app.start_password_reset_from(user, CLIENT_IP).await
}

async fn resend(
    app: &TestApp,
    reset_id: &str,
) -> Result<pb::ResendPasswordResetResponse, ErrorBody> {
    app.client()
        .resend_password_reset(pb::ResendPasswordResetRequest {
            reset_id: reset_id.to_owned(),
        })
        .await
        .map(tonic::Response::into_inner)
        .map_err(|status| ErrorBody::from_status(&status))
}

/// A six-digit code that is not `code`.
fn other_than(code: &str) -> String {
    if code == "000000" { "111111" } else { "000000" }.to_owned()
}

async fn a_stranger_gets_the_same_answer_as_a_member_and_no_mail(env: TestEnv) {
    let app = spawn_app(env).await;
    let member = start(&app, diego().rut).await.unwrap();
    let stranger = start(&app, "55.555.555-5").await.unwrap();

    assert_eq!(member.expires_in_seconds, stranger.expires_in_seconds);
    assert_eq!(member.resend_after_seconds, stranger.resend_after_seconds);
    assert_eq!(member.reset_id.len(), stranger.reset_id.len());
    assert_ne!(member.reset_id, stranger.reset_id);
    assert_eq!(app.mails_to(diego().email), 1);
    assert_eq!(
        app.mailbox.list().len(),
        1,
        "nothing mailed for the stranger"
    );
    let mail = app.mailbox.list().into_iter().next().unwrap();
    assert_eq!(
        mail.subject,
        "Código para recuperar tu contraseña de Mi Club"
    );
}

async fn a_decoy_reset_answers_like_a_real_one_and_no_code_opens_it(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.resend_cooldown_secs = 0).await;
    let stranger = start(&app, "55.555.555-5").await.unwrap();
    assert!(resend(&app, &stranger.reset_id).await.is_ok());
    for code in ["000000", "123456", "999999"] {
        assert_eq!(
            app.complete_password_reset(&stranger.reset_id, code, NEW_PASSWORD)
                .await
                .unwrap_err()
                .code,
            ErrorCode::OtpInvalid
        );
    }
    assert!(app.mailbox.list().is_empty());
}

async fn a_reset_ends_every_session_and_only_the_new_password_logs_in(env: TestEnv) {
    let app = spawn_app(env).await;
    let first = app.login(diego()).await.session.unwrap();
    let second = app.login(diego()).await.session.unwrap();
    let other = app.login(ana()).await.session.unwrap();

    let reset = start(&app, diego().rut).await.unwrap();
    let code = app.last_code_for(diego().email);
    let done = app
        .complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
        .await
        .unwrap();
    assert_eq!(done.revoked_sessions, 2);

    let verifier = app.verifier().await;
    for session in [&first, &second] {
        app.assert_session_over(&verifier, session).await;
    }
    assert!(verifier.verify(&other.access_token).await.is_ok());
    assert_eq!(
        app.start_login(diego().rut, DEMO_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::InvalidCredentials
    );
    assert!(
        app.login_with(diego(), NEW_PASSWORD, diego().email)
            .await
            .is_ok()
    );
}

async fn the_code_is_single_use(env: TestEnv) {
    let app = spawn_app(env).await;
    let reset = start(&app, diego().rut).await.unwrap();
    let code = app.last_code_for(diego().email);
    app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
        .await
        .unwrap();
    assert_eq!(
        app.complete_password_reset(&reset.reset_id, &code, "otra clave bien larga")
            .await
            .unwrap_err()
            .code,
        ErrorCode::OtpExpired
    );
}

async fn five_wrong_codes_end_the_reset_even_for_the_right_code(env: TestEnv) {
    let app = spawn_app(env).await;
    let reset = start(&app, diego().rut).await.unwrap();
    let code = app.last_code_for(diego().email);
    for _ in 0..5 {
        let refused = app
            .complete_password_reset(&reset.reset_id, &other_than(&code), NEW_PASSWORD)
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::OtpInvalid);
    }
    assert_eq!(
        app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::OtpTooManyAttempts
    );
    assert!(
        app.login_with(diego(), DEMO_PASSWORD, diego().email)
            .await
            .is_ok()
    );
}

async fn a_weak_password_is_refused_without_using_a_try(env: TestEnv) {
    let app = spawn_app(env).await;
    let reset = start(&app, diego().rut).await.unwrap();
    let code = app.last_code_for(diego().email);
    for _ in 0..6 {
        let refused = app
            .complete_password_reset(&reset.reset_id, &code, "password")
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::WeakPassword);
        assert_eq!(refused.field.as_deref(), Some("newPassword"));
    }
    assert!(
        app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
            .await
            .is_ok()
    );
}

async fn an_expired_reset_is_refused(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.otp_ttl_secs = 1).await;
    let reset = start(&app, diego().rut).await.unwrap();
    let code = app.last_code_for(diego().email);
    tokio::time::sleep(std::time::Duration::from_millis(1_300)).await;
    assert_eq!(
        app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::OtpExpired
    );
}

async fn a_resent_code_replaces_the_old_one(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.resend_cooldown_secs = 0).await;
    let reset = start(&app, diego().rut).await.unwrap();
    let old = app.last_code_for(diego().email);
    resend(&app, &reset.reset_id).await.unwrap();
    let new = app.last_code_for(diego().email);
    assert_eq!(app.mails_to(diego().email), 2);
    if old != new {
        assert_eq!(
            app.complete_password_reset(&reset.reset_id, &old, NEW_PASSWORD)
                .await
                .unwrap_err()
                .code,
            ErrorCode::OtpInvalid
        );
    }
    assert!(
        app.complete_password_reset(&reset.reset_id, &new, NEW_PASSWORD)
            .await
            .is_ok()
    );
}

async fn recovery_requests_are_limited_per_user_whether_or_not_it_exists(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.account_attempts = 2).await;
    for user in [diego().rut, "55.555.555-5"] {
        assert!(start(&app, user).await.is_ok());
        assert!(start(&app, user).await.is_ok());
        let refused = start(&app, user).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::TooManyAttempts, "{user}");
        // The member is told when to try again: what is left of the 15-minute window.
        assert!(
            refused
                .retry_after_secs
                .is_some_and(|secs| (1..=900).contains(&secs)),
            "{refused:?}"
        );
    }
}

async fn a_login_waiting_for_its_code_when_the_password_is_reset_cannot_complete(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.resend_cooldown_secs = 0).await;
    let (pending, login_code) = app.password_step(ana()).await;
    let reset = start(&app, ana().rut).await.unwrap();
    let code = app.last_code_for(ana().email);
    app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
        .await
        .unwrap();
    assert_eq!(
        app.resend(&pending).await.unwrap_err().code,
        ErrorCode::OtpExpired
    );
    assert_eq!(
        app.verify(&pending, &login_code).await.unwrap_err().code,
        ErrorCode::OtpExpired
    );
}

async fn a_reset_proves_the_mailbox_so_an_unverified_member_can_log_in(env: TestEnv) {
    let app = spawn_app(env).await;
    assert_eq!(
        app.start_login(carla().rut, DEMO_PASSWORD)
            .await
            .unwrap_err()
            .code,
        ErrorCode::EmailNotVerified
    );
    let reset = start(&app, carla().rut).await.unwrap();
    let code = app.last_code_for(carla().email);
    app.complete_password_reset(&reset.reset_id, &code, NEW_PASSWORD)
        .await
        .unwrap();
    assert!(
        app.login_with(carla(), NEW_PASSWORD, carla().email)
            .await
            .is_ok()
    );
}

/// The real ephemeral store, except that once armed the next take of a recovery challenge
/// waits until the test lets it go: a resend can then land between the code check's read and
/// its single-use take, the race a member meets when a resent code and the old one cross.
#[derive(Debug)]
struct TakeGate {
    inner: SharedStore,
    armed: AtomicBool,
    reached: Notify,
    go: Notify,
}

#[async_trait::async_trait]
impl EphemeralStore for TakeGate {
    async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StoreError> {
        self.inner.set(key, value, ttl).await
    }
    async fn set_if_absent(
        &self,
        key: &str,
        value: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        self.inner.set_if_absent(key, value, ttl).await
    }
    async fn take(&self, key: &str) -> Result<Option<String>, StoreError> {
        if key.starts_with("reset:challenge:") && self.armed.swap(false, Ordering::SeqCst) {
            self.reached.notify_one();
            self.go.notified().await;
        }
        self.inner.take(key).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.inner.delete(key).await
    }
    async fn incr(&self, key: &str, window: Duration) -> Result<i64, StoreError> {
        self.inner.incr(key, window).await
    }
    async fn give_back(&self, key: &str) -> Result<(), StoreError> {
        self.inner.give_back(key).await
    }
    async fn ttl(&self, key: &str) -> Result<Option<Duration>, StoreError> {
        self.inner.ttl(key).await
    }
    async fn ping(&self) -> Result<(), StoreError> {
        self.inner.ping().await
    }
}

async fn a_code_resent_while_the_old_one_is_checked_still_works(mut env: TestEnv) {
    let gate = Arc::new(TakeGate {
        inner: env.store.clone(),
        armed: AtomicBool::new(false),
        reached: Notify::new(),
        go: Notify::new(),
    });
    env.store = gate.clone();
    let app = spawn_app_with(env, |s| s.policy.resend_cooldown_secs = 0).await;
    let reset = start(&app, diego().rut).await.unwrap();
    let old = app.last_code_for(diego().email);
    gate.armed.store(true, Ordering::SeqCst);
    let (racing, new) = tokio::join!(
        app.complete_password_reset(&reset.reset_id, &old, NEW_PASSWORD),
        async {
            gate.reached.notified().await;
            resend(&app, &reset.reset_id).await.unwrap();
            let new = app.last_code_for(diego().email);
            gate.go.notify_one();
            new
        }
    );
    if old == new {
        // One chance in a million: the resend drew the same code, and the first answer won.
        assert!(racing.is_ok());
        return;
    }
    assert_eq!(racing.unwrap_err().code, ErrorCode::OtpInvalid);
    assert!(
        app.complete_password_reset(&reset.reset_id, &new, NEW_PASSWORD)
            .await
            .is_ok(),
        "the resent code must still open the reset"
    );
}

backend_tests!(
    a_code_resent_while_the_old_one_is_checked_still_works,
    a_stranger_gets_the_same_answer_as_a_member_and_no_mail,
    a_decoy_reset_answers_like_a_real_one_and_no_code_opens_it,
    a_reset_ends_every_session_and_only_the_new_password_logs_in,
    the_code_is_single_use,
    five_wrong_codes_end_the_reset_even_for_the_right_code,
    a_weak_password_is_refused_without_using_a_try,
    an_expired_reset_is_refused,
    a_resent_code_replaces_the_old_one,
    recovery_requests_are_limited_per_user_whether_or_not_it_exists,
    a_login_waiting_for_its_code_when_the_password_is_reset_cannot_complete,
    a_reset_proves_the_mailbox_so_an_unverified_member_can_log_in,
);
