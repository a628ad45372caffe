//! The identity document of step 1, validated by rules before anything else sees it.
//!
//! A Chilean member gives a [`Rut`] and the serial number of the ID card ([`CardSerial`]); a
//! foreign member gives the kind of document, its number ([`ForeignDocument`]) and the issuing
//! [`Country`]. The document number becomes the login user, so a foreign number that login
//! would read as a RUT is refused here.

use miclub_platform::error::ErrorCode;
use miclub_platform::identity::{ForeignDocument, LoginId, Rut};

use crate::error::{RegistrationError, Result};

const INVALID_RUT: &str = "El RUT ingresado no es válido.";
const INVALID_CARD_SERIAL: &str = "El número de documento no es válido.";
const INVALID_FOREIGN_NUMBER: &str =
    "El número de documento debe tener entre 5 y 20 letras y números, con al menos una letra.";
const MISSING_DOCUMENT_TYPE: &str = "Selecciona el tipo de documento.";
const INVALID_COUNTRY: &str = "Selecciona el país que emitió tu documento.";

/// The serial number of a Chilean ID card: 9 digits, or "A" and 9 digits on older cards.
/// Stored without dots, the letter uppercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardSerial(String);

impl CardSerial {
    /// Accepts "100.123.456", "100123456", "A100123456" (either case, dots allowed).
    pub fn parse(input: &str) -> Result<Self> {
        let cleaned: String = input
            .trim()
            .chars()
            .filter(|c| *c != '.')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        let digits = cleaned.strip_prefix('A').unwrap_or(&cleaned);
        if digits.len() != 9 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(RegistrationError::invalid(
                "documentNumber",
                INVALID_CARD_SERIAL,
            ));
        }
        Ok(Self(cleaned))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Every officially assigned ISO 3166-1 alpha-2 code.
pub const ISO_COUNTRIES: &[&str] = &[
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
    "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS",
    "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN",
    "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE",
    "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
    "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM",
    "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM",
    "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC",
    "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
    "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
    "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG",
    "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
    "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS",
    "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO",
    "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
    "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW",
];

/// The issuing country of a foreign document: an assigned ISO 3166-1 alpha-2 code, not Chile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Country(&'static str);

impl Country {
    pub fn parse(input: &str) -> Result<Self> {
        let code = input.trim().to_ascii_uppercase();
        ISO_COUNTRIES
            .iter()
            .find(|known| **known == code && **known != "CL")
            .map(|known| Country(known))
            .ok_or(RegistrationError::invalid("country", INVALID_COUNTRY))
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

/// The kind of a foreign document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForeignKind {
    Passport,
    NationalId,
}

impl ForeignKind {
    /// "PASSPORT" or "NATIONAL_ID", as stored and as the identity verifier names them.
    pub fn as_str(self) -> &'static str {
        match self {
            ForeignKind::Passport => "PASSPORT",
            ForeignKind::NationalId => "NATIONAL_ID",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        match stored {
            "PASSPORT" => Some(ForeignKind::Passport),
            "NATIONAL_ID" => Some(ForeignKind::NationalId),
            _ => None,
        }
    }
}

/// Step 1 as the client sent it, before the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityInput {
    Chilean {
        rut: String,
        document_number: String,
    },
    Foreign {
        /// `None` when no document type was chosen.
        kind: Option<ForeignKind>,
        document_number: String,
        country: String,
    },
    /// Neither kind of document was sent.
    Missing,
}

impl IdentityInput {
    /// Applies the rules.
    pub fn validate(&self) -> Result<Identity> {
        match self {
            IdentityInput::Chilean {
                rut,
                document_number,
            } => Identity::chilean(rut, document_number),
            IdentityInput::Foreign {
                kind,
                document_number,
                country,
            } => Identity::foreign(*kind, document_number, country),
            IdentityInput::Missing => Err(RegistrationError::invalid(
                "documentType",
                MISSING_DOCUMENT_TYPE,
            )),
        }
    }
}

/// A document that passed the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    Chilean {
        rut: Rut,
        card: CardSerial,
    },
    Foreign {
        kind: ForeignKind,
        number: ForeignDocument,
        country: Country,
    },
}

impl Identity {
    /// A Chilean identity from what the member typed; the RUT is checked first.
    pub fn chilean(rut: &str, card_serial: &str) -> Result<Self> {
        let rut = Rut::parse(rut).map_err(|_| RegistrationError::Invalid {
            code: ErrorCode::InvalidRut,
            field: "rut",
            message: INVALID_RUT,
        })?;
        let card = CardSerial::parse(card_serial)?;
        Ok(Identity::Chilean { rut, card })
    }

    /// A foreign identity; `kind` is `None` when the member chose no document type.
    pub fn foreign(kind: Option<ForeignKind>, number: &str, country: &str) -> Result<Self> {
        let kind = kind.ok_or(RegistrationError::invalid(
            "documentType",
            MISSING_DOCUMENT_TYPE,
        ))?;
        let invalid_number =
            || RegistrationError::invalid("documentNumber", INVALID_FOREIGN_NUMBER);
        let number = ForeignDocument::parse(number).map_err(|_| invalid_number())?;
        // The number is the login user: login must read it as this document, never as a RUT.
        let read_by_login = LoginId::parse(number.as_str());
        if !matches!(read_by_login, Ok(LoginId::Foreign(ref read)) if *read == number) {
            return Err(invalid_number());
        }
        let country = Country::parse(country)?;
        Ok(Identity::Foreign {
            kind,
            number,
            country,
        })
    }

    /// "RUT" or "FOREIGN", as accounts names document types.
    pub fn accounts_type(&self) -> &'static str {
        match self {
            Identity::Chilean { .. } => "RUT",
            Identity::Foreign { .. } => "FOREIGN",
        }
    }

    /// "RUT", "PASSPORT" or "NATIONAL_ID", as stored and as the identity verifier names them.
    pub fn document_type(&self) -> &'static str {
        match self {
            Identity::Chilean { .. } => "RUT",
            Identity::Foreign { kind, .. } => kind.as_str(),
        }
    }

    /// Canonical RUT "12345678-5" or the foreign number uppercased: the member's login user.
    pub fn document_number(&self) -> String {
        match self {
            Identity::Chilean { rut, .. } => rut.canonical(),
            Identity::Foreign { number, .. } => number.as_str().to_owned(),
        }
    }

    /// The card serial of a Chilean identity.
    pub fn card_serial(&self) -> Option<&str> {
        match self {
            Identity::Chilean { card, .. } => Some(card.as_str()),
            Identity::Foreign { .. } => None,
        }
    }

    /// "CL" for a RUT, else the issuing country.
    pub fn country(&self) -> &'static str {
        match self {
            Identity::Chilean { .. } => "CL",
            Identity::Foreign { country, .. } => country.as_str(),
        }
    }

    /// Rebuilds a stored identity; `None` when the row does not pass the rules any more.
    pub fn from_stored(
        document_type: &str,
        document_number: &str,
        card_serial: Option<&str>,
        country: &str,
    ) -> Option<Self> {
        match document_type {
            "RUT" => Self::chilean(document_number, card_serial?).ok(),
            other => Self::foreign(Some(ForeignKind::parse(other)?), document_number, country).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use miclub_platform::error::ServiceError;

    use super::*;

    fn field_of(err: RegistrationError) -> &'static str {
        match err {
            RegistrationError::Invalid { field, .. } => field,
            other => panic!("not a validation error: {other:?}"),
        }
    }

    #[test]
    fn a_card_serial_is_nine_digits_with_or_without_dots_or_a_and_nine_digits() {
        assert_eq!(
            CardSerial::parse("100.123.456").unwrap().as_str(),
            "100123456"
        );
        assert_eq!(
            CardSerial::parse(" 100123456 ").unwrap().as_str(),
            "100123456"
        );
        assert_eq!(
            CardSerial::parse("a100123456").unwrap().as_str(),
            "A100123456"
        );
        for bad in [
            "",
            "10012345",
            "1001234567",
            "B100123456",
            "10012345X",
            "A10012345",
        ] {
            assert_eq!(
                field_of(CardSerial::parse(bad).unwrap_err()),
                "documentNumber",
                "{bad}"
            );
        }
    }

    #[test]
    fn a_wrong_rut_is_err_invalid_rut_on_the_rut_field() {
        let err = Identity::chilean("12.345.678-4", "100123456").unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidRut);
        assert_eq!(err.body().field.as_deref(), Some("rut"));
        assert_eq!(err.body().message, "El RUT ingresado no es válido.");
    }

    #[test]
    fn a_chilean_identity_is_kept_in_canonical_form() {
        let identity = Identity::chilean("12.345.678-5", "100.123.456").unwrap();
        assert_eq!(identity.document_number(), "12345678-5");
        assert_eq!(identity.card_serial(), Some("100123456"));
        assert_eq!(identity.country(), "CL");
        assert_eq!(identity.accounts_type(), "RUT");
    }

    #[test]
    fn a_foreign_identity_needs_a_type_a_number_and_a_foreign_assigned_country() {
        let identity = Identity::foreign(Some(ForeignKind::Passport), "p123-4567", "ar").unwrap();
        assert_eq!(identity.document_number(), "P1234567");
        assert_eq!(identity.country(), "AR");
        assert_eq!(identity.document_type(), "PASSPORT");
        assert_eq!(identity.accounts_type(), "FOREIGN");
        assert_eq!(
            field_of(Identity::foreign(None, "P1234567", "AR").unwrap_err()),
            "documentType"
        );
        assert_eq!(
            field_of(Identity::foreign(Some(ForeignKind::Passport), "P12", "AR").unwrap_err()),
            "documentNumber"
        );
        for country in ["CL", "cl", "XX", "", "ARG", "UK"] {
            assert_eq!(
                field_of(
                    Identity::foreign(Some(ForeignKind::NationalId), "P1234567", country)
                        .unwrap_err()
                ),
                "country",
                "{country}"
            );
        }
    }

    #[test]
    fn a_foreign_number_that_login_would_read_as_a_rut_is_refused() {
        // Digits and a final K: login reads it as a RUT, whatever its check digit.
        for number in ["12345678K", "1234567-k", "11111111k"] {
            assert_eq!(
                field_of(Identity::foreign(Some(ForeignKind::Passport), number, "PE").unwrap_err()),
                "documentNumber",
                "{number}"
            );
        }
    }

    #[test]
    fn the_country_list_has_every_assigned_code_once() {
        assert_eq!(ISO_COUNTRIES.len(), 249);
        let unique: std::collections::HashSet<_> = ISO_COUNTRIES.iter().collect();
        assert_eq!(unique.len(), 249);
        assert!(
            ISO_COUNTRIES
                .iter()
                .all(|c| c.len() == 2 && c.chars().all(|c| c.is_ascii_uppercase()))
        );
    }

    #[test]
    fn a_stored_identity_comes_back_as_it_was() {
        let chilean = Identity::chilean("12.345.678-5", "A100123456").unwrap();
        let foreign = Identity::foreign(Some(ForeignKind::NationalId), "AB12345", "PE").unwrap();
        for identity in [chilean, foreign] {
            let back = Identity::from_stored(
                identity.document_type(),
                &identity.document_number(),
                identity.card_serial(),
                identity.country(),
            )
            .unwrap();
            assert_eq!(back, identity);
        }
    }
}
