//! Password recovery at `/recuperar-contrasena`: ask for a code with RUT or document, then set
//! a new password with it. The pending recovery is bound to the browser by the httpOnly
//! `mc_reset` cookie, like a pending login by `mc_challenge`.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum_extra::extract::CookieJar;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_proto::auth::v1::{
    CompletePasswordResetRequest, ResendPasswordResetRequest, StartPasswordResetRequest,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::session::edge_limit;
use crate::cookies::RESET_COOKIE;
use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ClientIp};
use crate::recaptcha;
use crate::state::AppState;

/// What every recovery request is told, so the answer says nothing about who is a member.
pub const RECOVERY_SENT_MESSAGE: &str =
    "Si el RUT o documento está registrado, enviamos un código a su correo electrónico.";

#[derive(Debug, Deserialize, ToSchema)]
pub struct RecoveryRequest {
    /// RUT in any common form, or a foreign document number.
    #[schema(
        min_length = 1,
        pattern = r"^\s*[0-9A-Za-z. -]*[0-9A-Za-z][0-9A-Za-z. -]*\s*$",
        example = "12.345.678-5"
    )]
    pub user: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryStarted {
    pub message: &'static str,
    pub expires_in_seconds: i64,
    pub resend_after_seconds: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryResent {
    pub expires_in_seconds: i64,
    pub resend_after_seconds: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryReset {
    /// The emailed code: 6 digits with the default policy (`auth.policy.otp_length`).
    #[schema(pattern = r"^\s*[0-9]{6}\s*$", example = "123456")]
    pub code: String,
    #[schema(format = Password, min_length = 8, max_length = 64)]
    pub new_password: String,
}

/// Start, resend and reset share one budget per client address.
fn per_minute(state: &AppState) -> i64 {
    state.settings.recovery_requests_per_minute
}

fn reset_id(state: &AppState, jar: &CookieJar) -> ApiResult<String> {
    state
        .cookies
        .value(jar, RESET_COOKIE)
        .ok_or_else(|| ApiError::new(ErrorCode::OtpExpired))
}

/// Asks for a recovery code; the same answer whether or not the member exists.
#[utoipa::path(post, path = "/api/password-recovery", tag = "recovery", operation_id = "requestRecovery", request_body = RecoveryRequest,
    params(("recaptcha-token" = String, Header, description = "reCAPTCHA token of the form")),
    responses(
        (status = 200, description = "Neutral answer; sets the recovery cookie", body = RecoveryStarted),
        (status = 400, description = "ERR_INVALID_RUT (user), other bad input, or reCAPTCHA refused", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS, with Retry-After", body = ErrorBody),
    ))]
pub async fn start(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    jar: CookieJar,
    headers: HeaderMap,
    ApiJson(body): ApiJson<RecoveryRequest>,
) -> ApiResult<(CookieJar, Json<RecoveryStarted>)> {
    edge_limit(&state, "recovery", &ip, per_minute(&state)).await?;
    crate::rut::check_user("user", &body.user)?;
    state
        .recaptcha
        .check(&headers, &ip, recaptcha::action::PASSWORD_RECOVERY)
        .await?;
    let answer = state
        .auth
        .clone()
        .start_password_reset(StartPasswordResetRequest {
            user: body.user,
            client_ip: ip,
            user_agent: crate::user_agent::header(&headers),
        })
        .await?
        .into_inner();
    tracing::info!("password recovery asked for");
    let jar = state
        .cookies
        .reset(jar, answer.reset_id, answer.expires_in_seconds);
    Ok((
        jar,
        Json(RecoveryStarted {
            message: RECOVERY_SENT_MESSAGE,
            expires_in_seconds: answer.expires_in_seconds,
            resend_after_seconds: answer.resend_after_seconds,
        }),
    ))
}

/// Sends a new code for the pending recovery.
#[utoipa::path(post, path = "/api/password-recovery/resend", tag = "recovery",
    responses(
        (status = 200, body = RecoveryResent),
        (status = 422, description = "ERR_OTP_EXPIRED: no pending recovery", body = ErrorBody),
        (status = 429, description = "ERR_OTP_RESEND_COOLDOWN, ERR_OTP_DAILY_LIMIT or ERR_TOO_MANY_ATTEMPTS (edge limit, with Retry-After)", body = ErrorBody),
    ))]
pub async fn resend(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    jar: CookieJar,
) -> ApiResult<Json<RecoveryResent>> {
    edge_limit(&state, "recovery", &ip, per_minute(&state)).await?;
    let reset_id = reset_id(&state, &jar)?;
    let answer = state
        .auth
        .clone()
        .resend_password_reset(ResendPasswordResetRequest { reset_id })
        .await?
        .into_inner();
    Ok(Json(RecoveryResent {
        expires_in_seconds: answer.expires_in_seconds,
        resend_after_seconds: answer.resend_after_seconds,
    }))
}

/// Sets the new password with the code; every session of the member ends.
#[utoipa::path(post, path = "/api/password-recovery/reset", tag = "recovery", request_body = RecoveryReset,
    responses(
        (status = 204, description = "Password set; recovery and session cookies cleared"),
        (status = 422, description = "ERR_WEAK_PASSWORD (newPassword), ERR_OTP_INVALID (code) or ERR_OTP_EXPIRED", body = ErrorBody),
        (status = 429, description = "ERR_OTP_TOO_MANY_ATTEMPTS", body = ErrorBody),
    ))]
pub async fn reset(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    jar: CookieJar,
    headers: HeaderMap,
    ApiJson(body): ApiJson<RecoveryReset>,
) -> ApiResult<(CookieJar, StatusCode)> {
    edge_limit(&state, "recovery", &ip, per_minute(&state)).await?;
    let reset_id = reset_id(&state, &jar)?;
    let answer = state
        .auth
        .clone()
        .complete_password_reset(CompletePasswordResetRequest {
            reset_id,
            code: body.code,
            new_password: body.new_password,
            user_agent: crate::user_agent::header(&headers),
        })
        .await
        .map_err(|status| {
            let error = ApiError::from(status);
            // The form shows a wrong code under its field.
            if error.body.code == ErrorCode::OtpInvalid && error.body.field.is_none() {
                error.with_field("code")
            } else {
                error
            }
        })?
        .into_inner();
    tracing::info!(
        revoked_sessions = answer.revoked_sessions,
        "password reset, sessions revoked"
    );
    Ok((state.cookies.clear_reset(jar), StatusCode::NO_CONTENT))
}
