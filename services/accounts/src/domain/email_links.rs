//! Email links: the secret token of a confirmation or restore link, of which only the SHA-256
//! is stored; the links as they are stored and what opening one did; where they point; and how
//! a mail writes a moment. Shared by the profile (confirmation and restore), registration (the
//! welcome's verification link) and the change notice relay.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use super::{Email, MemberId};

/// The secret of a confirmation link. Never logged, never stored: the store keeps
/// [`ConfirmationToken::digest`].
#[derive(Clone, PartialEq, Eq)]
pub struct ConfirmationToken(String);

impl ConfirmationToken {
    const BYTES: usize = 32;

    pub fn generate() -> Self {
        let bytes: [u8; Self::BYTES] = rand::random();
        Self(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// `None` for anything that cannot be a token of ours, which spares the database a lookup.
    pub fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim();
        let decoded = URL_SAFE_NO_PAD.decode(raw).ok()?;
        (decoded.len() == Self::BYTES).then(|| Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Lowercase hex SHA-256: the token has 256 bits of entropy, so a plain hash is enough.
    pub fn digest(&self) -> String {
        format!("{:x}", Sha256::digest(self.0.as_bytes()))
    }
}

impl fmt::Debug for ConfirmationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ConfirmationToken(***)")
    }
}

/// A confirmation link about to be stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewConfirmation {
    pub digest: String,
    /// Unix milliseconds.
    pub expires_at: i64,
}

/// A stored confirmation link, with the member's current address to compare against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredConfirmation {
    pub member_id: MemberId,
    /// The address the link was sent to.
    pub email: Email,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    /// The member's address now; a link for an older one is void.
    pub current_email: Email,
    /// The member's last confirmed address (auth's copy), `None` before the first
    /// confirmation (a registration's).
    pub previous_email: Option<Email>,
}

/// A restore link about to be stored with the confirmation of the address that replaced
/// `previous_email`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRestore {
    pub digest: String,
    pub previous_email: Email,
    /// Unix milliseconds.
    pub expires_at: i64,
}

/// A stored restore link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRestore {
    pub member_id: MemberId,
    /// The address the link brings back (where the notice went).
    pub previous_email: Email,
    /// The address that had replaced it.
    pub new_email: Email,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    /// The member has not unsubscribed (nor is pending again).
    pub member_active: bool,
}

impl StoredRestore {
    pub fn is_usable(&self, now: i64) -> bool {
        self.used_at.is_none() && now < self.expires_at && self.member_active
    }
}

impl StoredConfirmation {
    /// Unused, unexpired at `now`, and for the address the member has.
    pub fn is_usable(&self, now: i64) -> bool {
        self.used_at.is_none() && now < self.expires_at && self.email == self.current_email
    }

    /// Used, and its address is still the member's address and their confirmed one: a second
    /// open of the link that confirmed it. A used link of an address the member has changed
    /// since is not (it answers as an invalid link).
    pub fn already_confirmed(&self) -> bool {
        self.used_at.is_some()
            && self.email == self.current_email
            && self.previous_email.as_ref() == Some(&self.email)
    }
}

/// What opening a confirmation link did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmailConfirmation {
    /// The address is confirmed now.
    Confirmed(Email),
    /// The link had confirmed this address before and it still is the member's: nothing
    /// changed. Links stay single-use; this only tells the holder of the link what it did.
    AlreadyConfirmed,
}

/// Why a link is mailed, which words the mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LinkPurpose {
    /// A new address typed in Mis Datos (or a resend from there).
    EmailChange,
    /// The address of a member who just registered and cannot log in before verifying it.
    Registration,
}

/// Where confirmation links point and how long they last.
#[derive(Debug, Clone)]
pub struct ConfirmationSettings {
    /// Origin of the web app, e.g. `https://miclub.cl`; the link is
    /// `{public_url}/confirmar-correo?token=…`.
    pub public_url: String,
    pub ttl_hours: u32,
}

impl ConfirmationSettings {
    pub(super) fn link(&self, token: &ConfirmationToken) -> String {
        format!(
            "{}/confirmar-correo?token={}",
            self.public_url.trim_end_matches('/'),
            token.as_str()
        )
    }

    pub(super) fn ttl_millis(&self) -> i64 {
        i64::from(self.ttl_hours) * 60 * 60 * 1_000
    }

    pub(super) fn restore_link(&self, token: &ConfirmationToken) -> String {
        format!(
            "{}/restaurar-correo?token={}",
            self.public_url.trim_end_matches('/'),
            token.as_str()
        )
    }
}

/// `at` (Unix milliseconds) as members read it, in the portal's one date format:
/// `23 de noviembre de 2026 a las 21:15`.
pub(super) fn chile_date_time(at: i64) -> String {
    miclub_platform::calendar::member_date_time(at)
        .or_else(|| miclub_platform::calendar::member_date_time(0))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_43_base64url_characters_and_its_digest_is_hex_sha256() {
        let token = ConfirmationToken::generate();
        assert_eq!(token.as_str().len(), 43);
        assert_eq!(
            ConfirmationToken::parse(token.as_str()),
            Some(token.clone())
        );
        assert_eq!(token.digest().len(), 64);
        assert_ne!(token.digest(), ConfirmationToken::generate().digest());
        assert!(!format!("{token:?}").contains(token.as_str()));
    }

    #[test]
    fn what_cannot_be_a_token_is_refused_before_any_lookup() {
        let short = URL_SAFE_NO_PAD.encode([7u8; 16]);
        for bad in ["", "abc", "!!!!", short.as_str()] {
            assert_eq!(ConfirmationToken::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_link_points_at_the_web_app_whatever_the_trailing_slash() {
        let token = ConfirmationToken::generate();
        for public_url in ["https://miclub.cl", "https://miclub.cl/"] {
            let settings = ConfirmationSettings {
                public_url: public_url.into(),
                ttl_hours: 48,
            };
            assert_eq!(
                settings.link(&token),
                format!(
                    "https://miclub.cl/confirmar-correo?token={}",
                    token.as_str()
                )
            );
        }
    }
}
