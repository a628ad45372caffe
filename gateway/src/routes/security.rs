//! Actividad de la cuenta: the member's open sessions (list, close one, close the others) and
//! the security events of the last 90 days.
//!
//! Every call forwards the member's own access token to auth, whose member methods act on the
//! token's subject only: the gateway never names a member, so no request can reach another
//! member's sessions or events. A closed session's access token is refused at once by the
//! gateway's verifier and by every service (auth's revocation list); closing the caller's own
//! session is a logout and clears its cookies. The user agent auth stored is turned here into
//! the browser and system the member reads ([`crate::user_agent`]).

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum_extra::extract::CookieJar;
use chrono::{DateTime, SecondsFormat};
use miclub_platform::error::ErrorBody;
use miclub_platform::tokens::with_bearer;
use miclub_proto::auth::v1::{
    EndOtherSessionsRequest, EndSessionRequest, ListSecurityEventsRequest, ListSessionsRequest,
};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiResult;
use crate::extract::{ApiPath, MemberToken};
use crate::state::AppState;
use crate::user_agent;

/// One open session of the member.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenSession {
    /// The session id, for `DELETE /api/security/sessions/{id}`.
    pub id: String,
    /// When it began (the code step), RFC 3339 UTC.
    pub started_at: String,
    /// When it was last seen (a request or a renewal), RFC 3339 UTC.
    pub last_seen_at: String,
    /// Browser family from the user agent it logged in from ("Chrome", "Safari" …); null when
    /// unknown.
    pub browser: Option<String>,
    /// Operating system family ("Windows", "Android", "iOS" …); null when unknown.
    pub os: Option<String>,
    /// True for the session making this request.
    pub current: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OpenSessions {
    /// The current session first, then the most recently seen.
    pub sessions: Vec<OpenSession>,
}

/// One security event of the member.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecurityEvent {
    /// `login_succeeded`, `wrong_password` (at login), `wrong_code`,
    /// `wrong_current_password` (confirming a change), `password_changed`,
    /// `recovery_requested`, `wrong_recovery_code`, `password_reset`, `email_changed`,
    /// `session_ended`, `other_sessions_ended` or `all_sessions_ended`.
    pub kind: String,
    /// RFC 3339 UTC.
    pub occurred_at: String,
    /// Browser family of the client involved, when known.
    pub browser: Option<String>,
    /// Operating system family of the client involved, when known.
    pub os: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SecurityEvents {
    /// The last 90 days, newest first, at most 200.
    pub events: Vec<SecurityEvent>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OtherSessionsClosed {
    /// How many sessions were closed.
    pub closed: i64,
}

/// Milliseconds since the epoch as RFC 3339 UTC (`2026-11-25T00:33:57.123Z`).
fn instant(millis: i64) -> String {
    DateTime::from_timestamp_millis(millis)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Browser and system of a stored user agent.
fn client(header: &str) -> (Option<String>, Option<String>) {
    let client = user_agent::parse(header);
    (
        client.browser.map(str::to_owned),
        client.os.map(str::to_owned),
    )
}

const NO_STORE: [(header::HeaderName, &str); 1] = [(header::CACHE_CONTROL, "no-store")];

/// The member's open sessions.
#[utoipa::path(get, path = "/api/security/sessions", tag = "security", operation_id = "getSecuritySessions",
    responses(
        (status = 200, body = OpenSessions, headers(("cache-control" = String, description = "no-store"))),
        (status = 401, body = ErrorBody),
    ))]
pub async fn sessions(
    State(state): State<AppState>,
    member: MemberToken,
) -> ApiResult<([(header::HeaderName, &'static str); 1], Json<OpenSessions>)> {
    let answer = state
        .auth
        .clone()
        .list_sessions(with_bearer(ListSessionsRequest {}, &member.token))
        .await?
        .into_inner();
    let sessions = answer
        .sessions
        .into_iter()
        .map(|session| {
            let (browser, os) = client(&session.user_agent);
            OpenSession {
                id: session.id,
                started_at: instant(session.started_at_millis),
                last_seen_at: instant(session.last_seen_at_millis),
                browser,
                os,
                current: session.current,
            }
        })
        .collect();
    Ok((NO_STORE, Json(OpenSessions { sessions })))
}

/// Closes one open session of the member; its access token is refused from the next request.
#[utoipa::path(delete, path = "/api/security/sessions/{id}", tag = "security", operation_id = "closeSecuritySession",
    params(("id" = String, Path, description = "A session id from GET /api/security/sessions")),
    responses(
        (status = 204, description = "Closed. When it was the caller's own session, the session cookies are cleared too (a logout)"),
        (status = 400, description = "ERR_INVALID_ARGUMENT: not a session id (field id), or a path that does not decode", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, description = "ERR_NOT_FOUND: no open session of the member has this id (closed already, or never the member's)", body = ErrorBody),
    ))]
pub async fn close(
    State(state): State<AppState>,
    jar: CookieJar,
    member: MemberToken,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<(CookieJar, StatusCode)> {
    let answer = state
        .auth
        .clone()
        .end_session(with_bearer(
            EndSessionRequest { session_id: id },
            &member.token,
        ))
        .await?
        .into_inner();
    tracing::info!(member_id = %member.member_id, own = answer.was_current, "session closed by the member");
    let jar = if answer.was_current {
        state.cookies.clear_session(jar)
    } else {
        jar
    };
    Ok((jar, StatusCode::NO_CONTENT))
}

/// Closes every open session of the member but this one.
#[utoipa::path(post, path = "/api/security/sessions/close-others", tag = "security", operation_id = "closeOtherSecuritySessions",
    responses(
        (status = 200, body = OtherSessionsClosed),
        (status = 401, body = ErrorBody),
    ))]
pub async fn close_others(
    State(state): State<AppState>,
    member: MemberToken,
) -> ApiResult<Json<OtherSessionsClosed>> {
    let answer = state
        .auth
        .clone()
        .end_other_sessions(with_bearer(EndOtherSessionsRequest {}, &member.token))
        .await?
        .into_inner();
    tracing::info!(member_id = %member.member_id, closed = answer.revoked_sessions, "other sessions closed by the member");
    Ok(Json(OtherSessionsClosed {
        closed: answer.revoked_sessions,
    }))
}

/// The member's security events of the last 90 days.
#[utoipa::path(get, path = "/api/security/events", tag = "security", operation_id = "getSecurityEvents",
    responses(
        (status = 200, body = SecurityEvents, headers(("cache-control" = String, description = "no-store"))),
        (status = 401, body = ErrorBody),
    ))]
pub async fn events(
    State(state): State<AppState>,
    member: MemberToken,
) -> ApiResult<(
    [(header::HeaderName, &'static str); 1],
    Json<SecurityEvents>,
)> {
    let answer = state
        .auth
        .clone()
        .list_security_events(with_bearer(ListSecurityEventsRequest {}, &member.token))
        .await?
        .into_inner();
    let events = answer
        .events
        .into_iter()
        .map(|event| {
            let (browser, os) = client(&event.user_agent);
            SecurityEvent {
                kind: event.kind,
                occurred_at: instant(event.occurred_at_millis),
                browser,
                os,
            }
        })
        .collect();
    Ok((NO_STORE, Json(SecurityEvents { events })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_is_rfc_3339_utc_with_milliseconds() {
        assert_eq!(instant(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(instant(1_795_000_000_123), "2026-11-18T11:06:40.123Z");
    }
}
