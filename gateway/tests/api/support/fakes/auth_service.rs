//! The stand-in auth: login, sessions, logout and passwords, failing with the scripted
//! `auth_error`.

use crate::support::*;

/// The user agents of the stand-in's sessions and events.
pub const CHROME_ON_LINUX: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
pub const SAFARI_ON_IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

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
        self.script.lock().unwrap().last_verify = Some(request.get_ref().clone());
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

    async fn list_sessions(
        &self,
        request: Request<auth::ListSessionsRequest>,
    ) -> Result<Response<auth::ListSessionsResponse>, Status> {
        self.member_only(&request)?;
        self.auth_fails()?;
        Ok(Response::new(auth::ListSessionsResponse {
            sessions: vec![
                auth::OpenSession {
                    id: "sid-1".into(),
                    started_at_millis: 1_795_000_000_000,
                    last_seen_at_millis: 1_795_000_600_000,
                    user_agent: CHROME_ON_LINUX.into(),
                    current: true,
                },
                auth::OpenSession {
                    id: "sid-2".into(),
                    started_at_millis: 1_794_990_000_000,
                    last_seen_at_millis: 1_794_999_000_000,
                    user_agent: SAFARI_ON_IPHONE.into(),
                    current: false,
                },
                auth::OpenSession {
                    id: "sid-3".into(),
                    started_at_millis: 1_794_980_000_000,
                    last_seen_at_millis: 1_794_980_000_000,
                    user_agent: String::new(),
                    current: false,
                },
            ],
        }))
    }

    /// `sid-1` is the caller's own, `sid-2` and `sid-3` other open ones; anything else is
    /// nobody's open session (auth answers the same for another member's).
    async fn end_session(
        &self,
        request: Request<auth::EndSessionRequest>,
    ) -> Result<Response<auth::EndSessionResponse>, Status> {
        self.member_only(&request)?;
        self.auth_fails()?;
        let id = request.into_inner().session_id;
        self.script.lock().unwrap().ended_sessions.push(id.clone());
        match id.as_str() {
            "sid-1" => Ok(Response::new(auth::EndSessionResponse {
                was_current: true,
            })),
            "sid-2" | "sid-3" => Ok(Response::new(auth::EndSessionResponse {
                was_current: false,
            })),
            "not-a-uuid" => Err(ErrorBody::new(ErrorCode::InvalidArgument)
                .with_field("id")
                .with_message("La sesión indicada no es válida.")
                .into_status()),
            _ => Err(ErrorBody::new(ErrorCode::NotFound)
                .with_message("No encontramos esa sesión abierta. Puede que ya esté cerrada.")
                .into_status()),
        }
    }

    async fn end_other_sessions(
        &self,
        request: Request<auth::EndOtherSessionsRequest>,
    ) -> Result<Response<auth::EndOtherSessionsResponse>, Status> {
        self.member_only(&request)?;
        self.auth_fails()?;
        self.script.lock().unwrap().other_sessions_ends += 1;
        Ok(Response::new(auth::EndOtherSessionsResponse {
            revoked_sessions: 2,
        }))
    }

    async fn list_security_events(
        &self,
        request: Request<auth::ListSecurityEventsRequest>,
    ) -> Result<Response<auth::ListSecurityEventsResponse>, Status> {
        self.member_only(&request)?;
        self.auth_fails()?;
        Ok(Response::new(auth::ListSecurityEventsResponse {
            events: vec![
                auth::SecurityEvent {
                    kind: "login_succeeded".into(),
                    occurred_at_millis: 1_795_000_000_000,
                    user_agent: CHROME_ON_LINUX.into(),
                },
                auth::SecurityEvent {
                    kind: "wrong_password".into(),
                    occurred_at_millis: 1_794_999_000_000,
                    user_agent: SAFARI_ON_IPHONE.into(),
                },
                auth::SecurityEvent {
                    kind: "password_changed".into(),
                    occurred_at_millis: 1_794_998_000_000,
                    user_agent: String::new(),
                },
            ],
        }))
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
