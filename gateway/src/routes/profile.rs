//! Mis Datos: the gender options, the profile update with its email confirmation (a new email
//! needs the current password), the restore of a previous email from the change notice, and
//! the password change (behind the `changePasswordEnable` flag).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum_extra::extract::CookieJar;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::{
    ConfirmEmailRequest, ListGendersRequest, ResendEmailConfirmationRequest, RestoreEmailRequest,
    UpdateProfileRequest,
};
use miclub_proto::auth::v1::ChangePasswordRequest;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::account::User;
use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ClientIp, MemberToken};
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct Gender {
    pub id: i32,
    pub label: String,
}

/// The longest password auth reads (`Password::MAX_CHARS`), the `maxLength` of every password
/// field of the document.
const CURRENT_PASSWORD_MAX_CHARS: usize = 256;

/// What auth answers for a password it will not read (too long).
const INVALID_PASSWORD_MESSAGE: &str = "La contraseña ingresada no es válida.";

/// The editable fields of the profile; an empty string (or `gender_id` 0) clears an optional one.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ProfileUpdate {
    #[schema(format = Email, max_length = 254, example = "ana@example.cl")]
    pub email: String,
    #[schema(min_length = 1, max_length = 50, example = "Ana")]
    pub name: String,
    #[schema(min_length = 1, max_length = 50, example = "González")]
    pub last_name: String,
    #[serde(default)]
    #[schema(max_length = 50, example = "Pérez")]
    pub mother_surname: String,
    /// A Chilean mobile: `+569XXXXXXXX`, `569XXXXXXXX` or `9XXXXXXXX`, spaces ignored.
    #[serde(default)]
    #[schema(
        pattern = r"^\s*$|^\s*(\+?56\s*)?9(\s*[0-9]){8}\s*$",
        example = "+56911111111"
    )]
    pub phone_number: String,
    /// ISO `YYYY-MM-DD`, aged 18 to 120.
    #[serde(default)]
    #[schema(
        pattern = r"^\s*$|^\s*[0-9]{4}-[0-9]{2}-[0-9]{2}\s*$",
        example = "1988-03-14"
    )]
    pub birth_date: String,
    /// An id of `GET /api/profile/genders`.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 7, example = 1)]
    pub gender_id: Option<i32>,
    /// The member's current password: required when `email` differs from the current one
    /// (step-up), ignored otherwise.
    #[serde(default, rename = "currentPassword")]
    #[schema(format = Password, max_length = 256)]
    pub current_password: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileUpdated {
    pub user: User,
    /// True when the email changed and a confirmation link went to the new address.
    pub email_confirmation_sent: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct EmailConfirmation {
    /// The token of the link `/confirmar-correo?token=…`.
    pub token: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailConfirmed {
    pub masked_email: String,
}

/// What opening a confirmation link did.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailConfirmationOutcome {
    /// The address confirmed now, masked; empty when `alreadyConfirmed`.
    pub masked_email: String,
    /// A second open of a link that already confirmed the address the member still has:
    /// nothing changed, and the page offers to log in. A 200 rather than an error: the member
    /// got what the link is for, and the page shows it as such.
    pub already_confirmed: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct EmailRestore {
    /// The token of the link `/restaurar-correo?token=…` of the "Tu correo de Mi Club cambió"
    /// notice.
    pub token: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasswordChange {
    #[schema(format = Password, min_length = 1, max_length = 256)]
    pub current_password: String,
    #[schema(format = Password, min_length = 8, max_length = 64)]
    pub new_password: String,
}

/// The gender options of the profile form (the web app falls back to the spec's list).
#[utoipa::path(get, path = "/api/profile/genders", tag = "profile",
    responses((status = 200, body = [Gender]), (status = 503, body = ErrorBody)))]
pub async fn genders(State(state): State<AppState>) -> ApiResult<Json<Vec<Gender>>> {
    let answer = state
        .accounts
        .clone()
        .list_genders(ListGendersRequest {})
        .await?
        .into_inner();
    Ok(Json(
        answer
            .genders
            .into_iter()
            .map(|g| Gender {
                id: g.id,
                label: g.label,
            })
            .collect(),
    ))
}

/// Replaces the editable fields of the profile; a new email needs the current password and
/// must be confirmed by link.
#[utoipa::path(put, path = "/api/profile", tag = "profile", request_body = ProfileUpdate,
    responses(
        (status = 200, body = ProfileUpdated),
        (status = 400, description = "ERR_INVALID_ARGUMENT with the field and its Spanish message (currentPassword when the email changes without it, or when it is longer than 256 characters)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 422, description = "ERR_WRONG_PASSWORD (currentPassword): nothing changed", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS with Retry-After", body = ErrorBody),
    ))]
pub async fn update(
    State(state): State<AppState>,
    member: MemberToken,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<ProfileUpdate>,
) -> ApiResult<Json<ProfileUpdated>> {
    // The document's limit holds whether or not the email changes: accounts reads the password
    // only for a new email, and auth refuses a longer one there, so refuse it here for both.
    if body.current_password.chars().count() > CURRENT_PASSWORD_MAX_CHARS {
        return Err(ApiError::new(ErrorCode::InvalidArgument)
            .with_field("currentPassword")
            .with_message(INVALID_PASSWORD_MESSAGE)
            .with_cause("currentPassword longer than the document's limit"));
    }
    let request = UpdateProfileRequest {
        email: body.email,
        name: body.name,
        last_name: body.last_name,
        mother_surname: body.mother_surname,
        phone_number: body.phone_number,
        birth_date: body.birth_date,
        gender_id: body.gender_id.unwrap_or(0),
        current_password: body.current_password,
        client_ip: ip,
    };
    let answer = state
        .accounts
        .clone()
        .update_profile(with_bearer(request, &member.token))
        .await
        .map_err(step_up_field)?
        .into_inner();
    if answer.email_confirmation_sent {
        tracing::info!(member_id = %member.member_id, "email changed, confirmation sent");
    }
    Ok(Json(ProfileUpdated {
        user: User::from(answer.member.unwrap_or_default()),
        email_confirmation_sent: answer.email_confirmation_sent,
    }))
}

/// Mails a new confirmation link for the member's unconfirmed email.
#[utoipa::path(post, path = "/api/profile/email/resend", tag = "profile",
    responses(
        (status = 204, description = "Link sent"),
        (status = 401, body = ErrorBody),
        (status = 409, description = "ERR_EMAIL_ALREADY_CONFIRMED", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS", body = ErrorBody),
    ))]
pub async fn resend_confirmation(
    State(state): State<AppState>,
    member: MemberToken,
) -> ApiResult<StatusCode> {
    state
        .accounts
        .clone()
        .resend_email_confirmation(with_bearer(
            ResendEmailConfirmationRequest {},
            &member.token,
        ))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Confirms an email with the token of its link; no session needed.
#[utoipa::path(post, path = "/api/profile/email/confirm", tag = "profile", request_body = EmailConfirmation,
    responses(
        (status = 200, description = "Confirmed now, or `alreadyConfirmed` when the link was used before for the address the member still has", body = EmailConfirmationOutcome),
        (status = 404, description = "ERR_CONFIRMATION_INVALID: unknown, expired, superseded, or used for an address the member no longer has", body = ErrorBody),
    ))]
pub async fn confirm_email(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<EmailConfirmation>,
) -> ApiResult<Json<EmailConfirmationOutcome>> {
    let answer = state
        .accounts
        .clone()
        .confirm_email(ConfirmEmailRequest { token: body.token })
        .await?
        .into_inner();
    Ok(Json(EmailConfirmationOutcome {
        masked_email: answer.masked_email,
        already_confirmed: answer.already_confirmed,
    }))
}

/// Restores the previous email with the token of the change notice's link; no session needed.
/// The member's sessions are ended by auth; this answer touches no cookie.
#[utoipa::path(post, path = "/api/profile/email/restore", tag = "profile", request_body = EmailRestore,
    responses(
        (status = 200, description = "The previous address is the confirmed email again; every session of the member ended", body = EmailConfirmed),
        (status = 404, description = "ERR_CONFIRMATION_INVALID: unknown, used or expired (7 days)", body = ErrorBody),
        (status = 503, body = ErrorBody),
    ))]
pub async fn restore_email(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<EmailRestore>,
) -> ApiResult<Json<EmailConfirmed>> {
    let answer = state
        .accounts
        .clone()
        .restore_email(RestoreEmailRequest { token: body.token })
        .await?
        .into_inner();
    tracing::info!("previous email restored from the change notice");
    Ok(Json(EmailConfirmed {
        masked_email: answer.masked_email,
    }))
}

/// The profile body is snake_case, but its step-up field is `currentPassword`, as in the
/// password change: accounts' `current_password` is renamed so the form finds it.
fn step_up_field(status: tonic::Status) -> ApiError {
    let mut err = ApiError::from(status);
    if err.body.field.as_deref() == Some("current_password") {
        err.body.field = Some("currentPassword".into());
    }
    err
}

/// Changes the password; every session of the member ends, this one included.
#[utoipa::path(post, path = "/api/profile/password", tag = "profile", request_body = PasswordChange,
    responses(
        (status = 204, description = "Changed; every session revoked and the cookies cleared"),
        (status = 401, body = ErrorBody),
        (status = 403, description = "ERR_FORBIDDEN: changePasswordEnable is off", body = ErrorBody),
        (status = 422, description = "ERR_WRONG_PASSWORD (currentPassword) or ERR_WEAK_PASSWORD (newPassword)", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS, with Retry-After: wrong current passwords count toward the password throttle of (account, client address)", body = ErrorBody),
    ))]
pub async fn change_password(
    State(state): State<AppState>,
    jar: CookieJar,
    member: MemberToken,
    crate::extract::ClientIp(client_ip): crate::extract::ClientIp,
    ApiJson(body): ApiJson<PasswordChange>,
) -> ApiResult<(CookieJar, StatusCode)> {
    if !state.flags.current().await.change_password_enable {
        return Err(ApiError::new(ErrorCode::Forbidden)
            .with_message("El cambio de contraseña no está disponible en este momento."));
    }
    let request = ChangePasswordRequest {
        current_password: body.current_password,
        new_password: body.new_password,
        client_ip,
    };
    let answer = state
        .auth
        .clone()
        .change_password(with_bearer(request, &member.token))
        .await?
        .into_inner();
    tracing::info!(
        member_id = %member.member_id,
        revoked_sessions = answer.revoked_sessions,
        "password changed, sessions revoked"
    );
    Ok((state.cookies.clear_session(jar), StatusCode::NO_CONTENT))
}
