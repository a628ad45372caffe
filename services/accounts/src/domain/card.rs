//! The member card's number: what the digital card at /mi-club/tarjeta shows as a Code 128
//! barcode and a store system scans at the till instead of the member's RUT.
//!
//! Invariants of a [`CardNumber`] (checked by [`CardNumber::parse`], kept by
//! [`CardNumber::generate`]): exactly 12 ASCII decimal digits, the first 1-9 (so the number never
//! loses a digit when a till reads it as an integer), the last the Luhn check digit of the first
//! 11 (so a mistyped or misread digit is refused before any lookup).
//!
//! The 11 digits before the check digit are drawn from `rand`'s thread generator (ChaCha12, a
//! CSPRNG seeded from the operating system), never from a sequence: the number is shown at tills
//! and printed on screens, so one member's number must say nothing about another's. The check
//! digit only catches misreads (anyone can compute it); of the 9·10¹⁰ well-formed numbers, a
//! guess is somebody's N times in 9·10¹⁰ with N members (about 1 in 18 000 with five million),
//! and a given member's 1 in 9·10¹⁰. The number is an identifier, not a secret.

use std::fmt;

use rand::Rng;

use crate::error::{AccountsError, Result};

/// A member card number (see the module's invariants).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CardNumber(String);

impl CardNumber {
    /// Digits of a card number, check digit included.
    pub const LEN: usize = 12;

    /// Draws a fresh random number. Two draws may collide (the store's unique index refuses the
    /// second, and the caller draws again).
    pub fn generate() -> Self {
        let mut rng = rand::rng();
        let mut digits = [0u8; Self::LEN - 1];
        digits[0] = rng.random_range(1..=9);
        for digit in &mut digits[1..] {
            *digit = rng.random_range(0..=9);
        }
        let check = luhn_check_digit(&digits);
        let mut number = String::with_capacity(Self::LEN);
        number.extend(digits.iter().map(|d| char::from(b'0' + d)));
        number.push(char::from(b'0' + check));
        Self(number)
    }

    /// Checks a card number as sent (no spaces, no separators): refused with
    /// [`AccountsError::Invalid`] naming `field` unless it has the module's invariants.
    pub fn parse_field(field: &'static str, raw: &str) -> Result<Self> {
        let bytes = raw.as_bytes();
        if bytes.len() != Self::LEN || !bytes.iter().all(u8::is_ascii_digit) {
            return Err(AccountsError::invalid(field, "not 12 decimal digits"));
        }
        if bytes[0] == b'0' {
            return Err(AccountsError::invalid(field, "starts with 0"));
        }
        let digits: Vec<u8> = bytes.iter().map(|b| b - b'0').collect();
        if luhn_check_digit(&digits[..Self::LEN - 1]) != digits[Self::LEN - 1] {
            return Err(AccountsError::invalid(field, "wrong check digit"));
        }
        Ok(Self(raw.to_owned()))
    }

    /// [`CardNumber::parse_field`] for the field `card_number`.
    pub fn parse(raw: &str) -> Result<Self> {
        Self::parse_field("card_number", raw)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CardNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for CardNumber {
    /// The last four digits only, as a receipt prints a card: the number identifies a member
    /// at a till and has no business in logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardNumber(…{})", &self.0[Self::LEN - 4..])
    }
}

/// The Luhn check digit of `payload` (decimal digits, most significant first): doubling every
/// second digit from the right, starting with the rightmost of the payload.
fn luhn_check_digit(payload: &[u8]) -> u8 {
    let sum: u32 = payload
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 0 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    u8::try_from((10 - sum % 10) % 10).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_known_luhn_number_parses_and_its_neighbours_do_not() {
        // 7992739871 has the textbook check digit 3; padded to 11 digits with a leading 1.
        assert_eq!(luhn_check_digit(&[7, 9, 9, 2, 7, 3, 9, 8, 7, 1]), 3);
        let valid = "100000000008";
        assert_eq!(luhn_check_digit(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 8);
        assert_eq!(CardNumber::parse(valid).unwrap().as_str(), valid);
        assert!(CardNumber::parse("100000000007").is_err());
        assert!(CardNumber::parse("100000000009").is_err());
    }

    #[test]
    fn parse_refuses_every_other_shape_naming_the_field() {
        for raw in [
            "",
            "12345678901",
            "1234567890123",
            "000000000000",
            "012345678903",
            "1234 5678 901",
            "12345678901a",
            "１２３４５６７８９０１２",
            " 100000000008",
            "100000000008 ",
            "-10000000008",
        ] {
            match CardNumber::parse_field("member_card", raw) {
                Err(AccountsError::Invalid { field, .. }) => assert_eq!(field, "member_card"),
                other => panic!("{raw:?} was not refused: {other:?}"),
            }
        }
    }

    #[test]
    fn debug_shows_only_the_last_four_digits() {
        let card = CardNumber::parse("100000000008").unwrap();
        assert_eq!(format!("{card:?}"), "CardNumber(…0008)");
        assert_eq!(card.to_string(), "100000000008");
    }

    #[test]
    fn generated_numbers_are_not_a_sequence() {
        let drawn: std::collections::HashSet<String> = (0..1_000)
            .map(|_| CardNumber::generate().as_str().to_owned())
            .collect();
        // 1 000 draws from 9·10¹⁰: a repeat would mean the generator is broken.
        assert_eq!(drawn.len(), 1_000);
        let first_digits: std::collections::HashSet<char> =
            drawn.iter().filter_map(|n| n.chars().next()).collect();
        assert!(first_digits.len() > 5, "first digits {first_digits:?}");
    }

    proptest! {
        #[test]
        fn every_generated_number_parses(_round in 0u8..255) {
            let card = CardNumber::generate();
            prop_assert_eq!(card.as_str().len(), CardNumber::LEN);
            prop_assert!(!card.as_str().starts_with('0'));
            prop_assert_eq!(CardNumber::parse(card.as_str()).unwrap(), card);
        }

        #[test]
        fn changing_any_one_digit_breaks_the_check(
            position in 0usize..CardNumber::LEN,
            bump in 1u8..=9,
        ) {
            let card = CardNumber::generate();
            let mut digits = card.as_str().as_bytes().to_vec();
            digits[position] = b'0' + (digits[position] - b'0' + bump) % 10;
            let changed = String::from_utf8(digits).unwrap();
            prop_assert!(CardNumber::parse(&changed).is_err(), "{} parsed", changed);
        }

        #[test]
        fn parse_never_panics_and_accepts_only_what_it_checks(raw in "\\PC{0,16}") {
            if let Ok(card) = CardNumber::parse(&raw) {
                prop_assert_eq!(card.as_str(), raw.as_str());
            }
        }
    }
}
