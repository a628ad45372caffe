//! What every handler shares: gRPC clients of the services, the token verifier, the edge's
//! ephemeral store, and settings.

use std::sync::Arc;

use miclub_platform::access::ServiceChannel;
use miclub_platform::config::Environment;
use miclub_platform::ephemeral::SharedStore;
use miclub_platform::grpc::RetryIdempotent;
use miclub_platform::notify::DevMailbox;
use miclub_platform::tokens::TokenVerifier;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use miclub_proto::missions::v1::missions_service_client::MissionsServiceClient;
use miclub_proto::registration::v1::registration_service_client::RegistrationServiceClient;

use crate::activity::ActivityMarks;
use crate::config::Settings;
use crate::cookies::CookiePolicy;
use crate::flags::FlagSource;
use crate::headers::SecurityHeaders;
use crate::proxies::TrustedProxies;
use crate::recaptcha::Recaptcha;

/// The channel to a service: the calls of read-only methods get one bounded retry (see
/// `miclub_platform::grpc::retry`), so a handler makes a plain client call.
pub type Channel = RetryIdempotent<ServiceChannel>;

/// Cloned for every request by axum's `State`, so it is one `Arc`: copying five gRPC clients,
/// the flag source and the settings' handles per request showed in the balance benchmark.
#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

#[derive(Debug)]
pub struct Shared {
    pub settings: Arc<Settings>,
    pub environment: Environment,
    pub auth: AuthServiceClient<Channel>,
    pub accounts: AccountsServiceClient<Channel>,
    pub content: ContentServiceClient<Channel>,
    pub registration: RegistrationServiceClient<Channel>,
    pub missions: MissionsServiceClient<Channel>,
    pub flags: FlagSource,
    pub verifier: Arc<TokenVerifier>,
    pub store: SharedStore,
    pub recaptcha: Recaptcha,
    pub cookies: CookiePolicy,
    /// `gateway.trusted_proxies`, parsed.
    pub proxies: TrustedProxies,
    /// The security headers every answer carries.
    pub headers: Arc<SecurityHeaders>,
    /// Marks member sessions seen, for auth's idle limit.
    pub activity: ActivityMarks,
    pub mailbox: Option<Arc<DevMailbox>>,
}
