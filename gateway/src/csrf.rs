//! CSRF defence for state-changing requests: the session cookie is SameSite, the request must
//! carry the custom header `x-miclub-csrf` (a cross-site form cannot set it, and a cross-site
//! script cannot without a CORS preflight the gateway never grants), and an `Origin` header,
//! when present, must be an allowed origin or the request's own host.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use miclub_platform::error::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

pub const CSRF_HEADER: &str = "x-miclub-csrf";

pub async fn check(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let changes_state = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if changes_state && let Err(reason) = verify(request.headers(), &state.settings.allowed_origins)
    {
        return ApiError::new(ErrorCode::Csrf)
            .with_cause(reason)
            .into_response();
    }
    next.run(request).await
}

fn verify(headers: &HeaderMap, allowed: &[String]) -> Result<(), &'static str> {
    if headers.get(CSRF_HEADER).is_none() {
        return Err("missing csrf header");
    }
    let Some(origin) = headers
        .get(axum::http::header::ORIGIN)
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(());
    };
    if allowed.iter().any(|a| a == origin) {
        return Ok(());
    }
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
    if host.is_some() && origin_host == host {
        return Ok(());
    }
    Err("origin not allowed")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, v.parse().unwrap());
        }
        map
    }

    #[test]
    fn a_request_without_the_custom_header_is_refused() {
        assert!(verify(&headers(&[("host", "a.cl")]), &[]).is_err());
    }

    #[test]
    fn the_own_host_and_allowed_origins_pass_and_others_do_not() {
        let own = headers(&[
            (CSRF_HEADER, "1"),
            ("host", "a.cl"),
            ("origin", "https://a.cl"),
        ]);
        assert!(verify(&own, &[]).is_ok());
        let other = headers(&[
            (CSRF_HEADER, "1"),
            ("host", "a.cl"),
            ("origin", "https://evil.cl"),
        ]);
        assert!(verify(&other, &[]).is_err());
        assert!(verify(&other, &["https://evil.cl".into()]).is_ok());
        assert!(verify(&headers(&[(CSRF_HEADER, "1")]), &[]).is_ok());
    }
}
