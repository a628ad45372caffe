//! Mis Movimientos: one page of the member's movements in a calendar month.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::{ListMovementsRequest, MovementKind, MovementStatus};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiQuery, MemberToken};
use crate::state::AppState;

/// Query of `GET /api/movements`. Strings, so a malformed number gets the Spanish field error
/// instead of a bare rejection.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MovementsQuery {
    /// e.g. 2026; from 2000 to next year.
    #[param(value_type = i32, required = true, minimum = 2000, example = 2026)]
    pub year: Option<String>,
    /// 1-12
    #[param(value_type = i32, required = true, minimum = 1, maximum = 12, example = 11)]
    pub month: Option<String>,
    /// 1-based; default 1 (0 is the first page too).
    #[param(value_type = i32, required = false, minimum = 0, maximum = 10_000)]
    pub page: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MovementItem {
    pub id: String,
    /// "accrual", "redemption", "expiration" or "adjustment".
    pub kind: &'static str,
    /// "pending" or "confirmed".
    pub status: &'static str,
    /// Signed whole pesos.
    pub amount: i64,
    pub description: String,
    pub occurred_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MovementsPage {
    pub year: i32,
    pub month: i32,
    pub page: i32,
    pub page_size: i32,
    pub total_count: i64,
    pub total_pages: i32,
    pub items: Vec<MovementItem>,
}

fn number(
    raw: Option<String>,
    field: &'static str,
    message: &'static str,
) -> ApiResult<Option<i32>> {
    match raw.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => text.parse::<i32>().map(Some).map_err(|_| {
            ApiError::new(ErrorCode::InvalidArgument)
                .with_message(message)
                .with_field(field)
        }),
    }
}

fn required(value: Option<i32>, field: &'static str, message: &'static str) -> ApiResult<i32> {
    value.ok_or_else(|| {
        ApiError::new(ErrorCode::InvalidArgument)
            .with_message(message)
            .with_field(field)
    })
}

/// The member's movements of one month (America/Santiago), newest first, 10 per page.
#[utoipa::path(get, path = "/api/movements", tag = "account", operation_id = "getMovements", params(MovementsQuery),
    responses(
        (status = 200, body = MovementsPage, headers(("cache-control" = String, description = "no-store"))),
        (status = 400, description = "ERR_INVALID_ARGUMENT with field year, month or page", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 406, description = "ERR_NO_CLUB_ACCOUNT", body = ErrorBody),
    ))]
pub async fn list(
    State(state): State<AppState>,
    member: MemberToken,
    ApiQuery(query): ApiQuery<MovementsQuery>,
) -> ApiResult<([(header::HeaderName, &'static str); 1], Json<MovementsPage>)> {
    const YEAR: &str = "Elige un año válido.";
    const MONTH: &str = "Elige un mes válido.";
    const PAGE: &str = "Elige una página válida.";
    let year = required(number(query.year, "year", YEAR)?, "year", YEAR)?;
    let month = required(number(query.month, "month", MONTH)?, "month", MONTH)?;
    // Left out, the page is the first; named, it is the document's integer: `page=` is refused
    // like `page=x`, not read as left out.
    if query.page.as_deref().is_some_and(|p| p.trim().is_empty()) {
        return Err(ApiError::new(ErrorCode::InvalidArgument)
            .with_message(PAGE)
            .with_field("page"));
    }
    let page = number(query.page, "page", PAGE)?.unwrap_or(1);
    let request = ListMovementsRequest {
        year,
        month,
        page,
        page_size: 0,
    };
    let answer = state
        .accounts
        .clone()
        .list_movements(with_bearer(request, &member.token))
        .await?
        .into_inner();
    let items = answer
        .movements
        .into_iter()
        .map(|m| MovementItem {
            kind: match MovementKind::try_from(m.kind) {
                Ok(MovementKind::Accrual) => "accrual",
                Ok(MovementKind::Redemption) => "redemption",
                Ok(MovementKind::Expiration) => "expiration",
                _ => "adjustment",
            },
            status: match MovementStatus::try_from(m.status) {
                Ok(MovementStatus::Pending) => "pending",
                _ => "confirmed",
            },
            id: m.movement_id,
            amount: m.amount,
            description: m.description,
            occurred_at: m.occurred_at,
        })
        .collect();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(MovementsPage {
            year,
            month,
            page: answer.page,
            page_size: answer.page_size,
            total_count: answer.total_count,
            total_pages: answer.total_pages,
            items,
        }),
    ))
}
