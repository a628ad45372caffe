//! The `/api` routes, one module per area, merged in [`api_router`].

pub mod account;
pub mod content;
pub mod context;
pub mod dev;
pub mod meta;
pub mod missions;
pub mod movements;
pub mod profile;
pub mod recovery;
pub mod registration;
pub mod session;
pub mod terms;
pub mod unsubscribe;

use axum::Router;
use axum::routing::{any, get, post, put};
use miclub_platform::error::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

pub fn api_router(state: &AppState) -> Router<AppState> {
    let mut router = Router::new()
        .route("/api/login", post(session::login))
        .route("/api/resend-otp", post(session::resend_otp))
        .route("/api/validate-otp", post(session::validate_otp))
        .route("/api/refresh", post(session::refresh))
        .route("/api/logout", post(session::logout))
        .route("/api/profile", get(account::profile).put(profile::update))
        .route("/api/profile/genders", get(profile::genders))
        .route(
            "/api/profile/email/resend",
            post(profile::resend_confirmation),
        )
        .route("/api/profile/email/confirm", post(profile::confirm_email))
        .route("/api/profile/email/restore", post(profile::restore_email))
        .route("/api/profile/password", post(profile::change_password))
        .route(
            "/api/terms-and-conditions",
            get(terms::current).post(terms::decide),
        )
        .route("/api/movements", get(movements::list))
        .route("/api/password-recovery", post(recovery::start))
        .route("/api/password-recovery/resend", post(recovery::resend))
        .route("/api/password-recovery/reset", post(recovery::reset))
        .route(
            "/api/registration",
            get(registration::current)
                .post(registration::start)
                .delete(registration::cancel),
        )
        .route(
            "/api/registration/personal-data",
            put(registration::personal_data),
        )
        .route("/api/registration/complete", post(registration::complete))
        .route(
            "/api/registration/verification-email",
            post(registration::resend_verification),
        )
        .route("/api/unsubscribe", post(unsubscribe::unsubscribe))
        .route("/api/unsubscribe/reasons", get(unsubscribe::reasons))
        .route("/api/unsubscribe/validate", post(unsubscribe::validate))
        .route("/api/missions", get(missions::list))
        .route("/api/promotions", get(content::promotions))
        .route("/api/alliances", get(content::alliances))
        .route("/api/banners", get(content::banners))
        .route("/api/faqs", get(content::faqs))
        .route("/api/simulator", post(content::simulate))
        .route("/api/balance", get(account::balance))
        .route("/api/context", get(context::context))
        .route("/api/health", get(meta::health))
        .route("/api/openapi.json", get(meta::openapi));
    if state.mailbox.is_some() {
        router = router.route("/api/dev/mailbox", get(dev::mailbox));
    }
    router
        .route("/api/{*rest}", any(not_found))
        .route("/api", any(not_found))
        .method_not_allowed_fallback(method_not_allowed)
}

async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound)
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(ErrorCode::MethodNotAllowed)
}
