//! Joining in place: a logged-in member without a club account (the 406 of `/api/balance`)
//! opens one from Mi Cuenta, accepting the terms in force. The member is the session's; the
//! body carries only the decision, so no request can open someone else's account.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use miclub_platform::error::ErrorBody;
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::OpenClubAccountRequest;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::account::{TermsAgreement, non_empty};
use super::session::edge_limit;
use super::terms::current_terms;
use crate::error::ApiResult;
use crate::extract::{ApiJson, MemberToken};
use crate::state::AppState;

/// Only the decision: a body naming a member (or anything else) is refused with 400, so nobody
/// is led to believe a request could choose whose account opens.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenAccountBody {
    /// Must be true: joining means accepting the terms in force.
    pub accept_terms_and_conditions: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClubAccount {
    /// Whole pesos: 0 right after joining.
    pub balance: i64,
    pub updated_at: Option<String>,
    /// True when this request opened the account; false when it was already open.
    pub opened: bool,
    /// The version of the terms accepted with this request (the one in force).
    pub terms_version: String,
    #[serde(rename = "terms_agreement")]
    pub terms_agreement: TermsAgreement,
}

/// Opens the logged-in member's club account, with the terms in force accepted. Idempotent:
/// a repeated request (a double click, a retry after a lost answer) finds the account open and
/// answers 200 with its balance, writing nothing.
#[utoipa::path(post, path = "/api/account", tag = "account", request_body = OpenAccountBody,
    responses(
        (status = 201, description = "The club account was opened", body = ClubAccount),
        (status = 200, description = "The club account was already open: nothing changed", body = ClubAccount),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "ERR_CSRF, or ERR_MEMBER_UNSUBSCRIBED for a member who left", body = ErrorBody),
        (status = 422, description = "ERR_TERMS_NOT_ACCEPTED", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS (edge limit per member, with Retry-After)", body = ErrorBody),
        (status = 503, body = ErrorBody),
    ))]
pub async fn open(
    State(state): State<AppState>,
    member: MemberToken,
    ApiJson(body): ApiJson<OpenAccountBody>,
) -> ApiResult<(StatusCode, Json<ClubAccount>)> {
    // Counted per member, not per address: the member is known, and a flood from one session
    // should not spend the budget of others behind the same NAT.
    let per_minute = state.settings.registration_requests_per_minute;
    edge_limit(&state, "join", member.member_id.as_str(), per_minute).await?;
    // The version comes from content, not from the browser: the member accepts what is in
    // force now.
    let version = current_terms(&state).await?.version;
    let request = OpenClubAccountRequest {
        accept_terms: body.accept_terms_and_conditions,
        terms_version: version.clone(),
    };
    let answer = state
        .accounts
        .clone()
        .open_club_account(with_bearer(request, &member.token))
        .await?
        .into_inner();
    tracing::info!(
        member_id = %member.member_id,
        opened = answer.opened,
        version = %version,
        "club account requested from mi cuenta"
    );
    let status = if answer.opened {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        Json(ClubAccount {
            balance: answer.balance,
            updated_at: non_empty(answer.updated_at),
            opened: answer.opened,
            terms_version: version,
            terms_agreement: answer.terms_agreement.unwrap_or_default().into(),
        }),
    ))
}
