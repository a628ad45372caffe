//! Registration at `/registro`, three steps held by the registration service. The flow id is
//! the flow's only credential, so it travels in the httpOnly `mc_registration` cookie and the
//! web app only ever sees the flow's public view. Also the anonymous "resend the verification
//! email" action of `ERR_EMAIL_NOT_VERIFIED`.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_proto::accounts::v1::ResendVerificationEmailRequest;
use miclub_proto::registration::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::session::edge_limit;
use crate::cookies::REGISTRATION_COOKIE;
use crate::error::{ApiError, ApiResult};
use crate::extract::{ApiJson, ClientIp};
use crate::recaptcha;
use crate::state::AppState;

/// Step 1: a Chilean RUT with the ID card's serial number, or a foreign document.
#[derive(Debug, Deserialize, Serialize, ToSchema, Clone, PartialEq)]
#[serde(tag = "documentType", rename_all_fields = "camelCase")]
pub enum Identity {
    #[serde(rename = "RUT")]
    Rut {
        #[schema(
            pattern = r"^\s*[0-9. -]*[0-9][0-9. -]*[0-9kK][. -]*\s*$",
            example = "12.345.678-5"
        )]
        rut: String,
        /// The serial number printed on the ID card ("número de documento").
        #[serde(rename = "documentNumber")]
        #[schema(pattern = r"^\s*\.*[Aa]?(\.*[0-9]){9}\.*\s*$", example = "100.123.456")]
        document_number: String,
    },
    #[serde(rename = "PASSPORT")]
    Passport {
        #[serde(rename = "documentNumber")]
        #[schema(
            pattern = r"^\s*[0-9A-Za-z. -]*[A-Za-z][0-9A-Za-z. -]*\s*$",
            example = "P1234567"
        )]
        document_number: String,
        /// ISO 3166-1 alpha-2 of the issuing country.
        #[schema(pattern = r"^\s*[A-Za-z]{2}\s*$", example = "AR")]
        country: String,
    },
    #[serde(rename = "NATIONAL_ID")]
    NationalId {
        #[serde(rename = "documentNumber")]
        #[schema(
            pattern = r"^\s*[0-9A-Za-z. -]*[A-Za-z][0-9A-Za-z. -]*\s*$",
            example = "P1234567"
        )]
        document_number: String,
        #[schema(pattern = r"^\s*[A-Za-z]{2}\s*$", example = "AR")]
        country: String,
    },
}

/// Step 2.
#[derive(Debug, Deserialize, Serialize, ToSchema, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PersonalData {
    #[schema(min_length = 1, max_length = 50, example = "Ana")]
    pub name: String,
    #[schema(min_length = 1, max_length = 50, example = "González")]
    pub last_name: String,
    #[serde(default)]
    #[schema(max_length = 50, example = "Pérez")]
    pub mother_surname: String,
    /// A Chilean mobile: `+569XXXXXXXX`, `569XXXXXXXX` or `9XXXXXXXX`, spaces ignored.
    #[schema(
        pattern = r"^\s*(\+?56\s*)?9(\s*[0-9]){8}\s*$",
        example = "+56911111111"
    )]
    pub phone_number: String,
    /// ISO "YYYY-MM-DD", aged 18 to 120.
    #[schema(format = Date, example = "1988-03-14")]
    pub birth_date: String,
    /// An id of `GET /api/profile/genders`.
    #[schema(minimum = 1, maximum = 7, example = 1)]
    pub gender_id: i32,
    #[schema(format = Email, max_length = 254, example = "ana@example.cl")]
    pub email: String,
}

/// Step 3.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    #[schema(format = Password, min_length = 8, max_length = 64)]
    pub password: String,
    #[serde(default)]
    pub accept_terms: bool,
}

/// What the web app sees of a flow: where it stands and what was entered (never a password).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistrationView {
    /// The step the member is on: 2 (personal data) or 3 (password and terms).
    pub step: i32,
    pub identity: Option<Identity>,
    pub personal_data: Option<PersonalData>,
    pub expires_in_seconds: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Registered {
    /// Where the verification link went, masked.
    pub masked_email: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct VerificationEmailRequest {
    /// RUT in any common form, or a foreign document number.
    #[schema(
        min_length = 1,
        pattern = r"^\s*[0-9A-Za-z. -]*[0-9A-Za-z][0-9A-Za-z. -]*\s*$",
        example = "12.345.678-5"
    )]
    pub user: String,
}

fn identity_to_proto(identity: Identity) -> pb::start_registration_request::Identity {
    use pb::start_registration_request::Identity as Pi;
    let foreign = |kind: pb::ForeignDocumentType, document_number, country| {
        Pi::Foreign(pb::ForeignIdentity {
            document_type: kind as i32,
            document_number,
            country,
        })
    };
    match identity {
        Identity::Rut {
            rut,
            document_number,
        } => Pi::Chilean(pb::ChileanIdentity {
            rut,
            document_number,
        }),
        Identity::Passport {
            document_number,
            country,
        } => foreign(pb::ForeignDocumentType::Passport, document_number, country),
        Identity::NationalId {
            document_number,
            country,
        } => foreign(
            pb::ForeignDocumentType::NationalId,
            document_number,
            country,
        ),
    }
}

fn identity_from_proto(identity: Option<pb::registration::Identity>) -> Option<Identity> {
    match identity? {
        pb::registration::Identity::Chilean(chilean) => Some(Identity::Rut {
            rut: chilean.rut,
            document_number: chilean.document_number,
        }),
        pb::registration::Identity::Foreign(foreign) => {
            match pb::ForeignDocumentType::try_from(foreign.document_type).ok()? {
                pb::ForeignDocumentType::Passport => Some(Identity::Passport {
                    document_number: foreign.document_number,
                    country: foreign.country,
                }),
                pb::ForeignDocumentType::NationalId => Some(Identity::NationalId {
                    document_number: foreign.document_number,
                    country: foreign.country,
                }),
                pb::ForeignDocumentType::Unspecified => None,
            }
        }
    }
}

fn personal_to_proto(data: PersonalData) -> pb::PersonalData {
    pb::PersonalData {
        name: data.name,
        last_name: data.last_name,
        mother_surname: data.mother_surname,
        phone_number: data.phone_number,
        birth_date: data.birth_date,
        gender_id: data.gender_id,
        email: data.email,
    }
}

fn personal_from_proto(data: pb::PersonalData) -> PersonalData {
    PersonalData {
        name: data.name,
        last_name: data.last_name,
        mother_surname: data.mother_surname,
        phone_number: data.phone_number,
        birth_date: data.birth_date,
        gender_id: data.gender_id,
        email: data.email,
    }
}

/// The flow's view and the id to keep in the cookie.
fn view(registration: Option<pb::Registration>) -> ApiResult<(String, RegistrationView)> {
    let registration = registration.ok_or_else(|| {
        ApiError::new(ErrorCode::Internal).with_cause("registration answered without a flow")
    })?;
    let view = RegistrationView {
        step: registration.step,
        identity: identity_from_proto(registration.identity),
        personal_data: registration.personal_data.map(personal_from_proto),
        expires_in_seconds: registration.expires_in_seconds,
    };
    Ok((registration.registration_id, view))
}

fn flow_id(state: &AppState, jar: &CookieJar) -> ApiResult<String> {
    state
        .cookies
        .value(jar, REGISTRATION_COOKIE)
        .ok_or_else(|| ApiError::new(ErrorCode::RegistrationExpired))
}

/// Service errors reach the browser with the camelCase field names of these bodies.
fn refused(status: tonic::Status) -> ApiError {
    ApiError::from(status).with_camel_case_field()
}

/// The flow in progress, so a reload resumes at its step. A browser that never started one (no
/// flow cookie) is the ordinary first visit to /registro, not a failure: 204, so the page's
/// first load logs no error in the console. A cookie whose flow is gone still answers 404
/// ERR_REGISTRATION_EXPIRED.
#[utoipa::path(get, path = "/api/registration", tag = "registration", operation_id = "getRegistration",
    responses(
        (status = 200, body = RegistrationView),
        (status = 204, description = "No flow cookie: this browser has no registration in progress"),
        (status = 404, description = "ERR_REGISTRATION_EXPIRED: the cookie's flow expired or was cancelled", body = ErrorBody),
    ))]
pub async fn current(State(state): State<AppState>, jar: CookieJar) -> ApiResult<Response> {
    let Some(registration_id) = state.cookies.value(&jar, REGISTRATION_COOKIE) else {
        return Ok(StatusCode::NO_CONTENT.into_response());
    };
    let answer = state
        .registration
        .clone()
        .get_registration(pb::GetRegistrationRequest {
            registration_id: registration_id.clone(),
        })
        .await
        .map_err(refused)?
        .into_inner();
    let (_, view) = view(answer.registration)?;
    Ok(Json(view).into_response())
}

/// Step 1: starts a new flow (replacing any earlier one of this browser).
#[utoipa::path(post, path = "/api/registration", tag = "registration", operation_id = "startRegistration", request_body = Identity,
    params(("recaptcha-token" = Option<String>, Header, description = "reCAPTCHA token (action `registration`); required when a site key is configured")),
    responses(
        (status = 201, description = "Flow started at step 2; sets the flow cookie", body = RegistrationView),
        (status = 400, description = "ERR_INVALID_RUT, ERR_INVALID_ARGUMENT with field, or ERR_RECAPTCHA", body = ErrorBody),
        (status = 409, description = "ERR_RUT_ALREADY_REGISTERED", body = ErrorBody),
        (status = 422, description = "ERR_IDENTITY_NOT_VERIFIED", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS, with Retry-After", body = ErrorBody),
    ))]
pub async fn start(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    jar: CookieJar,
    headers: HeaderMap,
    ApiJson(body): ApiJson<Identity>,
) -> ApiResult<(StatusCode, CookieJar, Json<RegistrationView>)> {
    let per_minute = state.settings.registration_requests_per_minute;
    edge_limit(&state, "registration", &ip, per_minute).await?;
    if let Identity::Rut { rut, .. } = &body {
        crate::rut::check_rut("rut", rut)?;
    }
    if state.recaptcha.enforced() {
        state
            .recaptcha
            .check(&headers, &ip, recaptcha::action::REGISTRATION)
            .await?;
    }
    let answer = state
        .registration
        .clone()
        .start_registration(pb::StartRegistrationRequest {
            identity: Some(identity_to_proto(body)),
            client_ip: ip,
        })
        .await
        .map_err(refused)?
        .into_inner();
    let (id, view) = view(answer.registration)?;
    let jar = state.cookies.registration(jar, id, view.expires_in_seconds);
    Ok((StatusCode::CREATED, jar, Json(view)))
}

/// Step 2 (also sent again from step 3 when the member goes back).
#[utoipa::path(put, path = "/api/registration/personal-data", tag = "registration", request_body = PersonalData,
    responses(
        (status = 200, description = "Moved to step 3", body = RegistrationView),
        (status = 400, description = "ERR_INVALID_ARGUMENT with field and message", body = ErrorBody),
        (status = 404, description = "ERR_REGISTRATION_EXPIRED", body = ErrorBody),
    ))]
pub async fn personal_data(
    State(state): State<AppState>,
    jar: CookieJar,
    ApiJson(body): ApiJson<PersonalData>,
) -> ApiResult<(CookieJar, Json<RegistrationView>)> {
    let registration_id = flow_id(&state, &jar)?;
    let answer = state
        .registration
        .clone()
        .submit_personal_data(pb::SubmitPersonalDataRequest {
            registration_id,
            personal_data: Some(personal_to_proto(body)),
        })
        .await
        .map_err(refused)?
        .into_inner();
    let (id, view) = view(answer.registration)?;
    // Each accepted step extends the flow, and the cookie with it.
    let jar = state.cookies.registration(jar, id, view.expires_in_seconds);
    Ok((jar, Json(view)))
}

/// Step 3: creates the member and the credentials, and mails the verification link.
#[utoipa::path(post, path = "/api/registration/complete", tag = "registration", request_body = Completion,
    responses(
        (status = 201, description = "Member registered; the flow cookie is cleared", body = Registered),
        (status = 404, description = "ERR_REGISTRATION_EXPIRED", body = ErrorBody),
        (status = 409, description = "ERR_RUT_ALREADY_REGISTERED, or ERR_PREVIOUS_EMAIL_REQUIRED: the document is a member's who left (or their return, not yet activated) and the email is not the one they left with; the flow stays, so going back to step 2 and typing that address completes it", body = ErrorBody),
        (status = 422, description = "ERR_WEAK_PASSWORD (password) or ERR_TERMS_NOT_ACCEPTED (acceptTerms)", body = ErrorBody),
        (status = 503, description = "ERR_UNAVAILABLE: sending the same request again is safe", body = ErrorBody),
    ))]
pub async fn complete(
    State(state): State<AppState>,
    jar: CookieJar,
    ApiJson(body): ApiJson<Completion>,
) -> ApiResult<(StatusCode, CookieJar, Json<Registered>)> {
    let registration_id = flow_id(&state, &jar)?;
    let answer = state
        .registration
        .clone()
        .complete_registration(pb::CompleteRegistrationRequest {
            registration_id,
            password: body.password,
            accept_terms: body.accept_terms,
        })
        .await
        .map_err(refused)?
        .into_inner();
    tracing::info!(member_id = %answer.member_id, "registration completed");
    Ok((
        StatusCode::CREATED,
        state.cookies.clear_registration(jar),
        Json(Registered {
            masked_email: answer.masked_email,
        }),
    ))
}

/// Ends this browser's flow in the registration service and clears its cookie.
///
/// A copy of the cookie stops working with it. The member asked to leave: when the service
/// cannot be told, the cookie is cleared all the same and the flow runs out on its own.
#[utoipa::path(delete, path = "/api/registration", tag = "registration",
    responses((status = 204, description = "Flow ended and its cookie cleared")))]
pub async fn cancel(State(state): State<AppState>, jar: CookieJar) -> (CookieJar, StatusCode) {
    if let Some(registration_id) = state.cookies.value(&jar, REGISTRATION_COOKIE) {
        let cancelled = state
            .registration
            .clone()
            .cancel_registration(pb::CancelRegistrationRequest { registration_id })
            .await;
        match cancelled {
            Ok(_) => tracing::info!("registration cancelled"),
            Err(status) => tracing::warn!(
                code = ?status.code(),
                error = %status.message(),
                "registration not cancelled in the service: the flow cookie is cleared and the flow expires on its own"
            ),
        }
    }
    (
        state.cookies.clear_registration(jar),
        StatusCode::NO_CONTENT,
    )
}

/// The answer of the verification-email resend: an empty object, whether or not the user is a
/// member waiting for verification.
#[derive(Debug, Serialize, ToSchema)]
pub struct NeutralAnswer {}

/// Mails a new verification link when the user is a member whose email is not verified yet;
/// the same answer otherwise.
#[utoipa::path(post, path = "/api/registration/verification-email", tag = "registration",
    request_body = VerificationEmailRequest,
    params(("recaptcha-token" = Option<String>, Header, description = "reCAPTCHA token (action `verification_email`); required when a site key is configured")),
    responses(
        (status = 202, description = "Neutral answer: the same empty object whoever asked", body = NeutralAnswer),
        (status = 400, description = "ERR_INVALID_RUT (user) or ERR_RECAPTCHA", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS, with Retry-After", body = ErrorBody),
    ))]
pub async fn resend_verification(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    ApiJson(body): ApiJson<VerificationEmailRequest>,
) -> ApiResult<(StatusCode, Json<NeutralAnswer>)> {
    let per_minute = state.settings.registration_requests_per_minute;
    edge_limit(&state, "verification", &ip, per_minute).await?;
    crate::rut::check_user("user", &body.user)?;
    if state.recaptcha.enforced() {
        state
            .recaptcha
            .check(&headers, &ip, recaptcha::action::VERIFICATION_EMAIL)
            .await?;
    }
    state
        .accounts
        .clone()
        .resend_verification_email(ResendVerificationEmailRequest { user: body.user })
        .await?;
    Ok((StatusCode::ACCEPTED, Json(NeutralAnswer {})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rut_identity_is_read_from_the_documented_body() {
        let body = r#"{"documentType":"RUT","rut":"12.345.678-5","documentNumber":"100.123.456"}"#;
        let identity: Identity = serde_json::from_str(body).unwrap();
        assert_eq!(
            identity,
            Identity::Rut {
                rut: "12.345.678-5".into(),
                document_number: "100.123.456".into()
            }
        );
    }

    #[test]
    fn a_foreign_identity_keeps_its_type_through_the_service_and_back() {
        let body = r#"{"documentType":"NATIONAL_ID","documentNumber":"AB12345","country":"AR"}"#;
        let identity: Identity = serde_json::from_str(body).unwrap();
        let pb::start_registration_request::Identity::Foreign(foreign) =
            identity_to_proto(identity.clone())
        else {
            panic!("expected a foreign identity");
        };
        let back = identity_from_proto(Some(pb::registration::Identity::Foreign(foreign)));
        assert_eq!(back, Some(identity));
        let json = serde_json::to_value(back).unwrap();
        assert_eq!(json["documentType"], "NATIONAL_ID");
        assert_eq!(json["documentNumber"], "AB12345");
    }
}
