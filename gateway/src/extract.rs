//! Request extractors that answer bad input with the Spanish error bodies instead of axum's
//! plain-text rejections: JSON bodies, query strings, path parameters, the client address, and
//! the member's access token.

use std::net::SocketAddr;

use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use miclub_platform::error::{ErrorCode, caused_by};
use miclub_platform::listener::body_deadline::BodyTimedOut;
use miclub_platform::member::MemberId;
use miclub_platform::tokens;
use serde::de::DeserializeOwned;

use crate::cookies::{CookiePolicy, SESSION_COOKIE};
use crate::error::ApiError;
use crate::state::AppState;

/// `axum::Json` with Spanish rejections: 415 without a JSON content type, 400 for invalid JSON
/// or missing/ill-typed fields, 413 over the body limit, 408 when the body missed its deadline
/// ([`miclub_platform::listener::body_deadline`]).
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
        JsonRejection::BytesRejection(ref inner) if caused_by::<BodyTimedOut>(inner).is_some() => {
            ErrorCode::RequestTimeout
        }
        _ => ErrorCode::InvalidJson,
    };
    ApiError::new(code).with_cause(cause)
}

/// The member's address: the socket's peer, or when that peer is a trusted proxy the
/// rightmost `X-Forwarded-For` hop that is not one (see [`crate::proxies`]).
#[derive(Debug, Clone)]
pub struct ClientIp(pub String);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let Some(ConnectInfo(peer)) = parts.extensions.get::<ConnectInfo<SocketAddr>>() else {
            return Ok(ClientIp("unknown".into()));
        };
        let client = state.proxies.client(peer.ip(), &parts.headers);
        Ok(ClientIp(client.to_string()))
    }
}

/// `axum::extract::Query` with Spanish rejections: a parameter given twice
/// (`?year=2026&year=2025`) or one that does not fit its type answers 400
/// `ERR_INVALID_ARGUMENT` naming the parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let raw = parts.uri.query().unwrap_or("");
        let mut seen = std::collections::HashSet::new();
        for pair in raw.split('&').filter(|p| !p.is_empty()) {
            let key = pair.split_once('=').map_or(pair, |(k, _)| k);
            if !seen.insert(key) {
                return Err(ApiError::new(ErrorCode::InvalidArgument)
                    .with_field(key.to_owned())
                    .with_message("Este parámetro se envió más de una vez.")
                    .with_cause(format!("repeated query parameter {key}")));
            }
        }
        match axum::extract::Query::<T>::try_from_uri(&parts.uri) {
            Ok(axum::extract::Query(value)) => Ok(ApiQuery(value)),
            Err(rejection) => {
                let cause = rejection.body_text();
                let mut error = ApiError::new(ErrorCode::InvalidArgument);
                // serde names the field between backticks (`duplicate field `year``).
                if let Some(field) = cause.split('`').nth(1).filter(|f| !f.is_empty()) {
                    error = error.with_field(field.to_owned());
                }
                Err(error.with_cause(cause))
            }
        }
    }
}

/// `axum::extract::Path` with Spanish rejections: a segment that does not decode (`%FF`, not
/// UTF-8) or does not fit its type answers 400 `ERR_INVALID_ARGUMENT` on the parameter's name as
/// the route writes it (`{movementId}`: field `movementId`), never axum's plain text.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiPath<T>(pub T);

/// The path parameter a rejection names, when it names one.
fn rejected_parameter(rejection: &PathRejection) -> Option<&str> {
    let PathRejection::FailedToDeserializePathParams(failed) = rejection else {
        return None;
    };
    match failed.kind() {
        ErrorKind::InvalidUtf8InPathParam { key }
        | ErrorKind::ParseErrorAtKey { key, .. }
        | ErrorKind::DeserializeError { key, .. } => Some(key),
        _ => None,
    }
}

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(ApiPath(value)),
            Err(rejection) => {
                let error = ApiError::new(ErrorCode::InvalidArgument);
                let error = match rejected_parameter(&rejection) {
                    Some(key) => error.with_field(key),
                    None => error,
                };
                Err(error.with_cause(rejection.body_text()))
            }
        }
    }
}

/// A verified member access token from the session cookie or `Authorization: Bearer`.
#[derive(Debug, Clone)]
pub struct MemberToken {
    pub token: String,
    /// The token's subject, checked: a signed token whose subject is no member id is refused.
    pub member_id: MemberId,
}

impl FromRequestParts<AppState> for MemberToken {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = bearer_or_cookie(&parts.headers, state.cookies)
            .ok_or_else(|| ApiError::new(ErrorCode::Unauthenticated))?;
        // A member's token only: a service token (another audience) is `WrongKind`, 403.
        match state.verifier.verify(&token).await {
            Ok(claims) => {
                let member_id = MemberId::parse(&claims.sub).map_err(|err| {
                    ApiError::new(ErrorCode::Unauthenticated)
                        .with_cause(format!("member token subject: {err}"))
                })?;
                state.activity.mark_seen(&claims.sid).await;
                Ok(MemberToken { token, member_id })
            }
            Err(err) => Err(ApiError::new(err.error_code()).with_cause(err)),
        }
    }
}

/// The access token of a request, verified or not: `Authorization: Bearer` (read by the
/// platform's rule, the same at every hop) before the session cookie.
pub fn bearer_or_cookie(headers: &HeaderMap, cookies: CookiePolicy) -> Option<String> {
    tokens::bearer_of_headers(headers)
        .map(str::to_owned)
        .or_else(|| cookies.request_value(headers, SESSION_COOKIE))
}
