//! The rewards port over gRPC: [`GrpcRewards`] has accounts' `GrantReward` record a reward (an
//! ADJUSTMENT movement, only ever a credit), called with missions' service token (client
//! credentials at auth, cached by [`ServiceTokens`]), which may call nothing else in accounts.
//!
//! Accounts records a movement id once and answers a repeat as `replayed`, so a retried grant
//! pays once. A failure to get a token or to reach accounts, accounts being unavailable, or the
//! member's rewards of the last 24 hours at accounts' limit (`ERR_TOO_MANY_ATTEMPTS`) is
//! [`MissionsError::Unavailable`] (retried later); any other refusal is
//! [`MissionsError::Refused`] with accounts' code.

use std::sync::Arc;

use async_trait::async_trait;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::TracedChannel;
use miclub_platform::tokens::ServiceTokens;
use miclub_proto::accounts::v1 as accounts;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;

use crate::domain::{Reward, Rewards};
use crate::error::{MissionsError, Result};

/// [`Rewards`] over accounts' gRPC API.
#[derive(Debug, Clone)]
pub struct GrpcRewards {
    client: AccountsServiceClient<TracedChannel>,
    tokens: Arc<ServiceTokens>,
}

impl GrpcRewards {
    /// `channel` reaches accounts; `tokens` are missions' service tokens, issued by auth.
    pub fn new(channel: TracedChannel, tokens: Arc<ServiceTokens>) -> Self {
        Self {
            client: AccountsServiceClient::new(channel),
            tokens,
        }
    }
}

#[async_trait]
impl Rewards for GrpcRewards {
    async fn grant(&self, reward: &Reward) -> Result<()> {
        let request = self
            .tokens
            .request(accounts::GrantRewardRequest {
                movement_id: reward.movement_id.clone(),
                member_id: reward.member_id.as_str().to_owned(),
                amount: reward.amount,
                description: reward.description.clone(),
            })
            .await
            .map_err(|status| {
                MissionsError::Unavailable(format!(
                    "issue_service_token: {:?} {}",
                    status.code(),
                    status.message()
                ))
            })?;
        let answer = self
            .client
            .clone()
            .grant_reward(request)
            .await
            .map_err(|status| from_status(&status))?
            .into_inner();
        tracing::debug!(
            movement_id = %reward.movement_id,
            replayed = answer.replayed,
            "accounts recorded the reward"
        );
        Ok(())
    }
}

/// Accounts' answer as an error of missions.
fn from_status(status: &tonic::Status) -> MissionsError {
    let body = ErrorBody::from_status(status);
    match body.code {
        ErrorCode::Unavailable
        | ErrorCode::Timeout
        | ErrorCode::Internal
        | ErrorCode::Unauthenticated
        | ErrorCode::Forbidden
        | ErrorCode::TooManyAttempts => MissionsError::Unavailable(format!(
            "accounts grant_reward: {:?} {} ({})",
            status.code(),
            status.message(),
            body.code
        )),
        code => MissionsError::Refused {
            service: "accounts",
            code,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transport_failure_is_retried_and_a_refusal_keeps_accounts_code() {
        for status in [
            tonic::Status::unavailable("connection refused"),
            tonic::Status::deadline_exceeded("slow"),
            ErrorBody::new(ErrorCode::Unauthenticated).into_status(),
            // The member's rewards of the day are at accounts' limit: granted another day.
            ErrorBody::new(ErrorCode::TooManyAttempts).into_status(),
        ] {
            assert!(
                matches!(from_status(&status), MissionsError::Unavailable(_)),
                "{status:?}"
            );
        }
        let refused = from_status(&ErrorBody::new(ErrorCode::IdempotencyMismatch).into_status());
        assert!(matches!(
            refused,
            MissionsError::Refused {
                code: ErrorCode::IdempotencyMismatch,
                ..
            }
        ));
    }
}
