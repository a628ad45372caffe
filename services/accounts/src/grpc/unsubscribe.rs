//! Leaving the club: the reasons (anonymous), then the two steps with the member's own access
//! token. The typed document and email must be the caller's, and the current password right;
//! see `domain/unsubscribe.rs`.

use miclub_platform::error::ServiceError;
use miclub_platform::storage::millis_to_rfc3339;
use miclub_proto::accounts::v1 as pb;
use tonic::{Request, Response, Status};

use super::AccountsGrpc;
use crate::domain::{IdentityClaim, StepUp, UnsubscribeChoice};
use crate::error::AccountsError;

impl AccountsGrpc {
    #[tracing::instrument(name = "accounts.list_unsubscribe_reasons", level = "debug", skip_all)]
    pub(super) async fn unsubscribe_list_reasons(
        &self,
        _request: Request<pb::ListUnsubscribeReasonsRequest>,
    ) -> Result<Response<pb::ListUnsubscribeReasonsResponse>, Status> {
        let reasons = self
            .unsubscriptions
            .reasons()
            .iter()
            .map(|reason| pb::UnsubscribeReason {
                id: reason.id,
                label: reason.label.to_owned(),
                requires_text: reason.requires_text,
            })
            .collect();
        Ok(Response::new(pb::ListUnsubscribeReasonsResponse {
            reasons,
        }))
    }

    #[tracing::instrument(name = "accounts.validate_unsubscribe", level = "debug", skip_all)]
    pub(super) async fn unsubscribe_validate(
        &self,
        request: Request<pb::ValidateUnsubscribeRequest>,
    ) -> Result<Response<pb::ValidateUnsubscribeResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let message = request.get_ref();
        let claim = IdentityClaim::new(&message.user, &message.email);
        let step_up = StepUp {
            password: message.current_password.clone(),
            client_ip: message.client_ip.clone(),
        };
        let left = self
            .unsubscriptions
            .validate(&member_id, &claim, &step_up)
            .await
            .map_err(|err| err.into_status("validate_unsubscribe"))?;
        Ok(Response::new(pb::ValidateUnsubscribeResponse {
            already_unsubscribed: left.is_some(),
            unsubscribed_at: left.map(millis_to_rfc3339).unwrap_or_default(),
        }))
    }

    #[tracing::instrument(name = "accounts.unsubscribe", level = "debug", skip_all)]
    pub(super) async fn unsubscribe_member(
        &self,
        request: Request<pb::UnsubscribeRequest>,
    ) -> Result<Response<pb::UnsubscribeResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let fail = |err: AccountsError| err.into_status("unsubscribe");
        let message = request.get_ref();
        let choice = UnsubscribeChoice::new(i64::from(message.reason_id), &message.reason_text)
            .map_err(fail)?;
        let claim = IdentityClaim::new(&message.user, &message.email);
        let step_up = StepUp {
            password: message.current_password.clone(),
            client_ip: message.client_ip.clone(),
        };
        let at = self
            .unsubscriptions
            .unsubscribe(&member_id, &claim, &choice, &step_up)
            .await
            .map_err(fail)?;
        Ok(Response::new(pb::UnsubscribeResponse {
            unsubscribed_at: millis_to_rfc3339(at),
        }))
    }
}
