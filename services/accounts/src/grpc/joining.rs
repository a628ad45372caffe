//! `OpenClubAccount`: a member with a login but no club account joins from Mi Cuenta. The
//! member is the one its access token names; nothing in the request can name another.

use miclub_platform::error::ServiceError;
use miclub_platform::storage::millis_to_rfc3339;
use miclub_proto::accounts::v1 as pb;
use tonic::{Request, Response, Status};

use super::{AccountsGrpc, terms_to_proto};
use crate::domain::TermsVersion;
use crate::error::AccountsError;

impl AccountsGrpc {
    #[tracing::instrument(name = "accounts.open_club_account", level = "debug", skip_all)]
    pub(super) async fn joining_open_club_account(
        &self,
        request: Request<pb::OpenClubAccountRequest>,
    ) -> Result<Response<pb::OpenClubAccountResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let fail = |err: AccountsError| err.into_status("open_club_account");
        let message = request.get_ref();
        let version = TermsVersion::parse(&message.terms_version).map_err(fail)?;
        let (joined, terms) = self
            .accounts
            .open_club_account(&member_id, message.accept_terms, version)
            .await
            .map_err(fail)?;
        Ok(Response::new(pb::OpenClubAccountResponse {
            balance: joined.balance.pesos(),
            updated_at: millis_to_rfc3339(joined.balance.updated_at()),
            opened: joined.opened,
            terms_agreement: Some(terms_to_proto(terms)),
        }))
    }
}
