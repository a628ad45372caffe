//! A member of the club: identity document, names, contact data and the terms decision.

use std::fmt;

use chrono::NaiveDate;
use miclub_platform::identity::{ForeignDocument, IdentityError, Rut};

use crate::error::{AccountsError, Result};

/// Opaque id of a member (a UUID for members created here); the `sub` of their access tokens.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemberId(String);

impl MemberId {
    /// A fresh random id.
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    pub fn parse(raw: &str) -> Result<Self> {
        super::check_id("member_id", raw)?;
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MemberId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentType {
    Rut,
    Foreign,
}

impl DocumentType {
    /// Stored and wire form: `RUT` or `FOREIGN`.
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentType::Rut => "RUT",
            DocumentType::Foreign => "FOREIGN",
        }
    }

    pub fn parse(raw: &str) -> Result<Self> {
        match raw {
            "RUT" => Ok(DocumentType::Rut),
            "FOREIGN" => Ok(DocumentType::Foreign),
            _ => Err(AccountsError::invalid(
                "document_type",
                "not RUT or FOREIGN",
            )),
        }
    }
}

/// The identity document a member registered with; unique among members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Document {
    Rut(Rut),
    Foreign(ForeignDocument),
}

impl Document {
    pub fn parse(document_type: DocumentType, number: &str) -> Result<Self> {
        let invalid = |err: IdentityError| match err {
            IdentityError::Empty => AccountsError::invalid("document_number", "empty"),
            IdentityError::InvalidRut => {
                AccountsError::invalid("document_number", "not a valid rut")
            }
            IdentityError::InvalidDocument => {
                AccountsError::invalid("document_number", "not a valid document number")
            }
        };
        match document_type {
            DocumentType::Rut => Rut::parse(number).map(Document::Rut).map_err(invalid),
            DocumentType::Foreign => ForeignDocument::parse(number)
                .map(Document::Foreign)
                .map_err(invalid),
        }
    }

    pub fn document_type(&self) -> DocumentType {
        match self {
            Document::Rut(_) => DocumentType::Rut,
            Document::Foreign(_) => DocumentType::Foreign,
        }
    }

    /// Canonical number: RUT as `12345678-5`, foreign documents uppercased.
    pub fn canonical(&self) -> String {
        match self {
            Document::Rut(rut) => rut.canonical(),
            Document::Foreign(document) => document.as_str().to_owned(),
        }
    }
}

/// A given name or surname: trimmed, 1 to 80 characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonName(String);

impl PersonName {
    pub const MAX_CHARS: usize = 80;

    pub fn parse(field: &'static str, raw: &str) -> Result<Self> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(AccountsError::invalid(field, "empty"));
        }
        if trimmed.chars().count() > Self::MAX_CHARS {
            return Err(AccountsError::invalid(field, "too long"));
        }
        if trimmed.chars().any(char::is_control) {
            return Err(AccountsError::invalid(field, "control characters"));
        }
        Ok(Self(trimmed.to_owned()))
    }

    /// `None` for an empty or blank value (an optional name such as the mother's surname).
    pub fn parse_optional(field: &'static str, raw: &str) -> Result<Option<Self>> {
        if raw.trim().is_empty() {
            Ok(None)
        } else {
            Self::parse(field, raw).map(Some)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An email address: trimmed, lowercased, `local@domain.tld` without spaces, at most 254 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Self> {
        let email = raw.trim().to_lowercase();
        let invalid = || AccountsError::invalid("email", "not an email address");
        if email.is_empty()
            || email.len() > 254
            || email.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(invalid());
        }
        let (local, domain) = email.split_once('@').ok_or_else(invalid)?;
        let domain_ok = domain.contains('.')
            && !domain.contains('@')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..");
        if local.is_empty() || local.len() > 64 || !domain_ok {
            return Err(invalid());
        }
        Ok(Self(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A phone number in international form: `+` and 8 to 15 digits (spaces, dashes and
/// parentheses are dropped), e.g. `+56912345678`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneNumber(String);

impl PhoneNumber {
    pub fn parse(raw: &str) -> Result<Self> {
        let cleaned: String = raw
            .trim()
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '(' | ')'))
            .collect();
        let digits = cleaned.strip_prefix('+').unwrap_or(&cleaned);
        let valid = (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
        if !valid {
            return Err(AccountsError::invalid("phone_number", "not a phone number"));
        }
        Ok(Self(format!("+{digits}")))
    }

    pub fn parse_optional(raw: &str) -> Result<Option<Self>> {
        if raw.trim().is_empty() {
            Ok(None)
        } else {
            Self::parse(raw).map(Some)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An id of the genders list served by content (fallback list 1, 2, 3, 6, 7): 1 to 99.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenderId(i32);

impl GenderId {
    pub fn new(id: i64) -> Result<Self> {
        if (1..=99).contains(&id) {
            Ok(Self(id as i32))
        } else {
            Err(AccountsError::invalid("gender_id", "not a gender id"))
        }
    }

    pub fn get(self) -> i32 {
        self.0
    }
}

/// A birth date between 1900-01-01 and today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BirthDate(NaiveDate);

impl BirthDate {
    pub fn new(date: NaiveDate) -> Result<Self> {
        let earliest = NaiveDate::from_ymd_opt(1900, 1, 1).unwrap_or(NaiveDate::MIN);
        let today = chrono::Utc::now().date_naive();
        if date < earliest || date > today {
            return Err(AccountsError::invalid(
                "birth_date",
                "not a plausible birth date",
            ));
        }
        Ok(Self(date))
    }

    /// Reads an ISO date, `YYYY-MM-DD`.
    pub fn parse(raw: &str) -> Result<Self> {
        let date = NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d")
            .map_err(|_| AccountsError::invalid("birth_date", "not an iso date"))?;
        Self::new(date)
    }

    /// ISO form, `YYYY-MM-DD`.
    pub fn iso(&self) -> String {
        self.0.format("%Y-%m-%d").to_string()
    }

    pub fn date(&self) -> NaiveDate {
        self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermsDecision {
    Accepted,
    Rejected,
}

impl TermsDecision {
    /// Stored form: `accepted` or `rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            TermsDecision::Accepted => "accepted",
            TermsDecision::Rejected => "rejected",
        }
    }

    pub fn parse(raw: &str) -> Result<Self> {
        match raw {
            "accepted" => Ok(TermsDecision::Accepted),
            "rejected" => Ok(TermsDecision::Rejected),
            _ => Err(AccountsError::invalid(
                "terms_decision",
                "not accepted or rejected",
            )),
        }
    }
}

/// The member's last decision on the terms and conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermsAgreement {
    pub decision: TermsDecision,
    /// Version of the terms text decided on, when known (content publishes the versions).
    pub version: Option<String>,
    /// Instant of the decision, Unix milliseconds.
    pub decided_at: i64,
}

/// A member's record. Each field's type carries its own validation, so the record is valid
/// as a whole; the club account lives apart (a member may have none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub id: MemberId,
    pub document: Document,
    pub name: PersonName,
    pub last_name: PersonName,
    pub mother_surname: Option<PersonName>,
    pub phone_number: Option<PhoneNumber>,
    pub gender_id: Option<GenderId>,
    pub birth_date: Option<BirthDate>,
    pub email: Email,
    pub email_confirmed: bool,
    /// `None` while the member has never decided.
    pub terms: Option<TermsAgreement>,
}

/// A member as `GetMember` reads it: the record and whether a club account exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRecord {
    pub member: Member,
    pub has_club_account: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rut_document_is_stored_in_canonical_form_whatever_the_input() {
        let document = Document::parse(DocumentType::Rut, "11.111.111-1").unwrap();
        assert_eq!(document.canonical(), "11111111-1");
        assert_eq!(document.document_type().as_str(), "RUT");
        assert!(Document::parse(DocumentType::Rut, "11.111.111-2").is_err());
    }

    #[test]
    fn a_foreign_document_is_uppercased() {
        let document = Document::parse(DocumentType::Foreign, "ab-123456").unwrap();
        assert_eq!(document.canonical(), "AB123456");
    }

    #[test]
    fn names_are_trimmed_and_must_not_be_empty() {
        assert_eq!(PersonName::parse("name", "  Ana ").unwrap().as_str(), "Ana");
        assert!(PersonName::parse("name", "   ").is_err());
        assert!(PersonName::parse("name", &"a".repeat(81)).is_err());
        assert_eq!(
            PersonName::parse_optional("mother_surname", "").unwrap(),
            None
        );
    }

    #[test]
    fn emails_are_lowercased_and_need_a_domain_with_a_dot() {
        assert_eq!(
            Email::parse(" Ana@Example.CL ").unwrap().as_str(),
            "ana@example.cl"
        );
        for bad in [
            "",
            "ana",
            "ana@",
            "@example.cl",
            "ana@example",
            "a b@example.cl",
            "ana@x..cl",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn phone_numbers_keep_only_the_plus_and_digits() {
        assert_eq!(
            PhoneNumber::parse("+56 9 1234-5678").unwrap().as_str(),
            "+56912345678"
        );
        assert!(PhoneNumber::parse("12ab5678").is_err());
        assert_eq!(PhoneNumber::parse_optional(" ").unwrap(), None);
    }

    #[test]
    fn birth_dates_are_iso_and_plausible() {
        assert_eq!(BirthDate::parse("1988-03-14").unwrap().iso(), "1988-03-14");
        assert!(BirthDate::parse("14-03-1988").is_err());
        assert!(BirthDate::parse("1850-01-01").is_err());
        assert!(BirthDate::parse("2999-01-01").is_err());
    }

    #[test]
    fn gender_ids_are_small_positive_numbers() {
        assert_eq!(GenderId::new(6).unwrap().get(), 6);
        assert!(GenderId::new(0).is_err());
        assert!(GenderId::new(1_000).is_err());
    }

    #[test]
    fn member_ids_are_short_opaque_ascii() {
        assert!(MemberId::parse("7b0f6d2e-0000-4000-8000-000000000001").is_ok());
        assert!(MemberId::parse("").is_err());
        assert!(MemberId::parse("a b").is_err());
        assert!(MemberId::parse(&"x".repeat(65)).is_err());
    }
}
