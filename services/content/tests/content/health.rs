//! gRPC health.

use std::time::Duration;

use miclub_content::Application;
use miclub_platform::backend_tests;
use miclub_platform::testing::{TestEnv, TestKeys};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::support::{TestApp, dependencies, settings};

async fn health_client(port: u16) -> HealthClient<tonic::transport::Channel> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    HealthClient::new(channel)
}

async fn health_reports_serving_for_the_server_and_for_the_content_service(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut health = health_client(app.port).await;

    for service in ["", miclub_content::SERVICE_NAME] {
        let response = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(response.status(), ServingStatus::Serving, "{service:?}");
    }
}

async fn a_stopping_service_reports_not_serving_while_it_drains_then_stops(env: TestEnv) {
    let mut settings = settings(&env);
    settings.server.drain_delay_ms = 1_000;
    let app = Application::build(settings, dependencies(&TestKeys::new()))
        .await
        .unwrap();
    let port = app.port();
    assert_ne!(port, 0);
    let (trigger, stop) = miclub_platform::shutdown::channel();
    let running = tokio::spawn(app.run_until_stopped(stop));
    let mut health = health_client(port).await;
    let check = HealthCheckRequest {
        service: miclub_content::SERVICE_NAME.into(),
    };

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

backend_tests!(
    health_reports_serving_for_the_server_and_for_the_content_service,
    a_stopping_service_reports_not_serving_while_it_drains_then_stops,
);
