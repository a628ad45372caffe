//! The gateway's one API error type: every failure becomes the JSON error body of
//! `docs/api.md` with the HTTP status of its [`ErrorCode`]. 5xx are logged here and never leak
//! details to the member.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use miclub_platform::error::{ErrorBody, ErrorCode};

#[derive(Debug)]
pub struct ApiError {
    /// Boxed: errors travel through every handler's `Result`, which should stay small.
    pub body: Box<ErrorBody>,
    /// What went wrong behind the member-facing text, for the log only.
    pub cause: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode) -> Self {
        Self {
            body: Box::new(ErrorBody::new(code)),
            cause: None,
        }
    }

    /// Tells the client when to try again: the `Retry-After` header, in whole seconds, at
    /// least 1. A service says the same in its error detail (`ErrorBody::with_retry_after`).
    pub fn with_retry_after(mut self, after: std::time::Duration) -> Self {
        *self.body = self.body.with_retry_after(after);
        self
    }

    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.body.message = message.into();
        self
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.body.field = Some(field.into());
        self
    }

    pub fn with_cause(mut self, cause: impl std::fmt::Display) -> Self {
        self.cause = Some(cause.to_string());
        self
    }

    /// Renames a snake_case `field` of a service (`last_name`) to the camelCase of the routes
    /// whose bodies are camelCase (`lastName`), so the web app finds the field it sent.
    pub fn with_camel_case_field(mut self) -> Self {
        if let Some(field) = self.body.field.take() {
            self.body.field = Some(camel_case(&field));
        }
        self
    }

    pub fn status(&self) -> StatusCode {
        self.body.code.http_status()
    }
}

impl From<ErrorCode> for ApiError {
    fn from(code: ErrorCode) -> Self {
        ApiError::new(code)
    }
}

impl From<tonic::Status> for ApiError {
    fn from(status: tonic::Status) -> Self {
        let body = Box::new(ErrorBody::from_status(&status));
        let cause = format!("grpc {:?}: {}", status.code(), status.message());
        Self {
            body,
            cause: Some(cause),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let cause = self.cause.as_deref().unwrap_or("");
        if status.is_server_error() {
            tracing::error!(code = %self.body.code, status = status.as_u16(), cause, "request failed");
        } else {
            tracing::info!(code = %self.body.code, status = status.as_u16(), cause, "request refused");
        }
        let retry_after = self.body.retry_after_secs;
        let mut response = (status, Json(*self.body)).into_response();
        if let Some(secs) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snake_case_field_reaches_the_browser_in_camel_case() {
        let error = ApiError::new(ErrorCode::InvalidArgument)
            .with_field("mother_surname")
            .with_camel_case_field();
        assert_eq!(error.body.field.as_deref(), Some("motherSurname"));
        let error = ApiError::new(ErrorCode::InvalidArgument)
            .with_field("email")
            .with_camel_case_field();
        assert_eq!(error.body.field.as_deref(), Some("email"));
    }
}
