//! Who may call which internal RPC: the one policy every gRPC port enforces.
//!
//! Each method is one of three kinds ([`access_of`]):
//! - **open**: health, reflection, auth's key set and its client-credentials grant (a caller
//!   needs them before it can hold any token);
//! - **member**: the member-facing methods (a member's own balance, profile, missions …), called
//!   by the gateway with the member's access token; a service token is refused there, since no
//!   internal caller acts as a member;
//! - **scoped**: everything else. The caller presents a service token whose `scope` names the
//!   method (`miclub.accounts.v1.AccountsService/PostPurchase`); auth puts into a client's token
//!   the methods configured for that client (`auth.client_methods`), so a store system's token
//!   cannot call `SetFlag`. A member token is refused there.
//!
//! A method unknown to the table is scoped, so a method added to a proto is closed until a
//! client is given it. [`Policy`] checks this on every call of a port, before the service sees
//! the request (`grpc::serve` requires one), and leaves the verified claims in the request's
//! extensions, where [`TokenVerifier::member`] and [`TokenVerifier::service`] find them instead
//! of verifying the token a second time. Refusals are `UNAUTHENTICATED` (no or a bad token) or
//! `PERMISSION_DENIED` with `ERR_FORBIDDEN` (a valid token of the wrong kind or without the
//! scope), each logged with the method and the client. What a call may send, and what one
//! caller's requests may hold of the port while they arrive, is its kind's [`Allowance`]
//! (`arriving`), which also bounds the answers a caller leaves unread (`answering`).
//!
//! The calling side is [`ServiceChannel`]: a channel that adds the process's own service token
//! to every call that carries no token of its own, so anonymous calls made on a visitor's behalf
//! (the gateway's `StartLogin`) are made as that client, while calls carrying a member's token
//! keep it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::error::{ErrorBody, ErrorCode};
use crate::grpc::{Gate, Pass, TracedChannel};
use crate::listener::client_address;
use crate::tokens::{
    Admitted, Claims, ServiceTokens, TokenKind, TokenVerifier, VerifyError, bearer_of_headers,
};

mod answering;
mod arriving;

use answering::Answering;
pub use arriving::Allowance;
use arriving::{Arriving, Caller, Shares};

/// How a method may be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Without a token.
    Open,
    /// With a member's access token.
    Member,
    /// With a service token whose scope names the method.
    Scoped,
}

/// Methods anyone who reaches the port may call: health and reflection (any method of theirs),
/// the public verification keys and the grant that hands out service tokens.
const OPEN_SERVICES: &[&str] = &[
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
];
const OPEN_METHODS: &[&str] = &[
    "miclub.auth.v1.AuthService/GetJwks",
    "miclub.auth.v1.AuthService/IssueServiceToken",
];

/// The member-facing methods: each acts on the member its access token names.
pub const MEMBER_METHODS: &[&str] = &[
    "miclub.auth.v1.AuthService/ChangePassword",
    "miclub.auth.v1.AuthService/ListSessions",
    "miclub.auth.v1.AuthService/EndSession",
    "miclub.auth.v1.AuthService/EndOtherSessions",
    "miclub.auth.v1.AuthService/ListSecurityEvents",
    "miclub.accounts.v1.AccountsService/GetMember",
    "miclub.accounts.v1.AccountsService/GetBalance",
    "miclub.accounts.v1.AccountsService/GetMemberCard",
    "miclub.accounts.v1.AccountsService/OpenClubAccount",
    "miclub.accounts.v1.AccountsService/ListMovements",
    "miclub.accounts.v1.AccountsService/GetMovementDetail",
    "miclub.accounts.v1.AccountsService/UpdateProfile",
    "miclub.accounts.v1.AccountsService/ResendEmailConfirmation",
    "miclub.accounts.v1.AccountsService/RecordTermsDecision",
    "miclub.accounts.v1.AccountsService/ValidateUnsubscribe",
    "miclub.accounts.v1.AccountsService/Unsubscribe",
    "miclub.missions.v1.MissionsService/ListMyMissions",
    "miclub.missions.v1.MissionsService/HasMissions",
];

/// How `method` (`package.Service/Method`, the gRPC path without its leading slash) may be
/// called.
pub fn access_of(method: &str) -> Access {
    let service = method.split('/').next().unwrap_or_default();
    if OPEN_SERVICES.contains(&service) || OPEN_METHODS.contains(&method) {
        Access::Open
    } else if MEMBER_METHODS.contains(&method) {
        Access::Member
    } else {
        Access::Scoped
    }
}

/// Every method the ports serve (`package.Service/Method`), read from the compiled contract;
/// the identity verifier is an outside service we call, not one we serve.
pub fn served_methods() -> Vec<String> {
    let mut methods: Vec<String> =
        crate::grpc::described_methods(miclub_proto::FILE_DESCRIPTOR_SET)
            .into_iter()
            .filter(|method| {
                method.starts_with("miclub.") && !method.starts_with("miclub.identity.")
            })
            .collect();
    methods.sort();
    methods
}

/// Checks a client's configured methods: each must be a served method that takes a scope
/// (an open or member method in a client's list is a mistake, and a typo would silently grant
/// nothing). The error names the method.
pub fn check_grantable(methods: &[String]) -> Result<(), String> {
    let served = served_methods();
    for method in methods {
        if !served.contains(method) {
            return Err(format!("{method:?} is not a method any port serves"));
        }
        if access_of(method) != Access::Scoped {
            return Err(format!(
                "{method:?} is not granted to clients (it is {:?})",
                access_of(method)
            ));
        }
    }
    Ok(())
}

/// Whether a service token with these claims may call `method`.
pub fn in_scope(claims: &Claims, method: &str) -> bool {
    claims.scope.split_ascii_whitespace().any(|m| m == method)
}

/// The policy of one port: [`access_of`], checked with this process's token verifier.
#[derive(Debug, Clone)]
pub struct Policy {
    verifier: Arc<TokenVerifier>,
    /// What each caller's calls hold while their requests arrive ([`Allowance`]).
    shares: Shares,
}

impl Policy {
    pub fn new(verifier: Arc<TokenVerifier>) -> Arc<Self> {
        Arc::new(Self {
            verifier,
            shares: Shares::default(),
        })
    }

    /// The caller's verified claims when it may call `method`, whose kind is `access`; the
    /// refusal otherwise.
    async fn admit(
        &self,
        access: Access,
        method: &str,
        headers: &http::HeaderMap,
    ) -> Result<Option<Arc<Claims>>, tonic::Status> {
        let kind = match access {
            Access::Open => return Ok(None),
            Access::Member => TokenKind::Member,
            Access::Scoped => TokenKind::Service,
        };
        let verified = match bearer_of_headers(headers) {
            Some(token) => self.verifier.verify_shared(token, kind).await,
            None => Err(VerifyError::Missing),
        };
        let claims = match verified {
            Ok(claims) => claims,
            Err(err) => {
                tracing::info!(method, reason = %err, expected = ?kind, "grpc call refused");
                return Err(err.into_status());
            }
        };
        if kind == TokenKind::Service && !in_scope(&claims, method) {
            tracing::warn!(method, client_id = %claims.sub, "grpc call refused: method not in the client's scope");
            return Err(ErrorBody::new(ErrorCode::Forbidden).into_status());
        }
        Ok(Some(claims))
    }
}

impl Gate for Policy {
    fn admit<'a>(
        &'a self,
        mut request: axum::extract::Request,
    ) -> Pin<Box<dyn Future<Output = Result<Pass, tonic::Status>> + Send + 'a>> {
        Box::pin(async move {
            let method = request.uri().path().trim_start_matches('/');
            let access = access_of(method);
            let caller = match self.admit(access, method, request.headers()).await? {
                Some(claims) => {
                    let caller = match access {
                        Access::Member => Caller::Member(claims.sub.as_str().into()),
                        _ => Caller::Client(claims.sub.as_str().into()),
                    };
                    request.extensions_mut().insert(Admitted(claims));
                    Some(caller)
                }
                None => peer_ip(&request).map(|ip| Caller::Address(client_address(ip))),
            };
            let uri = request.uri().clone();
            let answer = caller.clone().map(|caller| {
                let answering = Answering::new(caller, access, self.shares.clone());
                Box::new(move |body| axum::body::Body::new(answering.send(body)))
                    as Box<dyn FnOnce(axum::body::Body) -> axum::body::Body + Send>
            });
            let shares = self.shares.clone();
            let request = request.map(|body| {
                axum::body::Body::new(Arriving::new(body, access, caller, shares, uri))
            });
            Ok(Pass { request, answer })
        })
    }

    /// A caller holding a token auth signed, of either kind and still valid: the portal's
    /// processes and the stores' systems. Whether it may make this call is [`Self::admit`]'s.
    fn vouches_for(&self, headers: &http::HeaderMap) -> bool {
        bearer_of_headers(headers).is_some_and(|token| self.verifier.signed_and_valid_now(token))
    }
}

/// The caller's address, as tonic records it for a plaintext or a TLS connection.
fn peer_ip(request: &axum::extract::Request) -> Option<std::net::IpAddr> {
    use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
    let extensions = request.extensions();
    extensions
        .get::<TcpConnectInfo>()
        .and_then(TcpConnectInfo::remote_addr)
        .or_else(|| {
            extensions
                .get::<TlsConnectInfo<TcpConnectInfo>>()
                .and_then(|info| info.get_ref().remote_addr())
        })
        .map(|address| address.ip())
}

/// A channel whose calls carry this process's service token unless they carry a token already.
pub type ServiceChannel = AsClient<TracedChannel>;

/// `inner` with calls made as the client of `tokens` (see the module header). Without tokens
/// (a development process configured with no client credentials) calls go as they are, and
/// the services refuse every scoped one.
pub fn as_client(inner: TracedChannel, tokens: Option<Arc<ServiceTokens>>) -> ServiceChannel {
    AsClient { inner, tokens }
}

/// The tower service behind [`ServiceChannel`].
#[derive(Debug, Clone)]
pub struct AsClient<S> {
    inner: S,
    tokens: Option<Arc<ServiceTokens>>,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<S, B> tower::Service<http::Request<tonic::body::Body>> for AsClient<S>
where
    S: tower::Service<http::Request<tonic::body::Body>, Response = http::Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, mut request: http::Request<tonic::body::Body>) -> Self::Future {
        // The clone is not ready; the ready one goes with this call (tower's usual swap).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let tokens = self.tokens.clone();
        Box::pin(async move {
            if let Some(tokens) = tokens
                && !request.headers().contains_key(http::header::AUTHORIZATION)
            {
                match tokens.token().await {
                    Ok(token) => {
                        if let Ok(value) = format!("Bearer {token}").parse() {
                            request
                                .headers_mut()
                                .insert(http::header::AUTHORIZATION, value);
                        }
                    }
                    Err(status) => {
                        tracing::warn!(code = ?status.code(), error = %status.message(), "no service token for an internal call");
                        return Ok(status.into_http());
                    }
                }
            }
            let response = inner.call(request).await.map_err(Into::into)?;
            Ok(response.map(tonic::body::Body::new))
        })
    }
}

#[cfg(test)]
mod trace_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_reflection_keys_and_the_grant_are_open() {
        for method in [
            "grpc.health.v1.Health/Check",
            "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            "miclub.auth.v1.AuthService/GetJwks",
            "miclub.auth.v1.AuthService/IssueServiceToken",
        ] {
            assert_eq!(access_of(method), Access::Open, "{method}");
        }
    }

    #[test]
    fn a_members_own_data_takes_a_member_token() {
        assert_eq!(
            access_of("miclub.accounts.v1.AccountsService/GetBalance"),
            Access::Member
        );
    }

    #[test]
    fn every_other_method_and_any_unknown_one_takes_a_scope() {
        for method in [
            "miclub.content.v1.ContentService/SetFlag",
            "miclub.auth.v1.AuthService/StartLogin",
            "miclub.accounts.v1.AccountsService/NewMethod",
            "miclub.auth.v1.AuthService/GetJwksX",
            "",
        ] {
            assert_eq!(access_of(method), Access::Scoped, "{method:?}");
        }
    }

    #[test]
    fn the_contract_lists_every_served_method_and_no_outside_one() {
        let served = served_methods();
        assert!(served.contains(&"miclub.accounts.v1.AccountsService/PostPurchase".to_owned()));
        assert!(served.iter().all(|m| !m.starts_with("miclub.identity.")));
        for method in MEMBER_METHODS.iter().chain(OPEN_METHODS) {
            assert!(
                served.contains(&(*method).to_owned()),
                "{method} is not served"
            );
        }
    }

    #[test]
    fn only_served_scoped_methods_can_be_granted() {
        assert!(check_grantable(&["miclub.content.v1.ContentService/SetFlag".into()]).is_ok());
        for wrong in [
            "miclub.content.v1.ContentService/SetFlags",
            "miclub.accounts.v1.AccountsService/GetBalance",
            "miclub.auth.v1.AuthService/GetJwks",
            "miclub.identity.v1.IdentityVerifier/VerifyDocument",
        ] {
            let err = check_grantable(&[wrong.into()]).unwrap_err();
            assert!(err.contains(wrong), "{err}");
        }
    }

    #[test]
    fn a_scope_names_whole_methods_only() {
        let mut claims =
            crate::testing::TestKeys::new().claims(TokenKind::Service, "pos", "svc-1", 60);
        claims.scope = "miclub.accounts.v1.AccountsService/PostPurchase".into();
        assert!(in_scope(
            &claims,
            "miclub.accounts.v1.AccountsService/PostPurchase"
        ));
        assert!(!in_scope(
            &claims,
            "miclub.accounts.v1.AccountsService/Post"
        ));
        assert!(!in_scope(
            &claims,
            "miclub.content.v1.ContentService/SetFlag"
        ));
    }
}
