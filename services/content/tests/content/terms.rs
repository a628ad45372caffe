//! `GetCurrentTerms` and the publication of the shipped terms.

use std::sync::Arc;

use miclub_accrual::RuleSet;
use miclub_content::Application;
use miclub_content::domain::{Content, shipped_terms};
use miclub_content::error::ContentError;
use miclub_content::store::Store;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::storage::now_millis;
use miclub_platform::testing::{TestEnv, TestKeys};
use miclub_proto::content::v1::{GetCurrentTermsRequest, PublishTermsRequest};

use crate::support::{DAY_MS, MINUTE_MS, TestApp, dependencies, settings, terms};

async fn the_shipped_terms_are_served_to_anyone_without_a_token(env: TestEnv) {
    let app = TestApp::spawn(env).await;

    let response = app
        .client()
        .await
        .get_current_terms(GetCurrentTermsRequest {})
        .await
        .unwrap()
        .into_inner();

    let served = response.terms.unwrap();
    assert_eq!(served.version, "2026-11-01");
    assert_eq!(served.title, "Términos y condiciones de Mi Club");
    assert_eq!(served.published_at, "2026-11-01T03:00:00Z");
    assert!(served.body.starts_with("1. El club. Mi Club es"));
    assert!(served.body.contains("\n\n2. Quiénes pueden participar."));
    assert!(served.body.contains("Ley N° 19.628"));
    assert_eq!(served.body, shipped_terms()[0].body);
}

async fn a_newer_published_version_replaces_the_shipped_one(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let newer = terms("2026-11-20", now_millis() - MINUTE_MS);
    assert!(
        app.store
            .insert_terms_if_missing(&newer, now_millis())
            .await
            .unwrap()
    );

    let served = app
        .client()
        .await
        .get_current_terms(GetCurrentTermsRequest {})
        .await
        .unwrap()
        .into_inner()
        .terms
        .unwrap();

    assert_eq!(served.version, "2026-11-20");
    assert_eq!(served.title, "Términos 2026-11-20");
    assert_eq!(served.body, newer.body);
}

async fn a_version_dated_in_the_future_is_not_current_yet(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let tomorrow = now_millis() + DAY_MS;
    let future = terms("2027-01-01", tomorrow);
    assert!(
        app.store
            .insert_terms_if_missing(&future, now_millis())
            .await
            .unwrap()
    );

    let served = app
        .client()
        .await
        .get_current_terms(GetCurrentTermsRequest {})
        .await
        .unwrap()
        .into_inner()
        .terms
        .unwrap();
    assert_eq!(served.version, "2026-11-01");

    // At its instant it is in force.
    let content = content_over(app.store.clone());
    assert_eq!(
        content
            .current_terms(tomorrow - 1)
            .await
            .unwrap()
            .version
            .as_str(),
        "2026-11-01"
    );
    assert_eq!(content.current_terms(tomorrow).await.unwrap(), future);
}

async fn before_any_version_is_in_force_the_terms_are_not_found(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let content = content_over(app.store.clone());
    let in_force_from = shipped_terms()[0].published_at;

    let before = content.current_terms(in_force_from - 1).await;

    assert!(
        matches!(before, Err(ContentError::TermsNotFound)),
        "{before:?}"
    );
    assert_eq!(
        content
            .current_terms(in_force_from)
            .await
            .unwrap()
            .version
            .as_str(),
        "2026-11-01"
    );
}

async fn a_stored_version_is_never_rewritten_by_the_shipped_text(env: TestEnv) {
    // The database already holds 2026-11-01 with another text (say, edited by hand after
    // members accepted it): starting the service keeps it.
    let store = Store::connect(&env.database).await.unwrap();
    let shipped = &shipped_terms()[0];
    let stored = terms("2026-11-01", shipped.published_at);
    assert!(
        store
            .insert_terms_if_missing(&stored, now_millis())
            .await
            .unwrap()
    );

    let app = TestApp::spawn(env).await;
    let served = app
        .client()
        .await
        .get_current_terms(GetCurrentTermsRequest {})
        .await
        .unwrap()
        .into_inner()
        .terms
        .unwrap();

    assert_eq!(served.title, stored.title);
    assert_eq!(served.body, stored.body);
    assert_eq!(app.store.count_terms().await.unwrap(), 1);
}

async fn concurrent_starts_publish_the_shipped_terms_once(env: TestEnv) {
    // Migrate once, then let several "replicas" publish at the same time.
    let first = Store::connect(&env.database).await.unwrap();
    let second = Store::connect(&env.database).await.unwrap();
    let shipped = shipped_terms().remove(0);
    let attempts = (0..10).map(|i| {
        let store = if i % 2 == 0 {
            first.clone()
        } else {
            second.clone()
        };
        let shipped = shipped.clone();
        tokio::spawn(async move { store.insert_terms_if_missing(&shipped, now_millis()).await })
    });
    let mut inserted = 0;
    for attempt in futures::future::join_all(attempts).await {
        if attempt.unwrap().unwrap() {
            inserted += 1;
        }
    }
    assert_eq!(inserted, 1);

    // And services started on top of that, at the same time, add nothing.
    let (one, two) = tokio::join!(
        Application::build(settings(&env), dependencies(&TestKeys::new())),
        Application::build(settings(&env), dependencies(&TestKeys::new())),
    );
    one.unwrap();
    two.unwrap();
    assert_eq!(first.count_terms().await.unwrap(), 1);
    assert_eq!(
        first.find_terms(&shipped.version).await.unwrap(),
        Some(shipped)
    );
}

/// The domain over `store`, with the built-in rules and the shipped flags.
fn content_over(store: Store) -> Content {
    Content::new(
        store,
        Arc::new(RuleSet::builtin()),
        miclub_content::seed::shipped().unwrap().flags,
    )
}

fn publish(version: &str, body: &str, published_at: &str) -> PublishTermsRequest {
    PublishTermsRequest {
        version: version.into(),
        title: "Términos y condiciones de Mi Club".into(),
        body: body.into(),
        published_at: published_at.into(),
    }
}

async fn current_version(app: &TestApp) -> String {
    app.client()
        .await
        .get_current_terms(GetCurrentTermsRequest {})
        .await
        .unwrap()
        .into_inner()
        .terms
        .unwrap()
        .version
}

async fn an_operator_publishes_a_new_version_which_is_current_at_once(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let answer = app
        .client()
        .await
        .publish_terms(app.as_service(publish("2026-12-01", "Uno.\r\n\r\nDos.", "")))
        .await
        .expect("published")
        .into_inner();
    assert!(answer.created);
    assert_eq!(answer.terms.unwrap().body, "Uno.\n\nDos.");
    assert_eq!(current_version(&app).await, "2026-12-01");

    // A retry of the same publication is not an error and changes nothing.
    let again = app
        .client()
        .await
        .publish_terms(app.as_service(publish("2026-12-01", "Uno.\n\nDos.", "")))
        .await
        .expect("the same version again")
        .into_inner();
    assert!(!again.created);
}

async fn a_published_version_is_never_rewritten_and_bad_input_is_refused(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let status = app
        .client()
        .await
        .publish_terms(app.as_service(publish("2026-11-01", "Otro texto.", "")))
        .await
        .expect_err("the shipped version exists with another text");
    let body = ErrorBody::from_status(&status);
    assert_eq!(body.code, ErrorCode::Conflict);
    assert_eq!(body.field.as_deref(), Some("version"));

    for (request, field) in [
        (publish("con espacios", "Texto.", ""), "version"),
        (publish("v2", "   ", ""), "body"),
        (publish("v2", "Texto.", "mañana"), "published_at"),
    ] {
        let status = app
            .client()
            .await
            .publish_terms(app.as_service(request))
            .await
            .expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(
            ErrorBody::from_status(&status).field.as_deref(),
            Some(field)
        );
    }
    assert_eq!(current_version(&app).await, "2026-11-01");
}

async fn only_a_service_token_may_publish_terms(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let request = publish("2026-12-01", "Texto.", "");
    let status = app
        .client()
        .await
        .publish_terms(app.as_member(request))
        .await
        .expect_err("a member may not publish");
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
    assert_eq!(current_version(&app).await, "2026-11-01");
}

backend_tests!(
    an_operator_publishes_a_new_version_which_is_current_at_once,
    a_published_version_is_never_rewritten_and_bad_input_is_refused,
    only_a_service_token_may_publish_terms,
    the_shipped_terms_are_served_to_anyone_without_a_token,
    a_newer_published_version_replaces_the_shipped_one,
    a_version_dated_in_the_future_is_not_current_yet,
    before_any_version_is_in_force_the_terms_are_not_found,
    a_stored_version_is_never_rewritten_by_the_shipped_text,
    concurrent_starts_publish_the_shipped_terms_once,
);

/// Replicas exist only on PostgreSQL (standalone runs one content on SQLite), whose migrator
/// holds an advisory lock; sqlx's SQLite migrator has none, so two pools migrating one fresh
/// file at once can race on `CREATE TABLE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_starting_together_on_a_fresh_postgresql_database_publish_the_terms_once() {
    let env = TestEnv::postgres_redis().await;
    let (one, two) = tokio::join!(
        Application::build(settings(&env), dependencies(&TestKeys::new())),
        Application::build(settings(&env), dependencies(&TestKeys::new())),
    );
    one.unwrap();
    two.unwrap();

    let store = Store::connect(&env.database).await.unwrap();
    assert_eq!(store.count_terms().await.unwrap(), 1);
    assert_eq!(
        content_over(store)
            .current_terms(now_millis())
            .await
            .unwrap(),
        shipped_terms()[0]
    );
}
