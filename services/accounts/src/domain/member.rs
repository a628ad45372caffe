//! A member of the club: identity document, names, contact data and the terms decision.

use chrono::{Datelike, NaiveDate};
use miclub_platform::calendar;
use miclub_platform::identity::{ForeignDocument, IdentityError, Rut};
pub use miclub_platform::member::{Email, MemberId};
use miclub_platform::member::{EmailError, MemberIdError};

use crate::error::{AccountsError, Result};

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

/// The Spanish texts of the profile form, one per rule (docs/api.md, "Validation of
/// `PUT /api/profile`"); the web form shows the same ones.
pub mod messages {
    pub const EMAIL: &str = "Ingresa un correo electrónico válido.";
    pub const NAME_EMPTY: &str = "Ingresa tu nombre.";
    pub const LAST_NAME_EMPTY: &str = "Ingresa tu apellido paterno.";
    pub const NAME_CHARACTERS: &str = "Usa solo letras, espacios, apóstrofes o guiones.";
    pub const PHONE_NUMBER: &str =
        "Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.";
    pub const BIRTH_DATE: &str = "Ingresa una fecha de nacimiento válida.";
    pub const UNDERAGE: &str = "Debes ser mayor de 18 años.";
    /// The age rule as registration words it.
    pub const UNDERAGE_REGISTRATION: &str = "Debes ser mayor de 18 años para registrarte.";
    pub const GENDER_ID: &str = "Selecciona una opción de la lista.";
}

/// A given name or surname: trimmed, 1 to 50 characters, only letters (accents and ñ
/// included), spaces, apostrophes and hyphens, with at least one letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonName(String);

impl PersonName {
    pub const MAX_CHARS: usize = 50;

    /// `field` is the JSON name the error reports (`name`, `last_name`, `mother_surname`).
    pub fn parse(field: &'static str, raw: &str) -> Result<Self> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(match field {
                "name" => AccountsError::invalid_field(field, messages::NAME_EMPTY),
                "last_name" => AccountsError::invalid_field(field, messages::LAST_NAME_EMPTY),
                _ => AccountsError::invalid(field, "empty"),
            });
        }
        let allowed = |c: char| c.is_alphabetic() || matches!(c, ' ' | '\'' | '’' | '-');
        let valid = trimmed.chars().count() <= Self::MAX_CHARS
            && trimmed.chars().all(allowed)
            && trimmed.chars().any(char::is_alphabetic);
        if !valid {
            return Err(AccountsError::invalid_field(
                field,
                messages::NAME_CHARACTERS,
            ));
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

// Platform's member id and email, refused as accounts has always named the field and told
// the member.
impl From<MemberIdError> for AccountsError {
    fn from(_: MemberIdError) -> Self {
        AccountsError::invalid("member_id", "not a valid id")
    }
}

impl From<EmailError> for AccountsError {
    fn from(_: EmailError) -> Self {
        AccountsError::invalid_field("email", messages::EMAIL)
    }
}

/// A Chilean mobile number, kept as `+569XXXXXXXX`. Accepted as `+569XXXXXXXX`,
/// `569XXXXXXXX` or `9XXXXXXXX`, spaces ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneNumber(String);

impl PhoneNumber {
    pub fn parse(raw: &str) -> Result<Self> {
        let cleaned: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
        let subscriber = cleaned
            .strip_prefix("+569")
            .or_else(|| cleaned.strip_prefix("569"))
            .or_else(|| cleaned.strip_prefix('9'))
            .filter(|rest| rest.len() == 8 && rest.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| AccountsError::invalid_field("phone_number", messages::PHONE_NUMBER))?;
        Ok(Self(format!("+569{subscriber}")))
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

/// One option of the genders list a profile may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gender {
    pub id: i32,
    /// Spanish text the member reads.
    pub label: &'static str,
}

/// The genders list of the spec, in display order (its ids, gaps included, are what profiles
/// store).
pub const GENDERS: &[Gender] = &[
    Gender {
        id: 1,
        label: "Femenino",
    },
    Gender {
        id: 2,
        label: "Masculino",
    },
    Gender {
        id: 3,
        label: "Prefiero no decir",
    },
    Gender {
        id: 6,
        label: "No me identifico con las opciones disponibles",
    },
    Gender {
        id: 7,
        label: "Otros",
    },
];

/// An id of [`GENDERS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenderId(i32);

impl GenderId {
    pub fn new(id: i64) -> Result<Self> {
        GENDERS
            .iter()
            .find(|gender| i64::from(gender.id) == id)
            .map(|gender| Self(gender.id))
            .ok_or_else(|| AccountsError::invalid_field("gender_id", messages::GENDER_ID))
    }

    /// `None` for 0, the wire's "not given".
    pub fn new_optional(id: i64) -> Result<Option<Self>> {
        if id == 0 {
            Ok(None)
        } else {
            Self::new(id).map(Some)
        }
    }

    pub fn get(self) -> i32 {
        self.0
    }
}

/// A birth date of someone aged 18 to 120 when they stated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BirthDate(NaiveDate);

impl BirthDate {
    pub const MIN_AGE: i32 = 18;
    pub const MAX_AGE: i32 = 120;

    /// Checks the age rule on today in Chile, the calendar ages are counted in.
    pub fn new(date: NaiveDate) -> Result<Self> {
        Self::new_on(date, calendar::today())
    }

    /// Checks the age rule on `today`.
    pub fn new_on(date: NaiveDate, today: NaiveDate) -> Result<Self> {
        let invalid = || AccountsError::invalid_field("birth_date", messages::BIRTH_DATE);
        if date > today {
            return Err(invalid());
        }
        let age = age_on(date, today);
        if age > Self::MAX_AGE {
            return Err(invalid());
        }
        if age < Self::MIN_AGE {
            return Err(AccountsError::invalid_field(
                "birth_date",
                messages::UNDERAGE,
            ));
        }
        Ok(Self(date))
    }

    /// Reads an ISO date, `YYYY-MM-DD`, and checks the age rule today.
    pub fn parse(raw: &str) -> Result<Self> {
        Self::new(parse_iso(raw)?)
    }

    /// `None` for an empty value.
    pub fn parse_optional(raw: &str) -> Result<Option<Self>> {
        if raw.trim().is_empty() {
            Ok(None)
        } else {
            Self::parse(raw).map(Some)
        }
    }

    /// Reads a stored date: the age rule held when the member stated it, and members only
    /// grow older, so only the form is checked.
    pub fn from_stored(raw: &str) -> Result<Self> {
        parse_iso(raw).map(Self)
    }

    /// ISO form, `YYYY-MM-DD`.
    pub fn iso(&self) -> String {
        self.0.format("%Y-%m-%d").to_string()
    }

    pub fn date(&self) -> NaiveDate {
        self.0
    }
}

fn parse_iso(raw: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d")
        .map_err(|_| AccountsError::invalid_field("birth_date", messages::BIRTH_DATE))
}

/// Whole years completed on `today`; someone born on 29 February turns a year older on
/// 1 March in common years.
fn age_on(birth: NaiveDate, today: NaiveDate) -> i32 {
    let before_birthday = (today.month(), today.day()) < (birth.month(), birth.day());
    today.year() - birth.year() - i32::from(before_birthday)
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

/// Where a member is in their life in the club. Only active members count as registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberStatus {
    /// Registered by `RegisterMember` and not activated yet: nobody can log in as it, and a
    /// later registration of the same document takes it over.
    Pending,
    Active,
    /// Left the club: personal data erased, ledger and balance kept.
    Unsubscribed,
}

impl MemberStatus {
    /// Stored form: `pending`, `active` or `unsubscribed`.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberStatus::Pending => "pending",
            MemberStatus::Active => "active",
            MemberStatus::Unsubscribed => "unsubscribed",
        }
    }

    pub fn parse(raw: &str) -> Result<Self> {
        match raw {
            "pending" => Ok(MemberStatus::Pending),
            "active" => Ok(MemberStatus::Active),
            "unsubscribed" => Ok(MemberStatus::Unsubscribed),
            _ => Err(AccountsError::invalid(
                "status",
                "not pending, active or unsubscribed",
            )),
        }
    }
}

/// A pending or active member as `GetMember` reads it: the record, its status and whether a
/// club account exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRecord {
    pub member: Member,
    pub has_club_account: bool,
    /// Never [`MemberStatus::Unsubscribed`]: such a member is an [`UnsubscribedMember`].
    pub status: MemberStatus,
}

/// What is left of a member who unsubscribed: the id, the document (so the same person can
/// come back), the terms decision and the instant they left. Names, phone, birth date, gender
/// and email are erased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsubscribedMember {
    pub id: MemberId,
    pub document: Document,
    pub terms: Option<TermsAgreement>,
    pub has_club_account: bool,
    /// Unix milliseconds.
    pub unsubscribed_at: i64,
}

/// A member row, whatever its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberState {
    Live(MemberRecord),
    Unsubscribed(UnsubscribedMember),
}

impl MemberState {
    pub fn document(&self) -> &Document {
        match self {
            MemberState::Live(record) => &record.member.document,
            MemberState::Unsubscribed(member) => &member.document,
        }
    }
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

    /// The Spanish message and field of a refused input.
    fn refusal<T: std::fmt::Debug>(result: Result<T>) -> (&'static str, &'static str) {
        match result {
            Err(AccountsError::InvalidField { field, message }) => (field, message),
            other => panic!("expected a field refusal, got {other:?}"),
        }
    }

    #[test]
    fn names_are_trimmed_and_must_not_be_empty() {
        assert_eq!(PersonName::parse("name", "  Ana ").unwrap().as_str(), "Ana");
        assert_eq!(
            refusal(PersonName::parse("name", "   ")),
            ("name", "Ingresa tu nombre.")
        );
        assert_eq!(
            refusal(PersonName::parse("last_name", "")),
            ("last_name", "Ingresa tu apellido paterno.")
        );
        assert_eq!(
            PersonName::parse_optional("mother_surname", "").unwrap(),
            None
        );
    }

    #[test]
    fn names_take_letters_with_accents_spaces_apostrophes_and_hyphens_up_to_fifty() {
        for good in [
            "María José",
            "Muñoz",
            "O'Higgins",
            "D’Alessandro",
            "Pérez-Cotapos",
            "Ñuñoa",
            "Ü",
        ] {
            assert_eq!(PersonName::parse("name", good).unwrap().as_str(), good);
        }
        assert!(PersonName::parse("name", &"ñ".repeat(50)).is_ok());
        for bad in [
            "Ana2",
            "Ana.",
            "Ana_",
            "<script>",
            "--",
            "Ana\u{0}",
            &"a".repeat(51),
        ] {
            assert_eq!(
                refusal(PersonName::parse("mother_surname", bad)),
                (
                    "mother_surname",
                    "Usa solo letras, espacios, apóstrofes o guiones."
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn emails_are_lowercased_and_need_a_domain_with_a_dot() {
        assert_eq!(
            Email::parse(" Ana@Example.CL ").unwrap().as_str(),
            "ana@example.cl"
        );
        let long_local = format!("{}@example.cl", "a".repeat(65));
        let too_long = format!("{}@{}.cl", "a".repeat(60), "b".repeat(200));
        for bad in [
            "",
            "ana",
            "ana@",
            "@example.cl",
            "ana@example",
            "a b@example.cl",
            "ana@x..cl",
            "ana@b@example.cl",
            long_local.as_str(),
            too_long.as_str(),
        ] {
            assert_eq!(
                refusal(Email::parse(bad).map_err(AccountsError::from)),
                ("email", "Ingresa un correo electrónico válido."),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_member_id_is_read_without_surrounding_spaces_and_refused_as_member_id_otherwise() {
        // Accounts refused surrounding spaces before platform's one rule; auth and missions
        // trimmed them.
        assert_eq!(MemberId::parse(" m-1 ").unwrap().as_str(), "m-1");
        match MemberId::parse("m 1").map_err(AccountsError::from) {
            Err(AccountsError::Invalid { field, reason }) => {
                assert_eq!((field, reason), ("member_id", "not a valid id"));
            }
            other => panic!("expected an invalid member_id, got {other:?}"),
        }
    }

    #[test]
    fn an_email_over_254_bytes_is_refused_even_within_254_characters() {
        // Accounts counted characters before platform's one rule; SMTP counts bytes.
        let wide = format!("ana@{}{}.cl", "ñ".repeat(10), "d".repeat(237));
        assert_eq!(wide.chars().count(), 254);
        assert_eq!(
            refusal(Email::parse(&wide).map_err(AccountsError::from)),
            ("email", "Ingresa un correo electrónico válido.")
        );
    }

    #[test]
    fn an_email_is_masked_down_to_its_first_letter_and_domain() {
        assert_eq!(
            Email::parse("ana@example.cl").unwrap().masked(),
            "a***@example.cl"
        );
    }

    #[test]
    fn chilean_mobiles_in_any_of_the_three_forms_are_kept_with_the_country_code() {
        for good in [
            "+56912345678",
            "56912345678",
            "912345678",
            " +56 9 1234 5678 ",
        ] {
            assert_eq!(PhoneNumber::parse(good).unwrap().as_str(), "+56912345678");
        }
        for bad in [
            "12345678",
            "+56212345678",
            "+5691234567",
            "+569123456789",
            "+56 9 1234-5678",
            "9123456a8",
            "+1 912345678",
        ] {
            assert_eq!(
                refusal(PhoneNumber::parse(bad)),
                (
                    "phone_number",
                    "Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678."
                ),
                "{bad:?}"
            );
        }
        assert_eq!(PhoneNumber::parse_optional(" ").unwrap(), None);
    }

    fn day(iso: &str) -> NaiveDate {
        NaiveDate::parse_from_str(iso, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_birth_date_is_accepted_from_the_eighteenth_birthday_to_the_age_of_one_hundred_and_twenty()
    {
        let today = day("2026-11-21");
        assert!(BirthDate::new_on(day("2008-11-21"), today).is_ok());
        assert!(BirthDate::new_on(day("1905-11-22"), today).is_ok());
        assert_eq!(
            refusal(BirthDate::new_on(day("2008-11-22"), today)),
            ("birth_date", "Debes ser mayor de 18 años.")
        );
        assert_eq!(
            refusal(BirthDate::new_on(day("1905-11-21"), today)),
            ("birth_date", "Ingresa una fecha de nacimiento válida.")
        );
        assert_eq!(
            refusal(BirthDate::new_on(day("2026-11-22"), today)),
            ("birth_date", "Ingresa una fecha de nacimiento válida.")
        );
    }

    #[test]
    fn someone_born_on_the_twenty_ninth_of_february_comes_of_age_on_the_first_of_march() {
        let born = day("2008-02-29");
        assert!(BirthDate::new_on(born, day("2026-02-28")).is_err());
        assert!(BirthDate::new_on(born, day("2026-03-01")).is_ok());
    }

    #[test]
    fn birth_dates_are_iso() {
        assert_eq!(BirthDate::parse("1988-03-14").unwrap().iso(), "1988-03-14");
        for bad in ["14-03-1988", "1988-02-30", "1988/03/14", "ayer"] {
            assert_eq!(
                refusal(BirthDate::parse(bad)),
                ("birth_date", "Ingresa una fecha de nacimiento válida."),
                "{bad:?}"
            );
        }
        assert_eq!(BirthDate::parse_optional("").unwrap(), None);
        assert_eq!(
            BirthDate::from_stored("1899-01-01").unwrap().iso(),
            "1899-01-01"
        );
    }

    #[test]
    fn gender_ids_are_those_of_the_spec_list() {
        let ids: Vec<i32> = GENDERS.iter().map(|g| g.id).collect();
        assert_eq!(ids, [1, 2, 3, 6, 7]);
        for id in ids {
            assert_eq!(GenderId::new(i64::from(id)).unwrap().get(), id);
        }
        for bad in [0, 4, 5, 8, -1, 1_000] {
            assert_eq!(
                refusal(GenderId::new(bad)),
                ("gender_id", "Selecciona una opción de la lista.")
            );
        }
        assert_eq!(GenderId::new_optional(0).unwrap(), None);
    }

    #[test]
    fn member_ids_are_short_opaque_ascii() {
        assert!(MemberId::parse("7b0f6d2e-0000-4000-8000-000000000001").is_ok());
        assert!(MemberId::parse("").is_err());
        assert!(MemberId::parse("a b").is_err());
        assert!(MemberId::parse(&"x".repeat(65)).is_err());
    }
}
