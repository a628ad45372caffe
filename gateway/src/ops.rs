//! Request metrics and the ops listener.
//!
//! Every answered request is counted with its latency by method, route template (axum's
//! `MatchedPath`, so ids in paths do not make new series) and status class; Prometheus scrapes
//! them as `GET /metrics` on the ops port (`gateway.ops_port`), which the NetworkPolicy opens
//! to monitoring pods only and which is never routed to members.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use miclub_platform::telemetry::record_http_request;

/// Middleware recording one request's count and latency (time to the response head).
pub async fn count_request(request: Request, next: Next) -> Response {
    let method = match *request.method() {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        // Any other method is one series, so stray requests cannot grow the metric.
        _ => "OTHER",
    };
    // Paths no `/api` route matched (the web app's files and its SPA fallback) share one
    // series for the same reason.
    let route = request.extensions().get::<MatchedPath>().cloned();
    let started = Instant::now();
    let response = next.run(request).await;
    record_http_request(
        method,
        route.as_ref().map_or("fallback", MatchedPath::as_str),
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}
