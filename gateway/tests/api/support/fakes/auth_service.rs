//! The stand-in auth: login, sessions, logout and passwords, failing with the scripted
//! `auth_error`.

use crate::support::*;

#[tonic::async_trait]
impl AuthService for Fakes {
    async fn start_login(
        &self,
        request: Request<auth::StartLoginRequest>,
    ) -> Result<Response<auth::StartLoginResponse>, Status> {
        self.script.lock().unwrap().last_login = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::StartLoginResponse {
            challenge_id: "challenge-1".into(),
            masked_destination: "a***@example.cl".into(),
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn resend_otp(
        &self,
        request: Request<auth::ResendOtpRequest>,
    ) -> Result<Response<auth::ResendOtpResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.into_inner().challenge_id, "challenge-1");
        Ok(Response::new(auth::ResendOtpResponse {
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn verify_otp(
        &self,
        request: Request<auth::VerifyOtpRequest>,
    ) -> Result<Response<auth::VerifyOtpResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.get_ref().challenge_id, "challenge-1");
        Ok(Response::new(auth::VerifyOtpResponse {
            session: Some(self.session()),
            member_id: MEMBER.into(),
            is_user_migrating: true,
        }))
    }

    async fn refresh_session(
        &self,
        request: Request<auth::RefreshSessionRequest>,
    ) -> Result<Response<auth::RefreshSessionResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.into_inner().refresh_token, "refresh-1");
        Ok(Response::new(auth::RefreshSessionResponse {
            session: Some(self.session()),
        }))
    }

    async fn logout(
        &self,
        request: Request<auth::LogoutRequest>,
    ) -> Result<Response<auth::LogoutResponse>, Status> {
        let token = request.into_inner().access_token;
        let mut script = self.script.lock().unwrap();
        script.logouts.push(token);
        match script.logout_error.clone() {
            Some(body) => Err(body.into_status()),
            None => Ok(Response::new(auth::LogoutResponse {})),
        }
    }

    async fn get_jwks(
        &self,
        _: Request<auth::GetJwksRequest>,
    ) -> Result<Response<auth::GetJwksResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway gets its keys from the test",
        ))
    }

    async fn change_password(
        &self,
        request: Request<auth::ChangePasswordRequest>,
    ) -> Result<Response<auth::ChangePasswordResponse>, Status> {
        assert!(
            miclub_platform::tokens::bearer(request.metadata()).is_some(),
            "the member token is forwarded"
        );
        self.script.lock().unwrap().last_password_change = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::ChangePasswordResponse {
            revoked_sessions: 2,
        }))
    }

    async fn issue_service_token(
        &self,
        _: Request<auth::IssueServiceTokenRequest>,
    ) -> Result<Response<auth::IssueServiceTokenResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway never asks for service tokens",
        ))
    }

    async fn verify_password(
        &self,
        _: Request<auth::VerifyPasswordRequest>,
    ) -> Result<Response<auth::VerifyPasswordResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway never checks passwords for accounts",
        ))
    }

    async fn end_sessions(
        &self,
        _: Request<auth::EndSessionsRequest>,
    ) -> Result<Response<auth::EndSessionsResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway never checks passwords for accounts",
        ))
    }

    async fn set_login_email(
        &self,
        _: Request<auth::SetLoginEmailRequest>,
    ) -> Result<Response<auth::SetLoginEmailResponse>, Status> {
        Err(Status::unimplemented("the gateway never sets login emails"))
    }

    async fn start_password_reset(
        &self,
        request: Request<auth::StartPasswordResetRequest>,
    ) -> Result<Response<auth::StartPasswordResetResponse>, Status> {
        self.script.lock().unwrap().last_reset_start = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::StartPasswordResetResponse {
            reset_id: "reset-1".into(),
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn resend_password_reset(
        &self,
        request: Request<auth::ResendPasswordResetRequest>,
    ) -> Result<Response<auth::ResendPasswordResetResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.into_inner().reset_id, "reset-1");
        Ok(Response::new(auth::ResendPasswordResetResponse {
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn check_password_rules(
        &self,
        _: Request<auth::CheckPasswordRulesRequest>,
    ) -> Result<Response<auth::CheckPasswordRulesResponse>, Status> {
        Err(Status::unimplemented("registration calls auth directly"))
    }

    async fn create_credentials(
        &self,
        _: Request<auth::CreateCredentialsRequest>,
    ) -> Result<Response<auth::CreateCredentialsResponse>, Status> {
        Err(Status::unimplemented("registration calls auth directly"))
    }

    async fn disable_credentials(
        &self,
        _: Request<auth::DisableCredentialsRequest>,
    ) -> Result<Response<auth::DisableCredentialsResponse>, Status> {
        Err(Status::unimplemented("accounts calls auth directly"))
    }

    async fn complete_password_reset(
        &self,
        request: Request<auth::CompletePasswordResetRequest>,
    ) -> Result<Response<auth::CompletePasswordResetResponse>, Status> {
        self.script.lock().unwrap().last_reset = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::CompletePasswordResetResponse {
            revoked_sessions: 1,
        }))
    }
}
