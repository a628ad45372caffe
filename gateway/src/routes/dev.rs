//! Development-only view of the dev mailbox, so a person or a test can read one-time codes.
//! Only routed when the process has a dev mailbox; production refuses to start with one.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::notify::Mail;

use crate::state::AppState;

#[utoipa::path(get, path = "/api/dev/mailbox", tag = "development",
    responses((status = 200, description = "Messages sent, newest first (development only)")))]
pub async fn mailbox(
    State(state): State<AppState>,
) -> ([(header::HeaderName, &'static str); 1], Json<Vec<Mail>>) {
    let mails = state.mailbox.as_ref().map(|m| m.list()).unwrap_or_default();
    ([(header::CACHE_CONTROL, "no-store")], Json(mails))
}
