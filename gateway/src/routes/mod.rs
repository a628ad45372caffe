//! The `/api` routes, one module per area, merged in [`api_router`].

pub mod account;
pub mod card;
pub mod club_account;
pub mod content;
pub mod context;
pub mod dev;
pub mod meta;
pub mod missions;
pub mod movements;
pub mod profile;
pub mod recovery;
pub mod registration;
pub mod security;
pub mod session;
pub mod terms;
pub mod unsubscribe;

use std::sync::Arc;

use axum::routing::any;
use axum::{Extension, Router};
use miclub_platform::error::ErrorCode;
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::openapi::{ApiDoc, SharedAnswers};
use crate::state::AppState;

/// Every `/api` route and the OpenAPI document, from one declaration: `routes!` takes each
/// handler's method and path from its `#[utoipa::path]`, so the router serves exactly what the
/// document says (handlers on one path go in one `routes!`).
pub fn api_router(state: &AppState) -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (router, document) = split(declared(state.mailbox.is_some()));
    let router = router
        .route("/api/{*rest}", any(not_found))
        .route("/api", any(not_found))
        .method_not_allowed_fallback(method_not_allowed)
        .layer(Extension(Arc::new(document.clone())));
    (router, document)
}

/// The document a production gateway serves (no development mailbox), without building one:
/// for the tests and tools that read the contract.
pub fn document() -> utoipa::openapi::OpenApi {
    split(declared(false)).1
}

fn split(api: OpenApiRouter<AppState>) -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (router, mut document) = api.split_for_parts();
    SharedAnswers.modify(&mut document);
    (router, document)
}

fn declared(dev_mailbox: bool) -> OpenApiRouter<AppState> {
    let mut api = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(session::login))
        .routes(routes!(session::resend_otp))
        .routes(routes!(session::validate_otp))
        .routes(routes!(session::refresh))
        .routes(routes!(session::logout))
        .routes(routes!(account::profile, profile::update))
        .routes(routes!(profile::genders))
        .routes(routes!(profile::resend_confirmation))
        .routes(routes!(profile::confirm_email))
        .routes(routes!(profile::restore_email))
        .routes(routes!(profile::change_password))
        .routes(routes!(terms::current, terms::decide))
        .routes(routes!(movements::list))
        .routes(routes!(movements::detail))
        .routes(routes!(security::sessions))
        .routes(routes!(security::close))
        .routes(routes!(security::close_others))
        .routes(routes!(security::events))
        .routes(routes!(recovery::start))
        .routes(routes!(recovery::resend))
        .routes(routes!(recovery::reset))
        .routes(routes!(
            registration::current,
            registration::start,
            registration::cancel
        ))
        .routes(routes!(registration::personal_data))
        .routes(routes!(registration::complete))
        .routes(routes!(registration::resend_verification))
        .routes(routes!(unsubscribe::unsubscribe))
        .routes(routes!(unsubscribe::reasons))
        .routes(routes!(unsubscribe::validate))
        .routes(routes!(missions::list))
        .routes(routes!(content::promotions))
        .routes(routes!(content::alliances))
        .routes(routes!(content::banners))
        .routes(routes!(content::faqs))
        .routes(routes!(content::simulate))
        .routes(routes!(account::balance))
        .routes(routes!(card::card))
        .routes(routes!(club_account::open))
        .routes(routes!(context::context))
        .routes(routes!(meta::health))
        .routes(routes!(meta::openapi));
    if dev_mailbox {
        api = api.routes(routes!(dev::mailbox));
    }
    api
}

async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound)
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(ErrorCode::MethodNotAllowed)
}
