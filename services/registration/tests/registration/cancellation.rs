//! Cancelling a flow: its id, and any copy of it, answers as an expired flow's from then on, and
//! cancelling is safe to repeat.

use miclub_platform::backend_tests;
use miclub_platform::error::ErrorCode;
use miclub_platform::testing::TestEnv;

use crate::support::{RUT, TestApp, body, proto_data};

/// Asserts that `answer` is the refusal an expired flow gets.
fn assert_expired<T: std::fmt::Debug>(answer: Result<T, tonic::Status>, call: &str) {
    let status = answer.expect_err(call);
    assert_eq!(status.code(), tonic::Code::NotFound, "{call}");
    assert_eq!(body(&status).code, ErrorCode::RegistrationExpired, "{call}");
}

async fn a_cancelled_flow_can_no_longer_be_read_submitted_or_completed(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.at_step_3(RUT, "ana@correo.cl").await;
    let other = app.start_chilean("11.111.111-1").await.registration_id;

    app.cancel(&id).await.expect("cancel accepted");

    assert_expired(app.get(&id).await, "get");
    assert_expired(app.submit(&id, proto_data("ana@correo.cl")).await, "submit");
    assert_expired(app.complete(&id).await, "complete");
    assert_eq!(app.counts(), (0, 0, 0));
    // What was entered is gone with the flow; another browser's flow is untouched.
    assert_eq!(app.store.count().await.unwrap(), 1);
    assert!(app.get(&other).await.is_ok());
}

async fn cancelling_twice_or_a_flow_that_is_unknown_or_finished_is_not_an_error(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let id = app.start_chilean(RUT).await.registration_id;
    app.cancel(&id).await.expect("first cancel");
    app.cancel(&id).await.expect("second cancel");

    let finished = app.at_step_3("11.111.111-1", "luis@correo.cl").await;
    app.complete(&finished).await.expect("completed");
    app.cancel(&finished)
        .await
        .expect("cancel of a finished flow");

    let unknown = "A".repeat(43);
    for id in ["", "no-es-un-id", unknown.as_str()] {
        app.cancel(id).await.expect("cancel of no flow");
    }
    // The completed member is not undone by a cancel that came after.
    assert_eq!(app.counts(), (1, 1, 1));
}

backend_tests!(
    a_cancelled_flow_can_no_longer_be_read_submitted_or_completed,
    cancelling_twice_or_a_flow_that_is_unknown_or_finished_is_not_an_error,
);
