//! gRPC reflection on each service's port of the real binary lists what that port serves, and
//! nothing else: a caller exploring the internal network learns no method it cannot call there.

use std::collections::BTreeSet;

use miclub_platform::grpc::{HEALTH_SERVICE, REFLECTION_SERVICE};
use tokio_stream::StreamExt;
use tonic_reflection::pb::v1::ServerReflectionRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

use super::*;

/// The services gRPC reflection lists on `service`'s port.
async fn listed_services(portal: &Portal, service: &str) -> BTreeSet<String> {
    let channel = portal.channel(service);
    let mut client = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let answer = answers.next().await.unwrap().unwrap();
    match answer.message_response {
        Some(MessageResponse::ListServicesResponse(list)) => {
            list.service.into_iter().map(|s| s.name).collect()
        }
        other => panic!("not a list of services: {other:?}"),
    }
}

/// `APP_AUTH__SERVER__PORT` → `auth`.
fn service_of(setting: &str) -> String {
    setting
        .trim_start_matches("APP_")
        .trim_end_matches("__SERVER__PORT")
        .to_lowercase()
}

#[tokio::test]
async fn each_port_reflects_only_the_service_it_serves() {
    let ports = [
        ("APP_AUTH__SERVER__PORT", "miclub.auth.v1.AuthService"),
        (
            "APP_ACCOUNTS__SERVER__PORT",
            "miclub.accounts.v1.AccountsService",
        ),
        (
            "APP_MISSIONS__SERVER__PORT",
            "miclub.missions.v1.MissionsService",
        ),
        (
            "APP_CONTENT__SERVER__PORT",
            "miclub.content.v1.ContentService",
        ),
        (
            "APP_REGISTRATION__SERVER__PORT",
            "miclub.registration.v1.RegistrationService",
        ),
    ];
    let portal = Portal::start_with(|| {
        ports
            .iter()
            .map(|(name, _)| (*name, free_port().to_string()))
            .collect()
    })
    .await;
    for (setting, service) in ports {
        let expected: BTreeSet<String> = [service, HEALTH_SERVICE, REFLECTION_SERVICE]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(
            listed_services(&portal, &service_of(setting)).await,
            expected,
            "{setting}"
        );
    }
}
