//! Validated values of the auth flows: a password, a one-time code, a challenge id, a refresh
//! token and the key one-time codes are stored under, plus platform's member id and email
//! address with the field and problem auth names their refusals by. Each can only be built
//! through its checks, so the rest of the domain never meets an empty password or a code of
//! the wrong shape.
//!
//! These values stand low in the crate: they import only `crate::error` (whose enum sits
//! below them and imports nothing of the crate), so the settings (`crate::config`), the key
//! ring and the domain logic can all use them without importing one another.

use std::fmt;
use std::ops::RangeInclusive;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use miclub_platform::config::Environment;
pub use miclub_platform::member::{Email, MemberId, mask_email};
use miclub_platform::member::{EmailError, MemberIdError};
use rand::Rng;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::{AuthError, AuthResult, Field, Problem};

/// A password as typed: not empty, at most [`Password::MAX_CHARS`] characters. Never logged.
#[derive(Clone)]
pub struct Password(SecretString);

impl Password {
    /// Longer inputs are refused before hashing so nobody can make us hash megabytes.
    pub const MAX_CHARS: usize = 256;

    pub fn parse(input: impl Into<String>) -> AuthResult<Self> {
        let input: String = input.into();
        if input.is_empty() {
            return Err(AuthError::InvalidInput {
                field: Field::Password,
                problem: Problem::Empty,
            });
        }
        if input.chars().count() > Self::MAX_CHARS {
            return Err(AuthError::InvalidInput {
                field: Field::Password,
                problem: Problem::TooLong,
            });
        }
        Ok(Self(SecretString::from(input)))
    }

    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

/// A one-time code: exactly `length` ASCII digits, leading zeros kept.
#[derive(Clone, PartialEq, Eq)]
pub struct OtpCode(String);

impl OtpCode {
    /// Code lengths the policy may choose: at least 6 digits (a million values), so the
    /// tries a challenge allows leave a guess negligible odds; at most 9 (fits a `u32`).
    pub const LENGTHS: RangeInclusive<usize> = 6..=9;

    /// Reads a code as typed (surrounding spaces ignored).
    pub fn parse(input: &str, length: usize) -> AuthResult<Self> {
        let code = input.trim();
        if code.is_empty() {
            return Err(AuthError::InvalidInput {
                field: Field::Otp,
                problem: Problem::Empty,
            });
        }
        if code.len() != length || !code.bytes().all(|b| b.is_ascii_digit()) {
            return Err(AuthError::InvalidInput {
                field: Field::Otp,
                problem: Problem::Malformed,
            });
        }
        Ok(Self(code.to_owned()))
    }

    /// A fresh code from the thread's CSPRNG (ChaCha, seeded by the OS).
    pub fn generate(length: usize) -> Self {
        let length = length.clamp(*Self::LENGTHS.start(), *Self::LENGTHS.end());
        let bound = 10u32.pow(length as u32);
        let value = rand::rng().random_range(0..bound);
        Self(format!("{value:0length$}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What a challenge keeps instead of the code: HMAC-SHA256 under the server's code key of
    /// the challenge id and the code. Without the key, a stored value cannot be checked against
    /// guesses (a plain hash of 6 digits falls to a million tries); the challenge id binds it
    /// to its challenge. Ids are 43 characters without ':', so the input is unambiguous.
    pub fn digest(&self, key: &CodeKey, challenge: &ChallengeId) -> String {
        key.digest(&[challenge.as_str().as_bytes(), b":", self.0.as_bytes()])
    }
}

/// Whether a digest just computed is the stored one (a code's, a client secret's), compared in
/// constant time: how long the answer takes tells nothing of how much of it matched.
pub fn same_digest(computed: &str, stored: &str) -> bool {
    bool::from(computed.as_bytes().ct_eq(stored.as_bytes()))
}

impl fmt::Debug for OtpCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OtpCode(***)")
    }
}

/// The id of a pending login: 32 random bytes, base64url without padding (43 characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeId(String);

impl ChallengeId {
    const BYTES: usize = 32;
    const CHARS: usize = 43;

    pub fn generate() -> Self {
        Self(random_token(Self::BYTES))
    }

    /// `None` for anything we could not have issued.
    pub fn parse(input: &str) -> Option<Self> {
        let valid = input.len() == Self::CHARS
            && input
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        valid.then(|| Self(input.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An opaque refresh token as the client holds it. Only its digest is stored.
#[derive(Clone, PartialEq, Eq)]
pub struct RefreshToken(String);

impl RefreshToken {
    const BYTES: usize = 32;
    const MAX_CHARS: usize = 128;

    pub fn generate() -> Self {
        Self(random_token(Self::BYTES))
    }

    pub fn parse(input: &str) -> Option<Self> {
        let input = input.trim();
        let valid = !input.is_empty()
            && input.len() <= Self::MAX_CHARS
            && input
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        valid.then(|| Self(input.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// SHA-256 (hex) of the token: the stored lookup key. The token has 256 random bits, so a
    /// plain hash is enough.
    pub fn digest(&self) -> String {
        hex(&Sha256::digest(self.0.as_bytes()))
    }
}

impl fmt::Debug for RefreshToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RefreshToken(***)")
    }
}

impl From<MemberIdError> for AuthError {
    fn from(err: MemberIdError) -> Self {
        AuthError::InvalidInput {
            field: Field::MemberId,
            problem: match err {
                MemberIdError::Empty => Problem::Empty,
                MemberIdError::Malformed => Problem::Malformed,
            },
        }
    }
}

impl From<EmailError> for AuthError {
    fn from(err: EmailError) -> Self {
        AuthError::InvalidInput {
            field: Field::Email,
            problem: match err {
                EmailError::Empty => Problem::Empty,
                EmailError::TooLong => Problem::TooLong,
                EmailError::Malformed => Problem::Malformed,
            },
        }
    }
}

/// The server secret one-time codes are keyed with: what a challenge stores is
/// HMAC-SHA256(secret, challenge id ‖ ':' ‖ code), worthless without the secret.
#[derive(Clone)]
pub struct CodeKey {
    mac: Hmac<Sha256>,
}

impl std::fmt::Debug for CodeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CodeKey(***)")
    }
}

impl CodeKey {
    /// Shortest `auth.code_secret`, in bytes: the output size of SHA-256 (RFC 2104, 3).
    pub const MIN_SECRET_BYTES: usize = 32;

    /// The key of `secret`; production requires one, development generates one per process.
    pub fn load(secret: Option<&SecretString>, environment: Environment) -> anyhow::Result<Self> {
        match secret.map(ExposeSecret::expose_secret) {
            Some(secret) if !secret.is_empty() => Self::from_secret(secret.as_bytes()),
            _ if environment.is_production() => anyhow::bail!(
                "production needs a secret for one-time codes (auth.code_secret, at least {} bytes)",
                Self::MIN_SECRET_BYTES
            ),
            _ => {
                tracing::warn!(
                    "no auth.code_secret configured: one-time codes are keyed with a secret generated for this process"
                );
                Ok(Self::generated())
            }
        }
    }

    /// A key of `secret`, refused when shorter than [`Self::MIN_SECRET_BYTES`].
    pub fn from_secret(secret: &[u8]) -> anyhow::Result<Self> {
        if secret.len() < Self::MIN_SECRET_BYTES {
            // Never echo the value.
            anyhow::bail!(
                "auth.code_secret must be at least {} bytes (e.g. `openssl rand -base64 48`)",
                Self::MIN_SECRET_BYTES
            );
        }
        let mac = Hmac::<Sha256>::new_from_slice(secret)
            .map_err(|_| anyhow::anyhow!("auth.code_secret cannot key HMAC-SHA256"))?;
        Ok(Self { mac })
    }

    fn generated() -> Self {
        let secret: [u8; 32] = rand::random();
        Self::from_secret(&secret).expect("32 random bytes key HMAC-SHA256")
    }

    /// HMAC-SHA256 of `parts` under this key, lowercase hex.
    pub fn digest(&self, parts: &[&[u8]]) -> String {
        let mut mac = self.mac.clone();
        for part in parts {
            mac.update(part);
        }
        hex(&mac.finalize().into_bytes())
    }
}

/// `n` random bytes from the CSPRNG, base64url without padding.
pub fn random_token(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    rand::rng().fill(bytes.as_mut_slice());
    URL_SAFE_NO_PAD.encode(bytes)
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}

/// Serde for a [`MemberId`] kept in a pending challenge of the ephemeral store: written as its
/// text and refused on read unless valid, so a challenge that decodes names a checked member.
pub(crate) mod stored_member_id {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::MemberId;

    pub fn serialize<S: Serializer>(id: &MemberId, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(id.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<MemberId, D::Error> {
        let raw = String::deserialize(deserializer)?;
        MemberId::parse(&raw).map_err(D::Error::custom)
    }

    /// The same for an optional id (a decoy names nobody).
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer, de::Error};

        use super::MemberId;

        pub fn serialize<S: Serializer>(
            id: &Option<MemberId>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            match id {
                Some(id) => serializer.serialize_some(id.as_str()),
                None => serializer.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<MemberId>, D::Error> {
            Option::<String>::deserialize(deserializer)?
                .map(|raw| MemberId::parse(&raw).map_err(D::Error::custom))
                .transpose()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_names_its_member_as_text_and_does_not_decode_with_a_malformed_one() {
        #[derive(Debug, serde::Serialize, serde::Deserialize)]
        struct Held {
            #[serde(with = "stored_member_id")]
            member_id: MemberId,
            #[serde(default, with = "stored_member_id::option")]
            other: Option<MemberId>,
        }
        let held = Held {
            member_id: MemberId::parse("demo:ana").unwrap(),
            other: None,
        };
        let raw = serde_json::to_string(&held).unwrap();
        assert_eq!(raw, r#"{"member_id":"demo:ana","other":null}"#);
        let back: Held = serde_json::from_str(r#"{"member_id":"demo:ana","other":"m-2"}"#).unwrap();
        assert_eq!(back.member_id, held.member_id);
        assert_eq!(back.other.unwrap().as_str(), "m-2");
        assert!(serde_json::from_str::<Held>(r#"{"member_id":"demo:ana"}"#).is_ok());
        for bad in [r#"{"member_id":"a b"}"#, r#"{"member_id":"ok","other":""}"#] {
            assert!(serde_json::from_str::<Held>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_empty_or_oversized_password_is_refused() {
        assert!(Password::parse("").is_err());
        assert!(Password::parse("x".repeat(257)).is_err());
        assert!(Password::parse("ñ".repeat(256)).is_ok());
        assert_eq!(
            format!("{:?}", Password::parse("secreto").unwrap()),
            "Password(***)"
        );
    }

    #[test]
    fn a_code_is_exactly_its_length_in_digits() {
        assert!(OtpCode::parse("012345", 6).is_ok());
        assert!(OtpCode::parse(" 012345 ", 6).is_ok());
        for bad in ["12345", "1234567", "12345a", "", "１２３４５６"] {
            assert!(OtpCode::parse(bad, 6).is_err(), "{bad}");
        }
    }

    #[test]
    fn generated_codes_keep_leading_zeros() {
        for _ in 0..2_000 {
            let code = OtpCode::generate(6);
            assert_eq!(code.as_str().len(), 6);
            assert!(code.as_str().bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn a_digest_matches_only_itself_whatever_its_length() {
        assert!(same_digest("ab12", "ab12"));
        assert!(!same_digest("ab12", "ab13"));
        assert!(!same_digest("ab12", "ab1"));
        assert!(!same_digest("", "ab12"));
    }

    #[test]
    fn a_code_digest_depends_on_its_challenge() {
        let key = CodeKey::from_secret(&[7; 32]).unwrap();
        let code = OtpCode::parse("123456", 6).unwrap();
        let (a, b) = (ChallengeId::generate(), ChallengeId::generate());
        assert_ne!(code.digest(&key, &a), code.digest(&key, &b));
        assert_eq!(code.digest(&key, &a), code.digest(&key, &a));
    }

    #[test]
    fn a_stored_code_digest_cannot_be_reversed_without_the_server_secret() {
        let key = CodeKey::from_secret(&[7; 32]).unwrap();
        let challenge = ChallengeId::generate();
        let code = OtpCode::generate(6);
        let stored = code.digest(&key, &challenge);
        // What an attacker holding the stored challenge (a Redis dump) tries: every 6-digit
        // code, hashed as codes were stored before (SHA-256 of id ':' code).
        let found = (0..1_000_000u32).find(|n| {
            let plain = Sha256::digest(format!("{}:{n:06}", challenge.as_str()).as_bytes());
            hex(&plain) == stored
        });
        assert_eq!(found, None);
        // With the server's key the right code matches; another key digests otherwise.
        assert_eq!(
            OtpCode::parse(code.as_str(), 6)
                .unwrap()
                .digest(&key, &challenge),
            stored
        );
        assert_ne!(
            CodeKey::from_secret(&[8; 32]).unwrap().digest(&[b"x"]),
            key.digest(&[b"x"])
        );
    }

    #[test]
    fn challenge_ids_are_43_url_safe_characters() {
        let id = ChallengeId::generate();
        assert_eq!(id.as_str().len(), 43);
        assert_eq!(ChallengeId::parse(id.as_str()), Some(id));
        assert_eq!(ChallengeId::parse("short"), None);
        assert_eq!(ChallengeId::parse(&"+".repeat(43)), None);
    }

    #[test]
    fn a_refused_email_or_member_id_names_its_field_and_problem() {
        let refusal = |err: AuthError| match err {
            AuthError::InvalidInput { field, problem } => (field, problem),
            other => panic!("expected an invalid input, got {other:?}"),
        };
        let email = |raw: &str| refusal(Email::parse(raw).unwrap_err().into());
        assert_eq!(email(" "), (Field::Email, Problem::Empty));
        assert_eq!(
            email(&format!("ana@{}.cl", "d".repeat(248))),
            (Field::Email, Problem::TooLong)
        );
        assert_eq!(email("ana@correo"), (Field::Email, Problem::Malformed));
        let member_id = |raw: &str| refusal(MemberId::parse(raw).unwrap_err().into());
        assert_eq!(member_id(""), (Field::MemberId, Problem::Empty));
        assert_eq!(member_id("x/y"), (Field::MemberId, Problem::Malformed));
    }

    #[test]
    fn the_code_key_is_hmac_sha256_as_rfc_4231_gives_it() {
        // RFC 4231, test cases 6 and 7 (the ones whose key is long enough for us).
        let key = CodeKey::from_secret(&[0xaa; 131]).unwrap();
        assert_eq!(
            key.digest(&[b"Test Using Larger Than Block-Size Key - Hash Key First"]),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
        assert_eq!(
            key.digest(&[
                b"This is a test using a larger than block-size key and a larger than block-size data. ",
                b"The key needs to be hashed before being used by the HMAC algorithm."
            ]),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        );
    }

    #[test]
    fn production_refuses_to_start_without_a_code_secret_of_at_least_32_bytes() {
        let err = CodeKey::load(None, Environment::Production).unwrap_err();
        assert!(err.to_string().contains("auth.code_secret"), "{err}");
        let empty = SecretString::from("");
        assert!(CodeKey::load(Some(&empty), Environment::Production).is_err());
        let short = SecretString::from("s".repeat(31));
        let err = CodeKey::load(Some(&short), Environment::Development).unwrap_err();
        assert!(err.to_string().contains("at least 32 bytes"), "{err}");
        assert!(!err.to_string().contains(&"s".repeat(31)), "{err}");
        let right = SecretString::from("s".repeat(32));
        assert!(CodeKey::load(Some(&right), Environment::Production).is_ok());
    }

    #[test]
    fn development_without_a_code_secret_generates_one_per_process() {
        let a = CodeKey::load(None, Environment::Development).unwrap();
        let b = CodeKey::load(None, Environment::Development).unwrap();
        assert_ne!(a.digest(&[b"x"]), b.digest(&[b"x"]));
        assert_eq!(format!("{a:?}"), "CodeKey(***)");
    }
}
