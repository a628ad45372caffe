//! Accounts' calls to auth about a member's login: the hand-over of a confirmed email (auth
//! keeps its own copy of the address as the destination of one-time codes, so login does not
//! depend on accounts being up) and the disabling of the credentials of a member who left.
//!
//! [`GrpcLoginEmails`] calls auth's `SetLoginEmail` and `DisableCredentials` with accounts'
//! service token. Any failure, whatever auth's reason, is [`AccountsError::Unavailable`]: for
//! a confirmation the member sees `ERR_UNAVAILABLE` and can open the same link again; for an
//! unsubscribe the background retry calls again later.

use std::sync::Arc;

use async_trait::async_trait;
use miclub_platform::grpc::TracedChannel;
use miclub_platform::tokens::ServiceTokens;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::auth::v1::{DisableCredentialsRequest, SetLoginEmailRequest};

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
}
