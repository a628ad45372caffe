//! The registration service's calls (service token): check the document, check the personal
//! data (never whether the email is a member's), register the member as pending or answer that
//! the email is in use, activate it. `ResendVerificationEmail` is anonymous
//! (the "Reenviar correo de verificación" action of a login refused for an unverified email)
//! and answers the same whoever `user` is.

use miclub_platform::error::ServiceError;
use miclub_proto::accounts::v1 as pb;
use tonic::{Request, Response, Status};

use super::AccountsGrpc;
use crate::domain::{
    Document, DocumentType, Enrolment, MemberId, NewMemberProfile, RegistrationForm, TermsVersion,
};
use crate::error::AccountsError;

impl AccountsGrpc {
    #[tracing::instrument(
        name = "accounts.check_registration_identity",
        level = "debug",
        skip_all
    )]
    pub(super) async fn registration_check_identity(
        &self,
        request: Request<pb::CheckRegistrationIdentityRequest>,
    ) -> Result<Response<pb::CheckRegistrationIdentityResponse>, Status> {
        self.verifier.service(&request).await?;
        let fail = |err: AccountsError| err.into_status("check_registration_identity");
        let message = request.get_ref();
        let document =
            document_from_proto(&message.document_type, &message.document_number).map_err(fail)?;
        self.registration
            .check_identity(&document)
            .await
            .map_err(fail)?;
        Ok(Response::new(pb::CheckRegistrationIdentityResponse {}))
    }

    #[tracing::instrument(
        name = "accounts.check_registration_profile",
        level = "debug",
        skip_all
    )]
    pub(super) async fn registration_check_profile(
        &self,
        request: Request<pb::CheckRegistrationProfileRequest>,
    ) -> Result<Response<pb::CheckRegistrationProfileResponse>, Status> {
        self.verifier.service(&request).await?;
        let fail = |err: AccountsError| err.into_status("check_registration_profile");
        // The email is not looked up here: whether it is a member's is never told (see
        // `domain::registration`).
        profile_from_proto(request.get_ref().profile.as_ref()).map_err(fail)?;
        Ok(Response::new(pb::CheckRegistrationProfileResponse {}))
    }

    #[tracing::instrument(name = "accounts.register_member", level = "debug", skip_all)]
    pub(super) async fn registration_register(
        &self,
        request: Request<pb::RegisterMemberRequest>,
    ) -> Result<Response<pb::RegisterMemberResponse>, Status> {
        self.verifier.service(&request).await?;
        let fail = |err: AccountsError| err.into_status("register_member");
        let message = request.get_ref();
        let member_id = MemberId::parse(&message.member_id).map_err(|err| fail(err.into()))?;
        let document =
            document_from_proto(&message.document_type, &message.document_number).map_err(fail)?;
        let profile = profile_from_proto(message.profile.as_ref()).map_err(fail)?;
        let terms = TermsVersion::parse(&message.terms_version).map_err(fail)?;
        let answer = match self
            .registration
            .register(member_id, document, profile, terms)
            .await
            .map_err(fail)?
        {
            Enrolment::Member(member_id) => pb::RegisterMemberResponse {
                member_id: member_id.as_str().to_owned(),
                email_in_use: false,
                masked_email: String::new(),
            },
            Enrolment::EmailInUse(email) => pb::RegisterMemberResponse {
                member_id: String::new(),
                email_in_use: true,
                masked_email: email.masked(),
            },
        };
        Ok(Response::new(answer))
    }

    #[tracing::instrument(name = "accounts.activate_member", level = "debug", skip_all)]
    pub(super) async fn registration_activate(
        &self,
        request: Request<pb::ActivateMemberRequest>,
    ) -> Result<Response<pb::ActivateMemberResponse>, Status> {
        self.verifier.service(&request).await?;
        let fail = |err: AccountsError| err.into_status("activate_member");
        let member_id =
            MemberId::parse(&request.get_ref().member_id).map_err(|err| fail(err.into()))?;
        let activation = self.registration.activate(&member_id).await.map_err(fail)?;
        Ok(Response::new(pb::ActivateMemberResponse {
            masked_email: activation.email.masked(),
            verification_sent: activation.verification_sent,
        }))
    }

    #[tracing::instrument(name = "accounts.resend_verification_email", level = "debug", skip_all)]
    pub(super) async fn registration_resend_verification(
        &self,
        request: Request<pb::ResendVerificationEmailRequest>,
    ) -> Result<Response<pb::ResendVerificationEmailResponse>, Status> {
        self.registration
            .resend_verification(&request.get_ref().user)
            .await
            .map_err(|err| err.into_status("resend_verification_email"))?;
        Ok(Response::new(pb::ResendVerificationEmailResponse {}))
    }
}

fn document_from_proto(document_type: &str, number: &str) -> Result<Document, AccountsError> {
    Document::parse(DocumentType::parse(document_type)?, number)
}

/// The personal data in the order of the form; a missing message is an empty form.
fn profile_from_proto(
    profile: Option<&pb::NewMemberProfile>,
) -> Result<NewMemberProfile, AccountsError> {
    let profile = profile.cloned().unwrap_or_default();
    NewMemberProfile::parse(&RegistrationForm {
        name: profile.name,
        last_name: profile.last_name,
        mother_surname: profile.mother_surname,
        phone_number: profile.phone_number,
        birth_date: profile.birth_date,
        gender_id: i64::from(profile.gender_id),
        email: profile.email,
    })
}
