//! Runtime context the web app reads on load and every minute: flags, reCAPTCHA site key, links.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use serde::Serialize;
use utoipa::ToSchema;

use crate::config::LinkSettings;
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    pub portal_enabled: bool,
    pub change_password_enable: bool,
    pub is_login_maintenance: bool,
    /// Null where the reCAPTCHA verifier is the development pass-through.
    pub recaptcha_site_key: Option<String>,
    pub links: LinkSettings,
}

#[utoipa::path(get, path = "/api/context", tag = "context", responses((status = 200, body = Context)))]
pub async fn context(
    State(state): State<AppState>,
) -> ([(header::HeaderName, &'static str); 1], Json<Context>) {
    let settings = &state.settings;
    let flags = state.flags.current().await;
    let site_key = match settings.recaptcha.kind {
        crate::config::RecaptchaKind::Google => settings.recaptcha.site_key.clone(),
        crate::config::RecaptchaKind::PassThrough => None,
    };
    (
        [(header::CACHE_CONTROL, "no-cache")],
        Json(Context {
            portal_enabled: flags.portal_enabled,
            change_password_enable: flags.change_password_enable,
            is_login_maintenance: flags.is_login_maintenance,
            recaptcha_site_key: site_key,
            links: settings.links.clone(),
        }),
    )
}
