//! The gRPC face of registration (`proto/registration/v1/registration.proto`).
//!
//! Every call is anonymous: the flow id is the bearer secret of its flow, and the gateway keeps
//! it in an httpOnly cookie. Each call turns proto messages into domain inputs, asks
//! [`Registrations`] with the current instant, and answers the flow as a `Registration` view;
//! errors become a `tonic::Status` with an `ErrorBody` through
//! [`RegistrationError::into_status`](crate::error::RegistrationError::into_status).

use miclub_platform::error::ServiceError;
use miclub_platform::storage::now_millis;
use miclub_proto::registration::v1 as pb;
use miclub_proto::registration::v1::registration_service_server::RegistrationService;
use secrecy::SecretString;
use tonic::{Request, Response, Status};

use crate::domain::{Flow, ForeignKind, Identity, IdentityInput, PersonalData, Registrations};

/// Implements `miclub.registration.v1.RegistrationService`.
#[derive(Debug, Clone)]
pub struct RegistrationGrpc {
    registrations: Registrations,
}

impl RegistrationGrpc {
    pub fn new(registrations: Registrations) -> Self {
        Self { registrations }
    }
}

#[tonic::async_trait]
impl RegistrationService for RegistrationGrpc {
    #[tracing::instrument(name = "registration.start_registration", level = "debug", skip_all)]
    async fn start_registration(
        &self,
        request: Request<pb::StartRegistrationRequest>,
    ) -> Result<Response<pb::StartRegistrationResponse>, Status> {
        let request = request.into_inner();
        let input = identity_input(request.identity);
        let now = now_millis();
        let started = self
            .registrations
            .start(&input, request.client_ip.trim(), now)
            .await
            .map_err(|err| err.into_status("start_registration"))?;
        Ok(Response::new(pb::StartRegistrationResponse {
            registration: Some(view(started.id.as_str(), &started.flow, now)),
        }))
    }

    #[tracing::instrument(name = "registration.get_registration", level = "debug", skip_all)]
    async fn get_registration(
        &self,
        request: Request<pb::GetRegistrationRequest>,
    ) -> Result<Response<pb::GetRegistrationResponse>, Status> {
        let id = request.into_inner().registration_id;
        let now = now_millis();
        let flow = self
            .registrations
            .get(&id, now)
            .await
            .map_err(|err| err.into_status("get_registration"))?;
        Ok(Response::new(pb::GetRegistrationResponse {
            registration: Some(view(&id, &flow, now)),
        }))
    }

    #[tracing::instrument(name = "registration.submit_personal_data", level = "debug", skip_all)]
    async fn submit_personal_data(
        &self,
        request: Request<pb::SubmitPersonalDataRequest>,
    ) -> Result<Response<pb::SubmitPersonalDataResponse>, Status> {
        let request = request.into_inner();
        let data = request
            .personal_data
            .map(personal_data_from_proto)
            .unwrap_or_default();
        let now = now_millis();
        let flow = self
            .registrations
            .submit_personal_data(&request.registration_id, data, now)
            .await
            .map_err(|err| err.into_status("submit_personal_data"))?;
        Ok(Response::new(pb::SubmitPersonalDataResponse {
            registration: Some(view(&request.registration_id, &flow, now)),
        }))
    }

    #[tracing::instrument(name = "registration.complete_registration", level = "debug", skip_all)]
    async fn complete_registration(
        &self,
        request: Request<pb::CompleteRegistrationRequest>,
    ) -> Result<Response<pb::CompleteRegistrationResponse>, Status> {
        let request = request.into_inner();
        let password = SecretString::from(request.password);
        let completed = self
            .registrations
            .complete(
                &request.registration_id,
                &password,
                request.accept_terms,
                now_millis(),
            )
            .await
            .map_err(|err| err.into_status("complete_registration"))?;
        Ok(Response::new(pb::CompleteRegistrationResponse {
            member_id: completed
                .member_id
                .map(|id| id.as_str().to_owned())
                .unwrap_or_default(),
            masked_email: completed.masked_email,
        }))
    }

    #[tracing::instrument(name = "registration.cancel_registration", level = "debug", skip_all)]
    async fn cancel_registration(
        &self,
        request: Request<pb::CancelRegistrationRequest>,
    ) -> Result<Response<pb::CancelRegistrationResponse>, Status> {
        let id = request.into_inner().registration_id;
        self.registrations
            .cancel(&id)
            .await
            .map_err(|err| err.into_status("cancel_registration"))?;
        Ok(Response::new(pb::CancelRegistrationResponse {}))
    }
}

fn identity_input(identity: Option<pb::start_registration_request::Identity>) -> IdentityInput {
    use pb::start_registration_request::Identity as Sent;
    match identity {
        Some(Sent::Chilean(chilean)) => IdentityInput::Chilean {
            rut: chilean.rut,
            document_number: chilean.document_number,
        },
        Some(Sent::Foreign(foreign)) => IdentityInput::Foreign {
            kind: match foreign.document_type() {
                pb::ForeignDocumentType::Passport => Some(ForeignKind::Passport),
                pb::ForeignDocumentType::NationalId => Some(ForeignKind::NationalId),
                pb::ForeignDocumentType::Unspecified => None,
            },
            document_number: foreign.document_number,
            country: foreign.country,
        },
        None => IdentityInput::Missing,
    }
}

fn personal_data_from_proto(data: pb::PersonalData) -> PersonalData {
    PersonalData {
        name: data.name,
        last_name: data.last_name,
        mother_surname: data.mother_surname,
        phone_number: data.phone_number,
        birth_date: data.birth_date,
        gender_id: data.gender_id,
        email: data.email,
    }
}

/// The flow as the client sees it (never the member id or the password).
fn view(id: &str, flow: &Flow, now: i64) -> pb::Registration {
    use pb::registration::Identity as Shown;
    let identity = match &flow.identity {
        Identity::Chilean { rut, card } => Shown::Chilean(pb::ChileanIdentity {
            rut: rut.formatted(),
            document_number: card.as_str().to_owned(),
        }),
        Identity::Foreign {
            kind,
            number,
            country,
        } => Shown::Foreign(pb::ForeignIdentity {
            document_type: match kind {
                ForeignKind::Passport => pb::ForeignDocumentType::Passport,
                ForeignKind::NationalId => pb::ForeignDocumentType::NationalId,
            } as i32,
            document_number: number.as_str().to_owned(),
            country: country.as_str().to_owned(),
        }),
    };
    pb::Registration {
        registration_id: id.to_owned(),
        step: match flow.step {
            crate::domain::Step::PersonalData => pb::Step::PersonalData,
            crate::domain::Step::Password => pb::Step::Password,
        } as i32,
        identity: Some(identity),
        personal_data: flow.personal_data.as_ref().map(|data| pb::PersonalData {
            name: data.name.clone(),
            last_name: data.last_name.clone(),
            mother_surname: data.mother_surname.clone(),
            phone_number: data.phone_number.clone(),
            birth_date: data.birth_date.clone(),
            gender_id: data.gender_id,
            email: data.email.clone(),
        }),
        expires_in_seconds: flow.expires_in_seconds(now),
    }
}
