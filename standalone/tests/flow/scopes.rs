//! Who may call what, against the real binary's gRPC ports (issue #17, item 4): on each of the
//! five services a client granted a method gets past the access policy and a client without it
//! is refused with PERMISSION_DENIED / ERR_FORBIDDEN; member tokens pass only member methods,
//! service tokens never do, and a call without a token is UNAUTHENTICATED.
//!
//! The requests are empty messages: a call the policy admits then fails on its content
//! (INVALID_ARGUMENT, NOT_FOUND …) or succeeds, which is the service answering; only the
//! policy answers PERMISSION_DENIED or UNAUTHENTICATED first.

use miclub_platform::error::{ErrorBody, ErrorCode};
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

use super::*;

const POS_SECRET: &str = "secreto-de-caja-para-alcances";
const OPS_SECRET: &str = "secreto-de-operaciones-para-alcances";

/// The operator tool's grant in this test: one method of each service but accounts'
/// PostPurchase, which only the store system (`pos`, default grant) has.
const OPS_METHODS: &str = "miclub.auth.v1.AuthService/StartLogin,\
     miclub.accounts.v1.AccountsService/ConfirmDueAccruals,\
     miclub.content.v1.ContentService/SetFlag,\
     miclub.missions.v1.MissionsService/SetHistoryLoading,\
     miclub.registration.v1.RegistrationService/GetRegistration";

struct Ports {
    portal: Portal,
}

impl Ports {
    fn url(&self, service: &str) -> String {
        format!(
            "http://127.0.0.1:{}",
            self.portal.setting(&format!("APP_{service}__SERVER__PORT"))
        )
    }

    async fn token(&self, client_id: &str, secret: &str) -> String {
        service_token(&self.url("AUTH"), client_id, secret).await
    }
}

async fn ports() -> Ports {
    let portal = Portal::start_with(|| {
        let mut settings: Vec<(&str, String)> = [
            "APP_AUTH__SERVER__PORT",
            "APP_ACCOUNTS__SERVER__PORT",
            "APP_CONTENT__SERVER__PORT",
            "APP_MISSIONS__SERVER__PORT",
            "APP_REGISTRATION__SERVER__PORT",
        ]
        .into_iter()
        .map(|name| (name, free_port().to_string()))
        .collect();
        settings.push(("APP_STANDALONE__POS_CLIENT_SECRET", POS_SECRET.to_owned()));
        settings.push(("APP_STANDALONE__OPS_CLIENT_SECRET", OPS_SECRET.to_owned()));
        settings.push(("APP_AUTH__CLIENT_METHODS__OPS", OPS_METHODS.to_owned()));
        settings
    })
    .await;
    Ports { portal }
}

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

/// One scoped method of each service, called with `token` (or none).
async fn call_each_service(
    ports: &Ports,
    token: Option<&str>,
) -> Vec<(&'static str, Result<(), tonic::Status>)> {
    fn request<T>(message: T, token: Option<&str>) -> tonic::Request<T> {
        match token {
            Some(token) => with_bearer(message, token),
            None => tonic::Request::new(message),
        }
    }
    let auth = AuthServiceClient::connect(ports.url("AUTH"))
        .await
        .unwrap()
        .start_login(request(auth::StartLoginRequest::default(), token))
        .await
        .map(drop);
    let accounts = AccountsServiceClient::connect(ports.url("ACCOUNTS"))
        .await
        .unwrap()
        .post_purchase(request(accounts::PostPurchaseRequest::default(), token))
        .await
        .map(drop);
    let content = ContentServiceClient::connect(ports.url("CONTENT"))
        .await
        .unwrap()
        .set_flag(request(content::SetFlagRequest::default(), token))
        .await
        .map(drop);
    let missions = MissionsServiceClient::connect(ports.url("MISSIONS"))
        .await
        .unwrap()
        .set_history_loading(request(
            missions::SetHistoryLoadingRequest::default(),
            token,
        ))
        .await
        .map(drop);
    let registration = RegistrationServiceClient::connect(ports.url("REGISTRATION"))
        .await
        .unwrap()
        .get_registration(request(
            registration::GetRegistrationRequest::default(),
            token,
        ))
        .await
        .map(drop);
    vec![
        ("auth StartLogin", auth),
        ("accounts PostPurchase", accounts),
        ("content SetFlag", content),
        ("missions SetHistoryLoading", missions),
        ("registration GetRegistration", registration),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_service_admits_a_client_granted_the_method_and_refuses_one_without_it() {
    let ports = ports().await;
    let ops = ports.token("ops", OPS_SECRET).await;
    let pos = ports.token("pos", POS_SECRET).await;

    for (call, answer) in call_each_service(&ports, Some(&ops)).await {
        let expected = if call == "accounts PostPurchase" {
            DENIED
        } else {
            None
        };
        assert_eq!(
            refused_by_policy(&answer),
            expected,
            "ops: {call}: {answer:?}"
        );
    }
    for (call, answer) in call_each_service(&ports, Some(&pos)).await {
        let expected = if call == "accounts PostPurchase" {
            None
        } else {
            DENIED
        };
        assert_eq!(
            refused_by_policy(&answer),
            expected,
            "pos: {call}: {answer:?}"
        );
    }
    for (call, answer) in call_each_service(&ports, None).await {
        assert_eq!(
            refused_by_policy(&answer),
            Some((tonic::Code::Unauthenticated, ErrorCode::Unauthenticated)),
            "no token: {call}: {answer:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_tokens_pass_only_member_methods_and_service_tokens_never_do() {
    let ports = ports().await;
    let ana = ports.portal.browser();
    ana.log_in("11.111.111-1", "ana@example.cl").await;
    let member = ana.access_token();
    let pos = ports.token("pos", POS_SECRET).await;

    // A member's token on every service's scoped method: refused, however it was obtained.
    for (call, answer) in call_each_service(&ports, Some(&member)).await {
        assert_eq!(
            refused_by_policy(&answer),
            DENIED,
            "member: {call}: {answer:?}"
        );
    }
    let mut accounts = AccountsServiceClient::connect(ports.url("ACCOUNTS"))
        .await
        .unwrap();
    let own = accounts
        .get_balance(with_bearer(accounts::GetBalanceRequest {}, &member))
        .await;
    assert!(own.is_ok(), "{own:?}");
    let as_store = accounts
        .get_balance(with_bearer(accounts::GetBalanceRequest {}, &pos))
        .await
        .map(drop);
    assert_eq!(refused_by_policy(&as_store), DENIED, "{as_store:?}");
}
