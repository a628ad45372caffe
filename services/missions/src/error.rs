//! The one error type of missions and how each case reaches a caller ([`ErrorCode`]).
//!
//! Validation failures carry the field (camelCase, as the back office and the gateway name it)
//! and a Spanish message; a member whose history is loading gets `ERR_MISSIONS_NOT_READY`
//! (HTTP 409); database and accounts failures never show their detail to the caller.

use miclub_platform::error::{ErrorBody, ErrorCode, ServiceError};
use miclub_platform::storage::is_unavailable;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum MissionsError {
    #[error("invalid {field}: {message}")]
    Invalid {
        field: &'static str,
        message: &'static str,
    },
    /// The member's purchase history is still being loaded.
    #[error("missions not ready: history loading")]
    NotReady,
    /// The caller's token names no usable member id.
    #[error("caller is not a member id")]
    UnknownCaller,
    /// A call to another service (accounts, auth) failed; may be retried.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Accounts refused a reward for good (e.g. the member has no club account).
    #[error("refused by {service}: {code}")]
    Refused {
        service: &'static str,
        code: ErrorCode,
    },
    #[error("corrupt record: {0}")]
    CorruptRecord(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
}

impl MissionsError {
    pub fn invalid(field: &'static str, message: &'static str) -> Self {
        MissionsError::Invalid { field, message }
    }
}

impl ServiceError for MissionsError {
    const SERVICE: &'static str = "missions";

    fn code(&self) -> ErrorCode {
        match self {
            MissionsError::Invalid { .. } => ErrorCode::InvalidArgument,
            MissionsError::NotReady => ErrorCode::MissionsNotReady,
            MissionsError::UnknownCaller => ErrorCode::Unauthenticated,
            MissionsError::Unavailable(_) => ErrorCode::Unavailable,
            MissionsError::Refused { .. } => ErrorCode::Internal,
            MissionsError::CorruptRecord(_) => ErrorCode::Internal,
            MissionsError::Database(err) if is_unavailable(err) => ErrorCode::Unavailable,
            MissionsError::Database(_) => ErrorCode::Internal,
        }
    }

    /// What the caller is told: the code's Spanish text, or the field's own message.
    fn body(&self) -> ErrorBody {
        let body = ErrorBody::new(self.code());
        match self {
            MissionsError::Invalid { field, message } => {
                body.with_field(*field).with_message(*message)
            }
            _ => body,
        }
    }
}

pub type Result<T, E = MissionsError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_loading_is_the_409_code() {
        let status = MissionsError::NotReady.into_status("list_my_missions");
        assert_eq!(status.code(), tonic::Code::Aborted);
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::MissionsNotReady);
        assert_eq!(body.code.http_status().as_u16(), 409);
    }

    #[test]
    fn a_validation_failure_names_its_field_in_spanish() {
        let body = MissionsError::invalid("goal", "La meta debe ser mayor que cero.").body();
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some("goal"));
        assert_eq!(body.message, "La meta debe ser mayor que cero.");
    }

    #[test]
    fn a_database_error_never_reaches_the_caller() {
        let status = MissionsError::Database(sqlx::Error::Protocol("secret detail".into()))
            .into_status("upsert_mission");
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::Internal);
        assert!(!status.message().contains("secret"));
        assert!(!body.message.contains("secret"));
    }
}
