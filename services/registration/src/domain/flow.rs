//! A registration flow as stored: its bearer id, its step, what was entered, and the member it
//! becomes.
//!
//! The flow id is 32 random bytes in base64url (43 characters), handed to the client once and
//! never stored: the table keeps its SHA-256 ([`FlowKey`]), and logs show the first characters
//! of that hash.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use miclub_platform::member::MemberId;
use sha2::{Digest, Sha256};

use crate::domain::identity::Identity;

/// The opaque id the client holds; the only credential of an anonymous flow.
#[derive(Clone, PartialEq, Eq)]
pub struct FlowId(String);

impl std::fmt::Debug for FlowId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FlowId(…)")
    }
}

impl FlowId {
    /// A fresh id from the operating system's random source.
    pub fn generate() -> Self {
        let bytes: [u8; 32] = rand::random();
        Self(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// An id as a client sent it; anything that is not 43 base64url characters is no flow.
    pub fn parse(input: &str) -> Option<Self> {
        let decoded = URL_SAFE_NO_PAD.decode(input).ok()?;
        (input.len() == 43 && decoded.len() == 32).then(|| Self(input.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key the flow is stored under.
    pub fn key(&self) -> FlowKey {
        let digest = Sha256::digest(self.0.as_bytes());
        FlowKey(digest.iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// SHA-256 (lowercase hex) of a flow id: the primary key of `registration_flows`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowKey(String);

impl FlowKey {
    pub fn from_stored(hex: String) -> Self {
        Self(hex)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 12 characters, enough to follow one flow through the logs.
    pub fn short(&self) -> &str {
        &self.0[..self.0.len().min(12)]
    }
}

impl std::fmt::Display for FlowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.short())
    }
}

/// The step the member is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    PersonalData,
    Password,
}

impl Step {
    pub fn number(self) -> i64 {
        match self {
            Step::PersonalData => 2,
            Step::Password => 3,
        }
    }

    pub fn from_number(number: i64) -> Option<Self> {
        match number {
            2 => Some(Step::PersonalData),
            3 => Some(Step::Password),
            _ => None,
        }
    }
}

/// Where the flow stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Steps 1 and 2 may still be sent.
    Open,
    /// Completion started: the member id is chosen and kept until the flow completes.
    Completing,
    /// The member exists with credentials; the flow answers as expired from now on.
    Completed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Completing => "completing",
            Status::Completed => "completed",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        match stored {
            "open" => Some(Status::Open),
            "completing" => Some(Status::Completing),
            "completed" => Some(Status::Completed),
            _ => None,
        }
    }
}

/// Step 2 as the member entered it. Accounts owns the rules and the Spanish messages of every
/// field; registration stores what accounts accepted, to show it again and to create the member.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PersonalData {
    pub name: String,
    pub last_name: String,
    pub mother_surname: String,
    pub phone_number: String,
    /// ISO "YYYY-MM-DD".
    pub birth_date: String,
    pub gender_id: i32,
    pub email: String,
}

impl PersonalData {
    /// Surrounding spaces removed from every text field, as any form would.
    pub fn trimmed(self) -> Self {
        Self {
            name: self.name.trim().to_owned(),
            last_name: self.last_name.trim().to_owned(),
            mother_surname: self.mother_surname.trim().to_owned(),
            phone_number: self.phone_number.trim().to_owned(),
            birth_date: self.birth_date.trim().to_owned(),
            gender_id: self.gender_id,
            email: self.email.trim().to_owned(),
        }
    }
}

/// One stored flow.
#[derive(Debug, Clone)]
pub struct Flow {
    pub key: FlowKey,
    pub step: Step,
    pub status: Status,
    pub identity: Identity,
    /// Set once step 2 was accepted; erased when the flow completes.
    pub personal_data: Option<PersonalData>,
    /// Chosen when completion starts, then kept (replaced only by accounts' authoritative id).
    pub member_id: Option<MemberId>,
    pub terms_version: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub expires_at: i64,
}

impl Flow {
    /// True once the flow can no longer be used at `now`.
    pub fn is_expired(&self, now: i64) -> bool {
        self.expires_at <= now
    }

    /// Whole seconds left at `now`, rounded up (a flow with 0.5 s left is not shown as gone).
    pub fn expires_in_seconds(&self, now: i64) -> i64 {
        ((self.expires_at - now).max(0) + 999) / 1_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_id_is_43_base64url_characters_and_only_its_hash_is_the_key() {
        let id = FlowId::generate();
        assert_eq!(id.as_str().len(), 43);
        assert_eq!(FlowId::parse(id.as_str()), Some(id.clone()));
        let key = id.key();
        assert_eq!(key.as_str().len(), 64);
        assert!(!key.as_str().contains(id.as_str()));
        assert_eq!(key, FlowId::parse(id.as_str()).unwrap().key());
        assert_ne!(key, FlowId::generate().key());
        assert_eq!(key.short().len(), 12);
    }

    #[test]
    fn anything_but_a_flow_id_shape_is_no_flow() {
        for bad in [
            "",
            "abc",
            "+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+",
            &"a".repeat(44),
        ] {
            assert!(FlowId::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn seconds_left_round_up_and_never_go_negative() {
        let identity = Identity::chilean("12.345.678-5", "100123456").unwrap();
        let flow = Flow {
            key: FlowId::generate().key(),
            step: Step::PersonalData,
            status: Status::Open,
            identity,
            personal_data: None,
            member_id: None,
            terms_version: None,
            created_at: 0,
            updated_at: 0,
            expires_at: 10_000,
        };
        assert_eq!(flow.expires_in_seconds(0), 10);
        assert_eq!(flow.expires_in_seconds(9_500), 1);
        assert_eq!(flow.expires_in_seconds(20_000), 0);
        assert!(!flow.is_expired(9_999));
        assert!(flow.is_expired(10_000));
    }
}
