//! Terms and conditions: the text in force (public, from content) and the member's decision
//! on it (accounts records it with the version the member was shown).

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::RecordTermsDecisionRequest;
use miclub_proto::content::v1::GetCurrentTermsRequest;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::account::TermsAgreement;
use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, MemberToken};
use crate::state::AppState;

/// What a member reads when the terms changed between reading them and deciding.
pub const TERMS_CHANGED_MESSAGE: &str =
    "Los términos y condiciones cambiaron mientras los leías. Revisa la nueva versión.";

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Terms {
    pub version: String,
    pub title: String,
    /// Plain text; paragraphs are separated by a blank line.
    pub body: String,
    pub published_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TermsDecisionBody {
    pub accept_terms_and_conditions: bool,
    /// The version the member was shown (the GET's `version`). When given and no longer the
    /// one in force (a new version came out while they read), nothing is recorded and the
    /// answer is 409 ERR_CONFLICT: a decision always applies to the text the member read.
    /// Without it, the decision applies to the version in force (the spec's body).
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TermsDecided {
    pub terms_agreement: TermsAgreement,
    /// The version the decision applies to.
    pub version: String,
}

pub(super) async fn current_terms(state: &AppState) -> ApiResult<miclub_proto::content::v1::Terms> {
    state
        .content
        .clone()
        .get_current_terms(GetCurrentTermsRequest {})
        .await?
        .into_inner()
        .terms
        .ok_or_else(|| {
            ApiError::new(ErrorCode::Internal).with_cause("content answered without terms")
        })
}

/// The terms and conditions in force; anyone may read them.
#[utoipa::path(get, path = "/api/terms-and-conditions", tag = "terms", operation_id = "getTerms",
    responses((status = 200, body = Terms), (status = 503, body = ErrorBody)))]
pub async fn current(
    State(state): State<AppState>,
) -> ApiResult<([(header::HeaderName, &'static str); 1], Json<Terms>)> {
    let terms = current_terms(&state).await?;
    Ok((
        [(header::CACHE_CONTROL, "no-cache")],
        Json(Terms {
            version: terms.version,
            title: terms.title,
            body: terms.body,
            published_at: terms.published_at,
        }),
    ))
}

/// Records the member's acceptance or rejection of the terms in force.
#[utoipa::path(post, path = "/api/terms-and-conditions", tag = "terms", request_body = TermsDecisionBody,
    responses(
        (status = 200, body = TermsDecided),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 409, description = "ERR_CONFLICT (field version): the version shown is no longer the one in force; nothing recorded", body = ErrorBody),
        (status = 503, body = ErrorBody),
    ))]
pub async fn decide(
    State(state): State<AppState>,
    member: MemberToken,
    ApiJson(body): ApiJson<TermsDecisionBody>,
) -> ApiResult<Json<TermsDecided>> {
    // The version comes from content, not from the browser: the member decides on what is in
    // force now.
    let version = current_terms(&state).await?.version;
    if let Some(shown) = body.version.as_deref()
        && shown != version
    {
        return Err(ApiError::new(ErrorCode::Conflict)
            .with_field("version")
            .with_message(TERMS_CHANGED_MESSAGE));
    }
    let request = RecordTermsDecisionRequest {
        accepted: body.accept_terms_and_conditions,
        terms_version: version.clone(),
    };
    let answer = state
        .accounts
        .clone()
        .record_terms_decision(with_bearer(request, &member.token))
        .await?
        .into_inner();
    tracing::info!(
        member_id = %member.member_id,
        accepted = body.accept_terms_and_conditions,
        version = %version,
        "terms decision recorded"
    );
    Ok(Json(TermsDecided {
        terms_agreement: answer.terms_agreement.unwrap_or_default().into(),
        version,
    }))
}
