//! The OpenAPI document of `/api`, generated from the handlers' annotations and served at
//! `/api/openapi.json`.

use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

use crate::routes::{
    account, content, context, dev, meta, missions, movements, profile, recovery, registration,
    session, terms, unsubscribe,
};

/// The error body every failure answers with (`platform::error::ErrorBody`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Error)]
pub struct ErrorSchema {
    /// Stable code, e.g. `ERR_INVALID_CREDENTIALS`.
    pub code: String,
    /// Spanish text for the member.
    pub message: String,
    pub action: Option<ActionSchema>,
    /// The input field the error is about.
    pub field: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ErrorAction)]
pub struct ActionSchema {
    pub url: String,
    #[serde(rename = "urlName")]
    pub url_name: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Mi Club API",
        description = "REST API of the Mi Club member portal gateway. State-changing requests need the header `x-miclub-csrf: 1`."
    ),
    paths(
        session::login,
        session::resend_otp,
        session::validate_otp,
        session::refresh,
        session::logout,
        account::profile,
        account::balance,
        movements::list,
        profile::genders,
        profile::update,
        profile::resend_confirmation,
        profile::confirm_email,
        profile::restore_email,
        profile::change_password,
        terms::current,
        terms::decide,
        recovery::start,
        recovery::resend,
        recovery::reset,
        registration::current,
        registration::start,
        registration::personal_data,
        registration::complete,
        registration::cancel,
        registration::resend_verification,
        unsubscribe::reasons,
        unsubscribe::validate,
        unsubscribe::unsubscribe,
        missions::list,
        content::promotions,
        content::alliances,
        content::banners,
        content::faqs,
        content::simulate,
        context::context,
        dev::mailbox,
        meta::health,
        meta::openapi,
    ),
    components(schemas(ErrorSchema, ActionSchema))
)]
pub struct ApiDoc;
