//! The `miclub.auth.v1.AuthService` gRPC API: proto messages in, validated domain values to
//! [`Auth`], proto messages (or an `ErrorBody` status) out. No rule lives here.

use std::sync::Arc;

use miclub_platform::identity::LoginId;
use miclub_platform::tokens::bearer;
use miclub_proto::auth::v1 as pb;
use miclub_proto::auth::v1::auth_service_server::AuthService;
use tonic::{Request, Response, Status};

use crate::domain::{Auth, ChallengeId, IssuedSession, OtpCode, Password, RefreshToken};
use crate::error::AuthError;

#[derive(Debug, Clone)]
pub struct AuthGrpc {
    auth: Arc<Auth>,
}

impl AuthGrpc {
    pub fn new(auth: Arc<Auth>) -> Self {
        Self { auth }
    }
}

fn session(issued: IssuedSession) -> pb::Session {
    pb::Session {
        access_token: issued.access_token,
        access_expires_in_seconds: issued.access_expires_in_secs,
        refresh_token: issued.refresh_token.as_str().to_owned(),
        refresh_expires_in_seconds: issued.refresh_expires_in_secs,
    }
}

/// An optional field: empty means absent.
fn present(value: &str) -> Option<&str> {
    let value = value.trim();
    (!value.is_empty()).then_some(value)
}

#[tonic::async_trait]
impl AuthService for AuthGrpc {
    async fn start_login(
        &self,
        request: Request<pb::StartLoginRequest>,
    ) -> Result<Response<pb::StartLoginResponse>, Status> {
        let request = request.into_inner();
        let login_id = LoginId::parse(&request.user).map_err(AuthError::InvalidLoginId)?;
        let password = Password::parse(request.password)?;
        let started = self
            .auth
            .start_login(&login_id, &password, request.client_ip.trim())
            .await?;
        Ok(Response::new(pb::StartLoginResponse {
            challenge_id: started.challenge_id.as_str().to_owned(),
            masked_destination: started.masked_destination,
            expires_in_seconds: started.expires_in_secs,
            resend_after_seconds: started.resend_after_secs,
        }))
    }

    async fn resend_otp(
        &self,
        request: Request<pb::ResendOtpRequest>,
    ) -> Result<Response<pb::ResendOtpResponse>, Status> {
        let request = request.into_inner();
        let sent = self
            .auth
            .resend_otp(ChallengeId::parse(&request.challenge_id))
            .await?;
        Ok(Response::new(pb::ResendOtpResponse {
            expires_in_seconds: sent.expires_in_secs,
            resend_after_seconds: sent.resend_after_secs,
        }))
    }

    async fn verify_otp(
        &self,
        request: Request<pb::VerifyOtpRequest>,
    ) -> Result<Response<pb::VerifyOtpResponse>, Status> {
        let request = request.into_inner();
        let code = OtpCode::parse(&request.otp, self.auth.policy().otp_length)?;
        let done = self
            .auth
            .verify_otp(ChallengeId::parse(&request.challenge_id), &code)
            .await?;
        Ok(Response::new(pb::VerifyOtpResponse {
            session: Some(session(done.session)),
            member_id: done.member_id,
            is_user_migrating: done.is_user_migrating,
        }))
    }

    async fn refresh_session(
        &self,
        request: Request<pb::RefreshSessionRequest>,
    ) -> Result<Response<pb::RefreshSessionResponse>, Status> {
        let request = request.into_inner();
        let issued = self
            .auth
            .refresh_session(RefreshToken::parse(&request.refresh_token))
            .await?;
        Ok(Response::new(pb::RefreshSessionResponse {
            session: Some(session(issued)),
        }))
    }

    async fn logout(
        &self,
        request: Request<pb::LogoutRequest>,
    ) -> Result<Response<pb::LogoutResponse>, Status> {
        let access_token = bearer(request.metadata()).map(str::to_owned);
        let request = request.into_inner();
        let refresh = present(&request.refresh_token).and_then(RefreshToken::parse);
        self.auth.logout(access_token.as_deref(), refresh).await?;
        Ok(Response::new(pb::LogoutResponse {}))
    }

    async fn get_jwks(
        &self,
        _request: Request<pb::GetJwksRequest>,
    ) -> Result<Response<pb::GetJwksResponse>, Status> {
        Ok(Response::new(pb::GetJwksResponse {
            jwks_json: self.auth.jwks_json().to_owned(),
        }))
    }
}
