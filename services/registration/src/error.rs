//! The one error type of registration and its mapping to the shared error codes.
//!
//! Every failure of `domain/`, `store.rs` and the ports is a [`RegistrationError`]; `grpc.rs`
//! turns it into a `tonic::Status` carrying an [`ErrorBody`] ([`ServiceError::into_status`]).
//! A refusal of accounts or auth ([`RegistrationError::Refused`]) keeps the callee's body, so
//! the member reads accounts' and auth's own Spanish field messages. Storage and transport failures are logged there and reach
//! the caller only as `ERR_INTERNAL` or `ERR_UNAVAILABLE`, without details.

use miclub_platform::ephemeral::StoreError;
use miclub_platform::error::{ErrorBody, ErrorCode, ServiceError};
use miclub_platform::storage::is_unavailable;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RegistrationError {
    /// An input did not pass a domain type's validation; `message` is what the member reads.
    #[error("invalid {field}")]
    Invalid {
        code: ErrorCode,
        field: &'static str,
        message: &'static str,
    },
    /// The flow is unknown, expired or already completed.
    #[error("registration flow expired or unknown")]
    Expired,
    /// A step was sent before the one it needs (e.g. the password before the personal data).
    #[error("step sent out of order")]
    OutOfOrder,
    #[error("terms not accepted")]
    TermsNotAccepted,
    /// The identity verifier refused the document.
    #[error("identity not verified")]
    IdentityNotVerified,
    #[error("too many registration attempts")]
    TooManyAttempts,
    /// Accounts or auth refused, with a body meant for the member.
    #[error("{service} refused: {}", .body.code)]
    Refused {
        service: &'static str,
        /// Boxed: an error body is large, and every `Result` here carries this variant.
        body: Box<ErrorBody>,
    },
    /// A service this one depends on could not be reached or answered nonsense.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// A stored row does not pass the domain's validation (a bug or a manual edit).
    #[error("stored record is invalid: {0}")]
    CorruptRecord(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Ephemeral(#[from] StoreError),
}

impl RegistrationError {
    pub fn invalid(field: &'static str, message: &'static str) -> Self {
        RegistrationError::Invalid {
            code: ErrorCode::InvalidArgument,
            field,
            message,
        }
    }

    /// A refusal of `service` as it arrived over gRPC. Codes that speak of this service's own
    /// access (its token, its permissions) or of a lookup it made would mislead the member:
    /// they become `ERR_UNAVAILABLE`, which is also what a transport failure gives.
    /// The callee's `field` is renamed to the JSON (camelCase) name this service's contract
    /// uses (accounts says `birth_date`, registration's callers read `birthDate`).
    pub fn from_status(service: &'static str, status: &tonic::Status) -> Self {
        let mut body = ErrorBody::from_status(status);
        body.field = body.field.as_deref().map(camel_case);
        match body.code {
            ErrorCode::Unauthenticated
            | ErrorCode::Forbidden
            | ErrorCode::NotFound
            | ErrorCode::Internal
            | ErrorCode::Unavailable
            | ErrorCode::Timeout => RegistrationError::Unavailable(format!(
                "{service}: {:?} {} ({})",
                status.code(),
                status.message(),
                body.code
            )),
            _ => RegistrationError::Refused {
                service,
                body: Box::new(body),
            },
        }
    }
}

impl ServiceError for RegistrationError {
    const SERVICE: &'static str = "registration";

    fn code(&self) -> ErrorCode {
        match self {
            RegistrationError::Invalid { code, .. } => *code,
            RegistrationError::Expired => ErrorCode::RegistrationExpired,
            RegistrationError::OutOfOrder => ErrorCode::Conflict,
            RegistrationError::TermsNotAccepted => ErrorCode::TermsNotAccepted,
            RegistrationError::IdentityNotVerified => ErrorCode::IdentityNotVerified,
            RegistrationError::TooManyAttempts => ErrorCode::TooManyAttempts,
            RegistrationError::Refused { body, .. } => body.code,
            RegistrationError::Unavailable(_) | RegistrationError::Ephemeral(_) => {
                ErrorCode::Unavailable
            }
            RegistrationError::CorruptRecord(_) => ErrorCode::Internal,
            RegistrationError::Database(err) if is_unavailable(err) => ErrorCode::Unavailable,
            RegistrationError::Database(_) => ErrorCode::Internal,
        }
    }

    /// What the caller is told: the code's Spanish text, a more precise one where it helps,
    /// the callee's own body for refusals, never a database or transport detail.
    fn body(&self) -> ErrorBody {
        let body = ErrorBody::new(self.code());
        match self {
            RegistrationError::Invalid { field, message, .. } => {
                body.with_field(*field).with_message(*message)
            }
            RegistrationError::OutOfOrder => {
                body.with_message("Primero completa tus datos personales.")
            }
            RegistrationError::TermsNotAccepted => body.with_field("acceptTerms"),
            RegistrationError::Refused { body, .. } => body.as_ref().clone(),
            _ => body,
        }
    }
}

/// `birth_date` → `birthDate`; a name already in camelCase stays as it is.
fn camel_case(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

pub type Result<T, E = RegistrationError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_accounts_reaches_the_caller_with_its_own_field_and_message() {
        let sent = ErrorBody::new(ErrorCode::InvalidArgument)
            .with_field("birthDate")
            .with_message("Debes ser mayor de 18 años para registrarte.");
        let err = RegistrationError::from_status("accounts", &sent.clone().into_status());
        let status = err.into_status("submit_personal_data");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(ErrorBody::from_status(&status), sent);
    }

    #[test]
    fn a_snake_case_field_of_a_callee_reaches_the_caller_in_camel_case() {
        for (sent, read) in [
            ("birth_date", "birthDate"),
            ("mother_surname", "motherSurname"),
            ("email", "email"),
            ("birthDate", "birthDate"),
        ] {
            let status = ErrorBody::new(ErrorCode::InvalidArgument)
                .with_field(sent)
                .into_status();
            let body = RegistrationError::from_status("accounts", &status).body();
            assert_eq!(body.field.as_deref(), Some(read));
        }
    }

    #[test]
    fn a_transport_failure_or_an_auth_problem_of_the_service_itself_is_unavailable() {
        for status in [
            tonic::Status::unavailable("connection refused"),
            ErrorBody::new(ErrorCode::Unauthenticated).into_status(),
            ErrorBody::new(ErrorCode::Forbidden).into_status(),
            tonic::Status::deadline_exceeded("slow"),
        ] {
            let err = RegistrationError::from_status("auth", &status);
            assert_eq!(err.code(), ErrorCode::Unavailable, "{status:?}");
        }
    }

    #[test]
    fn a_database_error_never_reaches_the_caller() {
        let status = RegistrationError::Database(sqlx::Error::Protocol("secret detail".into()))
            .into_status("get_registration");
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::Internal);
        assert!(!status.message().contains("secret"));
        assert!(!body.message.contains("secret"));
    }

    #[test]
    fn terms_not_accepted_names_the_accept_terms_field() {
        let body = RegistrationError::TermsNotAccepted.body();
        assert_eq!(body.code, ErrorCode::TermsNotAccepted);
        assert_eq!(body.field.as_deref(), Some("acceptTerms"));
    }
}
