//! Account security (issue #16) as a member and an attacker see it: the current password
//! before an email change or an unsubscribe (a stolen session is not enough), the notice to the
//! previous address with its 7-day single-use restore link, an address of another member never
//! confirmed for a second one (not even by two confirmations racing), and no leaving the club
//! while that link may still be used. Leaving itself is in [`crate::leaving`].

use std::time::Duration;

use miclub_accounts::domain::{
    ConfirmationToken, Email, Member, MemberId, NewConfirmation, UNSUBSCRIBE_NOTICE_SUBJECT,
    UnsubscribeChoice,
};
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::notify::Mail;
use miclub_platform::notify::outbox::Notice;
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    ConfirmEmailRequest, ResendEmailConfirmationRequest, RestoreEmailRequest, UpdateProfileRequest,
};
use sqlx::Row;

use crate::leaving::{unsubscribe, validate as validate_unsubscribe};
use crate::support::{PASSWORD, PUBLIC_URL, TestApp, count, counted, counted_above, link_token};

const ATTACKER: &str = "atacante@correo.cl";
const IP: &str = "203.0.113.7";

/// `member`'s current fields with `email`, and `password` as the step-up.
fn form(member: &Member, email: &str, password: &str) -> UpdateProfileRequest {
    UpdateProfileRequest {
        email: email.to_owned(),
        name: member.name.as_str().to_owned(),
        last_name: member.last_name.as_str().to_owned(),
        mother_surname: "Pérez".into(),
        phone_number: "+56912345678".into(),
        birth_date: "1990-05-17".into(),
        gender_id: 1,
        current_password: password.to_owned(),
        client_ip: IP.to_owned(),
    }
}

async fn update(
    app: &TestApp,
    member: &Member,
    email: &str,
    password: &str,
) -> Result<bool, tonic::Status> {
    app.client()
        .await
        .update_profile(app.authorized(form(member, email, password), &app.token(&member.id)))
        .await
        .map(|answer| answer.into_inner().email_confirmation_sent)
}

async fn confirm(app: &TestApp, token: &str) -> Result<String, tonic::Status> {
    app.client()
        .await
        .confirm_email(ConfirmEmailRequest {
            token: token.to_owned(),
        })
        .await
        .map(|answer| answer.into_inner().masked_email)
}

async fn restore(app: &TestApp, token: &str) -> Result<String, tonic::Status> {
    app.client()
        .await
        .restore_email(RestoreEmailRequest {
            token: token.to_owned(),
        })
        .await
        .map(|answer| answer.into_inner().masked_email)
}

/// The token of the restore link in a change notice.
fn restore_token(mail: &Mail) -> String {
    let prefix = format!("{PUBLIC_URL}/restaurar-correo?token=");
    let start = mail
        .body
        .find(&prefix)
        .unwrap_or_else(|| panic!("no restore link in {:?}", mail.body))
        + prefix.len();
    mail.body[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect()
}

/// Changes `member`'s email to `new` with the right password and confirms it; answers the
/// change notice the previous address got.
async fn change_and_confirm(app: &TestApp, member: &Member, new: &str) -> Mail {
    assert!(update(app, member, new, PASSWORD).await.expect("update"));
    let link = app
        .mail
        .sent()
        .into_iter()
        .next()
        .expect("confirmation mail");
    let sent = app.mail.sent().len();
    confirm(app, &link_token(&link)).await.expect("confirmed");
    let notice = app.mail.after(sent).await;
    assert_eq!(notice.subject, "Tu correo de Mi Club cambió");
    notice
}

fn refusal(status: &tonic::Status) -> ErrorBody {
    ErrorBody::from_status(status)
}

async fn changing_the_email_without_the_current_password_is_refused_on_its_field(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let status = update(&app, &member, ATTACKER, "").await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let body = refusal(&status);
    assert_eq!(body.code, ErrorCode::InvalidArgument);
    assert_eq!(body.field.as_deref(), Some("current_password"));
    assert_eq!(
        body.message,
        "Ingresa tu contraseña actual para cambiar tu correo."
    );
    assert_eq!(app.stored(&member.id).await.email, member.email);
    assert!(app.mail.sent().is_empty());
    assert!(
        app.login_emails.verified().is_empty(),
        "auth not even asked"
    );
}

async fn a_wrong_password_changes_nothing_and_sends_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let status = update(&app, &member, ATTACKER, "adivinanza")
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let body = refusal(&status);
    assert_eq!(body.code, ErrorCode::WrongPassword);
    assert_eq!(body.field.as_deref(), Some("currentPassword"));
    let stored = app.stored(&member.id).await;
    assert_eq!(stored.email, member.email);
    assert!(stored.email_confirmed);
    assert_eq!(count(&app.store, "email_confirmations").await, 0);
    assert!(app.mail.sent().is_empty());
    assert_eq!(
        app.login_emails.verified(),
        [(member.id.as_str().to_owned(), IP.to_owned())],
        "auth checked it with the client address, for its throttle"
    );
}

async fn a_throttled_password_check_answers_auths_wait_and_changes_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    app.login_emails.throttle(Some(8));

    let status = update(&app, &member, ATTACKER, PASSWORD).await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::ResourceExhausted);
    let body = refusal(&status);
    assert_eq!(body.code, ErrorCode::TooManyAttempts);
    assert_eq!(body.retry_after_secs, Some(8));
    assert_eq!(app.stored(&member.id).await.email, member.email);
    assert!(app.mail.sent().is_empty());
}

async fn updates_that_keep_the_email_need_no_password(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let sent = update(&app, &member, &member.email.as_str().to_uppercase(), "")
        .await
        .expect("same email, other fields");

    assert!(!sent);
    assert!(app.login_emails.verified().is_empty());
    assert!(app.stored(&member.id).await.email_confirmed);
}

async fn the_previous_address_is_told_and_can_restore_within_7_days(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    let notice = change_and_confirm(&app, &member, ATTACKER).await;

    assert_eq!(notice.to, member.email.as_str());
    assert!(notice.body.contains("a***@correo.cl"), "{}", notice.body);
    assert!(!notice.body.contains(ATTACKER), "the new address is masked");
    assert!(notice.body.contains("hora de Chile"), "{}", notice.body);
    let expires_at = restore_expires_at(&app).await;
    let until = miclub_platform::calendar::member_date_time(expires_at).unwrap();
    assert!(
        notice
            .body
            .contains(&format!("antes del {until} (hora de Chile)")),
        "the link's deadline, 7 days on: {}",
        notice.body
    );
    assert_eq!(notice.code, None);
    let token = restore_token(&notice);
    assert!(ConfirmationToken::parse(&token).is_some());
    let stored: Vec<String> = sqlx::query("SELECT token_hash FROM email_restores")
        .fetch_all(app.store.database().pool())
        .await
        .unwrap()
        .iter()
        .map(|row| row.get("token_hash"))
        .collect();
    assert_eq!(
        stored,
        [ConfirmationToken::parse(&token).unwrap().digest()],
        "only the SHA-256 is stored"
    );

    let masked = restore(&app, &token).await.expect("restored");

    assert_eq!(masked, member.email.masked());
    let back = app.stored(&member.id).await;
    assert_eq!(back.email, member.email);
    assert!(back.email_confirmed);
    assert_eq!(
        app.login_emails.handed_over().last().unwrap(),
        &(
            member.id.as_str().to_owned(),
            member.email.as_str().to_owned()
        ),
        "login codes go to the previous address again"
    );
    assert_eq!(app.login_emails.ended(), [member.id.as_str().to_owned()]);
}

/// The `token_hash` of the only restore row.
async fn restore_digest(app: &TestApp) -> String {
    sqlx::query("SELECT token_hash FROM email_restores")
        .fetch_one(app.store.database().pool())
        .await
        .unwrap()
        .get("token_hash")
}

/// When the only restore row's link expires (Unix ms).
async fn restore_expires_at(app: &TestApp) -> i64 {
    sqlx::query("SELECT expires_at FROM email_restores")
        .fetch_one(app.store.database().pool())
        .await
        .unwrap()
        .get("expires_at")
}

/// `(notice_due_at, notice_tries)` of the only restore row.
async fn notice_state(app: &TestApp) -> (Option<i64>, i64) {
    let row = sqlx::query(
        "SELECT notice_due_at, CAST(notice_tries AS BIGINT) AS tries FROM email_restores",
    )
    .fetch_one(app.store.database().pool())
    .await
    .unwrap();
    (row.get("notice_due_at"), row.get("tries"))
}

/// Waits up to 5 s for the only restore row's [`notice_state`] to be `what` says, and answers
/// it.
async fn notice_until(
    app: &TestApp,
    what: &str,
    reached: impl Fn(Option<i64>, i64) -> bool,
) -> (Option<i64>, i64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (due, tries) = notice_state(app).await;
        if reached(due, tries) {
            return (due, tries);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "notice not {what} within 5 s: due {due:?}, {tries} tries"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for the only restore row's notice to have been tried `tries` times, the last try
/// over (no relay holding it), and answers when it is due again.
async fn tried(app: &TestApp, tries: i64) -> Option<i64> {
    let what = format!("tried {tries} times");
    notice_until(app, &what, |due, tried| {
        let held = due.is_some_and(|due| due > now_millis() + 60_000);
        tried >= tries && !held
    })
    .await
    .0
}

/// Changes `member`'s email to [`ATTACKER`] and confirms it while the mail relay is down.
async fn change_and_confirm_while_mail_is_down(app: &TestApp, member: &Member) {
    assert!(
        update(app, member, ATTACKER, PASSWORD)
            .await
            .expect("update")
    );
    let link = app.mail.after(0).await;
    app.mail.fail(true);
    confirm(app, &link_token(&link)).await.expect("confirmed");
}

async fn the_previous_address_is_told_by_the_next_accounts_when_the_relay_was_down_until_this_one_stopped(
    env: TestEnv,
) {
    // Production's wiring: the rest of the mail goes through the queue, which would take the
    // notice at once; the relay sends it past the queue and knows it failed.
    let app = TestApp::spawn_with_a_mail_queue(env).await;
    let member = app.add_member_with_account().await;
    change_and_confirm_while_mail_is_down(&app, &member).await;
    assert!(tried(&app, 1).await.is_some(), "still due");
    assert_eq!(app.mail.sent().len(), 1, "only the confirmation link went");

    // A rollout (or a crash) ends this accounts before the relay is back; the notice, and
    // its restore link, which exists nowhere else, are in the database.
    let next = TestApp::spawn(app.stopped().await).await;

    let notice = next.mail.after(0).await;
    assert_eq!(notice.subject, "Tu correo de Mi Club cambió");
    assert_eq!(notice.to, member.email.as_str());
    assert_eq!(tried(&next, 2).await, None, "nothing more is due");
    restore(&next, &restore_token(&notice))
        .await
        .expect("the mailed link restores");
    assert_eq!(next.stored(&member.id).await.email, member.email);
}

async fn a_notice_is_tried_again_until_the_relay_takes_it_and_its_link_is_the_one_mailed(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    change_and_confirm_while_mail_is_down(&app, &member).await;
    tried(&app, 2).await;
    let digest_of_a_failed_try = restore_digest(&app).await;

    app.mail.fail(false);
    let notice = app.mail.after(1).await;

    assert_eq!(notice.to, member.email.as_str());
    let token = restore_token(&notice);
    let stored = restore_digest(&app).await;
    assert_eq!(stored, ConfirmationToken::parse(&token).unwrap().digest());
    assert_ne!(
        stored, digest_of_a_failed_try,
        "each try mints its own link"
    );
    assert_eq!(tried(&app, 3).await, None, "nothing more is due");
    restore(&app, &token).await.expect("restored");
}

/// The counter the relay counts its notices in, by outcome.
const NOTICES_COUNTER: &str = "email_change_notices_total";

/// `email_change_notices_total{outcome}` (0 before the first).
fn notices_counted(outcome: &str) -> u64 {
    counted(NOTICES_COUNTER, outcome)
}

async fn a_notice_the_relay_refuses_for_good_is_given_up_at_once(env: TestEnv) {
    let given_up = notices_counted("given_up");
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    assert!(
        update(&app, &member, ATTACKER, PASSWORD)
            .await
            .expect("update")
    );
    let link = app
        .mail
        .sent()
        .into_iter()
        .next()
        .expect("confirmation mail");
    app.mail.refuse(true);

    confirm(&app, &link_token(&link)).await.expect("confirmed");

    assert_eq!(tried(&app, 1).await, None, "given up, not due again");
    assert!(
        counted_above(NOTICES_COUNTER, "given_up", given_up).await,
        "counted for the operator's alert"
    );
    assert_eq!(app.mail.sent().len(), 1, "only the confirmation link went");
    assert_eq!(app.stored(&member.id).await.email.as_str(), ATTACKER);
}

async fn a_notice_the_relay_never_took_while_its_link_lived_is_given_up_not_sent_dead(
    env: TestEnv,
) {
    let given_up = notices_counted("given_up");
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    change_and_confirm_while_mail_is_down(&app, &member).await;
    tried(&app, 1).await;
    // Seven days of outage later: the link has expired and its try is due.
    sqlx::query("UPDATE email_restores SET expires_at = $1, notice_due_at = $1")
        .bind(now_millis() - 1)
        .execute(app.store.database().pool())
        .await
        .unwrap();

    app.mail.fail(false);

    let (_, tries) = notice_until(&app, "given up", |due, _| due.is_none()).await;
    assert_eq!(tries, 1, "not tried again");
    assert_eq!(app.mail.sent().len(), 1, "no notice with a dead link");
    assert!(counted_above(NOTICES_COUNTER, "given_up", given_up).await);
}

async fn a_relay_that_never_answers_does_not_hold_up_the_stop_and_the_notice_stays_due(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    assert!(
        update(&app, &member, ATTACKER, PASSWORD)
            .await
            .expect("update")
    );
    let link = app.mail.after(0).await;
    app.mail.hang(true);
    confirm(&app, &link_token(&link)).await.expect("confirmed");
    notice_until(&app, "being sent", |_, tries| tries > 0).await;

    let env = tokio::time::timeout(Duration::from_secs(10), app.stopped())
        .await
        .expect("stopped though the relay's send never ended");

    // The try it cut short keeps its claim for the lease; the next accounts sends it after.
    let next = TestApp::spawn(env).await;
    let (due, tries) = notice_state(&next).await;
    assert!(
        due.is_some_and(|due| due > now_millis()),
        "claimed, still due"
    );
    assert_eq!(tries, 1);
}

async fn restore_rows_are_deleted_once_their_link_expired_and_their_notice_is_settled(
    env: TestEnv,
) {
    // The relay runs only when a confirmation wakes it, so it leaves the due notice below alone.
    let app = TestApp::spawn_relaying_every(env, false, Duration::from_secs(3_600)).await;
    let member = app.add_member_with_account().await;
    change_and_confirm(&app, &member, ATTACKER).await;
    let other = app.add_member_with_account().await;
    change_and_confirm(&app, &other, "otra@correo.cl").await;
    let fresh = app.add_member_with_account().await;
    change_and_confirm(&app, &fresh, "nueva@correo.cl").await;
    let now = now_millis();
    // The first member's link has expired; the other's too, but its notice is still due.
    for (member_id, due) in [(&member.id, None), (&other.id, Some(now - 1))] {
        sqlx::query(
            "UPDATE email_restores SET expires_at = $1, notice_due_at = $2 WHERE member_id = $3",
        )
        .bind(now - 1)
        .bind(due)
        .bind(member_id.as_str())
        .execute(app.store.database().pool())
        .await
        .unwrap();
    }

    let purged = app.store.purge_expired_restores(now).await.unwrap();

    assert_eq!(purged, 1);
    let left: Vec<String> = sqlx::query("SELECT member_id FROM email_restores ORDER BY created_at")
        .fetch_all(app.store.database().pool())
        .await
        .unwrap()
        .iter()
        .map(|row| row.get("member_id"))
        .collect();
    assert_eq!(
        left,
        [other.id.as_str(), fresh.id.as_str()],
        "the one still due for the relay, and the live link"
    );
}

async fn a_restore_row_that_cannot_be_read_is_given_up_and_holds_up_no_other_notice(env: TestEnv) {
    let app = TestApp::spawn_relaying_every(env, false, Duration::from_secs(3_600)).await;
    let member = app.add_member_with_account().await;
    change_and_confirm_while_mail_is_down(&app, &member).await;
    tried(&app, 1).await;
    // A hand edit gone wrong: the first due row no longer holds an address.
    sqlx::query("UPDATE email_restores SET previous_email = 'no-es-un-correo', notice_due_at = 0")
        .execute(app.store.database().pool())
        .await
        .unwrap();
    app.mail.fail(false);
    let other = app.add_member_with_account().await;

    let notice = change_and_confirm(&app, &other, "otra@correo.cl").await;

    assert_eq!(notice.to, other.email.as_str(), "the later notice went");
    let given_up: Option<i64> =
        sqlx::query("SELECT notice_due_at FROM email_restores WHERE member_id = $1")
            .bind(member.id.as_str())
            .fetch_one(app.store.database().pool())
            .await
            .unwrap()
            .get("notice_due_at");
    assert_eq!(given_up, None, "not tried every round for ever");
}

async fn two_relays_reading_the_same_due_notice_claim_it_once(env: TestEnv) {
    // The app's own relay tries once, woken by the confirmation, and then keeps out of the way.
    let app = TestApp::spawn_relaying_every(env, false, Duration::from_secs(3_600)).await;
    let member = app.add_member_with_account().await;
    change_and_confirm_while_mail_is_down(&app, &member).await;
    tried(&app, 1).await;
    let now = now_millis() + 60_000;

    let due = async || -> Vec<String> {
        let due = app.store.due_change_notices(now, 10).await.unwrap();
        due.into_iter()
            .map(|notice| notice.unwrap().digest)
            .collect()
    };
    let first = due().await;
    assert_eq!(first, due().await, "both relays see the notice due");
    let read = &first[0];
    let mut claims = Vec::new();
    for relay in ["a", "b"] {
        let minted = ConfirmationToken::generate().digest();
        claims.push((
            relay,
            app.store
                .claim_change_notice(read, &minted, now, now + 300_000)
                .await
                .unwrap(),
        ));
    }

    assert_eq!(claims, [("a", true), ("b", false)]);
    assert!(
        due().await.is_empty(),
        "the claim's lease keeps it off every relay"
    );
}

async fn a_restore_link_does_not_work_after_7_days(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let notice = change_and_confirm(&app, &member, ATTACKER).await;
    let expires_at = restore_expires_at(&app).await;
    let week = 7 * 24 * 60 * 60 * 1000;
    assert!((expires_at - now_millis() - week).abs() < 60_000, "7 days");
    sqlx::query("UPDATE email_restores SET expires_at = $1")
        .bind(now_millis() - 1)
        .execute(app.store.database().pool())
        .await
        .unwrap();

    let status = restore(&app, &restore_token(&notice)).await.unwrap_err();

    assert_eq!(refusal(&status).code, ErrorCode::ConfirmationInvalid);
    assert_eq!(app.stored(&member.id).await.email.as_str(), ATTACKER);
    assert!(app.login_emails.ended().is_empty());
}

async fn a_restore_link_works_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let notice = change_and_confirm(&app, &member, ATTACKER).await;
    let token = restore_token(&notice);
    restore(&app, &token).await.expect("first use");
    // The attacker changes it again (with the password they must have), then replays the link.
    change_and_confirm(&app, &member, "otra@correo.cl").await;

    let status = restore(&app, &token).await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::NotFound);
    assert_eq!(refusal(&status).code, ErrorCode::ConfirmationInvalid);
    assert_eq!(
        app.stored(&member.id).await.email.as_str(),
        "otra@correo.cl"
    );
    assert_eq!(app.login_emails.ended().len(), 1);
}

async fn an_attacker_using_the_link_of_a_later_change_cannot_void_the_owners_link(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let owners = change_and_confirm(&app, &member, ATTACKER).await;
    // The attacker changes it again and uses the notice their first address got.
    let attackers = change_and_confirm(&app, &member, "otra@correo.cl").await;
    assert_eq!(attackers.to, ATTACKER);
    restore(&app, &restore_token(&attackers))
        .await
        .expect("their own link");

    restore(&app, &restore_token(&owners))
        .await
        .expect("the owner's link still works");

    assert_eq!(app.stored(&member.id).await.email, member.email);
    let status = restore(&app, &restore_token(&attackers)).await.unwrap_err();
    assert_eq!(refusal(&status).code, ErrorCode::ConfirmationInvalid);
}

async fn when_auth_is_down_a_restore_changes_nothing_and_the_same_link_works_again(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let notice = change_and_confirm(&app, &member, ATTACKER).await;
    let token = restore_token(&notice);
    app.login_emails.fail_ending(true);

    let status = restore(&app, &token).await.unwrap_err();

    assert_eq!(status.code(), tonic::Code::Unavailable);
    assert_eq!(app.stored(&member.id).await.email.as_str(), ATTACKER);
    app.login_emails.fail_ending(false);
    restore(&app, &token)
        .await
        .expect("the same link, auth back");
    assert_eq!(app.stored(&member.id).await.email, member.email);
    assert_eq!(app.login_emails.ended(), [member.id.as_str().to_owned()]);
}

/// `member` as whoever holds the account now sees it: with `email` as its address.
fn with_email(member: &Member, email: &str) -> Member {
    Member {
        email: Email::parse(email).unwrap(),
        ..member.clone()
    }
}

async fn whoever_changed_the_email_cannot_leave_while_the_owner_may_still_restore_it(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let owners = change_and_confirm(&app, &member, ATTACKER).await;
    let taken = with_email(&member, ATTACKER);
    let until =
        miclub_platform::calendar::member_date_time(restore_expires_at(&app).await).unwrap();
    let sent = app.mail.sent().len();

    for status in [
        validate_unsubscribe(&app, &taken, PASSWORD)
            .await
            .unwrap_err(),
        unsubscribe(&app, &taken, PASSWORD).await.unwrap_err(),
    ] {
        assert_eq!(status.code(), tonic::Code::FailedPrecondition);
        let body = refusal(&status);
        assert_eq!(body.code, ErrorCode::EmailChangedRecently);
        assert_eq!(
            body.message,
            format!(
                "Cambiaste tu correo hace poco. Por seguridad, podrás darte de baja desde el \
                 {until} (hora de Chile)."
            )
        );
    }
    // The store's own guard, for a change confirmed between the check and the erasure.
    let choice = UnsubscribeChoice::new(1, "").unwrap();
    let notice = Notice {
        to: ATTACKER.into(),
        subject: UNSUBSCRIBE_NOTICE_SUBJECT.into(),
        body: String::new(),
    };
    assert!(
        !app.store
            .unsubscribe_member(&member.id, ATTACKER, &choice, &notice, now_millis())
            .await
            .unwrap()
    );

    assert_eq!(app.stored(&member.id).await.email.as_str(), ATTACKER);
    assert!(app.login_emails.disabled().is_empty());
    assert_eq!(app.mail.sent().len(), sent, "no notice of leaving");
    restore(&app, &restore_token(&owners))
        .await
        .expect("the owner's way back is whole");
    assert_eq!(app.stored(&member.id).await.email, member.email);
}

async fn a_member_may_leave_once_the_restore_link_is_used_or_has_expired(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let restored = app.add_member_with_account().await;
    let owners = change_and_confirm(&app, &restored, ATTACKER).await;
    restore(&app, &restore_token(&owners)).await.expect("used");

    unsubscribe(&app, &restored, PASSWORD)
        .await
        .expect("the owner leaves with the address restored");

    let expired = app.add_member_with_account().await;
    change_and_confirm(&app, &expired, "nueva@correo.cl").await;
    sqlx::query("UPDATE email_restores SET expires_at = $1 WHERE member_id = $2")
        .bind(now_millis() - 1)
        .bind(expired.id.as_str())
        .execute(app.store.database().pool())
        .await
        .unwrap();
    let moved = with_email(&expired, "nueva@correo.cl");
    validate_unsubscribe(&app, &moved, PASSWORD)
        .await
        .expect("seven days on");
    unsubscribe(&app, &moved, PASSWORD)
        .await
        .expect("seven days on");
    assert_eq!(
        app.login_emails.disabled(),
        [
            restored.id.as_str().to_owned(),
            expired.id.as_str().to_owned()
        ]
    );
}

async fn a_first_verification_tells_no_previous_address(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    // A member who never confirmed an address, as after registering.
    sqlx::query("UPDATE members SET email_confirmed = FALSE, confirmed_email = NULL")
        .execute(app.store.database().pool())
        .await
        .unwrap();
    app.client()
        .await
        .resend_email_confirmation(
            app.authorized(ResendEmailConfirmationRequest {}, &app.token(&member.id)),
        )
        .await
        .expect("link");
    let link = app.mail.sent().into_iter().next().unwrap();

    confirm(&app, &link_token(&link)).await.expect("confirmed");

    assert_eq!(
        app.mail.sent().len(),
        1,
        "no notice: there was no previous address"
    );
    assert_eq!(count(&app.store, "email_restores").await, 0);
}

async fn an_address_in_use_by_another_member_is_never_confirmed_for_a_second(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let owner = app.add_member_with_account().await;
    let member = app.add_member_with_account().await;
    let taken = owner.email.as_str().to_uppercase();

    let sent = update(&app, &member, &taken, PASSWORD)
        .await
        .expect("update");

    assert!(sent, "the same answer as for a free address");
    let mails = app.mail.sent();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, owner.email.as_str());
    assert_eq!(mails[0].subject, "Tu correo ya está registrado en Mi Club");
    assert!(
        !mails[0].body.contains("token="),
        "no link: {}",
        mails[0].body
    );
    assert!(!mails[0].body.contains(member.name.as_str()));
    assert_eq!(
        count(&app.store, "email_confirmations").await,
        0,
        "nothing to confirm"
    );
    // Asking again gets the notice again, never a link.
    app.client()
        .await
        .resend_email_confirmation(
            app.authorized(ResendEmailConfirmationRequest {}, &app.token(&member.id)),
        )
        .await
        .expect("resend answers as usual");
    assert_eq!(
        app.mail.sent()[0].subject,
        "Tu correo ya está registrado en Mi Club"
    );
    assert_eq!(count(&app.store, "email_confirmations").await, 0);
    assert!(app.login_emails.handed_over().is_empty());
}

/// Gives `member` the unconfirmed address `email` and a confirmation link for it straight in
/// the store, as two members who typed the same free address at the same instant would have.
async fn pending_link(app: &TestApp, member: &MemberId, email: &str) -> String {
    sqlx::query("UPDATE members SET email = $1, email_confirmed = FALSE WHERE member_id = $2")
        .bind(email)
        .bind(member.as_str())
        .execute(app.store.database().pool())
        .await
        .unwrap();
    let token = ConfirmationToken::generate();
    let issued = app
        .store
        .issue_email_confirmation(
            member,
            &miclub_accounts::domain::Email::parse(email).unwrap(),
            &NewConfirmation {
                digest: token.digest(),
                expires_at: now_millis() + 3_600_000,
            },
            now_millis(),
        )
        .await
        .unwrap();
    assert!(issued);
    token.as_str().to_owned()
}

async fn two_confirmations_of_one_address_racing_confirm_it_for_one_member(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let first = app.add_member_with_account().await;
    let second = app.add_member_with_account().await;
    let shared = "compartido@correo.cl";
    let first_link = pending_link(&app, &first.id, shared).await;
    let second_link = pending_link(&app, &second.id, shared).await;

    let (a, b) = tokio::join!(confirm(&app, &first_link), confirm(&app, &second_link));

    assert_eq!(
        [a.is_ok(), b.is_ok()].iter().filter(|ok| **ok).count(),
        1,
        "{a:?} {b:?}"
    );
    let refused = a.err().or(b.err()).unwrap();
    assert_eq!(refusal(&refused).code, ErrorCode::EmailAlreadyRegistered);
    let confirmed: i64 = sqlx::query(
        "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM members \
         WHERE LOWER(email) = $1 AND email_confirmed",
    )
    .bind(shared)
    .fetch_one(app.store.database().pool())
    .await
    .unwrap()
    .get("n");
    assert_eq!(confirmed, 1);
    assert_eq!(app.login_emails.handed_over().len(), 1, "auth told once");
}

backend_tests!(
    changing_the_email_without_the_current_password_is_refused_on_its_field,
    a_wrong_password_changes_nothing_and_sends_nothing,
    a_throttled_password_check_answers_auths_wait_and_changes_nothing,
    updates_that_keep_the_email_need_no_password,
    the_previous_address_is_told_and_can_restore_within_7_days,
    the_previous_address_is_told_by_the_next_accounts_when_the_relay_was_down_until_this_one_stopped,
    a_notice_is_tried_again_until_the_relay_takes_it_and_its_link_is_the_one_mailed,
    a_notice_the_relay_refuses_for_good_is_given_up_at_once,
    a_notice_the_relay_never_took_while_its_link_lived_is_given_up_not_sent_dead,
    a_relay_that_never_answers_does_not_hold_up_the_stop_and_the_notice_stays_due,
    restore_rows_are_deleted_once_their_link_expired_and_their_notice_is_settled,
    a_restore_row_that_cannot_be_read_is_given_up_and_holds_up_no_other_notice,
    two_relays_reading_the_same_due_notice_claim_it_once,
    a_restore_link_does_not_work_after_7_days,
    a_restore_link_works_once,
    an_attacker_using_the_link_of_a_later_change_cannot_void_the_owners_link,
    when_auth_is_down_a_restore_changes_nothing_and_the_same_link_works_again,
    whoever_changed_the_email_cannot_leave_while_the_owner_may_still_restore_it,
    a_member_may_leave_once_the_restore_link_is_used_or_has_expired,
    a_first_verification_tells_no_previous_address,
    an_address_in_use_by_another_member_is_never_confirmed_for_a_second,
    two_confirmations_of_one_address_racing_confirm_it_for_one_member,
);
