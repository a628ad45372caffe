//! Member identity documents: the Chilean RUT and foreign documents.
//!
//! A [`Rut`] can only exist with a correct check digit (modulo 11, `K` for 10), and a body from
//! 1 to 99.999.999. [`LoginId`] is what a member types in the "user" field: anything shaped like
//! a RUT must be a valid RUT; anything else with a letter in it is a foreign document number.

use std::fmt;

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IdentityError {
    #[error("empty identifier")]
    Empty,
    #[error("not a valid rut")]
    InvalidRut,
    #[error("not a valid document number")]
    InvalidDocument,
}

/// A Chilean RUT with a verified check digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rut {
    /// 1..=99_999_999
    body: u32,
    /// '0'..='9' or 'K'
    check: char,
}

impl Rut {
    pub const MAX_BODY: u32 = 99_999_999;

    /// Check digit of a RUT body, modulo 11.
    pub fn check_digit(body: u32) -> char {
        let mut sum = 0u32;
        let mut factor = 2u32;
        let mut rest = body;
        while rest > 0 {
            sum += (rest % 10) * factor;
            rest /= 10;
            factor = if factor == 7 { 2 } else { factor + 1 };
        }
        match 11 - (sum % 11) {
            11 => '0',
            10 => 'K',
            d => char::from_digit(d, 10).unwrap_or('0'),
        }
    }

    pub fn from_body(body: u32) -> Result<Self, IdentityError> {
        if body == 0 || body > Self::MAX_BODY {
            return Err(IdentityError::InvalidRut);
        }
        Ok(Self {
            body,
            check: Self::check_digit(body),
        })
    }

    /// Accepts `12345678-5`, `12.345.678-5`, `123456785`, lower or upper `k`, surrounding spaces.
    pub fn parse(input: &str) -> Result<Self, IdentityError> {
        let cleaned: String = input
            .trim()
            .chars()
            .filter(|c| *c != '.' && *c != '-' && *c != ' ')
            .collect();
        if cleaned.is_empty() {
            return Err(IdentityError::Empty);
        }
        if cleaned.len() < 2 || cleaned.len() > 9 {
            return Err(IdentityError::InvalidRut);
        }
        let (body, check) = cleaned.split_at(cleaned.len() - 1);
        if !body.chars().all(|c| c.is_ascii_digit()) {
            return Err(IdentityError::InvalidRut);
        }
        let body: u32 = body.parse().map_err(|_| IdentityError::InvalidRut)?;
        let check = check.chars().next().map(|c| c.to_ascii_uppercase());
        let rut = Self::from_body(body)?;
        if Some(rut.check) != check {
            return Err(IdentityError::InvalidRut);
        }
        Ok(rut)
    }

    pub fn body(&self) -> u32 {
        self.body
    }

    pub fn check(&self) -> char {
        self.check
    }

    /// Storage and lookup form: `12345678-5`.
    pub fn canonical(&self) -> String {
        format!("{}-{}", self.body, self.check)
    }

    /// Display form: `12.345.678-5`.
    pub fn formatted(&self) -> String {
        let digits = self.body.to_string();
        let mut out = String::with_capacity(digits.len() + 4);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push('.');
            }
            out.push(c);
        }
        out.push('-');
        out.push(self.check);
        out
    }
}

impl fmt::Display for Rut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.formatted())
    }
}

/// A foreign document number (passport or foreign ID), uppercased, 5 to 20 letters and digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ForeignDocument(String);

impl ForeignDocument {
    pub fn parse(input: &str) -> Result<Self, IdentityError> {
        let cleaned: String = input
            .trim()
            .chars()
            .filter(|c| *c != '-' && *c != ' ' && *c != '.')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if cleaned.is_empty() {
            return Err(IdentityError::Empty);
        }
        let valid = (5..=20).contains(&cleaned.len())
            && cleaned.chars().all(|c| c.is_ascii_alphanumeric())
            && cleaned.chars().any(|c| c.is_ascii_alphabetic());
        if !valid {
            return Err(IdentityError::InvalidDocument);
        }
        Ok(Self(cleaned))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a member logs in with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LoginId {
    Rut(Rut),
    Foreign(ForeignDocument),
}

impl LoginId {
    /// Anything made only of digits, dots, dashes and a final K is read as a RUT and must be
    /// valid; anything else is read as a foreign document.
    pub fn parse(input: &str) -> Result<Self, IdentityError> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Err(IdentityError::Empty);
        }
        let mut chars: Vec<char> = trimmed
            .chars()
            .filter(|c| !matches!(c, '.' | '-' | ' '))
            .collect();
        if matches!(chars.last(), Some('k' | 'K')) {
            chars.pop();
        }
        if !chars.is_empty() && chars.iter().all(|c| c.is_ascii_digit()) {
            return Rut::parse(trimmed).map(LoginId::Rut);
        }
        ForeignDocument::parse(trimmed).map(LoginId::Foreign)
    }

    /// `RUT` or `FOREIGN`, as stored.
    pub fn kind(&self) -> &'static str {
        match self {
            LoginId::Rut(_) => "RUT",
            LoginId::Foreign(_) => "FOREIGN",
        }
    }

    /// The lookup key: canonical RUT or uppercased document.
    pub fn canonical(&self) -> String {
        match self {
            LoginId::Rut(rut) => rut.canonical(),
            LoginId::Foreign(doc) => doc.as_str().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rut_is_accepted_in_every_common_form() {
        for input in ["12345678-5", "12.345.678-5", "123456785", " 12.345.678-5 "] {
            let rut = Rut::parse(input).unwrap();
            assert_eq!(rut.canonical(), "12345678-5", "{input}");
            assert_eq!(rut.formatted(), "12.345.678-5");
        }
    }

    #[test]
    fn a_k_check_digit_is_accepted_in_either_case_and_stored_uppercase() {
        let body = (1..100_000u32)
            .find(|b| Rut::check_digit(*b) == 'K')
            .unwrap();
        let lower = Rut::parse(&format!("{body}-k")).unwrap();
        let upper = Rut::parse(&format!("{body}K")).unwrap();
        assert_eq!(lower, upper);
        assert!(lower.canonical().ends_with("-K"));
    }

    #[test]
    fn a_wrong_check_digit_or_malformed_body_is_refused() {
        for input in [
            "12345678-4",
            "12.345.678",
            "abc",
            "0-0",
            "123456789-0",
            "12a45678-5",
            "",
        ] {
            assert!(Rut::parse(input).is_err(), "{input}");
        }
    }

    #[test]
    fn login_id_reads_rut_shapes_as_ruts_and_the_rest_as_documents() {
        assert!(matches!(
            LoginId::parse("11.111.111-1"),
            Ok(LoginId::Rut(_))
        ));
        assert_eq!(
            LoginId::parse("11.111.111-2"),
            Err(IdentityError::InvalidRut)
        );
        assert_eq!(LoginId::parse("p1234567").unwrap().canonical(), "P1234567");
        assert_eq!(LoginId::parse("  "), Err(IdentityError::Empty));
        assert_eq!(LoginId::parse("P<1"), Err(IdentityError::InvalidDocument));
    }
}
