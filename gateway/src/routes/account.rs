//! The member's own data: profile and club balance.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::error::ErrorBody;
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::{GetBalanceRequest, GetMemberRequest, Member, TermsDecision};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiResult;
use crate::extract::MemberToken;
use crate::state::AppState;

/// The user of spec section 3, "User returned by login".
#[derive(Debug, Serialize, ToSchema)]
pub struct User {
    pub name: String,
    pub last_name: String,
    pub mother_surname: String,
    pub phone_number: String,
    pub gender_id: Option<i32>,
    pub birth_date: Option<String>,
    pub email: String,
    pub terms_agreement: TermsAgreement,
    /// False after an email change until the member opens the confirmation link.
    pub email_confirmed: bool,
    /// "RUT" or "FOREIGN". Not a name of the spec: camelCase, as every such field.
    #[serde(rename = "documentType")]
    pub document_type: String,
    /// Canonical, e.g. "11111111-1"; read-only.
    #[serde(rename = "documentNumber")]
    pub document_number: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TermsAgreement {
    /// "accepted", "rejected", or null when the member never decided.
    pub agreement: Option<&'static str>,
    pub event_date: Option<String>,
    /// The version of the terms decided on (GET /api/terms-and-conditions' `version` names the
    /// one in force); null without a decision or for one older than versions. When it is not
    /// the version in force, the web asks the member to decide on the new one.
    pub version: Option<String>,
}

pub(crate) fn non_empty(value: String) -> Option<String> {
    (!value.is_empty()).then_some(value)
}

impl From<miclub_proto::accounts::v1::TermsAgreement> for TermsAgreement {
    fn from(terms: miclub_proto::accounts::v1::TermsAgreement) -> Self {
        let agreement = match TermsDecision::try_from(terms.decision) {
            Ok(TermsDecision::Accepted) => Some("accepted"),
            Ok(TermsDecision::Rejected) => Some("rejected"),
            _ => None,
        };
        TermsAgreement {
            agreement,
            event_date: non_empty(terms.event_date),
            version: non_empty(terms.version),
        }
    }
}

impl From<Member> for User {
    fn from(member: Member) -> Self {
        User {
            name: member.name,
            last_name: member.last_name,
            mother_surname: member.mother_surname,
            phone_number: member.phone_number,
            gender_id: (member.gender_id != 0).then_some(member.gender_id),
            birth_date: non_empty(member.birth_date),
            email: member.email,
            terms_agreement: member.terms_agreement.unwrap_or_default().into(),
            email_confirmed: member.email_confirmed,
            document_type: member.document_type,
            document_number: member.document_number,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Balance {
    /// Whole pesos.
    pub balance: i64,
    pub updated_at: Option<String>,
}

/// The logged-in member's profile.
#[utoipa::path(get, path = "/api/profile", tag = "account",
    responses((status = 200, body = User), (status = 401, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn profile(State(state): State<AppState>, member: MemberToken) -> ApiResult<Json<User>> {
    let answer = state
        .accounts
        .clone()
        .get_member(with_bearer(GetMemberRequest {}, &member.token))
        .await?;
    Ok(Json(User::from(
        answer.into_inner().member.unwrap_or_default(),
    )))
}

/// The logged-in member's club balance, never cached.
#[utoipa::path(get, path = "/api/balance", tag = "account",
    responses(
        (status = 200, body = Balance, headers(("cache-control" = String, description = "no-store"))),
        (status = 401, body = ErrorBody),
        (status = 406, description = "ERR_NO_CLUB_ACCOUNT: the member has no club account", body = ErrorBody),
        (status = 503, body = ErrorBody),
    ))]
pub async fn balance(
    State(state): State<AppState>,
    member: MemberToken,
) -> ApiResult<([(header::HeaderName, &'static str); 1], Json<Balance>)> {
    let answer = state
        .accounts
        .clone()
        .get_balance(with_bearer(GetBalanceRequest {}, &member.token))
        .await?
        .into_inner();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(Balance {
            balance: answer.balance,
            updated_at: non_empty(answer.updated_at),
        }),
    ))
}
