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

    /// The most body digits a member may type, zero padding included (`012.345.678-5`):
    /// enough for any padding seen on paper, few enough that no input grows the fold.
    pub const MAX_TYPED_DIGITS: usize = 12;

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

    /// Accepts `12345678-5`, `12.345.678-5`, `123456785`, `12345678 5`, lower or upper `k`,
    /// surrounding spaces. Dots, dashes and spaces are separators wherever they are. Zeros that
    /// pad the body are accepted (`05.126.663-3` and `012.345.678-5` are `5.126.663-3` and
    /// `12.345.678-5`), up to [`Self::MAX_TYPED_DIGITS`] typed digits; a body of more than 8
    /// significant digits is not a RUT.
    pub fn parse(input: &str) -> Result<Self, IdentityError> {
        // Characters, not bytes: the check digit is the last character, whatever was typed.
        let cleaned: Vec<char> = input
            .trim()
            .chars()
            .filter(|c| !matches!(c, '.' | '-' | ' '))
            .collect();
        let Some((check, body)) = cleaned.split_last() else {
            return Err(IdentityError::Empty);
        };
        if body.is_empty()
            || body.len() > Self::MAX_TYPED_DIGITS
            || !body.iter().all(char::is_ascii_digit)
        {
            return Err(IdentityError::InvalidRut);
        }
        let significant = body.iter().skip_while(|digit| **digit == '0').count();
        if significant > 8 {
            return Err(IdentityError::InvalidRut);
        }
        let body = body
            .iter()
            .fold(0u32, |acc, digit| acc * 10 + (*digit as u32 - '0' as u32));
        let rut = Self::from_body(body)?;
        if rut.check != check.to_ascii_uppercase() {
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

    /// Each input with the canonical RUT it reads as.
    const VALID: &[(&str, &str)] = &[
        // The common forms.
        ("12.345.678-5", "12345678-5"),
        ("12345678-5", "12345678-5"),
        ("123456785", "12345678-5"),
        ("12345678 5", "12345678-5"),
        ("12 345 678-5", "12345678-5"),
        ("  12.345.678-5\t", "12345678-5"),
        // The smallest and the largest bodies.
        ("1-9", "1-9"),
        ("19", "1-9"),
        ("99.999.999-9", "99999999-9"),
        ("10.000.000-8", "10000000-8"),
        ("7.654.321-6", "7654321-6"),
        // K check digits, either case, stored uppercase.
        ("6-K", "6-K"),
        ("6-k", "6-K"),
        ("6k", "6-K"),
        ("1.000.005-K", "1000005-K"),
        ("1000005k", "1000005-K"),
        // A 0 check digit.
        ("14-0", "14-0"),
        // Zeros padding the body to 8 digits.
        ("05.126.663-3", "5126663-3"),
        ("05126663-3", "5126663-3"),
        ("051266633", "5126663-3"),
        ("5.126.663-3", "5126663-3"),
        ("00000001-9", "1-9"),
        // Padded beyond 8 digits, as some forms print it.
        ("012.345.678-5", "12345678-5"),
        ("0123456785", "12345678-5"),
        ("005126663-3", "5126663-3"),
        ("000000000001-9", "1-9"),
    ];

    /// Each input with why it is refused.
    const INVALID: &[(&str, IdentityError)] = &[
        ("", IdentityError::Empty),
        ("   ", IdentityError::Empty),
        (".-", IdentityError::Empty),
        // A wrong check digit.
        ("12.345.678-4", IdentityError::InvalidRut),
        ("12345678-K", IdentityError::InvalidRut),
        ("6-0", IdentityError::InvalidRut),
        ("1-K", IdentityError::InvalidRut),
        // No check digit, or nothing but one.
        ("12.345.678", IdentityError::InvalidRut),
        ("5", IdentityError::InvalidRut),
        ("K", IdentityError::InvalidRut),
        ("-9", IdentityError::InvalidRut),
        // Out of range: body 0, or more than 8 digits.
        ("0-0", IdentityError::InvalidRut),
        ("00000000-0", IdentityError::InvalidRut),
        ("100.000.000-4", IdentityError::InvalidRut),
        ("123456789-0", IdentityError::InvalidRut),
        ("0000000000001-9", IdentityError::InvalidRut),
        // Not digits.
        ("abc", IdentityError::InvalidRut),
        ("12a45678-5", IdentityError::InvalidRut),
        ("12,345,678-5", IdentityError::InvalidRut),
        ("12_345_678-5", IdentityError::InvalidRut),
        ("+12345678-5", IdentityError::InvalidRut),
        ("١٢٣٤٥٦٧٨-5", IdentityError::InvalidRut),
        ("１２３４５６７８-5", IdentityError::InvalidRut),
        ("12345678-X", IdentityError::InvalidRut),
        // A multi-byte last character is a wrong check digit, not a crash.
        ("1234567ñ", IdentityError::InvalidRut),
        ("12345678-ñ", IdentityError::InvalidRut),
        ("ñ", IdentityError::InvalidRut),
    ];

    #[test]
    fn every_valid_rut_form_reads_as_its_canonical_rut() {
        for (input, canonical) in VALID {
            let rut = Rut::parse(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
            assert_eq!(rut.canonical(), *canonical, "{input:?}");
            assert_eq!(rut.check(), Rut::check_digit(rut.body()), "{input:?}");
            // A login id of the same text is the same RUT.
            assert_eq!(LoginId::parse(input), Ok(LoginId::Rut(rut)), "{input:?}");
        }
    }

    #[test]
    fn every_invalid_rut_is_refused_with_its_reason() {
        for (input, reason) in INVALID {
            assert_eq!(Rut::parse(input), Err(reason.clone()), "{input:?}");
        }
    }

    #[test]
    fn bodies_out_of_range_have_no_rut() {
        assert_eq!(Rut::from_body(0), Err(IdentityError::InvalidRut));
        assert_eq!(
            Rut::from_body(Rut::MAX_BODY + 1),
            Err(IdentityError::InvalidRut)
        );
        assert_eq!(Rut::from_body(1).unwrap().canonical(), "1-9");
        assert_eq!(
            Rut::from_body(Rut::MAX_BODY).unwrap().formatted(),
            "99.999.999-9"
        );
    }

    #[test]
    fn the_display_form_groups_thousands_with_dots() {
        for (body, formatted) in [
            (1, "1-9"),
            (100, "100-7"),
            (1_000_005, "1.000.005-K"),
            (5_126_663, "5.126.663-3"),
            (12_345_678, "12.345.678-5"),
        ] {
            let rut = Rut::from_body(body).unwrap();
            assert_eq!(rut.formatted(), formatted);
            assert_eq!(rut.to_string(), formatted);
        }
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::*;

        /// The compact form: body and check digit with no separator (`123456785`).
        fn compact(rut: &Rut) -> String {
            format!("{}{}", rut.body(), rut.check())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2_000))]

            #[test]
            fn every_form_of_every_rut_reads_back_as_the_same_rut(body in 1..=Rut::MAX_BODY) {
                let rut = Rut::from_body(body).unwrap();
                prop_assert_eq!(Rut::parse(&rut.formatted()), Ok(rut));
                prop_assert_eq!(Rut::parse(&rut.canonical()), Ok(rut));
                prop_assert_eq!(Rut::parse(&compact(&rut)), Ok(rut));
                prop_assert_eq!(Rut::parse(&rut.formatted().to_lowercase()), Ok(rut));
                prop_assert_eq!(LoginId::parse(&rut.formatted()), Ok(LoginId::Rut(rut)));
            }

            #[test]
            fn every_other_check_digit_is_refused(body in 1..=Rut::MAX_BODY, check in "[0-9K]") {
                let rut = Rut::from_body(body).unwrap();
                let check = check.chars().next().unwrap();
                prop_assume!(check != rut.check());
                prop_assert_eq!(
                    Rut::parse(&format!("{body}-{check}")),
                    Err(IdentityError::InvalidRut)
                );
            }

            /// The check digit against a second formulation written apart from the production
            /// loop: the body's decimal string reversed, weighted by the cycle 2..=7, and
            /// `11 - (sum mod 11)` read from a table where 11 is `0` and 10 is `K`.
            #[test]
            fn the_check_digit_agrees_with_an_independent_formulation(body in 1..=Rut::MAX_BODY) {
                let sum: u32 = body
                    .to_string()
                    .chars()
                    .rev()
                    .zip((2..=7).cycle())
                    .map(|(digit, weight)| digit.to_digit(10).unwrap() * weight)
                    .sum();
                let expected = "0123456789K0".chars().nth((11 - sum % 11) as usize).unwrap();
                let rut = Rut::from_body(body).unwrap();
                prop_assert_eq!(rut.check(), expected);
                prop_assert_eq!(Rut::check_digit(body), expected);
                // Formatting and parsing round-trip, zero-padded and with a lowercase k too.
                prop_assert_eq!(Rut::parse(&rut.formatted()), Ok(rut));
                prop_assert_eq!(Rut::parse(&format!("0{}", rut.formatted())), Ok(rut));
                prop_assert_eq!(Rut::parse(&format!("{:08}-{}", body, rut.check().to_ascii_lowercase())), Ok(rut));
                prop_assert_eq!(Rut::parse(&format!(" {} ", rut.canonical())).map(|r| r.canonical()), Ok(rut.canonical()));
            }

            #[test]
            fn no_input_makes_the_parser_panic(input in "\\PC{0,16}") {
                let _ = Rut::parse(&input);
                let _ = LoginId::parse(&input);
            }
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
