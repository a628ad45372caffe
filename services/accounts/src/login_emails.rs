//! The hand-over of a confirmed email to auth, which keeps its own copy of the address as the
//! destination of one-time codes (so login does not depend on accounts being up).
//!
//! [`GrpcLoginEmails`] calls auth's `SetLoginEmail` with accounts' service token. Any failure,
//! whatever auth's reason, reaches the member as `ERR_UNAVAILABLE`: the confirmation did not
//! happen and the same link can be opened again.

use std::sync::Arc;

use async_trait::async_trait;
use miclub_platform::grpc::TracedChannel;
use miclub_platform::tokens::ServiceTokens;
use miclub_proto::auth::v1::SetLoginEmailRequest;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;

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

#[async_trait]
impl LoginEmails for GrpcLoginEmails {
    async fn set(&self, member_id: &MemberId, email: &Email) -> Result<(), AccountsError> {
        let unavailable = |step: &str, status: tonic::Status| {
            AccountsError::Unavailable(format!(
                "auth {step}: {:?} {}",
                status.code(),
                status.message()
            ))
        };
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
}
