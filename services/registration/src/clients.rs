//! The ports over gRPC: [`GrpcMembers`] (accounts), [`GrpcCredentials`] (auth) and
//! [`GrpcTerms`] (content).
//!
//! Accounts and auth are called with registration's service token (client credentials at auth,
//! cached by [`ServiceTokens`]); content is public. A refusal keeps the callee's [`ErrorBody`]
//! (`RegistrationError::from_status`), so the member reads accounts' and auth's own messages;
//! a failure to get a token or to reach the callee is `ERR_UNAVAILABLE`, which the member may
//! retry.
//!
//! [`ErrorBody`]: miclub_platform::error::ErrorBody

use std::sync::Arc;

use async_trait::async_trait;
use miclub_platform::grpc::TracedChannel;
use miclub_platform::member::MemberId;
use miclub_platform::tokens::ServiceTokens;
use miclub_proto::accounts::v1 as accounts;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::auth::v1 as auth;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::content::v1::GetCurrentTermsRequest;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use secrecy::{ExposeSecret, SecretString};

use crate::domain::{
    Credentials, Enrolment, Identity, Members, NewMember, PersonalData, TermsSource,
};
use crate::error::{RegistrationError, Result};

/// A token failure: auth is down or registration's client credentials are wrong.
fn token_failure(status: tonic::Status) -> RegistrationError {
    RegistrationError::Unavailable(format!(
        "issue_service_token: {:?} {}",
        status.code(),
        status.message()
    ))
}

fn profile_to_proto(profile: &PersonalData) -> accounts::NewMemberProfile {
    accounts::NewMemberProfile {
        name: profile.name.clone(),
        last_name: profile.last_name.clone(),
        mother_surname: profile.mother_surname.clone(),
        phone_number: profile.phone_number.clone(),
        birth_date: profile.birth_date.clone(),
        gender_id: profile.gender_id,
        email: profile.email.clone(),
    }
}

/// [`Members`] over accounts' gRPC API.
#[derive(Debug, Clone)]
pub struct GrpcMembers {
    client: AccountsServiceClient<TracedChannel>,
    tokens: Arc<ServiceTokens>,
}

impl GrpcMembers {
    /// `channel` reaches accounts; `tokens` are registration's service tokens, issued by auth.
    pub fn new(channel: TracedChannel, tokens: Arc<ServiceTokens>) -> Self {
        Self {
            client: AccountsServiceClient::new(channel),
            tokens,
        }
    }
}

#[async_trait]
impl Members for GrpcMembers {
    async fn check_identity(&self, identity: &Identity) -> Result<()> {
        let request = self
            .tokens
            .request(accounts::CheckRegistrationIdentityRequest {
                document_type: identity.accounts_type().to_owned(),
                document_number: identity.document_number(),
            })
            .await
            .map_err(token_failure)?;
        self.client
            .clone()
            .check_registration_identity(request)
            .await
            .map_err(|status| RegistrationError::from_status("accounts", &status))?;
        Ok(())
    }

    async fn check_profile(&self, profile: &PersonalData) -> Result<()> {
        let request = self
            .tokens
            .request(accounts::CheckRegistrationProfileRequest {
                profile: Some(profile_to_proto(profile)),
            })
            .await
            .map_err(token_failure)?;
        self.client
            .clone()
            .check_registration_profile(request)
            .await
            .map_err(|status| RegistrationError::from_status("accounts", &status))?;
        Ok(())
    }

    async fn register_member(&self, member: &NewMember<'_>) -> Result<Enrolment> {
        let request = self
            .tokens
            .request(accounts::RegisterMemberRequest {
                member_id: member.member_id.as_str().to_owned(),
                document_type: member.identity.accounts_type().to_owned(),
                document_number: member.identity.document_number(),
                profile: Some(profile_to_proto(member.profile)),
                terms_version: member.terms_version.to_owned(),
            })
            .await
            .map_err(token_failure)?;
        let answer = self
            .client
            .clone()
            .register_member(request)
            .await
            .map_err(|status| RegistrationError::from_status("accounts", &status))?
            .into_inner();
        if answer.email_in_use {
            return Ok(Enrolment::EmailInUse {
                masked_email: answer.masked_email,
            });
        }
        if answer.member_id.is_empty() {
            return Err(RegistrationError::Unavailable(
                "accounts answered no member id".into(),
            ));
        }
        let member_id = MemberId::parse(&answer.member_id).map_err(|_| {
            RegistrationError::Unavailable("accounts answered an invalid member id".into())
        })?;
        Ok(Enrolment::Member(member_id))
    }

    async fn activate_member(&self, member_id: &MemberId) -> Result<String> {
        let request = self
            .tokens
            .request(accounts::ActivateMemberRequest {
                member_id: member_id.as_str().to_owned(),
            })
            .await
            .map_err(token_failure)?;
        let answer = self
            .client
            .clone()
            .activate_member(request)
            .await
            .map_err(|status| RegistrationError::from_status("accounts", &status))?
            .into_inner();
        Ok(answer.masked_email)
    }
}

/// [`Credentials`] over auth's gRPC API.
#[derive(Debug, Clone)]
pub struct GrpcCredentials {
    client: AuthServiceClient<TracedChannel>,
    tokens: Arc<ServiceTokens>,
}

impl GrpcCredentials {
    /// `channel` reaches auth; `tokens` are registration's service tokens.
    pub fn new(channel: TracedChannel, tokens: Arc<ServiceTokens>) -> Self {
        Self {
            client: AuthServiceClient::new(channel),
            tokens,
        }
    }
}

#[async_trait]
impl Credentials for GrpcCredentials {
    async fn check_password_rules(&self, password: &SecretString) -> Result<()> {
        let request = self
            .tokens
            .request(auth::CheckPasswordRulesRequest {
                password: password.expose_secret().to_owned(),
            })
            .await
            .map_err(token_failure)?;
        self.client
            .clone()
            .check_password_rules(request)
            .await
            .map_err(|status| RegistrationError::from_status("auth", &status))?;
        Ok(())
    }

    async fn create_credentials(
        &self,
        member_id: &MemberId,
        login_id: &str,
        email: &str,
        password: &SecretString,
    ) -> Result<()> {
        let request = self
            .tokens
            .request(auth::CreateCredentialsRequest {
                member_id: member_id.as_str().to_owned(),
                login_id: login_id.to_owned(),
                email: email.to_owned(),
                password: password.expose_secret().to_owned(),
            })
            .await
            .map_err(token_failure)?;
        self.client
            .clone()
            .create_credentials(request)
            .await
            .map_err(|status| RegistrationError::from_status("auth", &status))?;
        Ok(())
    }
}

/// [`TermsSource`] over content's public gRPC API.
#[derive(Debug, Clone)]
pub struct GrpcTerms {
    client: ContentServiceClient<TracedChannel>,
    tokens: Arc<ServiceTokens>,
}

impl GrpcTerms {
    pub fn new(channel: TracedChannel, tokens: Arc<ServiceTokens>) -> Self {
        Self {
            client: ContentServiceClient::new(channel),
            tokens,
        }
    }
}

#[async_trait]
impl TermsSource for GrpcTerms {
    async fn current_version(&self) -> Result<String> {
        let answer = self
            .client
            .clone()
            .get_current_terms(
                self.tokens
                    .request(GetCurrentTermsRequest {})
                    .await
                    .map_err(token_failure)?,
            )
            .await
            .map_err(|status| {
                RegistrationError::Unavailable(format!(
                    "content get_current_terms: {:?} {}",
                    status.code(),
                    status.message()
                ))
            })?
            .into_inner();
        answer
            .terms
            .map(|terms| terms.version)
            .filter(|version| !version.is_empty())
            .ok_or_else(|| RegistrationError::Unavailable("content answered no terms".into()))
    }
}
