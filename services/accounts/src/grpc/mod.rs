//! The gRPC face of accounts (`proto/accounts/v1/accounts.proto`).
//!
//! Each call first establishes who is calling (a member access token, checked by
//! [`TokenVerifier::member`], or a service token for internal calls), then calls the domain and
//! turns its answer into proto messages. Errors become a `tonic::Status` with an `ErrorBody`
//! through [`AccountsError::into_status`].
//!
//! The trait impl only dispatches: the profile calls live in [`profile`], the ledger and the
//! internal calls of store systems in [`ledger`], the registration service's calls in
//! [`registration`], leaving the club in [`unsubscribe`], joining in place (opening the club
//! account of a member who has none) in [`joining`].

mod joining;
mod ledger;
mod profile;
mod registration;
mod unsubscribe;

use std::sync::Arc;

use miclub_platform::error::ServiceError;
use miclub_platform::storage::millis_to_rfc3339;
use miclub_platform::tokens::TokenVerifier;
use miclub_proto::accounts::v1 as pb;
use miclub_proto::accounts::v1::accounts_service_server::AccountsService;
use tonic::{Request, Response, Status};

use crate::domain::{
    Accounts, Balance, Ledger, MemberId, MemberRecord, MemberState, Profile, Registration,
    TermsAgreement, TermsDecision, Unsubscriptions,
};
use crate::error::AccountsError;

/// Implements `miclub.accounts.v1.AccountsService`.
#[derive(Debug, Clone)]
pub struct AccountsGrpc {
    accounts: Accounts,
    ledger: Ledger,
    registration: Registration,
    profile: Profile,
    unsubscriptions: Unsubscriptions,
    verifier: Arc<TokenVerifier>,
}

impl AccountsGrpc {
    pub fn new(
        accounts: Accounts,
        ledger: Ledger,
        registration: Registration,
        profile: Profile,
        unsubscriptions: Unsubscriptions,
        verifier: Arc<TokenVerifier>,
    ) -> Self {
        Self {
            accounts,
            ledger,
            registration,
            profile,
            unsubscriptions,
            verifier,
        }
    }

    /// The calling member's id, from their access token.
    async fn caller<T>(&self, request: &Request<T>) -> Result<MemberId, Status> {
        let claims = self.verifier.member(request).await?;
        // A correctly signed token whose subject is not a member id names nobody we know.
        MemberId::parse(&claims.sub)
            .map_err(|_| AccountsError::MemberNotFound.into_status("caller"))
    }
}

#[tonic::async_trait]
impl AccountsService for AccountsGrpc {
    #[tracing::instrument(name = "accounts.get_member", level = "debug", skip_all)]
    async fn get_member(
        &self,
        request: Request<pb::GetMemberRequest>,
    ) -> Result<Response<pb::GetMemberResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let state = self
            .accounts
            .member(&member_id)
            .await
            .map_err(|err| err.into_status("get_member"))?;
        Ok(Response::new(pb::GetMemberResponse {
            member: Some(state_to_proto(state)),
        }))
    }

    #[tracing::instrument(name = "accounts.get_balance", level = "debug", skip_all)]
    async fn get_balance(
        &self,
        request: Request<pb::GetBalanceRequest>,
    ) -> Result<Response<pb::GetBalanceResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let balance = self
            .accounts
            .balance(&member_id)
            .await
            .map_err(|err| err.into_status("get_balance"))?;
        Ok(Response::new(balance_to_proto(balance)))
    }

    #[tracing::instrument(name = "accounts.get_member_card", level = "debug", skip_all)]
    async fn get_member_card(
        &self,
        request: Request<pb::GetMemberCardRequest>,
    ) -> Result<Response<pb::GetMemberCardResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let card = self
            .accounts
            .member_card(&member_id)
            .await
            .map_err(|err| err.into_status("get_member_card"))?;
        let balance = balance_to_proto(card.balance);
        Ok(Response::new(pb::GetMemberCardResponse {
            name: card.name.as_str().to_owned(),
            last_name: card.last_name.as_str().to_owned(),
            card_number: card.card_number.as_str().to_owned(),
            balance: balance.balance,
            balance_updated_at: balance.updated_at,
            as_of: millis_to_rfc3339(card.as_of),
        }))
    }

    async fn open_club_account(
        &self,
        request: Request<pb::OpenClubAccountRequest>,
    ) -> Result<Response<pb::OpenClubAccountResponse>, Status> {
        self.joining_open_club_account(request).await
    }

    async fn list_genders(
        &self,
        request: Request<pb::ListGendersRequest>,
    ) -> Result<Response<pb::ListGendersResponse>, Status> {
        self.profile_list_genders(request).await
    }

    async fn update_profile(
        &self,
        request: Request<pb::UpdateProfileRequest>,
    ) -> Result<Response<pb::UpdateProfileResponse>, Status> {
        self.profile_update(request).await
    }

    async fn resend_email_confirmation(
        &self,
        request: Request<pb::ResendEmailConfirmationRequest>,
    ) -> Result<Response<pb::ResendEmailConfirmationResponse>, Status> {
        self.profile_resend_email_confirmation(request).await
    }

    async fn restore_email(
        &self,
        request: Request<pb::RestoreEmailRequest>,
    ) -> Result<Response<pb::RestoreEmailResponse>, Status> {
        self.profile_restore_email(request).await
    }

    async fn confirm_email(
        &self,
        request: Request<pb::ConfirmEmailRequest>,
    ) -> Result<Response<pb::ConfirmEmailResponse>, Status> {
        self.profile_confirm_email(request).await
    }

    async fn record_terms_decision(
        &self,
        request: Request<pb::RecordTermsDecisionRequest>,
    ) -> Result<Response<pb::RecordTermsDecisionResponse>, Status> {
        self.profile_record_terms_decision(request).await
    }

    async fn list_movements(
        &self,
        request: Request<pb::ListMovementsRequest>,
    ) -> Result<Response<pb::ListMovementsResponse>, Status> {
        self.ledger_list_movements(request).await
    }

    async fn get_movement_detail(
        &self,
        request: Request<pb::GetMovementDetailRequest>,
    ) -> Result<Response<pb::GetMovementDetailResponse>, Status> {
        self.ledger_get_movement_detail(request).await
    }

    async fn get_member_movement_detail(
        &self,
        request: Request<pb::GetMemberMovementDetailRequest>,
    ) -> Result<Response<pb::GetMovementDetailResponse>, Status> {
        self.ledger_get_member_movement_detail(request).await
    }

    async fn post_purchase(
        &self,
        request: Request<pb::PostPurchaseRequest>,
    ) -> Result<Response<pb::PostPurchaseResponse>, Status> {
        self.ledger_post_purchase(request).await
    }

    async fn record_movement(
        &self,
        request: Request<pb::RecordMovementRequest>,
    ) -> Result<Response<pb::RecordMovementResponse>, Status> {
        self.ledger_record_movement(request).await
    }

    async fn grant_reward(
        &self,
        request: Request<pb::GrantRewardRequest>,
    ) -> Result<Response<pb::RecordMovementResponse>, Status> {
        self.ledger_grant_reward(request).await
    }

    async fn confirm_due_accruals(
        &self,
        request: Request<pb::ConfirmDueAccrualsRequest>,
    ) -> Result<Response<pb::ConfirmDueAccrualsResponse>, Status> {
        self.ledger_confirm_due_accruals(request).await
    }

    async fn check_registration_identity(
        &self,
        request: Request<pb::CheckRegistrationIdentityRequest>,
    ) -> Result<Response<pb::CheckRegistrationIdentityResponse>, Status> {
        self.registration_check_identity(request).await
    }

    async fn check_registration_profile(
        &self,
        request: Request<pb::CheckRegistrationProfileRequest>,
    ) -> Result<Response<pb::CheckRegistrationProfileResponse>, Status> {
        self.registration_check_profile(request).await
    }

    async fn register_member(
        &self,
        request: Request<pb::RegisterMemberRequest>,
    ) -> Result<Response<pb::RegisterMemberResponse>, Status> {
        self.registration_register(request).await
    }

    async fn activate_member(
        &self,
        request: Request<pb::ActivateMemberRequest>,
    ) -> Result<Response<pb::ActivateMemberResponse>, Status> {
        self.registration_activate(request).await
    }

    async fn resend_verification_email(
        &self,
        request: Request<pb::ResendVerificationEmailRequest>,
    ) -> Result<Response<pb::ResendVerificationEmailResponse>, Status> {
        self.registration_resend_verification(request).await
    }

    async fn list_unsubscribe_reasons(
        &self,
        request: Request<pb::ListUnsubscribeReasonsRequest>,
    ) -> Result<Response<pb::ListUnsubscribeReasonsResponse>, Status> {
        self.unsubscribe_list_reasons(request).await
    }

    async fn validate_unsubscribe(
        &self,
        request: Request<pb::ValidateUnsubscribeRequest>,
    ) -> Result<Response<pb::ValidateUnsubscribeResponse>, Status> {
        self.unsubscribe_validate(request).await
    }

    async fn unsubscribe(
        &self,
        request: Request<pb::UnsubscribeRequest>,
    ) -> Result<Response<pb::UnsubscribeResponse>, Status> {
        self.unsubscribe_member(request).await
    }
}

/// The member's terms decision; `None` (never decided) is UNSPECIFIED with no date.
fn terms_to_proto(terms: Option<TermsAgreement>) -> pb::TermsAgreement {
    match terms {
        Some(terms) => pb::TermsAgreement {
            decision: match terms.decision {
                TermsDecision::Accepted => pb::TermsDecision::Accepted,
                TermsDecision::Rejected => pb::TermsDecision::Rejected,
            } as i32,
            event_date: millis_to_rfc3339(terms.decided_at),
            version: terms.version.unwrap_or_default(),
        },
        None => pb::TermsAgreement {
            decision: pb::TermsDecision::Unspecified as i32,
            event_date: String::new(),
            version: String::new(),
        },
    }
}

/// A member row as `GetMember` answers it: a member who left keeps their id, document and terms
/// decision, with every erased field empty.
fn state_to_proto(state: MemberState) -> pb::Member {
    match state {
        MemberState::Live(record) => member_to_proto(record),
        MemberState::Unsubscribed(member) => pb::Member {
            member_id: member.id.as_str().to_owned(),
            document_type: member.document.document_type().as_str().to_owned(),
            document_number: member.document.canonical(),
            terms_agreement: Some(terms_to_proto(member.terms)),
            has_club_account: member.has_club_account,
            ..pb::Member::default()
        },
    }
}

fn member_to_proto(record: MemberRecord) -> pb::Member {
    let member = record.member;
    let terms_agreement = terms_to_proto(member.terms);
    pb::Member {
        member_id: member.id.as_str().to_owned(),
        document_type: member.document.document_type().as_str().to_owned(),
        document_number: member.document.canonical(),
        name: member.name.as_str().to_owned(),
        last_name: member.last_name.as_str().to_owned(),
        mother_surname: member
            .mother_surname
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default(),
        phone_number: member
            .phone_number
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default(),
        gender_id: member.gender_id.map(|g| g.get()).unwrap_or(0),
        birth_date: member.birth_date.map(|d| d.iso()).unwrap_or_default(),
        email: member.email.as_str().to_owned(),
        email_confirmed: member.email_confirmed,
        terms_agreement: Some(terms_agreement),
        has_club_account: record.has_club_account,
    }
}

fn balance_to_proto(balance: Balance) -> pb::GetBalanceResponse {
    pb::GetBalanceResponse {
        balance: balance.pesos(),
        updated_at: millis_to_rfc3339(balance.updated_at()),
    }
}
