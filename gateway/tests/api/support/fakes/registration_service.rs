//! The stand-in registration: a flow that moves through its steps, failing with the scripted
//! `registration_error`.

use crate::support::*;

#[tonic::async_trait]
impl RegistrationService for Fakes {
    async fn start_registration(
        &self,
        request: Request<registration::StartRegistrationRequest>,
    ) -> Result<Response<registration::StartRegistrationResponse>, Status> {
        self.registration_fails()?;
        self.script().last_registration_start = Some(request.into_inner());
        let id = format!("flow-{}", self.script().registration_ids.len() + 1);
        self.script().registration_ids.push(id.clone());
        Ok(Response::new(registration::StartRegistrationResponse {
            registration: Some(self.flow(&id, registration::Step::PersonalData, None)),
        }))
    }

    async fn get_registration(
        &self,
        request: Request<registration::GetRegistrationRequest>,
    ) -> Result<Response<registration::GetRegistrationResponse>, Status> {
        self.registration_fails()?;
        let id = request.into_inner().registration_id;
        self.script().registration_ids.push(id.clone());
        let personal = self.script().last_personal_data.clone();
        let step = if personal.is_some() {
            registration::Step::Password
        } else {
            registration::Step::PersonalData
        };
        Ok(Response::new(registration::GetRegistrationResponse {
            registration: Some(self.flow(&id, step, personal)),
        }))
    }

    async fn submit_personal_data(
        &self,
        request: Request<registration::SubmitPersonalDataRequest>,
    ) -> Result<Response<registration::SubmitPersonalDataResponse>, Status> {
        self.registration_fails()?;
        let request = request.into_inner();
        self.script()
            .registration_ids
            .push(request.registration_id.clone());
        self.script().last_personal_data = request.personal_data.clone();
        Ok(Response::new(registration::SubmitPersonalDataResponse {
            registration: Some(self.flow(
                &request.registration_id,
                registration::Step::Password,
                request.personal_data,
            )),
        }))
    }

    async fn complete_registration(
        &self,
        request: Request<registration::CompleteRegistrationRequest>,
    ) -> Result<Response<registration::CompleteRegistrationResponse>, Status> {
        self.registration_fails()?;
        let request = request.into_inner();
        self.script()
            .registration_ids
            .push(request.registration_id.clone());
        self.script().last_completion = Some(request);
        Ok(Response::new(registration::CompleteRegistrationResponse {
            member_id: "member-new".into(),
            masked_email: "n***@correo.cl".into(),
        }))
    }

    async fn cancel_registration(
        &self,
        request: Request<registration::CancelRegistrationRequest>,
    ) -> Result<Response<registration::CancelRegistrationResponse>, Status> {
        self.registration_fails()?;
        let id = request.into_inner().registration_id;
        self.script().cancelled_registrations.push(id);
        Ok(Response::new(registration::CancelRegistrationResponse {}))
    }
}
