//! RUTs at the edge: every route where a member types a RUT (login, password recovery,
//! registration, the verification resend, unsubscribe) refuses a malformed one here with the
//! same `ERR_INVALID_RUT` and the field it came in, before any service is asked. The services
//! keep their own checks; this makes the answer one and the same whichever service is behind.
//!
//! What counts as a RUT is `miclub_platform::identity` ([`Rut::parse`], [`LoginId::parse`]):
//! dots, hyphen and spaces anywhere, zero-padded bodies, `k` or `K`.

use miclub_platform::error::ErrorCode;
use miclub_platform::identity::{IdentityError, LoginId, Rut};

use crate::error::ApiError;

/// A "user" field (a RUT or a foreign document): anything made only of a RUT's characters
/// (digits, `k`/`K`, dots, hyphens, spaces) must be a valid RUT, a lone `K` included. An empty
/// field or a malformed foreign document is left to the service, whose message says what is
/// missing.
pub fn check_user(field: &'static str, input: &str) -> Result<(), ApiError> {
    let trimmed = input.trim();
    let rut_shaped = !trimmed.is_empty()
        && trimmed
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, 'k' | 'K' | '.' | '-' | ' '));
    if rut_shaped || matches!(LoginId::parse(input), Err(IdentityError::InvalidRut)) {
        return check_rut(field, input);
    }
    Ok(())
}

/// A field that only takes a RUT: anything that is not a valid RUT, empty included.
pub fn check_rut(field: &'static str, input: &str) -> Result<(), ApiError> {
    Rut::parse(input).map(|_| ()).map_err(|_| invalid(field))
}

fn invalid(field: &'static str) -> ApiError {
    ApiError::new(ErrorCode::InvalidRut).with_field(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_shaped_like_a_rut_must_be_a_valid_rut() {
        for valid in [
            "11.111.111-1",
            "111111111",
            "011.111.111-1",
            "6-k",
            "P1234567",
            "",
        ] {
            assert!(check_user("user", valid).is_ok(), "{valid:?}");
        }
        for malformed in ["11.111.111-2", "0-0", "123456789-0", "5", "K", "kk", " - "] {
            let err = check_user("user", malformed).unwrap_err();
            assert_eq!(err.body.code, ErrorCode::InvalidRut, "{malformed:?}");
            assert_eq!(err.body.field.as_deref(), Some("user"));
        }
    }

    #[test]
    fn a_rut_only_field_refuses_anything_but_a_valid_rut() {
        assert!(check_rut("rut", "12.345.678-5").is_ok());
        for malformed in ["", "abc", "P1234567", "12.345.678-4"] {
            let err = check_rut("rut", malformed).unwrap_err();
            assert_eq!(err.body.code, ErrorCode::InvalidRut, "{malformed:?}");
        }
    }
}
