//! The gateway's one API error type: every failure becomes the JSON error body of
//! `docs/api.md` with the HTTP status of its [`ErrorCode`]. 5xx are logged here and never leak
//! details to the member.

use axum::Json;
use axum::http::StatusCode;
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
        (status, Json(*self.body)).into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
