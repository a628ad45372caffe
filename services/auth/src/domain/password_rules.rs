//! The rules a new password must meet, after NIST SP 800-63B (5.1.1.2): 8 to 64 characters,
//! any characters, no composition rules, not a commonly used password, not the current one.
//!
//! Lengths count Unicode scalar values, not bytes, so "contraseña" is 10 characters. The list
//! of common passwords ships with the service (`data/common-passwords.txt`, see the README
//! there for its source and licence), is embedded at build time and read into a set once, on
//! first use, and compared case-insensitively: "PassWord1" is as common as "password1".

use std::collections::HashSet;
use std::fmt;
use std::sync::LazyLock;

use secrecy::{ExposeSecret, SecretString};

use super::types::Password;

// The rule a refused password broke is a detail of the error (`AuthError::WeakPassword`), so it
// lives in `crate::error`, which sits below the domain; it is named here too, where the rules
// are checked, so `domain::password_rules::PasswordRule` keeps working.
pub use crate::error::PasswordRule;

/// Lowercased, one per line.
const COMMON_PASSWORDS: &str = include_str!("../../data/common-passwords.txt");

static COMMON: LazyLock<HashSet<String>> = LazyLock::new(|| {
    COMMON_PASSWORDS
        .lines()
        .map(str::to_lowercase)
        .filter(|line| !line.is_empty())
        .collect()
});

/// True when `candidate` is on the shipped list of common passwords, whatever its case.
pub fn is_common(candidate: &str) -> bool {
    COMMON.contains(&candidate.to_lowercase())
}

/// A password that meets every rule that can be checked without the current one. Whether it
/// differs from the current password is [`NewPassword::differs_from`], once that is known.
#[derive(Clone)]
pub struct NewPassword(SecretString);

impl NewPassword {
    pub const MIN_CHARS: usize = 8;
    pub const MAX_CHARS: usize = 64;

    pub fn parse(input: impl Into<String>) -> Result<Self, PasswordRule> {
        let input: String = input.into();
        let chars = input.chars().count();
        if chars < Self::MIN_CHARS {
            return Err(PasswordRule::TooShort);
        }
        if chars > Self::MAX_CHARS {
            return Err(PasswordRule::TooLong);
        }
        if is_common(&input) {
            return Err(PasswordRule::Common);
        }
        Ok(Self(SecretString::from(input)))
    }

    /// Refuses a new password equal to `current` (the member's password, already checked).
    pub fn differs_from(&self, current: &Password) -> Result<(), PasswordRule> {
        if self.0.expose_secret() == current.expose() {
            Err(PasswordRule::SameAsCurrent)
        } else {
            Ok(())
        }
    }

    /// The password as the hasher takes it. It passed the rules, so it is a valid [`Password`].
    pub fn as_password(&self) -> Password {
        Password::parse(self.0.expose_secret().to_owned())
            .expect("8 to 64 characters is a valid password")
    }
}

impl fmt::Debug for NewPassword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NewPassword(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_list_is_loaded_lowercased_and_complete() {
        assert!(COMMON.len() > 19_000, "{} passwords", COMMON.len());
        assert!(COMMON_PASSWORDS.lines().all(|l| l == l.to_lowercase()));
        for common in ["password", "12345678", "iloveyou", "qwertyuiop"] {
            assert!(is_common(common), "{common}");
        }
    }

    #[test]
    fn a_common_password_is_refused_whatever_its_case() {
        for candidate in ["password1", "PASSWORD1", "PassWord1", "ColoColo"] {
            assert_eq!(
                NewPassword::parse(candidate).unwrap_err(),
                PasswordRule::Common,
                "{candidate:?}"
            );
        }
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        // Eight two-byte characters are eight characters.
        assert!(NewPassword::parse("ñandúñandú".chars().take(8).collect::<String>()).is_ok());
        assert_eq!(
            NewPassword::parse("ñandú12").unwrap_err(),
            PasswordRule::TooShort
        );
        let sixty_four: String = "áéíóú-Mi-Club".chars().cycle().take(64).collect();
        assert_eq!(sixty_four.len(), 64 + 5 * 5);
        assert!(NewPassword::parse(sixty_four.clone()).is_ok());
        assert_eq!(
            NewPassword::parse(format!("{sixty_four}x")).unwrap_err(),
            PasswordRule::TooLong
        );
    }

    #[test]
    fn any_characters_are_allowed_without_composition_rules() {
        for fine in [
            "correct horse battery",
            "sólominúsculas",
            "🦙🦙🦙🦙🦙🦙🦙🦙",
            "12 34 56 78",
        ] {
            assert!(NewPassword::parse(fine).is_ok(), "{fine:?}");
        }
    }

    #[test]
    fn the_new_password_must_differ_from_the_current_one() {
        let current = Password::parse("Vicuña-del-Norte").unwrap();
        let same = NewPassword::parse("Vicuña-del-Norte").unwrap();
        assert_eq!(
            same.differs_from(&current).unwrap_err(),
            PasswordRule::SameAsCurrent
        );
        let other = NewPassword::parse("vicuña-del-norte").unwrap();
        assert!(other.differs_from(&current).is_ok());
        assert_eq!(format!("{other:?}"), "NewPassword(***)");
    }
}
