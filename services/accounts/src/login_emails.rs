//! Accounts' calls to auth about a member's login: the hand-over of a confirmed email (auth
//! keeps its own copy of the address as the destination of one-time codes, so login does not
//! depend on accounts being up), the step-up check of the current password before a sensitive
//! change, the end of every session after a restored email, and the disabling of the
//! credentials of a member who left.
//!
//! [`GrpcLoginEmails`] calls auth's `SetLoginEmail`, `VerifyPassword`, `EndSessions` and
//! `DisableCredentials` with accounts' service token. Auth's refusals of a password
//! (`ERR_WRONG_PASSWORD`, `ERR_TOO_MANY_ATTEMPTS` with its wait) pass through unchanged; any
//! other failure, whatever auth's reason, is [`AccountsError::Unavailable`] (fail closed: no
//! sensitive change without a checked password): for a confirmation or a restore the member
//! sees `ERR_UNAVAILABLE` and can open the same link again; for an unsubscribe the background
//! retry calls again later.

use std::sync::Arc;

use async_trait::async_trait;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::TracedChannel;
use miclub_platform::tokens::ServiceTokens;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::auth::v1::{
    DisableCredentialsRequest, EndSessionsRequest, SetLoginEmailRequest, VerifyPasswordRequest,
};

use crate::domain::{Email, LoginEmails, MemberId};
use crate::error::AccountsError;

/// [`LoginEmails`] over auth's gRPC API.
#[derive(Debug, Clone)]
pub struct GrpcLoginEmails {
    client: AuthServiceClient<TracedChannel>,
    tokens: Arc<ServiceTokens>,
}

impl GrpcLoginEmails {
    /// `channel` reaches auth; `tokens` are accounts' service tokens, issued by auth.
    pub fn new(channel: TracedChannel, tokens: Arc<ServiceTokens>) -> Self {
        Self {
            client: AuthServiceClient::new(channel),
            tokens,
        }
    }
}

fn unavailable(step: &str, status: tonic::Status) -> AccountsError {
    AccountsError::Unavailable(format!(
        "auth {step}: {:?} {}",
        status.code(),
        status.message()
    ))
}

#[async_trait]
impl LoginEmails for GrpcLoginEmails {
    async fn set(&self, member_id: &MemberId, email: &Email) -> Result<(), AccountsError> {
        let request = self
            .tokens
            .request(SetLoginEmailRequest {
                member_id: member_id.as_str().to_owned(),
                email: email.as_str().to_owned(),
            })
            .await
            .map_err(|status| unavailable("issue_service_token", status))?;
        self.client
            .clone()
            .set_login_email(request)
            .await
            .map_err(|status| unavailable("set_login_email", status))?;
        tracing::info!(member_id = %member_id, "login email handed to auth");
        Ok(())
    }

    async fn disable_credentials(
        &self,
        member_id: &MemberId,
        unsubscribed_at: i64,
    ) -> Result<(), AccountsError> {
        let request = self
            .tokens
            .request(DisableCredentialsRequest {
                member_id: member_id.as_str().to_owned(),
                unsubscribed_at_millis: unsubscribed_at,
            })
            .await
            .map_err(|status| unavailable("issue_service_token", status))?;
        let answer = self
            .client
            .clone()
            .disable_credentials(request)
            .await
            .map_err(|status| unavailable("disable_credentials", status))?
            .into_inner();
        tracing::info!(
            member_id = %member_id,
            revoked_sessions = answer.revoked_sessions,
            "credentials disabled by auth"
        );
        Ok(())
    }

    async fn verify_password(
        &self,
        member_id: &MemberId,
        password: &str,
        client_ip: &str,
    ) -> Result<(), AccountsError> {
        let request = self
            .tokens
            .request(VerifyPasswordRequest {
                member_id: member_id.as_str().to_owned(),
                password: password.to_owned(),
                client_ip: client_ip.to_owned(),
            })
            .await
            .map_err(|status| unavailable("issue_service_token", status))?;
        match self.client.clone().verify_password(request).await {
            Ok(_) => {
                tracing::info!(member_id = %member_id, "current password verified by auth");
                Ok(())
            }
            Err(status) => Err(step_up_refusal(status)),
        }
    }

    async fn end_sessions(&self, member_id: &MemberId) -> Result<u64, AccountsError> {
        let request = self
            .tokens
            .request(EndSessionsRequest {
                member_id: member_id.as_str().to_owned(),
            })
            .await
            .map_err(|status| unavailable("issue_service_token", status))?;
        let answer = self
            .client
            .clone()
            .end_sessions(request)
            .await
            .map_err(|status| unavailable("end_sessions", status))?
            .into_inner();
        tracing::info!(
            member_id = %member_id,
            revoked_sessions = answer.revoked_sessions,
            "sessions ended by auth"
        );
        Ok(u64::try_from(answer.revoked_sessions).unwrap_or_default())
    }
}

/// What the member is told when auth did not accept a step-up password: a wrong or throttled
/// one as auth worded it; a member without usable credentials as a wrong password (nothing
/// proves it is them); anything else unavailable.
fn step_up_refusal(status: tonic::Status) -> AccountsError {
    let body = ErrorBody::from_status(&status);
    match body.code {
        ErrorCode::WrongPassword | ErrorCode::TooManyAttempts => {
            AccountsError::StepUpRefused(Box::new(body))
        }
        _ if status.code() == tonic::Code::Unauthenticated => {
            tracing::warn!(
                "auth has no usable credentials for a step-up; refused as a wrong password"
            );
            AccountsError::StepUpRefused(Box::new(
                ErrorBody::new(ErrorCode::WrongPassword).with_field("currentPassword"),
            ))
        }
        _ => unavailable("verify_password", status),
    }
}
