//! Login (password, then one-time code), code resend, session refresh and logout.
//! The pending login is bound to the browser by the httpOnly challenge cookie.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;
use miclub_platform::ephemeral::count_in_window;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::GetMemberRequest;
use miclub_proto::auth::v1::{
    LogoutRequest, RefreshSessionRequest, ResendOtpRequest, StartLoginRequest, VerifyOtpRequest,
};
use miclub_proto::missions::v1::HasMissionsRequest;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::account::User;
use crate::cookies::{CHALLENGE_COOKIE, REFRESH_COOKIE};
use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ClientIp, bearer_or_cookie};
use crate::recaptcha;
use crate::state::AppState;

/// Spanish text shown instead of the login form while login is in maintenance.
pub const LOGIN_MAINTENANCE_MESSAGE: &str =
    "El inicio de sesión está en mantención. Intenta nuevamente más tarde.";

#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginRequest {
    /// RUT in any common form, or a foreign document number.
    #[schema(
        min_length = 1,
        pattern = r"^\s*[0-9A-Za-z. -]*[0-9A-Za-z][0-9A-Za-z. -]*\s*$",
        example = "12.345.678-5"
    )]
    pub user: String,
    #[schema(format = Password, min_length = 1, max_length = 256)]
    pub password: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtpSent {
    /// Where the code went, masked.
    pub destination: String,
    pub expires_in_seconds: i64,
    pub resend_after_seconds: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ValidateOtpRequest {
    /// The emailed code: 6 digits with the default policy (`auth.policy.otp_length`).
    #[schema(pattern = r"^\s*[0-9]{6}\s*$", example = "123456")]
    pub otp: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LoginResult {
    /// The access token, for API clients; the web app relies on the httpOnly cookie instead.
    pub token: String,
    pub user: User,
    pub has_missions: bool,
    pub is_user_migrating: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Refreshed {
    pub expires_in_seconds: i64,
}

/// Counts the anonymous requests of one kind (login, otp, recovery, registration…) per client
/// address in a one-minute window at the edge; past `per_minute`, 429 with `Retry-After` (the
/// rest of the window).
pub(super) async fn edge_limit(
    state: &AppState,
    kind: &str,
    ip: &str,
    per_minute: i64,
) -> ApiResult<()> {
    let key = format!("edge:{kind}:{ip}");
    let over = count_in_window(
        state.store.as_ref(),
        &key,
        Duration::from_secs(60),
        per_minute,
    )
    .await
    .map_err(|e| ApiError::new(ErrorCode::Unavailable).with_cause(e))?;
    if let Some(over) = over {
        tracing::warn!(
            kind,
            client_ip = ip,
            count = over.count,
            "edge rate limit reached"
        );
        return Err(ApiError::new(ErrorCode::TooManyAttempts)
            .with_retry_after(over.wait)
            .with_cause(format!("edge limit for {kind}")));
    }
    Ok(())
}

async fn login_open(state: &AppState) -> ApiResult<()> {
    if state.flags.current().await.is_login_maintenance {
        return Err(ApiError::new(ErrorCode::Unavailable).with_message(LOGIN_MAINTENANCE_MESSAGE));
    }
    Ok(())
}

/// Password step.
#[utoipa::path(post, path = "/api/login", tag = "session", request_body = LoginRequest,
    params(("recaptcha-token" = String, Header, description = "reCAPTCHA token of the login form")),
    responses(
        (status = 200, description = "Password accepted, code sent; sets the challenge cookie", body = OtpSent),
        (status = 400, description = "ERR_INVALID_RUT (user), other bad input, or reCAPTCHA refused", body = ErrorBody),
        (status = 401, description = "ERR_INVALID_CREDENTIALS", body = ErrorBody),
        (status = 403, description = "ERR_EMAIL_NOT_VERIFIED, with an action", body = ErrorBody),
        (status = 413, body = ErrorBody), (status = 415, body = ErrorBody),
        (status = 429, description = "Too many attempts", body = ErrorBody),
        (status = 503, description = "Login in maintenance or a service unavailable", body = ErrorBody),
    ))]
pub async fn login(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    jar: CookieJar,
    headers: HeaderMap,
    ApiJson(body): ApiJson<LoginRequest>,
) -> ApiResult<(CookieJar, Json<OtpSent>)> {
    login_open(&state).await?;
    let per_minute = state.settings.login_requests_per_minute;
    edge_limit(&state, "login", &ip, per_minute).await?;
    crate::rut::check_user("user", &body.user)?;
    state
        .recaptcha
        .check(&headers, &ip, recaptcha::action::LOGIN)
        .await?;
    let user = body.user;
    let answer = state
        .auth
        .clone()
        .start_login(StartLoginRequest {
            user: user.clone(),
            password: body.password,
            client_ip: ip,
            user_agent: crate::user_agent::header(&headers),
        })
        .await
        .map_err(|status| with_user_in_verify_action(ApiError::from(status), &user))?
        .into_inner();
    tracing::info!("password step passed, code sent");
    let jar = state
        .cookies
        .challenge(jar, answer.challenge_id, answer.expires_in_seconds);
    Ok((
        jar,
        Json(OtpSent {
            destination: answer.masked_destination,
            expires_in_seconds: answer.expires_in_seconds,
            resend_after_seconds: answer.resend_after_seconds,
        }),
    ))
}

/// Carries the document the member typed to the "resend the verification email" page of
/// `ERR_EMAIL_NOT_VERIFIED`, so the page can prefill it (`?rut=33.333.333-3`, or
/// `?documento=AB12345` for a foreign document). Auth answers that code only after the right
/// password, so the link tells nothing the member did not just type; a document that does not
/// parse is left out rather than echoed. Nothing secret goes in the URL.
fn with_user_in_verify_action(mut err: ApiError, user: &str) -> ApiError {
    use miclub_platform::identity::LoginId;
    if err.body.code != ErrorCode::EmailNotVerified {
        return err;
    }
    let Some(action) = err.body.action.as_mut() else {
        return err;
    };
    if action.url.contains('?') {
        return err;
    }
    match LoginId::parse(user) {
        Ok(LoginId::Rut(rut)) => action.url = format!("{}?rut={}", action.url, rut.formatted()),
        Ok(LoginId::Foreign(document)) => {
            action.url = format!("{}?documento={}", action.url, document.as_str());
        }
        Err(_) => {}
    }
    err
}

/// Sends a new code for the pending login.
#[utoipa::path(post, path = "/api/resend-otp", tag = "session",
    responses(
        (status = 200, description = "A new code was sent", body = OtpSent),
        (status = 422, description = "ERR_OTP_EXPIRED: no pending login", body = ErrorBody),
        (status = 429, description = "ERR_OTP_RESEND_COOLDOWN or ERR_OTP_DAILY_LIMIT", body = ErrorBody),
    ))]
pub async fn resend_otp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    jar: CookieJar,
) -> ApiResult<Json<OtpSent>> {
    login_open(&state).await?;
    edge_limit(&state, "otp", &ip, state.settings.login_requests_per_minute).await?;
    let challenge_id = state
        .cookies
        .value(&jar, CHALLENGE_COOKIE)
        .ok_or_else(|| ApiError::new(ErrorCode::OtpExpired))?;
    let answer = state
        .auth
        .clone()
        .resend_otp(ResendOtpRequest { challenge_id })
        .await?
        .into_inner();
    Ok(Json(OtpSent {
        destination: String::new(),
        expires_in_seconds: answer.expires_in_seconds,
        resend_after_seconds: answer.resend_after_seconds,
    }))
}

/// Code step: opens the session.
#[utoipa::path(post, path = "/api/validate-otp", tag = "session", request_body = ValidateOtpRequest,
    responses(
        (status = 200, description = "Logged in; sets the session cookies", body = LoginResult),
        (status = 400, body = ErrorBody),
        (status = 422, description = "ERR_OTP_INVALID or ERR_OTP_EXPIRED", body = ErrorBody),
        (status = 429, description = "ERR_OTP_TOO_MANY_ATTEMPTS", body = ErrorBody),
    ))]
pub async fn validate_otp(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    jar: CookieJar,
    headers: HeaderMap,
    ApiJson(body): ApiJson<ValidateOtpRequest>,
) -> ApiResult<(CookieJar, Json<LoginResult>)> {
    login_open(&state).await?;
    edge_limit(&state, "otp", &ip, state.settings.login_requests_per_minute).await?;
    let challenge_id = state
        .cookies
        .value(&jar, CHALLENGE_COOKIE)
        .ok_or_else(|| ApiError::new(ErrorCode::OtpExpired))?;
    let answer = state
        .auth
        .clone()
        .verify_otp(VerifyOtpRequest {
            challenge_id,
            otp: body.otp,
            user_agent: crate::user_agent::header(&headers),
        })
        .await?
        .into_inner();
    let session = answer.session.ok_or_else(|| {
        ApiError::new(ErrorCode::Internal).with_cause("verify_otp answered without a session")
    })?;
    let member = match state
        .accounts
        .clone()
        .get_member(with_bearer(GetMemberRequest {}, &session.access_token))
        .await
    {
        Ok(answer) => answer.into_inner().member.unwrap_or_default(),
        Err(status) => {
            // Nothing half-done: a session the member cannot see is closed again.
            let revoke = LogoutRequest {
                refresh_token: session.refresh_token.clone(),
                access_token: session.access_token.clone(),
            };
            if let Err(err) = state.auth.clone().logout(revoke).await {
                tracing::warn!(error = %err, "could not revoke the session of a failed login");
            }
            return Err(status.into());
        }
    };
    let has_missions = has_missions(&state, &session.access_token).await;
    tracing::info!(member_id = %answer.member_id, migrating = answer.is_user_migrating, has_missions, "member logged in");
    let jar = state.cookies.session(
        jar,
        session.access_token.clone(),
        session.access_expires_in_seconds,
        session.refresh_token,
        session.refresh_expires_in_seconds,
    );
    Ok((
        jar,
        Json(LoginResult {
            token: session.access_token,
            user: User::from(member),
            has_missions,
            is_user_migrating: answer.is_user_migrating,
        }),
    ))
}

/// Whether the member has missions, for the menu. Missions being down costs the member the
/// menu entry until the next login, never the login itself.
async fn has_missions(state: &AppState, access_token: &str) -> bool {
    match state
        .missions
        .clone()
        .has_missions(with_bearer(HasMissionsRequest {}, access_token))
        .await
    {
        Ok(answer) => answer.into_inner().has_missions,
        Err(status) => {
            tracing::warn!(code = ?status.code(), error = %status.message(), "has_missions unknown: missions did not answer");
            false
        }
    }
}

/// Rotates the refresh token and renews the access token.
#[utoipa::path(post, path = "/api/refresh", tag = "session",
    responses(
        (status = 200, description = "Session renewed; rotates the cookies", body = Refreshed),
        (status = 401, description = "No valid refresh token; cookies cleared", body = ErrorBody),
    ))]
pub async fn refresh(State(state): State<AppState>, jar: CookieJar) -> Response {
    let Some(refresh_token) = state.cookies.value(&jar, REFRESH_COOKIE) else {
        return (
            state.cookies.clear_session(jar),
            ApiError::new(ErrorCode::Unauthenticated),
        )
            .into_response();
    };
    match state
        .auth
        .clone()
        .refresh_session(RefreshSessionRequest { refresh_token })
        .await
    {
        Ok(answer) => match answer.into_inner().session {
            Some(session) => {
                let expires = session.access_expires_in_seconds;
                let jar = state.cookies.session(
                    jar,
                    session.access_token,
                    expires,
                    session.refresh_token,
                    session.refresh_expires_in_seconds,
                );
                (
                    jar,
                    Json(Refreshed {
                        expires_in_seconds: expires,
                    }),
                )
                    .into_response()
            }
            None => ApiError::new(ErrorCode::Internal)
                .with_cause("refresh answered without a session")
                .into_response(),
        },
        Err(status) => {
            let error = ApiError::from(status);
            if error.status() == StatusCode::UNAUTHORIZED {
                (state.cookies.clear_session(jar), error).into_response()
            } else {
                error.into_response()
            }
        }
    }
}

/// What a member is told when the browser's cookies were cleared but auth could not record the
/// revocation (its tokens stay valid until they expire).
pub const LOGOUT_NOT_RECORDED_MESSAGE: &str = "Cerramos tu sesión en este equipo, pero no pudimos \
     confirmarlo en nuestros sistemas. Intenta de nuevo en unos minutos y, si el equipo es \
     compartido, cambia tu contraseña.";

/// Closes the session: revokes it in auth and clears the cookies. A logout is never lost
/// silently: when auth cannot record the revocation (it is down, or its store is), the member
/// is told with a 503, the cookies cleared all the same.
#[utoipa::path(post, path = "/api/logout", tag = "session",
    responses(
        (status = 204, description = "Logged out (or the session was already over); cookies cleared"),
        (status = 503, description = "ERR_UNAVAILABLE: cookies cleared but auth could not record the revocation; tokens stay valid until they expire", body = ErrorBody),
    ))]
pub async fn logout(State(state): State<AppState>, jar: CookieJar, headers: HeaderMap) -> Response {
    let token = bearer_or_cookie(&headers, state.cookies);
    let refresh_token = state
        .cookies
        .value(&jar, REFRESH_COOKIE)
        .unwrap_or_default();
    let jar = state.cookies.clear_session(jar);
    // Either token identifies the session: an expired access cookie still lets the refresh
    // token revoke it.
    if token.is_none() && refresh_token.is_empty() {
        return (jar, StatusCode::NO_CONTENT).into_response();
    }
    let request = LogoutRequest {
        refresh_token,
        access_token: token.unwrap_or_default(),
    };
    match state.auth.clone().logout(request).await {
        Ok(_) => {
            tracing::info!("member logged out");
            (jar, StatusCode::NO_CONTENT).into_response()
        }
        Err(status) if revocation_unknown(status.code()) => {
            tracing::error!(code = ?status.code(), error = %status.message(), "logout not recorded: auth could not revoke the session; cookies cleared");
            let error = ApiError::new(ErrorCode::Unavailable)
                .with_message(LOGOUT_NOT_RECORDED_MESSAGE)
                .with_cause(format!(
                    "logout: grpc {:?}: {}",
                    status.code(),
                    status.message()
                ));
            (jar, error).into_response()
        }
        Err(status) => {
            // The session was already over (expired, revoked, unknown): nothing left to revoke.
            tracing::info!(code = ?status.code(), "logout of a session already over");
            (jar, StatusCode::NO_CONTENT).into_response()
        }
    }
}

/// Answers after which auth may not have recorded the revocation.
fn revocation_unknown(code: tonic::Code) -> bool {
    matches!(
        code,
        tonic::Code::Unavailable
            | tonic::Code::DeadlineExceeded
            | tonic::Code::Cancelled
            | tonic::Code::Internal
            | tonic::Code::Unknown
            | tonic::Code::ResourceExhausted
    )
}
