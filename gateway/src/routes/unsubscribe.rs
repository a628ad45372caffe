//! Leaving the club, from the account area: the reasons, step 1 (the member confirms who they
//! are, with their current password) and step 2 (the reason, sent after the confirmation modal). Accounts does the work; on
//! success the gateway also clears the session cookies, since every session of the member has
//! just been revoked.

use axum::Json;
use axum::extract::State;
use axum_extra::extract::CookieJar;
use miclub_platform::error::ErrorBody;
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::{
    ListUnsubscribeReasonsRequest, UnsubscribeRequest, ValidateUnsubscribeRequest,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ClientIp, MemberToken};
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    pub id: i32,
    pub label: String,
    /// True for "Otro motivo": the member writes the reason.
    pub requires_text: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Reasons {
    pub reasons: Vec<Reason>,
}

/// Step 1: the member's own document and email.
#[derive(Debug, Deserialize, ToSchema)]
pub struct IdentityCheck {
    /// RUT in any common form, or a foreign document number.
    #[schema(
        min_length = 1,
        pattern = r"^\s*[0-9A-Za-z. -]*[0-9A-Za-z][0-9A-Za-z. -]*\s*$",
        example = "12.345.678-5"
    )]
    pub user: String,
    #[schema(format = Email, max_length = 254, example = "ana@example.cl")]
    pub email: String,
    /// The member's current password (step-up: the document and email alone are shown to
    /// whoever holds the session).
    #[serde(default, rename = "currentPassword")]
    #[schema(format = Password, min_length = 1, max_length = 256)]
    pub current_password: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityChecked {
    pub already_unsubscribed: bool,
    /// RFC 3339; present when already unsubscribed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsubscribed_at: Option<String>,
}

/// Step 2, sent once the member confirmed in the modal.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnsubscribeBody {
    #[schema(
        min_length = 1,
        pattern = r"^\s*[0-9A-Za-z. -]*[0-9A-Za-z][0-9A-Za-z. -]*\s*$",
        example = "12.345.678-5"
    )]
    pub user: String,
    #[schema(format = Email, max_length = 254, example = "ana@example.cl")]
    pub email: String,
    /// An id of `GET /api/unsubscribe/reasons`.
    #[schema(minimum = 1, maximum = 99, example = 1)]
    pub reason_id: i32,
    /// Required (1 to 500 characters) for a reason that requires text.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub reason_text: String,
    /// The member's current password (step-up).
    #[serde(default)]
    #[schema(format = Password, min_length = 1, max_length = 256)]
    pub current_password: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unsubscribed {
    /// RFC 3339.
    pub unsubscribed_at: String,
}

fn refused(status: tonic::Status) -> ApiError {
    ApiError::from(status).with_camel_case_field()
}

/// The reasons a member may give for leaving.
#[utoipa::path(get, path = "/api/unsubscribe/reasons", tag = "unsubscribe",
    responses((status = 200, body = Reasons), (status = 401, body = ErrorBody)))]
pub async fn reasons(
    State(state): State<AppState>,
    _member: MemberToken,
) -> ApiResult<Json<Reasons>> {
    let answer = state
        .accounts
        .clone()
        .list_unsubscribe_reasons(ListUnsubscribeReasonsRequest {})
        .await?
        .into_inner();
    Ok(Json(Reasons {
        reasons: answer
            .reasons
            .into_iter()
            .map(|r| Reason {
                id: r.id,
                label: r.label,
                requires_text: r.requires_text,
            })
            .collect(),
    }))
}

/// Step 1: checks the document and email are the member's own, and whether they already left.
#[utoipa::path(post, path = "/api/unsubscribe/validate", tag = "unsubscribe", request_body = IdentityCheck,
    responses(
        (status = 200, body = IdentityChecked),
        (status = 400, description = "ERR_INVALID_RUT (user), or ERR_INVALID_ARGUMENT (currentPassword missing)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 409, description = "ERR_EMAIL_CHANGED_RECENTLY: the restore link of an email change may still be used (the message gives the date)", body = ErrorBody),
        (status = 422, description = "ERR_IDENTITY_MISMATCH, or ERR_WRONG_PASSWORD (currentPassword)", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS with Retry-After", body = ErrorBody),
    ))]
pub async fn validate(
    State(state): State<AppState>,
    member: MemberToken,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<IdentityCheck>,
) -> ApiResult<Json<IdentityChecked>> {
    crate::rut::check_user("user", &body.user)?;
    let request = ValidateUnsubscribeRequest {
        user: body.user,
        email: body.email,
        current_password: body.current_password,
        client_ip: ip,
    };
    let answer = state
        .accounts
        .clone()
        .validate_unsubscribe(with_bearer(request, &member.token))
        .await
        .map_err(refused)?
        .into_inner();
    Ok(Json(IdentityChecked {
        already_unsubscribed: answer.already_unsubscribed,
        unsubscribed_at: Some(answer.unsubscribed_at).filter(|at| !at.is_empty()),
    }))
}

/// Step 2: the member leaves the club; their session ends with it.
#[utoipa::path(post, path = "/api/unsubscribe", tag = "unsubscribe", request_body = UnsubscribeBody,
    responses(
        (status = 200, description = "Unsubscribed; session cookies cleared", body = Unsubscribed),
        (status = 400, description = "ERR_INVALID_RUT (user), or ERR_INVALID_ARGUMENT (reasonId, reasonText or currentPassword)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 409, description = "ERR_ALREADY_UNSUBSCRIBED, or ERR_EMAIL_CHANGED_RECENTLY (nothing erased; the message gives the date)", body = ErrorBody),
        (status = 422, description = "ERR_IDENTITY_MISMATCH, or ERR_WRONG_PASSWORD (currentPassword)", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS with Retry-After", body = ErrorBody),
    ))]
pub async fn unsubscribe(
    State(state): State<AppState>,
    jar: CookieJar,
    member: MemberToken,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<UnsubscribeBody>,
) -> ApiResult<(CookieJar, Json<Unsubscribed>)> {
    crate::rut::check_user("user", &body.user)?;
    let request = UnsubscribeRequest {
        user: body.user,
        email: body.email,
        reason_id: body.reason_id,
        reason_text: body.reason_text,
        current_password: body.current_password,
        client_ip: ip,
    };
    let answer = state
        .accounts
        .clone()
        .unsubscribe(with_bearer(request, &member.token))
        .await
        .map_err(refused)?
        .into_inner();
    tracing::info!(member_id = %member.member_id, "member unsubscribed, session cookies cleared");
    Ok((
        state.cookies.clear_session(jar),
        Json(Unsubscribed {
            unsubscribed_at: answer.unsubscribed_at,
        }),
    ))
}
