//! Mis Movimientos: one page of the member's movements in a calendar month, and one movement
//! explained (#21): for a purchase's accrual, its lines by category with the rule, rate and pesos
//! of each as they were computed when the purchase was posted.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1::{
    self as pb, GetMovementDetailRequest, ListMovementsRequest, MovementKind, MovementStatus,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiPath, ApiQuery, MemberToken};
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

fn item(m: pb::Movement) -> MovementItem {
    MovementItem {
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
    }
}

/// One line of a purchase as the rule engine accrued it, posted (a movement's explanation) or
/// estimated (the simulator's answer): one schema, so one component shows both.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccrualLine {
    /// "meat", "fruits_and_vegetables", "cleaning", "drinks" or "other".
    pub category: String,
    /// Whole pesos paid for the line.
    pub amount: i64,
    /// Pesos earned: `floor(amount * rateBp / 10000)`.
    pub earned: i64,
    /// The rate applied, in basis points (300 = 3%).
    pub rate_bp: i32,
    /// The rule applied, as the member reads it ("Martes 3% en frutas y verduras").
    pub rule: String,
}

/// The purchase behind an accrual, as it was posted.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PurchaseDetail {
    pub store_name: String,
    /// RFC 3339.
    pub purchased_at: String,
    /// The day in Chile the rules looked at: 1 = lunes … 7 = domingo.
    #[schema(minimum = 1, maximum = 7)]
    pub week_day: i32,
    /// "partner_card" (Tarjeta Lider BCI), "other_card" or "cash".
    pub payment_method: &'static str,
    /// Whole pesos paid.
    pub total: i64,
    /// Pesos accrued: the sum of the lines' `earned`, the movement's amount.
    pub accrued: i64,
    /// Version of the accrual rules that posted it.
    pub rules_version: String,
    /// One per line of the purchase, in the order posted; null for a purchase posted before
    /// explanations were stored (no breakdown is available, and none is recomputed).
    pub lines: Option<Vec<AccrualLine>>,
}

/// A movement explained.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MovementDetail {
    pub id: String,
    /// "accrual", "redemption", "expiration" or "adjustment".
    pub kind: &'static str,
    /// "pending" or "confirmed".
    pub status: &'static str,
    /// Signed whole pesos.
    pub amount: i64,
    pub description: String,
    pub occurred_at: String,
    /// RFC 3339 instant a confirmed movement counted in the balance; null while pending.
    pub confirmed_at: Option<String>,
    /// RFC 3339 instant a pending accrual is due to confirm (its purchase's return window
    /// closes); null once confirmed.
    pub confirms_at: Option<String>,
    /// The purchase of an accrual; null for any other movement (and an accrual without one).
    pub purchase: Option<PurchaseDetail>,
}

fn category_name(raw: i32) -> &'static str {
    match pb::Category::try_from(raw) {
        Ok(pb::Category::Meat) => "meat",
        Ok(pb::Category::FruitsAndVegetables) => "fruits_and_vegetables",
        Ok(pb::Category::Cleaning) => "cleaning",
        Ok(pb::Category::Drinks) => "drinks",
        _ => "other",
    }
}

fn payment_name(raw: i32) -> &'static str {
    match pb::PaymentMethod::try_from(raw) {
        Ok(pb::PaymentMethod::PartnerCard) => "partner_card",
        Ok(pb::PaymentMethod::OtherCard) => "other_card",
        _ => "cash",
    }
}

fn present(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

fn purchase_detail(p: pb::PurchaseExplanation) -> PurchaseDetail {
    PurchaseDetail {
        lines: p.has_breakdown.then(|| {
            p.lines
                .into_iter()
                .map(|l| AccrualLine {
                    category: category_name(l.category).to_owned(),
                    amount: l.amount,
                    earned: l.earned,
                    rate_bp: l.rate_bp,
                    rule: l.rule,
                })
                .collect()
        }),
        store_name: p.store_name,
        purchased_at: p.purchased_at,
        week_day: p.week_day,
        payment_method: payment_name(p.payment_method),
        total: p.total,
        accrued: p.accrued,
        rules_version: p.rules_version,
    }
}

/// The member's own movement `movementId`, explained: for a purchase's accrual the lines by
/// category, each with its rule, rate and pesos as computed when the purchase was posted;
/// pending or confirmed, and when. Another member's movement is a 404 like an unknown id.
#[utoipa::path(get, path = "/api/movements/{movementId}", tag = "account", operation_id = "getMovementDetail",
    params(("movementId" = String, Path, description = "The movement's id, as listed by GET /api/movements", max_length = 64)),
    responses(
        (status = 200, body = MovementDetail, headers(("cache-control" = String, description = "no-store"))),
        (status = 400, description = "ERR_INVALID_ARGUMENT with field movementId: a malformed id", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, description = "ERR_NOT_FOUND: no movement of the member has this id", body = ErrorBody),
    ))]
pub async fn detail(
    State(state): State<AppState>,
    member: MemberToken,
    ApiPath(movement_id): ApiPath<String>,
) -> ApiResult<(
    [(header::HeaderName, &'static str); 1],
    Json<MovementDetail>,
)> {
    // A segment that is not even text (`%FF`) never reaches accounts, which judges the rest.
    let answer = state
        .accounts
        .clone()
        .get_movement_detail(with_bearer(
            GetMovementDetailRequest { movement_id },
            &member.token,
        ))
        .await
        .map_err(|status| ApiError::from(status).with_camel_case_field())?
        .into_inner();
    let detail = answer
        .detail
        .ok_or_else(|| ApiError::new(ErrorCode::Internal).with_cause("detail missing"))?;
    let movement = item(
        detail
            .movement
            .ok_or_else(|| ApiError::new(ErrorCode::Internal).with_cause("movement missing"))?,
    );
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(MovementDetail {
            id: movement.id,
            kind: movement.kind,
            status: movement.status,
            amount: movement.amount,
            description: movement.description,
            occurred_at: movement.occurred_at,
            confirmed_at: present(detail.confirmed_at),
            confirms_at: present(detail.confirms_at),
            purchase: detail.purchase.map(purchase_detail),
        }),
    ))
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
    let items = answer.movements.into_iter().map(item).collect();
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
