//! gRPC health.

use miclub_platform::backend_tests;
use miclub_platform::testing::TestEnv;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::support::TestApp;

async fn health_reports_serving_for_the_server_and_for_the_accounts_service(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{}", app.port))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel);

    for service in ["", miclub_accounts::SERVICE_NAME] {
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

backend_tests!(health_reports_serving_for_the_server_and_for_the_accounts_service);

async fn a_stopping_service_reports_not_serving_while_it_drains_then_stops(env: TestEnv) {
    use miclub_accounts::{Application, Dependencies, Settings};
    use miclub_platform::grpc::ServerSettings;
    use miclub_platform::testing::TestKeys;
    use std::time::Duration;

    let keys = TestKeys::new();
    let settings = Settings {
        server: ServerSettings {
            host: "127.0.0.1".into(),
            port: 0,
            drain_delay_ms: 1_000,
            ..ServerSettings::default()
        },
        database: env.database.clone(),
        tokens: keys.settings.clone(),
        ..Settings::default()
    };
    let deps = Dependencies {
        store: env.store.clone(),
        key_source: keys.key_source(),
        notifier: std::sync::Arc::new(miclub_platform::notify::DevMailbox::default()),
        login_emails: std::sync::Arc::new(crate::support::FakeLoginEmails::default()),
        bus: crate::support::TestBus::for_env(&env).await,
    };
    let app = Application::build(settings, deps).await.unwrap();
    let port = app.port();
    let (trigger, stop) = miclub_platform::shutdown::channel();
    let running = tokio::spawn(app.run_until_stopped(stop));
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel);
    let check = HealthCheckRequest {
        service: miclub_accounts::SERVICE_NAME.into(),
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

backend_tests!(a_stopping_service_reports_not_serving_while_it_drains_then_stops);
