//! Registration started for real on port 0, with its gRPC ports, and asked for its health.

use std::time::Duration;

use miclub_platform::shutdown;
use miclub_platform::testing::TestEnv;
use miclub_registration::{Application, Dependencies};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_reports_serving_and_turns_not_serving_while_it_drains() {
    let env = TestEnv::sqlite_memory().await;
    let mut settings = crate::support::settings(&env);
    settings.server.drain_delay_ms = 1_000;
    // The gRPC ports connect lazily: nothing needs accounts, auth or content to be up.
    let deps = Dependencies::over_grpc(&settings, env.store.clone()).unwrap();
    let app = Application::build(settings, deps).await.unwrap();
    let port = app.port();
    assert_ne!(port, 0);
    let (trigger, stop) = shutdown::channel();
    let running = tokio::spawn(app.run_until_stopped(stop));
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel);
    let check = HealthCheckRequest {
        service: String::new(),
    };

    let serving = health.check(check.clone()).await.unwrap().into_inner();
    assert_eq!(serving.status(), ServingStatus::Serving);

    trigger.trigger();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let draining = health.check(check).await.unwrap().into_inner();
    assert_eq!(draining.status(), ServingStatus::NotServing);

    tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
