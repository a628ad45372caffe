//! The one error type of the auth service and how it reaches the caller.
//!
//! Each [`AuthError`] variant maps to one `platform::error::ErrorCode`; [`AuthError::into_status`]
//! turns it into a `tonic::Status` carrying the `ErrorBody` the gateway decodes. Failures of our
//! own (database, signing, mail) are logged here with structured fields and answer `Internal`
//! or `Unavailable` without details.

use miclub_platform::ephemeral::StoreError;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::identity::IdentityError;
use thiserror::Error;

use crate::domain::password_rules::PasswordRule;

/// Where the "resend the verification email" action of `ERR_EMAIL_NOT_VERIFIED` leads.
pub const VERIFY_EMAIL_URL: &str = "/registro/verificar-correo";
pub const VERIFY_EMAIL_URL_NAME: &str = "Reenviar correo de verificación";

/// An input field of a request, named as the gateway's REST body names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    User,
    Password,
    Otp,
    CurrentPassword,
    NewPassword,
    /// Internal callers only (`SetLoginEmail`).
    MemberId,
    Email,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::User => "user",
            Field::Password => "password",
            Field::Otp => "otp",
            Field::CurrentPassword => "currentPassword",
            Field::NewPassword => "newPassword",
            Field::MemberId => "member_id",
            Field::Email => "email",
        }
    }
}

/// What is wrong with an input field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    Empty,
    TooLong,
    Malformed,
}

impl Problem {
    pub fn as_str(self) -> &'static str {
        match self {
            Problem::Empty => "empty",
            Problem::TooLong => "too long",
            Problem::Malformed => "malformed",
        }
    }
}

#[derive(Debug, Error)]
pub enum AuthError {
    #[error("invalid login id: {0}")]
    InvalidLoginId(IdentityError),
    #[error("invalid {}: {}", field.as_str(), problem.as_str())]
    InvalidInput { field: Field, problem: Problem },
    #[error("invalid credentials")]
    InvalidCredentials,
    #[error("email not verified")]
    EmailNotVerified,
    #[error("too many login attempts")]
    TooManyAttempts,
    #[error("no pending login challenge")]
    OtpExpired,
    #[error("wrong one-time code")]
    OtpInvalid,
    #[error("too many wrong one-time codes")]
    OtpTooManyAttempts,
    #[error("one-time code resend cooldown active")]
    OtpResendCooldown,
    #[error("daily one-time code limit reached")]
    OtpDailyLimit,
    #[error("unauthenticated")]
    Unauthenticated,
    /// The current password given to change it is not the member's.
    #[error("wrong current password")]
    WrongPassword,
    #[error("weak new password: {}", .0.as_str())]
    WeakPassword(PasswordRule),
    /// Client-credentials grant: unknown client or wrong secret.
    #[error("invalid client credentials")]
    InvalidClient,
    #[error("no credentials for the member")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("notification not sent: {0:#}")]
    Notify(anyhow::Error),
    #[error("internal error: {0:#}")]
    Internal(#[from] anyhow::Error),
}

impl AuthError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AuthError::InvalidLoginId(IdentityError::InvalidRut) => ErrorCode::InvalidRut,
            AuthError::InvalidLoginId(_) | AuthError::InvalidInput { .. } => {
                ErrorCode::InvalidArgument
            }
            AuthError::InvalidCredentials => ErrorCode::InvalidCredentials,
            AuthError::EmailNotVerified => ErrorCode::EmailNotVerified,
            AuthError::TooManyAttempts => ErrorCode::TooManyAttempts,
            AuthError::OtpExpired => ErrorCode::OtpExpired,
            AuthError::OtpInvalid => ErrorCode::OtpInvalid,
            AuthError::OtpTooManyAttempts => ErrorCode::OtpTooManyAttempts,
            AuthError::OtpResendCooldown => ErrorCode::OtpResendCooldown,
            AuthError::OtpDailyLimit => ErrorCode::OtpDailyLimit,
            AuthError::Unauthenticated => ErrorCode::Unauthenticated,
            AuthError::WrongPassword => ErrorCode::WrongPassword,
            AuthError::WeakPassword(_) => ErrorCode::WeakPassword,
            AuthError::InvalidClient => ErrorCode::InvalidCredentials,
            AuthError::NotFound => ErrorCode::NotFound,
            AuthError::Store(_) | AuthError::Notify(_) => ErrorCode::Unavailable,
            AuthError::Database(err) if miclub_platform::storage::is_unavailable(err) => {
                ErrorCode::Unavailable
            }
            AuthError::Database(_) | AuthError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The body the member sees; failures of our own are logged here, once.
    pub fn body(&self) -> ErrorBody {
        let code = self.code();
        match self {
            AuthError::Store(err) => {
                tracing::error!(error = %err, "ephemeral store unavailable");
            }
            AuthError::Notify(err) => {
                tracing::error!(error = format!("{err:#}"), "cannot send the one-time code");
            }
            AuthError::Database(err) => {
                tracing::error!(error = %err, "database error");
            }
            AuthError::Internal(err) => {
                tracing::error!(error = format!("{err:#}"), "internal error");
            }
            _ => {}
        }
        let body = ErrorBody::new(code);
        match self {
            AuthError::InvalidLoginId(err) => {
                let body = body.with_field(Field::User.as_str());
                match err {
                    IdentityError::InvalidRut => body,
                    IdentityError::Empty => {
                        body.with_message("Ingresa tu RUT o número de documento.")
                    }
                    IdentityError::InvalidDocument => {
                        body.with_message("El número de documento ingresado no es válido.")
                    }
                }
            }
            AuthError::InvalidInput { field, problem } => {
                let message = match (field, problem) {
                    (Field::User, _) => "Ingresa tu RUT o número de documento.",
                    (Field::Password, Problem::Empty) => "Ingresa tu contraseña.",
                    (Field::Password, _) => "La contraseña ingresada no es válida.",
                    (Field::Otp, Problem::Empty) => "Ingresa el código que te enviamos por correo.",
                    (Field::Otp, _) => {
                        "El código ingresado no es válido. Revisa el correo que te enviamos."
                    }
                    (Field::CurrentPassword, _) => "Ingresa tu contraseña actual.",
                    (Field::NewPassword, _) => PasswordRule::TooShort.message(),
                    (Field::MemberId, _) => "El identificador de socio no es válido.",
                    (Field::Email, _) => "Ingresa un correo electrónico válido.",
                };
                body.with_field(field.as_str()).with_message(message)
            }
            AuthError::EmailNotVerified => {
                body.with_action(VERIFY_EMAIL_URL, VERIFY_EMAIL_URL_NAME)
            }
            AuthError::WrongPassword => body.with_field(Field::CurrentPassword.as_str()),
            AuthError::WeakPassword(rule) => body
                .with_field(Field::NewPassword.as_str())
                .with_message(rule.message()),
            AuthError::InvalidClient => {
                body.with_message("Las credenciales del cliente no son válidas.")
            }
            _ => body,
        }
    }

    pub fn into_status(self) -> tonic::Status {
        self.body().into_status()
    }
}

impl From<AuthError> for tonic::Status {
    fn from(err: AuthError) -> Self {
        err.into_status()
    }
}

pub type AuthResult<T> = Result<T, AuthError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_rut_is_err_invalid_rut_on_the_user_field() {
        let body = AuthError::InvalidLoginId(IdentityError::InvalidRut).body();
        assert_eq!(body.code, ErrorCode::InvalidRut);
        assert_eq!(body.field.as_deref(), Some("user"));
        assert_eq!(body.message, ErrorCode::InvalidRut.message());
    }

    #[test]
    fn email_not_verified_offers_to_resend_the_verification_email() {
        let body = AuthError::EmailNotVerified.body();
        let action = body.action.unwrap();
        assert_eq!(action.url, "/registro/verificar-correo");
        assert_eq!(action.url_name, "Reenviar correo de verificación");
    }

    #[test]
    fn internal_failures_answer_without_details() {
        let status = AuthError::Internal(anyhow::anyhow!("secret detail")).into_status();
        assert_eq!(status.code(), tonic::Code::Internal);
        assert!(!status.message().contains("secret"));
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.message, ErrorCode::Internal.message());
    }

    #[test]
    fn password_change_errors_name_the_rest_fields() {
        let wrong = AuthError::WrongPassword.body();
        assert_eq!(wrong.code, ErrorCode::WrongPassword);
        assert_eq!(wrong.field.as_deref(), Some("currentPassword"));
        assert_eq!(wrong.message, "La contraseña actual no es correcta.");
        let weak = AuthError::WeakPassword(PasswordRule::TooLong).body();
        assert_eq!(weak.code, ErrorCode::WeakPassword);
        assert_eq!(weak.field.as_deref(), Some("newPassword"));
        assert_eq!(
            weak.message,
            "La contraseña puede tener hasta 64 caracteres."
        );
        let status = AuthError::WeakPassword(PasswordRule::Common).into_status();
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
    }

    #[test]
    fn a_refused_client_is_unauthenticated_invalid_credentials() {
        let status = AuthError::InvalidClient.into_status();
        assert_eq!(status.code(), tonic::Code::Unauthenticated);
        assert_eq!(
            ErrorBody::from_status(&status).code,
            ErrorCode::InvalidCredentials
        );
    }

    #[test]
    fn a_mail_outage_is_unavailable_not_internal() {
        let err = AuthError::Notify(anyhow::anyhow!("smtp down"));
        assert_eq!(err.code(), ErrorCode::Unavailable);
    }
}
