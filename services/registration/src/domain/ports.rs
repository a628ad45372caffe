//! What registration needs from other services, as traits the domain calls.
//!
//! [`Members`] is accounts, [`Credentials`] is auth, [`TermsSource`] is content and
//! [`IdentityVerifier`] is the document check after the rules. The gRPC adapters live in
//! `clients.rs` and `verifier.rs`; tests use in-memory fakes. A refusal meant for the member
//! (a field message, a duplicate) is [`RegistrationError::Refused`](crate::error::RegistrationError::Refused)
//! with the callee's own body; anything else is `Unavailable`.

use async_trait::async_trait;
use miclub_platform::member::MemberId;
use secrecy::SecretString;

use crate::domain::flow::PersonalData;
use crate::domain::identity::Identity;
use crate::error::Result;

/// What accounts is asked to create.
#[derive(Debug, Clone)]
pub struct NewMember<'a> {
    /// Chosen by registration and kept for retries.
    pub member_id: &'a MemberId,
    pub identity: &'a Identity,
    pub profile: &'a PersonalData,
    pub terms_version: &'a str,
}

/// What accounts did with a registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enrolment {
    /// A pending member under this authoritative id.
    Member(MemberId),
    /// Another active member uses the email: nothing was created and accounts mailed that
    /// address a notice (once per member id, retries included).
    EmailInUse {
        /// Where the notice went, masked as an activation masks it.
        masked_email: String,
    },
}

/// The members in accounts.
#[async_trait]
pub trait Members: Send + Sync + std::fmt::Debug + 'static {
    /// OK unless an active member holds the document (`ERR_RUT_ALREADY_REGISTERED`).
    async fn check_identity(&self, identity: &Identity) -> Result<()>;
    /// The profile's rules, adults only; never whether the email is a member's.
    async fn check_profile(&self, profile: &PersonalData) -> Result<()>;
    /// Creates the member as pending, or tells the email's owner instead (see [`Enrolment`]).
    async fn register_member(&self, member: &NewMember<'_>) -> Result<Enrolment>;
    /// Makes the member active and mails the verification link; answers the masked email.
    async fn activate_member(&self, member_id: &MemberId) -> Result<String>;
}

/// The credentials in auth.
#[async_trait]
pub trait Credentials: Send + Sync + std::fmt::Debug + 'static {
    /// `ERR_WEAK_PASSWORD` with auth's precise message, or OK.
    async fn check_password_rules(&self, password: &SecretString) -> Result<()>;
    /// Creates (or, for the same member, replaces) the login of `member_id`.
    async fn create_credentials(
        &self,
        member_id: &MemberId,
        login_id: &str,
        email: &str,
        password: &SecretString,
    ) -> Result<()>;
}

/// Where the version of the terms in force comes from.
#[async_trait]
pub trait TermsSource: Send + Sync + std::fmt::Debug + 'static {
    async fn current_version(&self) -> Result<String>;
}

/// The document check after the rules: OK, `IdentityNotVerified`, or `Unavailable`.
#[async_trait]
pub trait IdentityVerifier: Send + Sync + std::fmt::Debug + 'static {
    async fn verify(&self, identity: &Identity) -> Result<()>;
}
