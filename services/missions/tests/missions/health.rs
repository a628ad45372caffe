//! Missions started for real on port 0 and asked for its health over gRPC.

use std::sync::Arc;
use std::time::Duration;

use miclub_missions::{Application, Dependencies, Settings};
use miclub_platform::events::MemoryBus;
use miclub_platform::grpc::ServerSettings;
use miclub_platform::shutdown;
use miclub_platform::testing::{TestEnv, TestKeys};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::support::FakeRewards;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_reports_serving_and_turns_not_serving_while_it_drains() {
    let env = TestEnv::sqlite_memory().await;
    let keys = TestKeys::new();
    let settings = Settings {
        server: ServerSettings {
            host: "127.0.0.1".into(),
            port: 0,
            drain_delay_ms: 1_000,
            ..ServerSettings::default()
        },
        database: env.database.clone(),
        ..Settings::default()
    };
    let deps = Dependencies {
        bus: Arc::new(MemoryBus::new()),
        key_source: keys.key_source(),
        store: env.store.clone(),
        rewards: Arc::new(FakeRewards::default()),
    };
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
    for service in ["", miclub_missions::SERVICE_NAME] {
        let serving = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(serving.status(), ServingStatus::Serving, "{service:?}");
    }

    trigger.trigger();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let draining = health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(draining.status(), ServingStatus::NotServing);

    tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
