//! The digital member card (#21 part 1): what /mi-club/tarjeta draws as a Code 128 barcode and
//! keeps for offline use. One call to accounts' `GetMemberCard`, which reads the names, the
//! card number and the balance together; the member is the session's, nothing in the request
//! names one.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::error::ErrorBody;
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::GetMemberCardRequest;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiResult;
use crate::extract::MemberToken;
use crate::state::AppState;

/// The member card.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberCard {
    #[schema(example = "Ana")]
    pub name: String,
    #[schema(example = "González")]
    pub last_name: String,
    /// 12 decimal digits, the first 1-9, the last the Luhn check digit of the first 11: the
    /// barcode's content, scanned at the till instead of the RUT.
    #[schema(example = "479201356629", pattern = "^[1-9][0-9]{11}$")]
    pub card_number: String,
    /// Whole pesos, as `GET /api/balance` gives them.
    #[schema(example = 12345)]
    pub balance: i64,
    /// RFC 3339 instant of the last movement that changed the balance (`updatedAt` of
    /// `GET /api/balance`).
    #[schema(example = "2026-11-20T15:04:05Z")]
    pub balance_updated_at: String,
    /// RFC 3339 instant this answer was read; the card shows "Actualizado el …" from it when
    /// offline.
    #[schema(example = "2026-11-25T12:00:00Z")]
    pub as_of: String,
}

/// The logged-in member's card, never cached.
#[utoipa::path(get, path = "/api/card", tag = "account",
    responses(
        (status = 200, body = MemberCard, headers(("cache-control" = String, description = "no-store"))),
        (status = 401, body = ErrorBody),
        (status = 403, description = "ERR_MEMBER_UNSUBSCRIBED: the member left the club (a token still alive)", body = ErrorBody),
        (status = 406, description = "ERR_NO_CLUB_ACCOUNT: the member has no club account", body = ErrorBody),
        (status = 503, body = ErrorBody),
    ))]
pub async fn card(
    State(state): State<AppState>,
    member: MemberToken,
) -> ApiResult<([(header::HeaderName, &'static str); 1], Json<MemberCard>)> {
    let answer = state
        .accounts
        .clone()
        .get_member_card(with_bearer(GetMemberCardRequest {}, &member.token))
        .await?
        .into_inner();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(MemberCard {
            name: answer.name,
            last_name: answer.last_name,
            card_number: answer.card_number,
            balance: answer.balance,
            balance_updated_at: answer.balance_updated_at,
            as_of: answer.as_of,
        }),
    ))
}
