//! Who may call what, against the six running processes over internal TLS (issue #17, item 4):
//! on each of the five services a client whose default grant names the method gets past the
//! access policy and a configured client without it is refused with PERMISSION_DENIED /
//! ERR_FORBIDDEN; a call without a token is UNAUTHENTICATED; a member's token (taken from the
//! portal's session cookie after a real login) passes only member methods, and a service token
//! never does.
//!
//! The requests are empty messages: a call the policy admits then fails on its content
//! (INVALID_ARGUMENT, NOT_FOUND …) or succeeds, which is the service answering; only the policy
//! answers PERMISSION_DENIED or UNAUTHENTICATED first.

use miclub_distributed::Topology;
use miclub_distributed::secrets::Vault;
use miclub_distributed::topology::Running;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::TracedChannel;
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1 as accounts;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::auth::v1 as auth;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::content::v1 as content;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use miclub_proto::missions::v1 as missions;
use miclub_proto::missions::v1::missions_service_client::MissionsServiceClient;
use miclub_proto::registration::v1 as registration;
use miclub_proto::registration::v1::registration_service_client::RegistrationServiceClient;

#[macro_use]
mod support;

use support::{log_in, test_options, tls_channel};

/// A channel to `workload`'s own gRPC port.
fn channel(running: &Running, workload: &str) -> TracedChannel {
    tls_channel(&running.ca_file, running.grpc[workload])
}

/// A service token for `client`, with the secret the topology generated for it.
async fn token_of(running: &Running, state: &std::path::Path, client: &str) -> String {
    let secret = Vault::open(state).unwrap().client_secret(client).unwrap();
    AuthServiceClient::new(channel(running, "auth"))
        .issue_service_token(auth::IssueServiceTokenRequest {
            client_id: client.to_owned(),
            client_secret: secret,
        })
        .await
        .unwrap_or_else(|status| panic!("no service token for {client}: {status:?}"))
        .into_inner()
        .access_token
}

fn request<T>(message: T, token: Option<&str>) -> tonic::Request<T> {
    match token {
        Some(token) => with_bearer(message, token),
        None => tonic::Request::new(message),
    }
}

/// One scoped method of `service`, called with `token` (or none).
async fn call(running: &Running, service: &str, token: Option<&str>) -> Result<(), tonic::Status> {
    let channel = channel(running, service);
    match service {
        "auth" => AuthServiceClient::new(channel)
            .start_login(request(auth::StartLoginRequest::default(), token))
            .await
            .map(drop),
        "accounts" => AccountsServiceClient::new(channel)
            .post_purchase(request(accounts::PostPurchaseRequest::default(), token))
            .await
            .map(drop),
        "content" => ContentServiceClient::new(channel)
            .set_flag(request(content::SetFlagRequest::default(), token))
            .await
            .map(drop),
        "missions" => MissionsServiceClient::new(channel)
            .set_history_loading(request(
                missions::SetHistoryLoadingRequest::default(),
                token,
            ))
            .await
            .map(drop),
        "registration" => RegistrationServiceClient::new(channel)
            .get_registration(request(
                registration::GetRegistrationRequest::default(),
                token,
            ))
            .await
            .map(drop),
        other => panic!("no call for {other}"),
    }
}

/// Service → (its method's name, a client granted it by default, a configured client not).
const CASES: &[(&str, &str, &str, &str)] = &[
    ("auth", "StartLogin", "gateway", "pos"),
    ("accounts", "PostPurchase", "pos", "gateway"),
    ("content", "SetFlag", "ops", "pos"),
    ("missions", "SetHistoryLoading", "ops", "gateway"),
    ("registration", "GetRegistration", "gateway", "ops"),
];

/// Whether the access policy refused the call (rather than the service answering it).
fn refused_by_policy(answer: &Result<(), tonic::Status>) -> Option<(tonic::Code, ErrorCode)> {
    match answer {
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::PermissionDenied | tonic::Code::Unauthenticated
            ) =>
        {
            Some((status.code(), ErrorBody::from_status(status).code))
        }
        _ => None,
    }
}

const DENIED: Option<(tonic::Code, ErrorCode)> =
    Some((tonic::Code::PermissionDenied, ErrorCode::Forbidden));

#[tokio::test(flavor = "multi_thread")]
async fn each_running_service_admits_only_the_clients_granted_its_methods_and_members_only_on_theirs()
 {
    require!(true, true);
    let state = tempfile::tempdir().unwrap();
    let running = Topology::start(test_options(state.path())).await.unwrap();

    for (service, method, granted, other) in CASES {
        let allowed = token_of(&running, state.path(), granted).await;
        let answer = call(&running, service, Some(&allowed)).await;
        assert_eq!(
            refused_by_policy(&answer),
            None,
            "{granted} on {service} {method}: {answer:?}"
        );
        let refused = token_of(&running, state.path(), other).await;
        let answer = call(&running, service, Some(&refused)).await;
        assert_eq!(
            refused_by_policy(&answer),
            DENIED,
            "{other} on {service} {method}: {answer:?}"
        );
        let answer = call(&running, service, None).await;
        assert_eq!(
            refused_by_policy(&answer),
            Some((tonic::Code::Unauthenticated, ErrorCode::Unauthenticated)),
            "no token on {service} {method}: {answer:?}"
        );
    }

    // A member's own token, as the gateway holds it after a real login.
    let client = reqwest::Client::new();
    let jar = log_in(&running, &client, "11.111.111-1", "ana@example.cl").await;
    let member = jar
        .get("mc_session")
        .or_else(|| jar.get("__Host-mc_session"))
        .expect("a session cookie after the login")
        .to_owned();
    for (service, method, _, _) in CASES {
        let answer = call(&running, service, Some(&member)).await;
        assert_eq!(
            refused_by_policy(&answer),
            DENIED,
            "a member's token on {service} {method}: {answer:?}"
        );
    }
    let mut accounts = AccountsServiceClient::new(channel(&running, "accounts"));
    let own = accounts
        .get_balance(with_bearer(accounts::GetBalanceRequest {}, &member))
        .await;
    assert!(own.is_ok(), "{own:?}");
    let pos = token_of(&running, state.path(), "pos").await;
    let as_store = accounts
        .get_balance(with_bearer(accounts::GetBalanceRequest {}, &pos))
        .await
        .map(drop);
    assert_eq!(refused_by_policy(&as_store), DENIED, "{as_store:?}");
    running.stop().await.unwrap();
}
