//! The `miclub.auth.v1.AuthService` gRPC API: proto messages in, validated domain values to
//! [`Auth`], proto messages (or an `ErrorBody` status) out. No rule lives here.
//!
//! Who may call: the login and recovery calls, `GetJwks` and `IssueServiceToken` are
//! anonymous; `Logout` takes whatever access token it is given; `ChangePassword` and the
//! security view (`ListSessions`, `EndSession`, `EndOtherSessions`, `ListSecurityEvents`) need
//! a member token and act on its subject only; the internal calls need a service token of one client each: `SetLoginEmail`,
//! `DisableCredentials`, `VerifyPassword` and `EndSessions` of accounts, `CheckPasswordRules` and `CreateCredentials` of
//! registration. Tokens are checked like every other service checks them (signature, claims,
//! revocation, kind); a service token of another client is PERMISSION_DENIED ERR_FORBIDDEN.
//! Each call runs in a span of its own (`auth.<method>`), and its failures become a status
//! through [`ServiceError::into_status`], as in every service.

use std::sync::Arc;

use miclub_platform::identity::LoginId;
use miclub_platform::tokens::Claims;
use miclub_proto::auth::v1 as pb;
use miclub_proto::auth::v1::auth_service_server::AuthService;
use secrecy::SecretString;
use tonic::{Request, Response, Status};

use crate::domain::{
    Auth, ChallengeId, Email, IssuedSession, MemberId, NewPassword, OtpCode, Password, RefreshToken,
};
use crate::error::{AuthError, Field, Problem};
use miclub_platform::error::ServiceError;

#[derive(Debug, Clone)]
pub struct AuthGrpc {
    auth: Arc<Auth>,
}

impl AuthGrpc {
    pub fn new(auth: Arc<Auth>) -> Self {
        Self { auth }
    }

    /// The claims of an internal call: a service token the port's access policy found to
    /// carry this method in its scope (`platform::access`).
    async fn service_caller<T>(&self, request: &Request<T>) -> Result<Claims, Status> {
        self.auth.callers().service(request).await
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

/// The current password of a change. A password longer than any we accept cannot be the
/// member's, so it is wrong without being hashed.
fn current_password(input: String) -> Result<Password, AuthError> {
    Password::parse(input).map_err(|err| match err {
        AuthError::InvalidInput {
            problem: Problem::Empty,
            ..
        } => AuthError::InvalidInput {
            field: Field::CurrentPassword,
            problem: Problem::Empty,
        },
        _ => AuthError::WrongPassword,
    })
}

/// An optional field: empty means absent.
fn present(value: &str) -> Option<&str> {
    let value = value.trim();
    (!value.is_empty()).then_some(value)
}

/// The answer of `rpc`: its message, or its failure as the status every service answers with.
fn answer<T>(rpc: &'static str, result: Result<T, AuthError>) -> Result<Response<T>, Status> {
    result
        .map(Response::new)
        .map_err(|err| err.into_status(rpc))
}

#[tonic::async_trait]
impl AuthService for AuthGrpc {
    #[tracing::instrument(name = "auth.start_login", level = "debug", skip_all)]
    async fn start_login(
        &self,
        request: Request<pb::StartLoginRequest>,
    ) -> Result<Response<pb::StartLoginResponse>, Status> {
        let request = request.into_inner();
        let started = async {
            let login_id = LoginId::parse(&request.user).map_err(AuthError::InvalidLoginId)?;
            let password = Password::parse(request.password)?;
            self.auth
                .start_login(
                    &login_id,
                    &password,
                    request.client_ip.trim(),
                    &request.user_agent,
                )
                .await
        };
        answer(
            "start_login",
            started.await.map(|started| pb::StartLoginResponse {
                challenge_id: started.challenge_id.as_str().to_owned(),
                masked_destination: started.masked_destination,
                expires_in_seconds: started.expires_in_secs,
                resend_after_seconds: started.resend_after_secs,
            }),
        )
    }

    #[tracing::instrument(name = "auth.resend_otp", level = "debug", skip_all)]
    async fn resend_otp(
        &self,
        request: Request<pb::ResendOtpRequest>,
    ) -> Result<Response<pb::ResendOtpResponse>, Status> {
        let request = request.into_inner();
        let sent = self
            .auth
            .resend_otp(ChallengeId::parse(&request.challenge_id))
            .await;
        answer(
            "resend_otp",
            sent.map(|sent| pb::ResendOtpResponse {
                expires_in_seconds: sent.expires_in_secs,
                resend_after_seconds: sent.resend_after_secs,
            }),
        )
    }

    #[tracing::instrument(name = "auth.verify_otp", level = "debug", skip_all)]
    async fn verify_otp(
        &self,
        request: Request<pb::VerifyOtpRequest>,
    ) -> Result<Response<pb::VerifyOtpResponse>, Status> {
        let request = request.into_inner();
        let done = async {
            let code = OtpCode::parse(&request.otp, self.auth.policy().otp_length)?;
            self.auth
                .verify_otp(
                    ChallengeId::parse(&request.challenge_id),
                    &code,
                    &request.user_agent,
                )
                .await
        };
        answer(
            "verify_otp",
            done.await.map(|done| pb::VerifyOtpResponse {
                session: Some(session(done.session)),
                member_id: done.member_id.as_str().to_owned(),
                is_user_migrating: done.is_user_migrating,
            }),
        )
    }

    #[tracing::instrument(name = "auth.refresh_session", level = "debug", skip_all)]
    async fn refresh_session(
        &self,
        request: Request<pb::RefreshSessionRequest>,
    ) -> Result<Response<pb::RefreshSessionResponse>, Status> {
        let request = request.into_inner();
        let issued = self
            .auth
            .refresh_session(RefreshToken::parse(&request.refresh_token))
            .await;
        answer(
            "refresh_session",
            issued.map(|issued| pb::RefreshSessionResponse {
                session: Some(session(issued)),
            }),
        )
    }

    #[tracing::instrument(name = "auth.logout", level = "debug", skip_all)]
    async fn logout(
        &self,
        request: Request<pb::LogoutRequest>,
    ) -> Result<Response<pb::LogoutResponse>, Status> {
        let request = request.into_inner();
        let access_token = present(&request.access_token);
        let refresh = present(&request.refresh_token).and_then(RefreshToken::parse);
        let done = self.auth.logout(access_token, refresh).await;
        answer("logout", done.map(|()| pb::LogoutResponse {}))
    }

    #[tracing::instrument(name = "auth.get_jwks", level = "debug", skip_all)]
    async fn get_jwks(
        &self,
        _request: Request<pb::GetJwksRequest>,
    ) -> Result<Response<pb::GetJwksResponse>, Status> {
        Ok(Response::new(pb::GetJwksResponse {
            jwks_json: self.auth.jwks_json().to_owned(),
        }))
    }

    #[tracing::instrument(name = "auth.change_password", level = "debug", skip_all)]
    async fn change_password(
        &self,
        request: Request<pb::ChangePasswordRequest>,
    ) -> Result<Response<pb::ChangePasswordResponse>, Status> {
        let caller = self.auth.callers().member(&request).await?;
        let request = request.into_inner();
        let changed = async {
            let current = current_password(request.current_password)?;
            let new =
                NewPassword::parse(request.new_password).map_err(AuthError::weak_new_password)?;
            // A member token names a checked id; one that does not has no credentials either.
            let member_id = MemberId::parse(&caller.sub).map_err(|_| AuthError::Unauthenticated)?;
            let agent = self.auth.session_agent(&caller.sid).await;
            self.auth
                .change_password(&member_id, &current, &new, request.client_ip.trim(), &agent)
                .await
        };
        answer(
            "change_password",
            changed.await.map(|changed| pb::ChangePasswordResponse {
                revoked_sessions: changed.revoked_sessions as i64,
            }),
        )
    }

    #[tracing::instrument(name = "auth.issue_service_token", level = "debug", skip_all)]
    async fn issue_service_token(
        &self,
        request: Request<pb::IssueServiceTokenRequest>,
    ) -> Result<Response<pb::IssueServiceTokenResponse>, Status> {
        let caller = request
            .remote_addr()
            .map(|address| address.ip().to_string())
            .unwrap_or_default();
        let request = request.into_inner();
        let secret = SecretString::from(request.client_secret);
        let issued = self
            .auth
            .issue_service_token(request.client_id.trim(), &secret, &caller)
            .await;
        answer(
            "issue_service_token",
            issued.map(|issued| pb::IssueServiceTokenResponse {
                access_token: issued.access_token,
                expires_in_seconds: issued.expires_in_secs,
            }),
        )
    }

    #[tracing::instrument(name = "auth.verify_password", level = "debug", skip_all)]
    async fn verify_password(
        &self,
        request: Request<pb::VerifyPasswordRequest>,
    ) -> Result<Response<pb::VerifyPasswordResponse>, Status> {
        self.service_caller(&request).await?;
        let request = request.into_inner();
        let verified = async {
            let member_id = MemberId::parse(&request.member_id)?;
            let password = current_password(request.password)?;
            self.auth
                .verify_password(&member_id, &password, request.client_ip.trim())
                .await
        };
        answer(
            "verify_password",
            verified.await.map(|()| pb::VerifyPasswordResponse {}),
        )
    }

    #[tracing::instrument(name = "auth.end_sessions", level = "debug", skip_all)]
    async fn end_sessions(
        &self,
        request: Request<pb::EndSessionsRequest>,
    ) -> Result<Response<pb::EndSessionsResponse>, Status> {
        self.service_caller(&request).await?;
        let request = request.into_inner();
        let ended = async {
            let member_id = MemberId::parse(&request.member_id)?;
            self.auth.end_member_sessions(&member_id).await
        };
        answer(
            "end_sessions",
            ended.await.map(|ended| pb::EndSessionsResponse {
                revoked_sessions: ended as i64,
            }),
        )
    }

    #[tracing::instrument(name = "auth.list_sessions", level = "debug", skip_all)]
    async fn list_sessions(
        &self,
        request: Request<pb::ListSessionsRequest>,
    ) -> Result<Response<pb::ListSessionsResponse>, Status> {
        let caller = self.auth.callers().member(&request).await?;
        let listed = self.auth.list_sessions(&caller).await;
        answer(
            "list_sessions",
            listed.map(|sessions| pb::ListSessionsResponse {
                sessions: sessions
                    .into_iter()
                    .map(|session| pb::OpenSession {
                        id: session.record.session_id,
                        started_at_millis: session.record.started_at,
                        last_seen_at_millis: session.record.last_seen_at,
                        user_agent: session.record.user_agent,
                        current: session.current,
                    })
                    .collect(),
            }),
        )
    }

    #[tracing::instrument(name = "auth.end_session", level = "debug", skip_all)]
    async fn end_session(
        &self,
        request: Request<pb::EndSessionRequest>,
    ) -> Result<Response<pb::EndSessionResponse>, Status> {
        let caller = self.auth.callers().member(&request).await?;
        let request = request.into_inner();
        let ended = self.auth.end_session(&caller, &request.session_id).await;
        answer(
            "end_session",
            ended.map(|was_current| pb::EndSessionResponse { was_current }),
        )
    }

    #[tracing::instrument(name = "auth.end_other_sessions", level = "debug", skip_all)]
    async fn end_other_sessions(
        &self,
        request: Request<pb::EndOtherSessionsRequest>,
    ) -> Result<Response<pb::EndOtherSessionsResponse>, Status> {
        let caller = self.auth.callers().member(&request).await?;
        let ended = self.auth.end_other_sessions(&caller).await;
        answer(
            "end_other_sessions",
            ended.map(|ended| pb::EndOtherSessionsResponse {
                revoked_sessions: ended as i64,
            }),
        )
    }

    #[tracing::instrument(name = "auth.list_security_events", level = "debug", skip_all)]
    async fn list_security_events(
        &self,
        request: Request<pb::ListSecurityEventsRequest>,
    ) -> Result<Response<pb::ListSecurityEventsResponse>, Status> {
        let caller = self.auth.callers().member(&request).await?;
        let listed = self.auth.list_security_events(&caller).await;
        answer(
            "list_security_events",
            listed.map(|events| pb::ListSecurityEventsResponse {
                events: events
                    .into_iter()
                    .map(|event| pb::SecurityEvent {
                        kind: event.kind,
                        occurred_at_millis: event.occurred_at,
                        user_agent: event.user_agent,
                    })
                    .collect(),
            }),
        )
    }

    #[tracing::instrument(name = "auth.set_login_email", level = "debug", skip_all)]
    async fn set_login_email(
        &self,
        request: Request<pb::SetLoginEmailRequest>,
    ) -> Result<Response<pb::SetLoginEmailResponse>, Status> {
        let caller = self.service_caller(&request).await?;
        let request = request.into_inner();
        let set = async {
            let member_id = MemberId::parse(&request.member_id)?;
            let email = Email::parse(&request.email)?;
            self.auth
                .set_login_email(&caller.sub, &member_id, &email)
                .await
        };
        answer(
            "set_login_email",
            set.await.map(|()| pb::SetLoginEmailResponse {}),
        )
    }

    #[tracing::instrument(name = "auth.start_password_reset", level = "debug", skip_all)]
    async fn start_password_reset(
        &self,
        request: Request<pb::StartPasswordResetRequest>,
    ) -> Result<Response<pb::StartPasswordResetResponse>, Status> {
        let request = request.into_inner();
        let started = async {
            let login_id = LoginId::parse(&request.user).map_err(AuthError::InvalidLoginId)?;
            self.auth
                .start_password_reset(&login_id, request.client_ip.trim(), &request.user_agent)
                .await
        };
        answer(
            "start_password_reset",
            started.await.map(|started| pb::StartPasswordResetResponse {
                reset_id: started.reset_id.as_str().to_owned(),
                expires_in_seconds: started.expires_in_secs,
                resend_after_seconds: started.resend_after_secs,
            }),
        )
    }

    #[tracing::instrument(name = "auth.resend_password_reset", level = "debug", skip_all)]
    async fn resend_password_reset(
        &self,
        request: Request<pb::ResendPasswordResetRequest>,
    ) -> Result<Response<pb::ResendPasswordResetResponse>, Status> {
        let request = request.into_inner();
        let sent = self
            .auth
            .resend_password_reset(ChallengeId::parse(&request.reset_id))
            .await;
        answer(
            "resend_password_reset",
            sent.map(|sent| pb::ResendPasswordResetResponse {
                expires_in_seconds: sent.expires_in_secs,
                resend_after_seconds: sent.resend_after_secs,
            }),
        )
    }

    #[tracing::instrument(name = "auth.complete_password_reset", level = "debug", skip_all)]
    async fn complete_password_reset(
        &self,
        request: Request<pb::CompletePasswordResetRequest>,
    ) -> Result<Response<pb::CompletePasswordResetResponse>, Status> {
        let request = request.into_inner();
        let done = async {
            // The rules first: a weak password uses no try of the code.
            let new =
                NewPassword::parse(request.new_password).map_err(AuthError::weak_new_password)?;
            let code = OtpCode::parse(&request.code, self.auth.policy().otp_length)?;
            self.auth
                .complete_password_reset(
                    ChallengeId::parse(&request.reset_id),
                    &code,
                    &new,
                    &request.user_agent,
                )
                .await
        };
        answer(
            "complete_password_reset",
            done.await.map(|done| pb::CompletePasswordResetResponse {
                revoked_sessions: done.revoked_sessions as i64,
            }),
        )
    }

    #[tracing::instrument(name = "auth.check_password_rules", level = "debug", skip_all)]
    async fn check_password_rules(
        &self,
        request: Request<pb::CheckPasswordRulesRequest>,
    ) -> Result<Response<pb::CheckPasswordRulesResponse>, Status> {
        self.service_caller(&request).await?;
        let request = request.into_inner();
        let checked = NewPassword::parse(request.password).map_err(AuthError::weak_password);
        answer(
            "check_password_rules",
            checked.map(|_| pb::CheckPasswordRulesResponse {}),
        )
    }

    #[tracing::instrument(name = "auth.create_credentials", level = "debug", skip_all)]
    async fn create_credentials(
        &self,
        request: Request<pb::CreateCredentialsRequest>,
    ) -> Result<Response<pb::CreateCredentialsResponse>, Status> {
        let caller = self.service_caller(&request).await?;
        let request = request.into_inner();
        let written = async {
            let member_id = MemberId::parse(&request.member_id)?;
            let login_id = LoginId::parse(&request.login_id).map_err(AuthError::InvalidLoginId)?;
            let email = Email::parse(&request.email)?;
            let password =
                NewPassword::parse(request.password).map_err(AuthError::weak_password)?;
            self.auth
                .create_credentials(&caller.sub, &member_id, &login_id, &email, &password)
                .await
        };
        answer(
            "create_credentials",
            written.await.map(|written| pb::CreateCredentialsResponse {
                created: written.created,
            }),
        )
    }

    #[tracing::instrument(name = "auth.disable_credentials", level = "debug", skip_all)]
    async fn disable_credentials(
        &self,
        request: Request<pb::DisableCredentialsRequest>,
    ) -> Result<Response<pb::DisableCredentialsResponse>, Status> {
        let caller = self.service_caller(&request).await?;
        let request = request.into_inner();
        let disabled = async {
            let member_id = MemberId::parse(&request.member_id)?;
            self.auth
                .disable_credentials(&caller.sub, &member_id, request.unsubscribed_at_millis)
                .await
        };
        answer(
            "disable_credentials",
            disabled
                .await
                .map(|disabled| pb::DisableCredentialsResponse {
                    revoked_sessions: disabled.revoked_sessions as i64,
                }),
        )
    }
}
