//! Public content from the content service: promotions (`/promociones`), partner benefits
//! (`/alianzas`), campaign banners, FAQs (general and `/preguntas-login`), and the
//! accumulation simulator, which answers with the same rule engine as purchase posting.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_proto::content::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::movements::AccrualLine;
use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

/// Content changes rarely; browsers and proxies may keep it for a minute.
type Cached<T> = ([(header::HeaderName, &'static str); 1], Json<T>);

fn cached<T>(body: T) -> Cached<T> {
    ([(header::CACHE_CONTROL, "public, max-age=60")], Json(body))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Promotion {
    pub id: String,
    pub title: String,
    pub description: String,
    pub image_url: String,
    pub link_url: String,
    pub badge: String,
    pub starts_on: String,
    pub ends_on: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Promotions {
    pub promotions: Vec<Promotion>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Alliance {
    pub id: String,
    pub partner: String,
    pub title: String,
    pub description: String,
    pub image_url: String,
    pub link_url: String,
    pub conditions: String,
    pub starts_on: String,
    pub ends_on: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Alliances {
    pub alliances: Vec<Alliance>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Banner {
    pub id: String,
    pub title: String,
    pub subtitle: String,
    pub image_url: String,
    pub image_alt: String,
    pub link_url: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Banners {
    pub banners: Vec<Banner>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Faq {
    pub id: String,
    pub question: String,
    pub answer: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Faqs {
    pub faqs: Vec<Faq>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FaqQuery {
    /// `general` (default) or `login`.
    #[param(pattern = "^(general|login)$")]
    pub audience: Option<String>,
}

/// The simulator's form: the weekday and the five amounts of the spec, in whole pesos. The
/// numbers are read loosely so that "not a number" is answered under its field, not as a bad
/// body; content checks the ranges. An amount left out is 0, so none is required; `null` is not
/// a number and is refused like one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulatorRequest {
    /// 1 = lunes … 7 = domingo.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = i32, required = true, minimum = 1, maximum = 7, example = 1)]
    pub week_day: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = i64, required = false, minimum = 0, maximum = 10_000_000, example = 10_000)]
    pub meat_amount: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = i64, required = false, minimum = 0, maximum = 10_000_000)]
    pub fruits_and_vegetables_amount: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = i64, required = false, minimum = 0, maximum = 10_000_000)]
    pub cleaning_amount: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = i64, required = false, minimum = 0, maximum = 10_000_000)]
    pub drinks_amount: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = i64, required = false, minimum = 0, maximum = 10_000_000)]
    pub other_amount: Option<serde_json::Value>,
    /// Paying with the partner bank card (Lider BCI).
    #[serde(default)]
    pub partner_card: bool,
}

/// A field that is in the body, `null` included (a bare `Option` would read `null` as left out).
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(deserializer).map(Some)
}

/// A whole number of pesos, or the field's error. Absent is 0; `null`, as the document says, is
/// no number.
fn whole(field: &'static str, value: Option<serde_json::Value>, message: &str) -> ApiResult<i64> {
    match value {
        None => Ok(0),
        Some(serde_json::Value::Number(n)) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| {
                ApiError::new(ErrorCode::InvalidArgument)
                    .with_field(field)
                    .with_message(message)
            }),
        Some(_) => Err(ApiError::new(ErrorCode::InvalidArgument)
            .with_field(field)
            .with_message(message)),
    }
}

const NOT_AN_AMOUNT: &str = "Ingresa el monto en pesos, sin decimales.";

/// A price discount at the till (the Monday bank-card offer): money off the purchase, shown
/// apart and never part of the pesos earned.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BankCardDiscount {
    /// Pesos off the whole cart.
    pub pesos: i64,
    pub rate_bp: i32,
    pub description: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulatorResult {
    /// Pesos earned in the club account; a discount is never in it.
    pub total_earned: i64,
    pub rules_version: String,
    /// One per category of the cart, the same line a posted purchase's explanation has.
    pub lines: Vec<AccrualLine>,
    /// The discount the cart gets at the till, or null when none applies.
    pub bank_card_discount: Option<BankCardDiscount>,
}

/// Promotions in force, in display order.
#[utoipa::path(get, path = "/api/promotions", tag = "content",
    responses((status = 200, body = Promotions), (status = 503, body = ErrorBody)))]
pub async fn promotions(State(state): State<AppState>) -> ApiResult<Cached<Promotions>> {
    let answer = state
        .content
        .clone()
        .list_promotions(pb::ListPromotionsRequest {})
        .await?
        .into_inner();
    Ok(cached(Promotions {
        promotions: answer
            .promotions
            .into_iter()
            .map(|p| Promotion {
                id: p.id,
                title: p.title,
                description: p.description,
                image_url: p.image_url,
                link_url: p.link_url,
                badge: p.badge,
                starts_on: p.starts_on,
                ends_on: p.ends_on,
            })
            .collect(),
    }))
}

/// Partner (bank card) benefits in force, in display order.
#[utoipa::path(get, path = "/api/alliances", tag = "content",
    responses((status = 200, body = Alliances), (status = 503, body = ErrorBody)))]
pub async fn alliances(State(state): State<AppState>) -> ApiResult<Cached<Alliances>> {
    let answer = state
        .content
        .clone()
        .list_alliances(pb::ListAlliancesRequest {})
        .await?
        .into_inner();
    Ok(cached(Alliances {
        alliances: answer
            .alliances
            .into_iter()
            .map(|a| Alliance {
                id: a.id,
                partner: a.partner,
                title: a.title,
                description: a.description,
                image_url: a.image_url,
                link_url: a.link_url,
                conditions: a.conditions,
                starts_on: a.starts_on,
                ends_on: a.ends_on,
            })
            .collect(),
    }))
}

/// Campaign banners in force, in display order.
#[utoipa::path(get, path = "/api/banners", tag = "content",
    responses((status = 200, body = Banners), (status = 503, body = ErrorBody)))]
pub async fn banners(State(state): State<AppState>) -> ApiResult<Cached<Banners>> {
    let answer = state
        .content
        .clone()
        .list_banners(pb::ListBannersRequest {})
        .await?
        .into_inner();
    Ok(cached(Banners {
        banners: answer
            .banners
            .into_iter()
            .map(|b| Banner {
                id: b.id,
                title: b.title,
                subtitle: b.subtitle,
                image_url: b.image_url,
                image_alt: b.image_alt,
                link_url: b.link_url,
            })
            .collect(),
    }))
}

/// FAQs of one audience: `general` or `login` (`/preguntas-login`).
#[utoipa::path(get, path = "/api/faqs", tag = "content", params(FaqQuery),
    responses(
        (status = 200, body = Faqs),
        (status = 400, description = "ERR_INVALID_ARGUMENT (field audience)", body = ErrorBody),
        (status = 503, body = ErrorBody),
    ))]
pub async fn faqs(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<FaqQuery>,
) -> ApiResult<Cached<Faqs>> {
    let audience = match query.audience.as_deref().unwrap_or("general") {
        "general" => pb::FaqAudience::General,
        "login" => pb::FaqAudience::Login,
        _ => {
            return Err(ApiError::new(ErrorCode::InvalidArgument)
                .with_field("audience")
                .with_message("Elige preguntas generales o de inicio de sesión."));
        }
    };
    let answer = state
        .content
        .clone()
        .list_faqs(pb::ListFaqsRequest {
            audience: audience as i32,
        })
        .await?
        .into_inner();
    Ok(cached(Faqs {
        faqs: answer
            .faqs
            .into_iter()
            .map(|f| Faq {
                id: f.id,
                question: f.question,
                answer: f.answer,
            })
            .collect(),
    }))
}

/// Pesos a cart would earn on a weekday: the same engine and rules as a real purchase.
#[utoipa::path(post, path = "/api/simulator", tag = "content", request_body = SimulatorRequest,
    responses(
        (status = 200, body = SimulatorResult),
        (status = 400, description = "ERR_INVALID_ARGUMENT with field and a Spanish message", body = ErrorBody),
    ))]
pub async fn simulate(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<SimulatorRequest>,
) -> ApiResult<Json<SimulatorResult>> {
    let week_day = whole("weekDay", body.week_day, "Elige un día de la semana.")?;
    let request = pb::SimulateRequest {
        week_day: i32::try_from(week_day).unwrap_or(0),
        meat_amount: whole("meatAmount", body.meat_amount, NOT_AN_AMOUNT)?,
        fruits_and_vegetables_amount: whole(
            "fruitsAndVegetablesAmount",
            body.fruits_and_vegetables_amount,
            NOT_AN_AMOUNT,
        )?,
        cleaning_amount: whole("cleaningAmount", body.cleaning_amount, NOT_AN_AMOUNT)?,
        drinks_amount: whole("drinksAmount", body.drinks_amount, NOT_AN_AMOUNT)?,
        other_amount: whole("otherAmount", body.other_amount, NOT_AN_AMOUNT)?,
        partner_card: body.partner_card,
    };
    let answer = state
        .content
        .clone()
        .simulate(request)
        .await
        .map_err(|status| ApiError::from(status).with_camel_case_field())?
        .into_inner();
    Ok(Json(SimulatorResult {
        bank_card_discount: answer.bank_card_discount.map(|d| BankCardDiscount {
            pesos: d.pesos,
            rate_bp: d.rate_bp,
            description: d.description,
        }),
        total_earned: answer.total_earned,
        rules_version: answer.rules_version,
        lines: answer
            .lines
            .into_iter()
            .map(|l| AccrualLine {
                category: l.category,
                amount: l.amount,
                earned: l.earned,
                rate_bp: l.rate_bp,
                rule: l.rule,
            })
            .collect(),
    }))
}
