//! The one catalogue of error codes, shared by every service and the gateway.
//!
//! Each [`ErrorCode`] maps to a `tonic::Code` (how a service answers over gRPC), an HTTP status
//! (how the gateway answers the browser) and the Spanish text the member reads. Services send an
//! [`ErrorBody`] inside `tonic::Status` details; the gateway decodes it back, so the code, text
//! and action link survive the hop unchanged.

use std::fmt;

use http::StatusCode;
use miclub_proto::common::v1 as pb;
use prost::Message;
use serde::{Deserialize, Serialize};

macro_rules! error_codes {
    ($( $variant:ident => $code:literal, $grpc:ident, $http:ident, $message:literal; )*) => {
        /// Stable error codes. The string form (`ERR_…`) is part of the public REST contract.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode { $( $variant, )* }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[ $( ErrorCode::$variant, )* ];

            pub fn as_str(self) -> &'static str {
                match self { $( ErrorCode::$variant => $code, )* }
            }

            pub fn grpc_code(self) -> tonic::Code {
                match self { $( ErrorCode::$variant => tonic::Code::$grpc, )* }
            }

            pub fn http_status(self) -> StatusCode {
                match self { $( ErrorCode::$variant => StatusCode::$http, )* }
            }

            /// The Spanish text a member reads when nothing more specific is known.
            pub fn message(self) -> &'static str {
                match self { $( ErrorCode::$variant => $message, )* }
            }

            pub fn parse(code: &str) -> Option<Self> {
                match code { $( $code => Some(ErrorCode::$variant), )* _ => None }
            }
        }

        /// In the OpenAPI document: a string, one of every code above.
        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for ErrorCode {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .description(Some("Stable error code; its HTTP status is fixed per code."))
                    .enum_values(Some([$( $code, )*]))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for ErrorCode {}
    };
}

error_codes! {
    InvalidArgument => "ERR_INVALID_ARGUMENT", InvalidArgument, BAD_REQUEST,
        "Revisa los datos ingresados.";
    InvalidRut => "ERR_INVALID_RUT", InvalidArgument, BAD_REQUEST,
        "El RUT ingresado no es válido.";
    InvalidJson => "ERR_INVALID_JSON", InvalidArgument, BAD_REQUEST,
        "La solicitud no tiene un formato válido.";
    Recaptcha => "ERR_RECAPTCHA", InvalidArgument, BAD_REQUEST,
        "No pudimos verificar que no eres un robot. Intenta de nuevo.";
    InvalidCredentials => "ERR_INVALID_CREDENTIALS", Unauthenticated, UNAUTHORIZED,
        "RUT o contraseña incorrectos.";
    Unauthenticated => "ERR_UNAUTHENTICATED", Unauthenticated, UNAUTHORIZED,
        "Tu sesión expiró. Inicia sesión nuevamente.";
    EmailNotVerified => "ERR_EMAIL_NOT_VERIFIED", FailedPrecondition, FORBIDDEN,
        "Debes verificar tu correo electrónico antes de iniciar sesión.";
    Forbidden => "ERR_FORBIDDEN", PermissionDenied, FORBIDDEN,
        "No tienes permiso para realizar esta acción.";
    Csrf => "ERR_CSRF", PermissionDenied, FORBIDDEN,
        "No pudimos verificar la solicitud. Recarga la página e intenta de nuevo.";
    NotFound => "ERR_NOT_FOUND", NotFound, NOT_FOUND,
        "No encontramos lo que buscas.";
    MethodNotAllowed => "ERR_METHOD_NOT_ALLOWED", Unimplemented, METHOD_NOT_ALLOWED,
        "Esta operación no está permitida.";
    NoClubAccount => "ERR_NO_CLUB_ACCOUNT", FailedPrecondition, NOT_ACCEPTABLE,
        "Aún no tienes una cuenta Mi Club.";
    Conflict => "ERR_CONFLICT", Aborted, CONFLICT,
        "La operación no se pudo completar porque los datos cambiaron. Intenta de nuevo.";
    PayloadTooLarge => "ERR_PAYLOAD_TOO_LARGE", InvalidArgument, PAYLOAD_TOO_LARGE,
        "La solicitud es demasiado grande.";
    UnsupportedMediaType => "ERR_UNSUPPORTED_MEDIA_TYPE", InvalidArgument, UNSUPPORTED_MEDIA_TYPE,
        "La solicitud debe enviarse en formato JSON.";
    RequestTimeout => "ERR_REQUEST_TIMEOUT", DeadlineExceeded, REQUEST_TIMEOUT,
        "La solicitud tardó demasiado en llegar. Revisa tu conexión e intenta de nuevo.";
    OtpInvalid => "ERR_OTP_INVALID", InvalidArgument, UNPROCESSABLE_ENTITY,
        "El código ingresado no es correcto.";
    OtpExpired => "ERR_OTP_EXPIRED", FailedPrecondition, UNPROCESSABLE_ENTITY,
        "El código expiró. Inicia sesión nuevamente para recibir uno nuevo.";
    OtpTooManyAttempts => "ERR_OTP_TOO_MANY_ATTEMPTS", ResourceExhausted, TOO_MANY_REQUESTS,
        "Superaste el número de intentos. Inicia sesión nuevamente.";
    OtpResendCooldown => "ERR_OTP_RESEND_COOLDOWN", ResourceExhausted, TOO_MANY_REQUESTS,
        "Espera un momento antes de pedir un nuevo código.";
    OtpDailyLimit => "ERR_OTP_DAILY_LIMIT", ResourceExhausted, TOO_MANY_REQUESTS,
        "Alcanzaste el máximo de códigos por hoy. Intenta nuevamente mañana.";
    TooManyAttempts => "ERR_TOO_MANY_ATTEMPTS", ResourceExhausted, TOO_MANY_REQUESTS,
        "Demasiados intentos. Espera unos minutos e intenta de nuevo.";
    WrongPassword => "ERR_WRONG_PASSWORD", InvalidArgument, UNPROCESSABLE_ENTITY,
        "La contraseña actual no es correcta.";
    WeakPassword => "ERR_WEAK_PASSWORD", InvalidArgument, UNPROCESSABLE_ENTITY,
        "La nueva contraseña no cumple los requisitos.";
    InsufficientBalance => "ERR_INSUFFICIENT_BALANCE", FailedPrecondition, UNPROCESSABLE_ENTITY,
        "Tu saldo no alcanza para esta operación.";
    IdempotencyMismatch => "ERR_IDEMPOTENCY_MISMATCH", AlreadyExists, CONFLICT,
        "Esta clave de idempotencia ya se usó con otros datos.";
    EmailAlreadyConfirmed => "ERR_EMAIL_ALREADY_CONFIRMED", FailedPrecondition, CONFLICT,
        "Tu correo electrónico ya está confirmado.";
    ConfirmationInvalid => "ERR_CONFIRMATION_INVALID", NotFound, NOT_FOUND,
        "El enlace de confirmación no es válido o ya expiró. Pide uno nuevo.";
    RutAlreadyRegistered => "ERR_RUT_ALREADY_REGISTERED", AlreadyExists, CONFLICT,
        "Este RUT ya está registrado en Mi Club. Inicia sesión o recupera tu contraseña.";
    EmailAlreadyRegistered => "ERR_EMAIL_ALREADY_REGISTERED", AlreadyExists, CONFLICT,
        "Este correo electrónico ya está registrado en Mi Club. Usa otro correo o inicia sesión.";
    IdentityNotVerified => "ERR_IDENTITY_NOT_VERIFIED", FailedPrecondition, UNPROCESSABLE_ENTITY,
        "No pudimos validar tu documento. Revisa los datos e intenta de nuevo.";
    RegistrationExpired => "ERR_REGISTRATION_EXPIRED", NotFound, NOT_FOUND,
        "Tu registro expiró por inactividad. Comienza de nuevo.";
    TermsNotAccepted => "ERR_TERMS_NOT_ACCEPTED", InvalidArgument, UNPROCESSABLE_ENTITY,
        "Debes aceptar los términos y condiciones para registrarte.";
    MemberUnsubscribed => "ERR_MEMBER_UNSUBSCRIBED", FailedPrecondition, FORBIDDEN,
        "Te diste de baja de Mi Club. Si quieres volver, puedes registrarte de nuevo.";
    IdentityMismatch => "ERR_IDENTITY_MISMATCH", InvalidArgument, UNPROCESSABLE_ENTITY,
        "Los datos ingresados no coinciden con los de tu cuenta.";
    AlreadyUnsubscribed => "ERR_ALREADY_UNSUBSCRIBED", FailedPrecondition, CONFLICT,
        "Ya te diste de baja de Mi Club.";
    PreviousEmailRequired => "ERR_PREVIOUS_EMAIL_REQUIRED", FailedPrecondition, CONFLICT,
        "Este documento estuvo inscrito en Mi Club. Para volver, usa el correo que tenías registrado o escríbenos a través de la sección de ayuda.";
    EmailChangedRecently => "ERR_EMAIL_CHANGED_RECENTLY", FailedPrecondition, CONFLICT,
        "Cambiaste tu correo hace poco. Por seguridad, podrás darte de baja 7 días después del cambio.";
    MissionsNotReady => "ERR_MISSIONS_NOT_READY", Aborted, CONFLICT,
        "Estamos preparando tus misiones. Vuelve a intentarlo en unos minutos.";
    Internal => "ERR_INTERNAL", Internal, INTERNAL_SERVER_ERROR,
        "Ocurrió un error inesperado. Intenta de nuevo más tarde.";
    Unavailable => "ERR_UNAVAILABLE", Unavailable, SERVICE_UNAVAILABLE,
        "El servicio no está disponible en este momento. Intenta de nuevo más tarde.";
    Timeout => "ERR_TIMEOUT", DeadlineExceeded, GATEWAY_TIMEOUT,
        "El servicio tardó demasiado en responder. Intenta de nuevo más tarde.";
}

impl ErrorCode {
    /// The code for a `tonic::Status` that carries no [`ErrorBody`] (a transport failure, a
    /// service that is down, or a peer that is not ours).
    pub fn from_grpc(code: tonic::Code) -> Self {
        match code {
            tonic::Code::InvalidArgument | tonic::Code::OutOfRange => ErrorCode::InvalidArgument,
            tonic::Code::Unauthenticated => ErrorCode::Unauthenticated,
            tonic::Code::PermissionDenied => ErrorCode::Forbidden,
            tonic::Code::NotFound => ErrorCode::NotFound,
            tonic::Code::AlreadyExists | tonic::Code::Aborted => ErrorCode::Conflict,
            tonic::Code::ResourceExhausted => ErrorCode::TooManyAttempts,
            tonic::Code::Unavailable | tonic::Code::Cancelled => ErrorCode::Unavailable,
            tonic::Code::DeadlineExceeded => ErrorCode::Timeout,
            _ => ErrorCode::Internal,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        ErrorCode::parse(&raw).ok_or_else(|| serde::de::Error::custom("unknown error code"))
    }
}

/// A link offered next to an error, e.g. "resend the verification email".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorAction {
    pub url: String,
    #[serde(rename = "urlName")]
    pub url_name: String,
}

/// What a member is told about a failure: the REST error body, and the gRPC status details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = Error))]
pub struct ErrorBody {
    pub code: ErrorCode,
    /// Spanish text for the member.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<ErrorAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Seconds to wait before trying again, for throttled requests. Not part of the JSON body:
    /// the gateway sends it as the `Retry-After` header.
    #[serde(skip)]
    pub retry_after_secs: Option<u64>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode) -> Self {
        Self {
            code,
            message: code.message().to_owned(),
            action: None,
            field: None,
            retry_after_secs: None,
        }
    }

    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub fn with_action(mut self, url: impl Into<String>, url_name: impl Into<String>) -> Self {
        self.action = Some(ErrorAction {
            url: url.into(),
            url_name: url_name.into(),
        });
        self
    }

    /// Tells the caller how long to wait before trying again (at least one second).
    pub fn with_retry_after(mut self, wait: std::time::Duration) -> Self {
        self.retry_after_secs = Some(wait.as_secs_f64().ceil().max(1.0) as u64);
        self
    }

    /// The gRPC status a service answers with; the body rides in the details.
    pub fn into_status(self) -> tonic::Status {
        let detail = pb::ErrorDetail {
            code: self.code.as_str().to_owned(),
            message: self.message.clone(),
            action: self.action.map(|a| pb::ErrorAction {
                url: a.url,
                url_name: a.url_name,
            }),
            field: self.field,
            retry_after_seconds: self.retry_after_secs.map(|s| s as i64),
        };
        tonic::Status::with_details(
            self.code.grpc_code(),
            self.code.as_str(),
            detail.encode_to_vec().into(),
        )
    }

    /// Reads the body a service put in a status; statuses without one (transport failures,
    /// foreign peers) get the generic body of their gRPC code.
    pub fn from_status(status: &tonic::Status) -> Self {
        if let Ok(detail) = pb::ErrorDetail::decode(status.details())
            && let Some(code) = ErrorCode::parse(&detail.code)
        {
            return Self {
                code,
                message: if detail.message.is_empty() {
                    code.message().to_owned()
                } else {
                    detail.message
                },
                action: detail.action.map(|a| ErrorAction {
                    url: a.url,
                    url_name: a.url_name,
                }),
                field: detail.field,
                retry_after_secs: detail
                    .retry_after_seconds
                    .and_then(|s| u64::try_from(s).ok()),
            };
        }
        Self::new(ErrorCode::from_grpc(status.code()))
    }
}

impl From<ErrorCode> for ErrorBody {
    fn from(code: ErrorCode) -> Self {
        ErrorBody::new(code)
    }
}

/// The first error of type `T` in `error`'s chain of sources, `error` itself included: how a
/// caller recognises a failure that reaches it wrapped by the layers in between (hyper, axum,
/// tonic).
pub fn caused_by<'a, T: std::error::Error + 'static>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(cause) = error.downcast_ref::<T>() {
            return Some(cause);
        }
        current = error.source();
    }
    None
}

/// A service's own error type, answered over gRPC the same way by every service.
///
/// Each service keeps one error enum and says here what each case means to a caller (its
/// [`ErrorCode`] and the [`ErrorBody`] the member reads); how that reaches the caller is
/// written once, in [`ServiceError::into_status`].
pub trait ServiceError: fmt::Display + Sized {
    /// The service's name, as its log lines say it (`accounts`).
    const SERVICE: &'static str;

    /// The catalogue code of this failure.
    fn code(&self) -> ErrorCode;

    /// What the caller is told: by default the code's own Spanish text. A service adds a field,
    /// an action or a more precise text where it helps, never a database or transport detail.
    fn body(&self) -> ErrorBody {
        ErrorBody::new(self.code())
    }

    /// The gRPC answer of `rpc`, the body in its details. Failures of the service's own
    /// (`ERR_INTERNAL`, `ERR_UNAVAILABLE`) are logged at error with their cause, which never
    /// reaches the caller; refusals are logged at info.
    fn into_status(self, rpc: &'static str) -> tonic::Status {
        let code = self.code();
        match code {
            ErrorCode::Internal | ErrorCode::Unavailable => {
                tracing::error!(rpc, error = %self, code = %code, "{} call failed", Self::SERVICE);
            }
            _ => tracing::info!(rpc, error = %self, code = %code, "{} call refused", Self::SERVICE),
        }
        self.body().into_status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caused_by_finds_an_error_wrapped_two_layers_down_and_not_one_absent_from_the_chain() {
        let wrapped = anyhow::Error::new(fmt::Error)
            .context("outer")
            .context("outermost");
        let chain: &(dyn std::error::Error + 'static) = wrapped.as_ref();
        assert!(caused_by::<fmt::Error>(chain).is_some());
        assert!(caused_by::<std::io::Error>(chain).is_none());
    }

    #[test]
    fn every_code_survives_a_trip_through_a_grpc_status() {
        for code in ErrorCode::ALL {
            let body = ErrorBody::new(*code)
                .with_field("user")
                .with_action("/x", "Ir")
                .with_retry_after(std::time::Duration::from_millis(1500));
            assert_eq!(body.retry_after_secs, Some(2));
            let status = body.clone().into_status();
            assert_eq!(status.code(), code.grpc_code());
            assert_eq!(ErrorBody::from_status(&status), body);
        }
    }

    #[test]
    fn a_status_without_details_gets_the_generic_body_of_its_code() {
        let body = ErrorBody::from_status(&tonic::Status::unavailable("connection refused"));
        assert_eq!(body.code, ErrorCode::Unavailable);
        assert_eq!(body.message, ErrorCode::Unavailable.message());
    }

    #[test]
    fn the_rest_body_uses_the_spec_field_names() {
        let json = serde_json::to_value(
            ErrorBody::new(ErrorCode::EmailNotVerified).with_action("/a", "Reenviar"),
        )
        .unwrap();
        assert_eq!(json["code"], "ERR_EMAIL_NOT_VERIFIED");
        assert_eq!(json["action"]["urlName"], "Reenviar");
        assert!(json.get("field").is_none());
    }

    #[test]
    fn codes_are_unique_and_every_message_is_spanish_text() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert!(code.message().ends_with('.'), "{code}");
        }
    }

    /// A service error with one refusal, one own failure and a body of its own.
    #[derive(Debug)]
    enum ShopError {
        Closed,
        Database(&'static str),
    }

    impl fmt::Display for ShopError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                ShopError::Closed => f.write_str("shop closed"),
                ShopError::Database(detail) => write!(f, "database error: {detail}"),
            }
        }
    }

    impl ServiceError for ShopError {
        const SERVICE: &'static str = "shop";

        fn code(&self) -> ErrorCode {
            match self {
                ShopError::Closed => ErrorCode::NotFound,
                ShopError::Database(_) => ErrorCode::Internal,
            }
        }

        fn body(&self) -> ErrorBody {
            let body = ErrorBody::new(self.code());
            match self {
                ShopError::Closed => body.with_field("shop").with_message("Cerrado."),
                ShopError::Database(_) => body,
            }
        }
    }

    /// The JSON log lines `run` writes.
    fn logged(run: impl FnOnce()) -> Vec<serde_json::Value> {
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
        let captured = crate::telemetry::tests::Captured::default();
        tracing::subscriber::with_default(
            crate::telemetry::tests::test_subscriber(&provider, captured.clone()),
            run,
        );
        captured.lines()
    }

    #[test]
    fn a_service_error_reaches_the_caller_as_its_body_inside_the_status() {
        let status = ShopError::Closed.into_status("open_shop");
        assert_eq!(status.code(), tonic::Code::NotFound);
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::NotFound);
        assert_eq!(body.field.as_deref(), Some("shop"));
        assert_eq!(body.message, "Cerrado.");
    }

    #[test]
    fn a_failure_of_the_service_is_logged_at_error_with_its_cause_and_never_told_to_the_caller() {
        let mut status = None;
        let lines = logged(|| {
            status = Some(ShopError::Database("secret detail").into_status("open_shop"));
        });
        let status = status.unwrap();
        assert_eq!(status.code(), tonic::Code::Internal);
        assert!(!status.message().contains("secret"));
        assert_eq!(
            ErrorBody::from_status(&status).message,
            ErrorCode::Internal.message()
        );
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0]["level"], "ERROR");
        assert_eq!(lines[0]["message"], "shop call failed");
        assert_eq!(lines[0]["rpc"], "open_shop");
        assert_eq!(lines[0]["code"], "ERR_INTERNAL");
        assert_eq!(lines[0]["error"], "database error: secret detail");
    }

    #[test]
    fn a_refusal_is_logged_at_info_with_the_rpc_and_the_code() {
        let lines = logged(|| {
            ShopError::Closed.into_status("open_shop");
        });
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0]["level"], "INFO");
        assert_eq!(lines[0]["message"], "shop call refused");
        assert_eq!(lines[0]["rpc"], "open_shop");
        assert_eq!(lines[0]["code"], "ERR_NOT_FOUND");
    }
}
