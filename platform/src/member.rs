//! The values every service names a member by: their [`MemberId`] and their [`Email`].
//!
//! One rule each, checked on construction, so a service never meets an id or an address that
//! another service would refuse. Each service maps the error to its own (field and Spanish
//! text); the values themselves carry no service logic.

use std::fmt;

use thiserror::Error;

/// Why an input is not a [`MemberId`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum MemberIdError {
    #[error("empty member id")]
    Empty,
    #[error("not a valid member id")]
    Malformed,
}

/// Opaque id of a member, the `sub` of their access tokens: 1 to 64 ASCII letters, digits,
/// `-`, `_`, `:` or `.` (members created by accounts get a UUID).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemberId(String);

impl MemberId {
    pub const MAX_BYTES: usize = 64;

    /// A fresh random id (a UUID v4).
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    /// `input` without surrounding whitespace, refused unless it follows the rule above.
    pub fn parse(input: &str) -> Result<Self, MemberIdError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(MemberIdError::Empty);
        }
        let valid = input.len() <= Self::MAX_BYTES
            && input
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'));
        if !valid {
            return Err(MemberIdError::Malformed);
        }
        Ok(Self(input.to_owned()))
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

/// Why an input is not an [`Email`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum EmailError {
    #[error("empty email")]
    Empty,
    #[error("email longer than 254 bytes")]
    TooLong,
    #[error("not an email address")]
    Malformed,
}

/// An email address: trimmed and lowercased, `local@domain.tld` with one `@`, no spaces or
/// control characters, a local part of at most 64 and a whole of at most 254 bytes (the
/// limits of SMTP, RFC 5321 4.5.3.1, which count octets; the REST contract's `maxLength` of
/// 254 characters always holds then).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub const MAX_BYTES: usize = 254;
    pub const MAX_LOCAL_BYTES: usize = 64;

    pub fn parse(input: &str) -> Result<Self, EmailError> {
        let email = input.trim().to_lowercase();
        if email.is_empty() {
            return Err(EmailError::Empty);
        }
        if email.len() > Self::MAX_BYTES {
            return Err(EmailError::TooLong);
        }
        if email.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(EmailError::Malformed);
        }
        let (local, domain) = email.split_once('@').ok_or(EmailError::Malformed)?;
        let domain_ok = domain.contains('.')
            && !domain.contains('@')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..");
        if local.is_empty() || local.len() > Self::MAX_LOCAL_BYTES || !domain_ok {
            return Err(EmailError::Malformed);
        }
        Ok(Self(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// For display to someone who may not own it: `ana@example.cl` becomes `a***@example.cl`.
    pub fn masked(&self) -> String {
        mask_email(&self.0)
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `email` masked to its first letter and domain: `ana@example.cl` becomes `a***@example.cl`,
/// anything without an `@` `***`.
pub fn mask_email(email: &str) -> String {
    match email.split_once('@') {
        Some((local, domain)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}***@{domain}")
        }
        None => "***".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_id_is_a_short_plain_token_without_surrounding_spaces() {
        let id = MemberId::parse(" 7b0f6d2e-0000-4000-8000-000000000001 ").unwrap();
        assert_eq!(id.as_str(), "7b0f6d2e-0000-4000-8000-000000000001");
        assert!(MemberId::parse("demo:ana.gonzalez_1").is_ok());
        assert!(MemberId::parse(&"a".repeat(64)).is_ok());
        assert_eq!(MemberId::parse(""), Err(MemberIdError::Empty));
        assert_eq!(MemberId::parse("  "), Err(MemberIdError::Empty));
        for bad in ["a b", "x/y", "ñandú", &"a".repeat(65)] {
            assert_eq!(
                MemberId::parse(bad),
                Err(MemberIdError::Malformed),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_generated_member_id_is_a_valid_one() {
        let id = MemberId::generate();
        assert_eq!(MemberId::parse(id.as_str()), Ok(id));
    }

    #[test]
    fn an_email_is_trimmed_lowercased_and_needs_a_dotted_domain() {
        assert_eq!(
            Email::parse("  Ana.Nueva@Correo.CL ").unwrap().as_str(),
            "ana.nueva@correo.cl"
        );
        assert_eq!(Email::parse(""), Err(EmailError::Empty));
        assert_eq!(Email::parse(" "), Err(EmailError::Empty));
        for bad in [
            "ana",
            "ana@correo",
            "@correo.cl",
            "ana@@correo.cl",
            "ana @correo.cl",
            "ana\u{7}@correo.cl",
            "ana@.correo.cl",
            "ana@correo.",
            "ana@correo..cl",
        ] {
            assert_eq!(Email::parse(bad), Err(EmailError::Malformed), "{bad:?}");
        }
    }

    #[test]
    fn an_email_local_part_is_at_most_64_bytes() {
        assert!(Email::parse(&format!("{}@correo.cl", "a".repeat(64))).is_ok());
        assert_eq!(
            Email::parse(&format!("{}@correo.cl", "a".repeat(65))),
            Err(EmailError::Malformed)
        );
        // 32 two-byte letters are 64 bytes; 33 are too many.
        assert!(Email::parse(&format!("{}@correo.cl", "ñ".repeat(32))).is_ok());
        assert!(Email::parse(&format!("{}@correo.cl", "ñ".repeat(33))).is_err());
    }

    #[test]
    fn an_email_is_at_most_254_bytes_not_254_characters() {
        let domain = |len: usize| format!("{}.cl", "d".repeat(len - 3));
        assert!(Email::parse(&format!("ana@{}", domain(250))).is_ok());
        assert_eq!(
            Email::parse(&format!("ana@{}", domain(251))),
            Err(EmailError::TooLong)
        );
        // Ten `ñ` make it 254 characters, within the REST contract's limit, but 264 bytes.
        let wide = format!("ana@{}{}.cl", "ñ".repeat(10), "d".repeat(237));
        assert_eq!(wide.chars().count(), 254);
        assert_eq!(Email::parse(&wide), Err(EmailError::TooLong));
    }

    #[test]
    fn emails_are_masked_to_their_first_letter_and_domain() {
        assert_eq!(
            Email::parse("ana@example.cl").unwrap().masked(),
            "a***@example.cl"
        );
        assert_eq!(mask_email("ñandú@example.cl"), "ñ***@example.cl");
        assert_eq!(mask_email("nothing"), "***");
    }
}
