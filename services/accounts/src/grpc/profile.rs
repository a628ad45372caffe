//! Profile calls of the caller's own record: genders, profile update with email confirmation,
//! and the terms decision.
//!
//! `ListGenders`, `ConfirmEmail` and `RestoreEmail` are anonymous (the genders list is public,
//! the token of a link is its own proof); every other call needs the member's access token.

use miclub_platform::error::ServiceError;
use miclub_proto::accounts::v1 as pb;
use tonic::{Request, Response, Status};

use super::{AccountsGrpc, member_to_proto, terms_to_proto};
use crate::domain::{
    BirthDate, Email, EmailConfirmation, GenderId, PersonName, PhoneNumber, ProfileChanges, StepUp,
    TermsDecision, TermsVersion,
};
use crate::error::AccountsError;

impl AccountsGrpc {
    #[tracing::instrument(name = "accounts.list_genders", level = "debug", skip_all)]
    pub(super) async fn profile_list_genders(
        &self,
        _request: Request<pb::ListGendersRequest>,
    ) -> Result<Response<pb::ListGendersResponse>, Status> {
        let genders = self
            .profile
            .genders()
            .iter()
            .map(|gender| pb::Gender {
                id: gender.id,
                label: gender.label.to_owned(),
            })
            .collect();
        Ok(Response::new(pb::ListGendersResponse { genders }))
    }

    #[tracing::instrument(name = "accounts.update_profile", level = "debug", skip_all)]
    pub(super) async fn profile_update(
        &self,
        request: Request<pb::UpdateProfileRequest>,
    ) -> Result<Response<pb::UpdateProfileResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let fail = |err: AccountsError| err.into_status("update_profile");
        let changes = changes_from_proto(request.get_ref()).map_err(fail)?;
        let step_up = StepUp {
            password: request.get_ref().current_password.clone(),
            client_ip: request.get_ref().client_ip.clone(),
        };
        let updated = self
            .profile
            .update(&member_id, changes, &step_up)
            .await
            .map_err(fail)?;
        Ok(Response::new(pb::UpdateProfileResponse {
            member: Some(member_to_proto(updated.record)),
            email_confirmation_sent: updated.confirmation_sent,
        }))
    }

    #[tracing::instrument(name = "accounts.resend_email_confirmation", level = "debug", skip_all)]
    pub(super) async fn profile_resend_email_confirmation(
        &self,
        request: Request<pb::ResendEmailConfirmationRequest>,
    ) -> Result<Response<pb::ResendEmailConfirmationResponse>, Status> {
        let member_id = self.caller(&request).await?;
        self.profile
            .resend_confirmation(&member_id)
            .await
            .map_err(|err| err.into_status("resend_email_confirmation"))?;
        Ok(Response::new(pb::ResendEmailConfirmationResponse {}))
    }

    #[tracing::instrument(name = "accounts.confirm_email", level = "debug", skip_all)]
    pub(super) async fn profile_confirm_email(
        &self,
        request: Request<pb::ConfirmEmailRequest>,
    ) -> Result<Response<pb::ConfirmEmailResponse>, Status> {
        let outcome = self
            .profile
            .confirm_email(&request.get_ref().token)
            .await
            .map_err(|err| err.into_status("confirm_email"))?;
        Ok(Response::new(match outcome {
            EmailConfirmation::Confirmed(email) => pb::ConfirmEmailResponse {
                masked_email: email.masked(),
                already_confirmed: false,
            },
            EmailConfirmation::AlreadyConfirmed => pb::ConfirmEmailResponse {
                masked_email: String::new(),
                already_confirmed: true,
            },
        }))
    }

    #[tracing::instrument(name = "accounts.restore_email", level = "debug", skip_all)]
    pub(super) async fn profile_restore_email(
        &self,
        request: Request<pb::RestoreEmailRequest>,
    ) -> Result<Response<pb::RestoreEmailResponse>, Status> {
        let email = self
            .profile
            .restore_email(&request.get_ref().token)
            .await
            .map_err(|err| err.into_status("restore_email"))?;
        Ok(Response::new(pb::RestoreEmailResponse {
            masked_email: email.masked(),
        }))
    }

    #[tracing::instrument(name = "accounts.record_terms_decision", level = "debug", skip_all)]
    pub(super) async fn profile_record_terms_decision(
        &self,
        request: Request<pb::RecordTermsDecisionRequest>,
    ) -> Result<Response<pb::RecordTermsDecisionResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let fail = |err: AccountsError| err.into_status("record_terms_decision");
        let message = request.get_ref();
        let version = TermsVersion::parse(&message.terms_version).map_err(fail)?;
        let decision = if message.accepted {
            TermsDecision::Accepted
        } else {
            TermsDecision::Rejected
        };
        let agreement = self
            .profile
            .record_terms_decision(&member_id, decision, version)
            .await
            .map_err(fail)?;
        Ok(Response::new(pb::RecordTermsDecisionResponse {
            terms_agreement: Some(terms_to_proto(Some(agreement))),
        }))
    }
}

/// Validates the form in the order of its fields; the first invalid one answers.
fn changes_from_proto(message: &pb::UpdateProfileRequest) -> Result<ProfileChanges, AccountsError> {
    Ok(ProfileChanges {
        email: Email::parse(&message.email)?,
        name: PersonName::parse("name", &message.name)?,
        last_name: PersonName::parse("last_name", &message.last_name)?,
        mother_surname: PersonName::parse_optional("mother_surname", &message.mother_surname)?,
        phone_number: PhoneNumber::parse_optional(&message.phone_number)?,
        birth_date: BirthDate::parse_optional(&message.birth_date)?,
        gender_id: GenderId::new_optional(i64::from(message.gender_id))?,
    })
}
