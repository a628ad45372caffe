//! Leaving the club as a member and an attacker see it (issue #16): the current password
//! before either step (the document and email the profile shows to whoever holds the session
//! are not enough), and the "Te diste de baja de Mi Club" notice to the address read before it
//! is erased, mailed from the outbox written in the erasure's transaction, so that neither a
//! stop nor a mail relay outage loses it; two replicas' relays never mail one notice twice.

use std::sync::Arc;
use std::time::Duration;

use miclub_accounts::domain::Member;
use miclub_accounts::store::Store;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::notify::outbox::{MailOutbox, Notice, OutboxRound, enqueue};
use miclub_platform::notify::{DevMailbox, Notifier, Outgoing};
use miclub_platform::storage::{Database, now_millis};
use miclub_platform::testing::{TestEnv, mail_outbox, mail_outbox_tried};
use miclub_proto::accounts::v1::{UnsubscribeRequest, ValidateUnsubscribeRequest};
use sqlx::Row;

use crate::support::{PASSWORD, TestApp, counted, counted_above};

const IP: &str = "203.0.113.7";
const NOTICE: &str = "Te diste de baja de Mi Club";

pub(crate) async fn validate(
    app: &TestApp,
    member: &Member,
    password: &str,
) -> Result<(), tonic::Status> {
    app.client()
        .await
        .validate_unsubscribe(app.authorized(
            ValidateUnsubscribeRequest {
                user: member.document.canonical(),
                email: member.email.as_str().to_owned(),
                current_password: password.to_owned(),
                client_ip: IP.into(),
            },
            &app.token(&member.id),
        ))
        .await
        .map(|_| ())
}

pub(crate) async fn unsubscribe(
    app: &TestApp,
    member: &Member,
    password: &str,
) -> Result<(), tonic::Status> {
    app.client()
        .await
        .unsubscribe(app.authorized(
            UnsubscribeRequest {
                user: member.document.canonical(),
                email: member.email.as_str().to_owned(),
                reason_id: 1,
                reason_text: String::new(),
                current_password: password.to_owned(),
                client_ip: IP.into(),
            },
            &app.token(&member.id),
        ))
        .await
        .map(|_| ())
}

async fn unsubscribing_with_the_public_data_alone_is_refused_and_changes_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    for status in [
        validate(&app, &member, "").await.unwrap_err(),
        unsubscribe(&app, &member, "").await.unwrap_err(),
    ] {
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some("current_password"));
        assert_eq!(body.message, "Ingresa tu contraseña actual.");
    }
    for status in [
        validate(&app, &member, "adivinanza").await.unwrap_err(),
        unsubscribe(&app, &member, "adivinanza").await.unwrap_err(),
    ] {
        assert_eq!(
            ErrorBody::from_status(&status).code,
            ErrorCode::WrongPassword
        );
    }

    let stored = app.stored(&member.id).await;
    assert_eq!(stored.email, member.email, "still a member, data kept");
    assert!(app.mail.sent().is_empty());
    assert!(app.login_emails.disabled().is_empty());
    validate(&app, &member, PASSWORD)
        .await
        .expect("with the password");
}

async fn an_unsubscribe_notice_goes_to_the_address_before_it_is_erased(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;

    unsubscribe(&app, &member, PASSWORD).await.expect("left");

    app.mail.after(0).await;
    let mails = app.mail.sent();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, member.email.as_str());
    assert_eq!(mails[0].subject, "Te diste de baja de Mi Club");
    assert!(mails[0].body.contains("hora de Chile"), "{}", mails[0].body);
    assert!(
        mails[0].body.contains("Si no fuiste tú"),
        "{}",
        mails[0].body
    );
    assert!(!mails[0].body.contains(PASSWORD));
    assert_eq!(mails[0].code, None);
    let erased: String = sqlx::query("SELECT email FROM members WHERE member_id = $1")
        .bind(member.id.as_str())
        .fetch_one(app.store.database().pool())
        .await
        .unwrap()
        .get("email");
    assert_eq!(erased, "");
}

async fn the_notice_is_sent_by_the_next_accounts_when_the_relay_was_down_until_this_one_stopped(
    env: TestEnv,
) {
    // Production's wiring: the rest of the mail goes through the queue, which would take the
    // notice at once; the outbox's relay sends it past the queue and knows it failed.
    let app = TestApp::spawn_with_a_mail_queue(env).await;
    let member = app.add_member_with_account().await;
    app.mail.fail(true);
    unsubscribe(&app, &member, PASSWORD).await.expect("left");
    mail_outbox_tried(app.store.database(), NOTICE).await;
    assert!(app.mail.sent().is_empty());

    // A rollout (or a crash) ends this accounts before the mail relay is back: the address is
    // erased from the member, and the notice, in the outbox, is the only place it is left.
    let next = TestApp::spawn(app.stopped().await).await;

    let notice = next.mail.after(0).await;
    assert_eq!(notice.subject, NOTICE);
    assert_eq!(notice.to, member.email.as_str());
    assert_eq!(
        mail_outbox(next.store.database()).await,
        [],
        "sent, and its address gone with the row"
    );
}

/// The counter the relay counts its notices in, by outcome.
const NOTICES_COUNTER: &str = "mail_outbox_notices_total";

/// `mail_outbox_notices_total{outcome}` (0 before the first).
fn notices_counted(outcome: &str) -> u64 {
    counted(NOTICES_COUNTER, outcome)
}

async fn a_notice_the_relay_refuses_for_good_is_given_up_at_once_and_its_address_deleted(
    env: TestEnv,
) {
    let given_up = notices_counted("given_up");
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    app.mail.refuse(true);

    unsubscribe(&app, &member, PASSWORD).await.expect("left");

    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !mail_outbox(app.store.database()).await.is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "still in the outbox"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(app.mail.sent().is_empty());
    // Tests share the process's recorder and run in parallel: at least this one was counted.
    assert!(counted_above(NOTICES_COUNTER, "given_up", given_up).await);
}

/// A mail relay that takes a while to answer, as a real one does: it keeps two relays in the
/// middle of their rounds at the same time.
#[derive(Debug, Default)]
struct SlowRelay {
    mailbox: DevMailbox,
}

#[async_trait::async_trait]
impl Notifier for SlowRelay {
    async fn send(&self, message: Outgoing) -> anyhow::Result<()> {
        // 24 notices take one relay half a second: longer than the other's first query on a
        // loaded machine.
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.mailbox.send(message).await
    }
}

async fn two_replicas_relaying_at_once_mail_each_notice_once(env: TestEnv) {
    // Two accounts replicas' relays, each with its own pool, and no app whose own relay could
    // take the rows first.
    let store = Store::connect(&env.database).await.unwrap();
    let notices = 24;
    let now = now_millis();
    let mut tx = store.database().pool().begin().await.unwrap();
    for n in 0..notices {
        let notice = Notice {
            to: format!("socio{n}@example.cl"),
            subject: NOTICE.into(),
            body: format!("aviso {n}"),
        };
        enqueue(&mut tx, &format!("member-{n}"), &notice, now)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();

    let start = Arc::new(tokio::sync::Barrier::new(2));
    let mut relays = tokio::task::JoinSet::new();
    for _ in 0..2 {
        let relay = Arc::new(SlowRelay::default());
        let outbox = MailOutbox::new(
            Database::connect(&env.database).await.unwrap(),
            relay.clone(),
        );
        let start = start.clone();
        relays.spawn(async move {
            start.wait().await;
            let mut idle_rounds = 0;
            while idle_rounds < 3 {
                if outbox.deliver_due(now_millis()).await.unwrap() == OutboxRound::default() {
                    idle_rounds += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
            relay.mailbox.list()
        });
    }
    let mut per_relay = Vec::new();
    while let Some(sent) = relays.join_next().await {
        per_relay.push(sent.unwrap());
    }

    let mut bodies: Vec<String> = per_relay.iter().flatten().map(|m| m.body.clone()).collect();
    bodies.sort();
    let mut expected: Vec<String> = (0..notices).map(|n| format!("aviso {n}")).collect();
    expected.sort();
    assert_eq!(bodies, expected, "each notice mailed once");
    assert!(
        per_relay.iter().all(|sent| !sent.is_empty()),
        "both relays mailed: {:?}",
        per_relay.iter().map(Vec::len).collect::<Vec<_>>()
    );
    assert_eq!(mail_outbox(store.database()).await, []);
}

backend_tests!(
    unsubscribing_with_the_public_data_alone_is_refused_and_changes_nothing,
    an_unsubscribe_notice_goes_to_the_address_before_it_is_erased,
    the_notice_is_sent_by_the_next_accounts_when_the_relay_was_down_until_this_one_stopped,
    a_notice_the_relay_refuses_for_good_is_given_up_at_once_and_its_address_deleted,
    two_replicas_relaying_at_once_mail_each_notice_once,
);
