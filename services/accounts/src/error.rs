//! The one error type of accounts and its mapping to the shared error codes.
//!
//! Every failure of `domain/` and `store.rs` is an [`AccountsError`]; `grpc.rs` turns it into a
//! `tonic::Status` carrying an [`ErrorBody`] through [`ServiceError::into_status`], which logs
//! storage failures with structured fields; they reach the caller only as `ERR_INTERNAL` or
//! `ERR_UNAVAILABLE`, without details.

use miclub_platform::error::{ErrorBody, ErrorCode, ServiceError};
use miclub_platform::identity::IdentityError;
use miclub_platform::storage::is_unavailable;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum AccountsError {
    /// An input did not pass a domain type's validation.
    #[error("invalid {field}: {reason}")]
    Invalid {
        field: &'static str,
        reason: &'static str,
    },
    /// An input refused with the Spanish text the member reads next to its field.
    #[error("invalid {field}")]
    InvalidField {
        field: &'static str,
        message: &'static str,
    },
    #[error("member not found")]
    MemberNotFound,
    #[error("member has no club account")]
    NoClubAccount,
    /// The document number or member id is already taken.
    #[error("member already exists")]
    MemberExists,
    /// The member already has a club account.
    #[error("club account already open")]
    AccountExists,
    /// A confirmed movement would take the balance below zero.
    #[error("movement would make the balance negative")]
    InsufficientBalance,
    /// A movement with this id is already in the ledger.
    #[error("movement already recorded")]
    DuplicateMovement,
    #[error("movement not found or not pending")]
    MovementNotPending,
    /// No movement of the caller has this id (another member's movement included: the same
    /// answer, so an id never tells whose it is).
    #[error("movement not found")]
    MovementNotFound,
    /// An idempotency key (or movement id) already used with another payload.
    #[error("idempotency key reused with another payload")]
    IdempotencyMismatch,
    /// The member asked for a confirmation link, but their email is already confirmed.
    #[error("email already confirmed")]
    EmailAlreadyConfirmed,
    /// An email confirmation token that is unknown, used, expired, superseded, or for an
    /// address the member no longer has.
    #[error("email confirmation token not valid")]
    ConfirmationInvalid,
    /// A per-member limit (e.g. confirmation links per hour) was reached.
    #[error("too many attempts")]
    TooManyAttempts,
    /// The member's mission rewards of the last 24 hours would pass one of the limits of
    /// `miclub_platform::rewards` (pesos, or rewards, per day).
    #[error("daily reward limit reached")]
    RewardLimitReached,
    /// An active member already holds the document (`foreign`: not a RUT, worded "documento").
    #[error("document already registered")]
    RutAlreadyRegistered { foreign: bool },
    /// An active member already uses the email.
    #[error("email already registered")]
    EmailAlreadyRegistered,
    /// The `user` typed is neither a valid RUT nor a valid foreign document number.
    #[error("invalid user: {0}")]
    InvalidUser(IdentityError),
    /// The document or email typed to unsubscribe is not the caller's.
    #[error("identity does not match the caller")]
    IdentityMismatch,
    /// The caller already left the club.
    #[error("member already unsubscribed")]
    AlreadyUnsubscribed,
    /// Leaving while the restore link of an email change is unused and unexpired: a member
    /// may leave from `until` (Unix ms, when the last such link expires), so that whoever took
    /// the account over cannot erase the owner's way back with it.
    #[error("email changed recently")]
    EmailChangedRecently { until: i64 },
    /// A registration over a member who left (or over such a member's returning registration,
    /// not yet activated) with an address other than the one they left with.
    #[error("a returning member must register with the address they left with")]
    PreviousEmailRequired,
    /// A member who left asks for something only a member may have (a club account): they
    /// must register again.
    #[error("member unsubscribed")]
    MemberUnsubscribed,
    /// Joining the club without accepting the terms.
    #[error("terms not accepted")]
    TermsNotAccepted,
    /// Auth refused the current password of a sensitive change (`ERR_WRONG_PASSWORD`,
    /// `ERR_TOO_MANY_ATTEMPTS` with its wait): its body reaches the member unchanged.
    #[error("step-up refused by auth: {}", .0.code)]
    StepUpRefused(Box<ErrorBody>),
    /// A service accounts depends on (auth, the ephemeral store, the mail relay) failed; the
    /// detail is for the log only.
    #[error("{0} unavailable")]
    Unavailable(String),
    /// Every card number drawn for one account was already taken (see `store::CARD_DRAWS`).
    #[error("no free card number after every draw")]
    CardNumbersExhausted,
    /// A stored row does not pass the domain's validation (a bug or a manual edit).
    #[error("stored record is invalid: {0}")]
    CorruptRecord(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

impl AccountsError {
    pub fn invalid(field: &'static str, reason: &'static str) -> Self {
        AccountsError::Invalid { field, reason }
    }

    /// An input the member typed, refused with the Spanish `message` shown next to `field`.
    pub fn invalid_field(field: &'static str, message: &'static str) -> Self {
        AccountsError::InvalidField { field, message }
    }
}

impl ServiceError for AccountsError {
    const SERVICE: &'static str = "accounts";

    fn code(&self) -> ErrorCode {
        match self {
            AccountsError::Invalid { .. } | AccountsError::InvalidField { .. } => {
                ErrorCode::InvalidArgument
            }
            AccountsError::InsufficientBalance => ErrorCode::InsufficientBalance,
            AccountsError::IdempotencyMismatch => ErrorCode::IdempotencyMismatch,
            AccountsError::MemberNotFound
            | AccountsError::MovementNotPending
            | AccountsError::MovementNotFound => ErrorCode::NotFound,
            AccountsError::NoClubAccount => ErrorCode::NoClubAccount,
            AccountsError::MemberExists
            | AccountsError::AccountExists
            | AccountsError::DuplicateMovement => ErrorCode::Conflict,
            AccountsError::EmailAlreadyConfirmed => ErrorCode::EmailAlreadyConfirmed,
            AccountsError::ConfirmationInvalid => ErrorCode::ConfirmationInvalid,
            AccountsError::TooManyAttempts | AccountsError::RewardLimitReached => {
                ErrorCode::TooManyAttempts
            }
            AccountsError::RutAlreadyRegistered { .. } => ErrorCode::RutAlreadyRegistered,
            AccountsError::EmailAlreadyRegistered => ErrorCode::EmailAlreadyRegistered,
            AccountsError::InvalidUser(IdentityError::InvalidRut) => ErrorCode::InvalidRut,
            AccountsError::InvalidUser(_) => ErrorCode::InvalidArgument,
            AccountsError::IdentityMismatch => ErrorCode::IdentityMismatch,
            AccountsError::AlreadyUnsubscribed => ErrorCode::AlreadyUnsubscribed,
            AccountsError::EmailChangedRecently { .. } => ErrorCode::EmailChangedRecently,
            AccountsError::PreviousEmailRequired => ErrorCode::PreviousEmailRequired,
            AccountsError::MemberUnsubscribed => ErrorCode::MemberUnsubscribed,
            AccountsError::TermsNotAccepted => ErrorCode::TermsNotAccepted,
            AccountsError::StepUpRefused(body) => body.code,
            AccountsError::Unavailable(_) => ErrorCode::Unavailable,
            AccountsError::CorruptRecord(_) | AccountsError::CardNumbersExhausted => {
                ErrorCode::Internal
            }
            AccountsError::Database(err) if is_unavailable(err) => ErrorCode::Unavailable,
            AccountsError::Database(_) => ErrorCode::Internal,
        }
    }

    /// What the caller is told: the code's Spanish text, a more precise one where it helps,
    /// never a database detail.
    fn body(&self) -> ErrorBody {
        let body = ErrorBody::new(self.code());
        match self {
            AccountsError::StepUpRefused(refusal) => (**refusal).clone(),
            AccountsError::Invalid { field, .. } => body.with_field(*field),
            AccountsError::InvalidField { field, message } => {
                body.with_field(*field).with_message(*message)
            }
            AccountsError::RutAlreadyRegistered { foreign } => {
                let body = body.with_action(RECOVER_PASSWORD_URL, RECOVER_PASSWORD_NAME);
                if *foreign {
                    body.with_message(DOCUMENT_ALREADY_REGISTERED)
                } else {
                    body
                }
            }
            AccountsError::EmailAlreadyRegistered => body.with_field("email"),
            AccountsError::EmailChangedRecently { until } => {
                match miclub_platform::calendar::member_date_time(*until) {
                    Some(when) => body.with_message(format!(
                        "Cambiaste tu correo hace poco. Por seguridad, podrás darte de baja \
                         desde el {when} (hora de Chile)."
                    )),
                    None => body,
                }
            }
            AccountsError::TermsNotAccepted => body
                .with_field("acceptTermsAndConditions")
                .with_message(JOIN_TERMS_NOT_ACCEPTED),
            AccountsError::InvalidUser(err) => {
                let body = body.with_field("user");
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
            _ => body,
        }
    }
}

/// `ERR_TERMS_NOT_ACCEPTED` when joining from Mi Cuenta (the catalogue's text says
/// "registrarte", which a member who already has a login is not doing).
const JOIN_TERMS_NOT_ACCEPTED: &str =
    "Debes aceptar los términos y condiciones para unirte a Mi Club.";

/// Where a member whose document is already registered is sent instead.
const RECOVER_PASSWORD_URL: &str = "/recuperar-contrasena";
const RECOVER_PASSWORD_NAME: &str = "Recuperar contraseña";
/// `ERR_RUT_ALREADY_REGISTERED` for a foreign document, which is not a RUT.
const DOCUMENT_ALREADY_REGISTERED: &str =
    "Este documento ya está registrado en Mi Club. Inicia sesión o recupera tu contraseña.";

pub type Result<T, E = AccountsError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_without_a_club_account_gets_the_406_code() {
        let status = AccountsError::NoClubAccount.into_status("get_balance");
        assert_eq!(status.code(), tonic::Code::FailedPrecondition);
        assert_eq!(
            ErrorBody::from_status(&status).code,
            ErrorCode::NoClubAccount
        );
    }

    #[test]
    fn a_pool_timeout_is_unavailable_and_other_database_errors_are_internal() {
        assert_eq!(
            AccountsError::Database(sqlx::Error::PoolTimedOut).code(),
            ErrorCode::Unavailable
        );
        assert_eq!(
            AccountsError::Database(sqlx::Error::RowNotFound).code(),
            ErrorCode::Internal
        );
    }

    #[test]
    fn a_database_error_never_reaches_the_caller() {
        let status = AccountsError::Database(sqlx::Error::Protocol("secret detail".into()))
            .into_status("get_member");
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::Internal);
        assert!(!status.message().contains("secret"));
        assert!(!body.message.contains("secret"));
    }

    #[test]
    fn an_overdraft_is_a_failed_precondition_with_its_own_code() {
        let status = AccountsError::InsufficientBalance.into_status("record_movement");
        assert_eq!(status.code(), tonic::Code::FailedPrecondition);
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::InsufficientBalance);
        assert_eq!(body.message, "Tu saldo no alcanza para esta operación.");
    }

    #[test]
    fn a_reused_idempotency_key_is_already_exists() {
        let status = AccountsError::IdempotencyMismatch.into_status("post_purchase");
        assert_eq!(status.code(), tonic::Code::AlreadyExists);
        assert_eq!(
            ErrorBody::from_status(&status).code,
            ErrorCode::IdempotencyMismatch
        );
    }

    #[test]
    fn a_field_error_carries_its_spanish_text() {
        let body = AccountsError::InvalidField {
            field: "month",
            message: "Elige un mes válido.",
        }
        .body();
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some("month"));
        assert_eq!(body.message, "Elige un mes válido.");
    }

    #[test]
    fn the_email_confirmation_refusals_carry_their_own_codes() {
        for (err, grpc, code) in [
            (
                AccountsError::ConfirmationInvalid,
                tonic::Code::NotFound,
                ErrorCode::ConfirmationInvalid,
            ),
            (
                AccountsError::EmailAlreadyConfirmed,
                tonic::Code::FailedPrecondition,
                ErrorCode::EmailAlreadyConfirmed,
            ),
            (
                AccountsError::TooManyAttempts,
                tonic::Code::ResourceExhausted,
                ErrorCode::TooManyAttempts,
            ),
            (
                AccountsError::Unavailable("auth set_login_email: connection refused".into()),
                tonic::Code::Unavailable,
                ErrorCode::Unavailable,
            ),
        ] {
            let status = err.into_status("confirm_email");
            assert_eq!(status.code(), grpc);
            let body = ErrorBody::from_status(&status);
            assert_eq!(body.code, code);
            assert_eq!(body.message, code.message());
            assert!(!body.message.contains("connection refused"));
        }
    }

    #[test]
    fn a_registered_document_offers_password_recovery_and_a_foreign_one_says_documento() {
        let rut = ErrorBody::from_status(
            &AccountsError::RutAlreadyRegistered { foreign: false }.into_status("x"),
        );
        assert_eq!(rut.code, ErrorCode::RutAlreadyRegistered);
        assert_eq!(rut.message, ErrorCode::RutAlreadyRegistered.message());
        let action = rut.action.expect("an action");
        assert_eq!(action.url, "/recuperar-contrasena");
        assert_eq!(action.url_name, "Recuperar contraseña");
        let foreign = AccountsError::RutAlreadyRegistered { foreign: true }.body();
        assert!(
            foreign
                .message
                .starts_with("Este documento ya está registrado")
        );
        assert!(foreign.action.is_some());
    }

    #[test]
    fn a_registered_email_names_the_email_field() {
        let body = AccountsError::EmailAlreadyRegistered.body();
        assert_eq!(body.code, ErrorCode::EmailAlreadyRegistered);
        assert_eq!(body.field.as_deref(), Some("email"));
    }

    #[test]
    fn the_unsubscribe_refusals_carry_their_own_codes() {
        let mismatch = AccountsError::IdentityMismatch.into_status("unsubscribe");
        assert_eq!(mismatch.code(), tonic::Code::InvalidArgument);
        assert_eq!(
            ErrorBody::from_status(&mismatch).code,
            ErrorCode::IdentityMismatch
        );
        let already = AccountsError::AlreadyUnsubscribed.into_status("unsubscribe");
        assert_eq!(already.code(), tonic::Code::FailedPrecondition);
        assert_eq!(
            ErrorBody::from_status(&already).code,
            ErrorCode::AlreadyUnsubscribed
        );
    }

    #[test]
    fn a_malformed_user_is_an_invalid_rut_or_document_on_the_user_field() {
        let rut = AccountsError::InvalidUser(IdentityError::InvalidRut).body();
        assert_eq!(rut.code, ErrorCode::InvalidRut);
        assert_eq!(rut.field.as_deref(), Some("user"));
        let document = AccountsError::InvalidUser(IdentityError::InvalidDocument).body();
        assert_eq!(document.code, ErrorCode::InvalidArgument);
        assert_eq!(document.field.as_deref(), Some("user"));
    }

    #[test]
    fn an_invalid_input_names_its_field() {
        let body = AccountsError::invalid("email", "not an email address").body();
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some("email"));
    }
}
