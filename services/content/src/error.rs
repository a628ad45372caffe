//! The one error type of content and its mapping to the shared error codes.
//!
//! Every failure of `domain/` and `store.rs` is a [`ContentError`]; `grpc.rs` turns it into a
//! `tonic::Status` carrying an [`ErrorBody`] through [`ServiceError::into_status`], which logs
//! storage failures with structured fields; they reach the caller only as `ERR_INTERNAL` or
//! `ERR_UNAVAILABLE`, without details.

use miclub_platform::error::{ErrorBody, ErrorCode, ServiceError};
use miclub_platform::storage::is_unavailable;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ContentError {
    /// An input did not pass a domain type's validation.
    #[error("invalid {field}: {reason}")]
    Invalid {
        field: &'static str,
        reason: &'static str,
    },
    /// An input refused with a message the caller shows as it is (Spanish, for members and
    /// operators alike).
    #[error("invalid {field}: {message}")]
    InvalidInput {
        field: &'static str,
        message: &'static str,
    },
    /// No version of the terms is in force yet.
    #[error("no terms published")]
    TermsNotFound,
    /// A terms version is published already with another text: versions are immutable.
    #[error("terms version published with another text")]
    TermsVersionTaken,
    /// A stored row does not pass the domain's validation (a bug or a manual edit).
    #[error("stored record is invalid: {0}")]
    CorruptRecord(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

impl ContentError {
    pub fn invalid(field: &'static str, reason: &'static str) -> Self {
        ContentError::Invalid { field, reason }
    }

    pub fn invalid_input(field: &'static str, message: &'static str) -> Self {
        ContentError::InvalidInput { field, message }
    }
}

impl ServiceError for ContentError {
    const SERVICE: &'static str = "content";

    fn code(&self) -> ErrorCode {
        match self {
            ContentError::Invalid { .. } | ContentError::InvalidInput { .. } => {
                ErrorCode::InvalidArgument
            }
            ContentError::TermsNotFound => ErrorCode::NotFound,
            ContentError::TermsVersionTaken => ErrorCode::Conflict,
            ContentError::CorruptRecord(_) => ErrorCode::Internal,
            ContentError::Database(err) if is_unavailable(err) => ErrorCode::Unavailable,
            ContentError::Database(_) => ErrorCode::Internal,
        }
    }

    /// What the caller is told: the code's Spanish text, a more precise one where it helps,
    /// never a database detail.
    fn body(&self) -> ErrorBody {
        let body = ErrorBody::new(self.code());
        match self {
            ContentError::Invalid { field, .. } => body.with_field(*field),
            ContentError::InvalidInput { field, message } => {
                body.with_field(*field).with_message(*message)
            }
            ContentError::TermsNotFound => {
                body.with_message("Aún no hay términos y condiciones publicados.")
            }
            ContentError::TermsVersionTaken => body.with_field("version").with_message(
                "Esa versión de los términos ya está publicada con otro texto: publica una versión nueva.",
            ),
            _ => body,
        }
    }
}

pub type Result<T, E = ContentError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_terms_are_not_found_with_a_spanish_message() {
        let status = ContentError::TermsNotFound.into_status("get_current_terms");
        assert_eq!(status.code(), tonic::Code::NotFound);
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::NotFound);
        assert_eq!(
            body.message,
            "Aún no hay términos y condiciones publicados."
        );
    }

    #[test]
    fn an_invalid_input_carries_its_field_and_spanish_message() {
        let status = ContentError::invalid_input("meatAmount", "El monto no puede ser negativo.")
            .into_status("simulate");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some("meatAmount"));
        assert_eq!(body.message, "El monto no puede ser negativo.");
    }

    #[test]
    fn a_pool_timeout_is_unavailable_and_other_database_errors_are_internal() {
        assert_eq!(
            ContentError::Database(sqlx::Error::PoolTimedOut).code(),
            ErrorCode::Unavailable
        );
        assert_eq!(
            ContentError::Database(sqlx::Error::RowNotFound).code(),
            ErrorCode::Internal
        );
    }

    #[test]
    fn a_database_error_never_reaches_the_caller() {
        let status = ContentError::Database(sqlx::Error::Protocol("secret detail".into()))
            .into_status("get_current_terms");
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::Internal);
        assert!(!status.message().contains("secret"));
        assert!(!body.message.contains("secret"));
    }
}
