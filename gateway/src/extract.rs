//! Request extractors that answer bad input with the Spanish error bodies instead of axum's
//! plain-text rejections: JSON bodies, the client address, and the member's access token.

use std::net::SocketAddr;

use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum_extra::extract::CookieJar;
use miclub_platform::error::ErrorCode;
use serde::de::DeserializeOwned;

use crate::cookies::SESSION_COOKIE;
use crate::error::ApiError;
use crate::state::AppState;

/// `axum::Json` with Spanish rejections: 415 without a JSON content type, 400 for invalid JSON
/// or missing/ill-typed fields, 413 over the body limit.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

fn json_rejection(rejection: JsonRejection) -> ApiError {
    let cause = rejection.body_text();
    let code = match rejection {
        JsonRejection::MissingJsonContentType(_) => ErrorCode::UnsupportedMediaType,
        JsonRejection::JsonSyntaxError(_) => ErrorCode::InvalidJson,
        JsonRejection::JsonDataError(_) => ErrorCode::InvalidArgument,
        JsonRejection::BytesRejection(ref inner)
            if inner.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE =>
        {
            ErrorCode::PayloadTooLarge
        }
        _ => ErrorCode::InvalidJson,
    };
    ApiError::new(code).with_cause(cause)
}

/// The member's address: the peer, or the `X-Forwarded-For` entry added by the outermost
/// trusted proxy.
#[derive(Debug, Clone)]
pub struct ClientIp(pub String);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip().to_string())
            .unwrap_or_else(|| "unknown".into());
        let hops = state.settings.trusted_proxy_hops;
        if hops == 0 {
            return Ok(ClientIp(peer));
        }
        let forwarded: Vec<&str> = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .collect();
        let ip = forwarded
            .len()
            .checked_sub(hops)
            .and_then(|i| forwarded.get(i))
            .map(|s| (*s).to_owned());
        Ok(ClientIp(ip.unwrap_or(peer)))
    }
}

/// A verified member access token from the session cookie or `Authorization: Bearer`.
#[derive(Debug, Clone)]
pub struct MemberToken {
    pub token: String,
    pub member_id: String,
}

impl FromRequestParts<AppState> for MemberToken {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token =
            bearer_or_cookie(parts).ok_or_else(|| ApiError::new(ErrorCode::Unauthenticated))?;
        match state.verifier.verify(&token).await {
            Ok(claims) if claims.kind == miclub_platform::tokens::TokenKind::Member => {
                crate::activity::mark_seen(&state.store, &claims.sid).await;
                Ok(MemberToken {
                    token,
                    member_id: claims.sub,
                })
            }
            Ok(_) => Err(ApiError::new(ErrorCode::Forbidden)),
            Err(err) => Err(ApiError::new(err.error_code()).with_cause(err)),
        }
    }
}

/// The access token of a request, verified or not.
pub fn bearer_or_cookie(parts: &Parts) -> Option<String> {
    let header = parts
        .headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    header.or_else(|| {
        CookieJar::from_headers(&parts.headers)
            .get(SESSION_COOKIE)
            .map(|c| c.value().to_owned())
            .filter(|t| !t.is_empty())
    })
}
