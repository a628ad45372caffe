//! The one error type of the auth service and how it reaches the caller.
//!
//! Each [`AuthError`] variant maps to one `platform::error::ErrorCode` and the `ErrorBody` the
//! member reads; [`ServiceError::into_status`] turns it into the `tonic::Status` the gateway
//! decodes, as in every service. Failures of our own (database, signing, mail) are logged there
//! with structured fields and answer `Internal` or `Unavailable` without details.
//!
//! The details an error carries ([`Field`], [`Problem`], [`PasswordRule`]) are defined here too,
//! so this module imports nothing of the crate: the validated values of `domain::types`, the
//! settings and the domain all build on it, never the other way round.

use miclub_platform::ephemeral::StoreError;
use miclub_platform::error::{ErrorBody, ErrorCode, ServiceError};
use miclub_platform::identity::IdentityError;
use thiserror::Error;

/// Where the "resend the verification email" action of `ERR_EMAIL_NOT_VERIFIED` leads.
pub const VERIFY_EMAIL_URL: &str = "/registro/verificar-correo";
pub const VERIFY_EMAIL_URL_NAME: &str = "Reenviar correo de verificación";

/// Where the action of `ERR_MEMBER_UNSUBSCRIBED` leads: registering again.
pub const REGISTER_URL: &str = "/registro";
pub const REGISTER_URL_NAME: &str = "Registrarme";

/// Where the action of `ERR_RUT_ALREADY_REGISTERED` leads: the member exists already.
pub const RECOVER_PASSWORD_URL: &str = "/recuperar-contrasena";
pub const RECOVER_PASSWORD_URL_NAME: &str = "Recuperar contraseña";

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
    /// A session of the member's security view (`EndSession`), the `{id}` of its REST path.
    SessionId,
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
            Field::SessionId => "id",
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

/// The rule a refused new password broke; each has the Spanish text the member reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordRule {
    TooShort,
    TooLong,
    Common,
    SameAsCurrent,
}

impl PasswordRule {
    pub fn message(self) -> &'static str {
        match self {
            PasswordRule::TooShort => "La contraseña debe tener al menos 8 caracteres.",
            PasswordRule::TooLong => "La contraseña puede tener hasta 64 caracteres.",
            PasswordRule::Common => {
                "Esa contraseña es muy común. Elige otra más difícil de adivinar."
            }
            PasswordRule::SameAsCurrent => "La nueva contraseña debe ser distinta de la actual.",
        }
    }

    /// For logs: which rule, never the password.
    pub fn as_str(self) -> &'static str {
        match self {
            PasswordRule::TooShort => "too short",
            PasswordRule::TooLong => "too long",
            PasswordRule::Common => "common",
            PasswordRule::SameAsCurrent => "same as current",
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
    /// Password attempts throttled: the pair (account, address) must wait, or the account
    /// reached its ceiling; answered with `retry_after` (a `Retry-After` header at the edge).
    #[error("password attempts throttled for {retry_after:?}")]
    Throttled { retry_after: std::time::Duration },
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
    /// A password that breaks a rule, on the request field that carried it (`newPassword`
    /// for a change or a reset, `password` for new credentials).
    #[error("weak password ({}): {}", field.as_str(), rule.as_str())]
    WeakPassword { field: Field, rule: PasswordRule },
    /// An internal caller whose client id may not make this call.
    #[error("service client not allowed")]
    Forbidden,
    /// New credentials for a login id that another member holds.
    #[error("login id held by another member")]
    RutAlreadyRegistered,
    /// New credentials for a member who has credentials for another login id.
    #[error("member has credentials for another login id")]
    LoginIdMismatch,
    /// The right password of a member who unsubscribed; `disabled_at` in milliseconds, `None`
    /// when the instant was not recorded.
    #[error("member unsubscribed")]
    MemberUnsubscribed { disabled_at: Option<i64> },
    /// Client-credentials grant: unknown client or wrong secret.
    #[error("invalid client credentials")]
    InvalidClient,
    #[error("no credentials for the member")]
    NotFound,
    /// No open session of the caller's member has the id given (another member's included).
    #[error("no such open session of the member")]
    SessionNotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("notification not sent: {0:#}")]
    Notify(anyhow::Error),
    #[error("internal error: {0:#}")]
    Internal(#[from] anyhow::Error),
}

impl ServiceError for AuthError {
    const SERVICE: &'static str = "auth";

    fn code(&self) -> ErrorCode {
        match self {
            AuthError::InvalidLoginId(IdentityError::InvalidRut) => ErrorCode::InvalidRut,
            AuthError::InvalidLoginId(_) | AuthError::InvalidInput { .. } => {
                ErrorCode::InvalidArgument
            }
            AuthError::InvalidCredentials => ErrorCode::InvalidCredentials,
            AuthError::EmailNotVerified => ErrorCode::EmailNotVerified,
            AuthError::TooManyAttempts | AuthError::Throttled { .. } => ErrorCode::TooManyAttempts,
            AuthError::OtpExpired => ErrorCode::OtpExpired,
            AuthError::OtpInvalid => ErrorCode::OtpInvalid,
            AuthError::OtpTooManyAttempts => ErrorCode::OtpTooManyAttempts,
            AuthError::OtpResendCooldown => ErrorCode::OtpResendCooldown,
            AuthError::OtpDailyLimit => ErrorCode::OtpDailyLimit,
            AuthError::Unauthenticated => ErrorCode::Unauthenticated,
            AuthError::WrongPassword => ErrorCode::WrongPassword,
            AuthError::WeakPassword { .. } => ErrorCode::WeakPassword,
            AuthError::Forbidden => ErrorCode::Forbidden,
            AuthError::RutAlreadyRegistered => ErrorCode::RutAlreadyRegistered,
            AuthError::LoginIdMismatch => ErrorCode::Conflict,
            AuthError::MemberUnsubscribed { .. } => ErrorCode::MemberUnsubscribed,
            AuthError::InvalidClient => ErrorCode::InvalidCredentials,
            AuthError::NotFound | AuthError::SessionNotFound => ErrorCode::NotFound,
            AuthError::Store(_) | AuthError::Notify(_) => ErrorCode::Unavailable,
            AuthError::Database(err) if miclub_platform::storage::is_unavailable(err) => {
                ErrorCode::Unavailable
            }
            AuthError::Database(_) | AuthError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The body the member sees: the code's text, or a more precise one, with its field and
    /// action; never a detail of our own failures.
    fn body(&self) -> ErrorBody {
        let body = ErrorBody::new(self.code());
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
                    (Field::SessionId, _) => "La sesión indicada no es válida.",
                };
                body.with_field(field.as_str()).with_message(message)
            }
            AuthError::EmailNotVerified => {
                body.with_action(VERIFY_EMAIL_URL, VERIFY_EMAIL_URL_NAME)
            }
            AuthError::WrongPassword => body.with_field(Field::CurrentPassword.as_str()),
            AuthError::Throttled { retry_after } => body.with_retry_after(*retry_after),
            AuthError::WeakPassword { field, rule } => {
                body.with_field(field.as_str()).with_message(rule.message())
            }
            AuthError::RutAlreadyRegistered => {
                body.with_action(RECOVER_PASSWORD_URL, RECOVER_PASSWORD_URL_NAME)
            }
            AuthError::MemberUnsubscribed { disabled_at } => {
                let body = body.with_action(REGISTER_URL, REGISTER_URL_NAME);
                match disabled_at.and_then(unsubscribed_message) {
                    Some(message) => body.with_message(message),
                    None => body,
                }
            }
            AuthError::InvalidClient => {
                body.with_message("Las credenciales del cliente no son válidas.")
            }
            AuthError::SessionNotFound => {
                body.with_message("No encontramos esa sesión abierta. Puede que ya esté cerrada.")
            }
            _ => body,
        }
    }
}

impl AuthError {
    /// A new password (change, recovery) that breaks `rule`.
    pub fn weak_new_password(rule: PasswordRule) -> Self {
        AuthError::WeakPassword {
            field: Field::NewPassword,
            rule,
        }
    }

    /// A password for new credentials that breaks `rule`.
    pub fn weak_password(rule: PasswordRule) -> Self {
        AuthError::WeakPassword {
            field: Field::Password,
            rule,
        }
    }
}

/// "Te diste de baja de Mi Club el 21 de noviembre de 2026. …", the day in Santiago in the one
/// date format members read; `None` for an instant out of range.
fn unsubscribed_message(disabled_at: i64) -> Option<String> {
    let day = miclub_platform::calendar::member_date(
        miclub_platform::calendar::millis_in_chile(disabled_at)?.date_naive(),
    );
    Some(format!(
        "Te diste de baja de Mi Club el {day}. Si quieres volver, puedes registrarte de nuevo."
    ))
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
        let status = AuthError::Internal(anyhow::anyhow!("secret detail")).into_status("test");
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
        let weak = AuthError::weak_new_password(PasswordRule::TooLong).body();
        assert_eq!(weak.code, ErrorCode::WeakPassword);
        assert_eq!(weak.field.as_deref(), Some("newPassword"));
        assert_eq!(
            weak.message,
            "La contraseña puede tener hasta 64 caracteres."
        );
        let status = AuthError::weak_new_password(PasswordRule::Common).into_status("test");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
    }

    #[test]
    fn a_weak_password_for_new_credentials_names_the_password_field() {
        let weak = AuthError::weak_password(PasswordRule::TooShort).body();
        assert_eq!(weak.code, ErrorCode::WeakPassword);
        assert_eq!(weak.field.as_deref(), Some("password"));
        assert_eq!(
            weak.message,
            "La contraseña debe tener al menos 8 caracteres."
        );
    }

    #[test]
    fn an_unsubscribed_member_reads_the_day_in_santiago_and_may_register_again() {
        // 2026-11-22T02:30:00Z is still the 21st in Santiago (UTC-3 in summer).
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-22T02:30:00Z")
            .unwrap()
            .timestamp_millis();
        let body = AuthError::MemberUnsubscribed {
            disabled_at: Some(at),
        }
        .body();
        assert_eq!(body.code, ErrorCode::MemberUnsubscribed);
        assert_eq!(
            body.message,
            "Te diste de baja de Mi Club el 21 de noviembre de 2026. Si quieres volver, puedes registrarte de nuevo."
        );
        let action = body.action.unwrap();
        assert_eq!(action.url, "/registro");
        assert_eq!(action.url_name, "Registrarme");
        assert_eq!(
            AuthError::MemberUnsubscribed { disabled_at: None }
                .into_status("test")
                .code(),
            tonic::Code::FailedPrecondition
        );
        // Without a recorded instant the message has no date.
        let undated = AuthError::MemberUnsubscribed { disabled_at: None }.body();
        assert_eq!(undated.message, ErrorCode::MemberUnsubscribed.message());
    }

    #[test]
    fn a_login_id_held_by_another_member_offers_password_recovery() {
        let body = AuthError::RutAlreadyRegistered.body();
        assert_eq!(body.code, ErrorCode::RutAlreadyRegistered);
        assert_eq!(
            AuthError::RutAlreadyRegistered.into_status("test").code(),
            tonic::Code::AlreadyExists
        );
        let action = body.action.unwrap();
        assert_eq!(action.url, "/recuperar-contrasena");
        assert_eq!(action.url_name, "Recuperar contraseña");
        assert_eq!(
            AuthError::Forbidden.into_status("test").code(),
            tonic::Code::PermissionDenied
        );
    }

    #[test]
    fn a_refused_client_is_unauthenticated_invalid_credentials() {
        let status = AuthError::InvalidClient.into_status("test");
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

    #[test]
    fn every_rule_has_its_spanish_message() {
        assert_eq!(
            PasswordRule::TooShort.message(),
            "La contraseña debe tener al menos 8 caracteres."
        );
        assert_eq!(
            PasswordRule::TooLong.message(),
            "La contraseña puede tener hasta 64 caracteres."
        );
        assert_eq!(
            PasswordRule::Common.message(),
            "Esa contraseña es muy común. Elige otra más difícil de adivinar."
        );
        assert_eq!(
            PasswordRule::SameAsCurrent.message(),
            "La nueva contraseña debe ser distinta de la actual."
        );
    }
}
