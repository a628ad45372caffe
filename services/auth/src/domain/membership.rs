//! Joining and leaving: the credentials registration creates for a new member, and the
//! unsubscribe that disables them.
//!
//! Creating is idempotent by member: the credentials of the same member and login id are
//! replaced (new hash and email, enabled again, email not verified), so a retried
//! registration and a member rejoining after unsubscribing both land on one row. The email
//! counts as verified only once accounts sees the member confirm it (`SetLoginEmail`).
//!
//! Replacing and disabling end every session of the member the way a password change does
//! ([`Auth::end_sessions`]). Logins and resets waiting for a code end too: while disabled,
//! `verify_otp`, `resend_otp` and the recovery calls refuse the member; a replace records
//! `password_changed_at`, so those started before a rejoin cannot complete after it.

use miclub_platform::identity::LoginId;
use miclub_platform::storage::now_millis;

use super::Auth;
use super::hashing::HashScheme;
use super::password_rules::NewPassword;
use super::types::{Email, MemberId, mask_email};
use crate::error::{AuthError, AuthResult};
use crate::store::{CredentialsWritten, DisableOutcome, NewCredentials};

/// Credentials were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CredentialsCreated {
    /// False when the member's credentials existed and were replaced.
    pub created: bool,
}

/// The member's credentials are disabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CredentialsDisabled {
    /// When they were first disabled (milliseconds); a repeat keeps the first instant.
    pub disabled_at: i64,
    /// Sessions that were live and are now revoked.
    pub revoked_sessions: usize,
}

impl Auth {
    /// Creates (or replaces) the credentials of `member_id` with the email not verified.
    /// `RutAlreadyRegistered` when another member holds the login id. `caller` is the internal
    /// client that asked, for the log.
    pub async fn create_credentials(
        &self,
        caller: &str,
        member_id: &MemberId,
        login_id: &LoginId,
        email: &Email,
        password: &NewPassword,
    ) -> AuthResult<CredentialsCreated> {
        // Taken before hashing: a login or reset started before it cannot complete on the
        // replaced credentials, and one started after it sees them.
        let now = now_millis();
        let hash = self.hasher.hash(&password.as_password()).await?;
        let login = login_id.canonical();
        let new = NewCredentials {
            member_id,
            login_id: &login,
            email: email.as_str(),
            password_hash: &hash,
            hash_scheme: HashScheme::Argon2id,
            email_verified: false,
        };
        match self.store.create_or_replace_credentials(&new, now).await? {
            CredentialsWritten::Created => {
                tracing::info!(caller, member_id = %member_id, kind = login_id.kind(), email = %mask_email(email.as_str()), "credentials created");
                Ok(CredentialsCreated { created: true })
            }
            CredentialsWritten::Replaced { revoked } => {
                let revoked = self.end_sessions(member_id, revoked).await;
                tracing::info!(caller, member_id = %member_id, kind = login_id.kind(), email = %mask_email(email.as_str()), revoked_sessions = revoked.len(), "credentials replaced");
                Ok(CredentialsCreated { created: false })
            }
            CredentialsWritten::LoginIdTaken => {
                tracing::info!(
                    caller,
                    member_id = %member_id,
                    "credentials refused: login id held by another member"
                );
                Err(AuthError::RutAlreadyRegistered)
            }
            CredentialsWritten::MemberHasOtherLoginId => {
                tracing::warn!(
                    caller,
                    member_id = %member_id,
                    "credentials refused: the member has credentials for another login id"
                );
                Err(AuthError::LoginIdMismatch)
            }
        }
    }

    /// Unsubscribe: disables the credentials of `member_id`, erases auth's copy of the email
    /// and ends every session. Idempotent (the first instant stays). `NotFound` when auth has
    /// no credentials for the member. Credentials (re)created after `unsubscribed_at` (Unix
    /// ms; 0 means no such check) belong to a member who registered again: a late retry of
    /// the unsubscribe leaves them alone and answers no session revoked.
    pub async fn disable_credentials(
        &self,
        caller: &str,
        member_id: &MemberId,
        unsubscribed_at: i64,
    ) -> AuthResult<CredentialsDisabled> {
        let disabled = match self
            .store
            .disable_credentials(member_id, unsubscribed_at.max(0), now_millis())
            .await?
        {
            DisableOutcome::Disabled(disabled) => disabled,
            DisableOutcome::NoCredentials => {
                tracing::info!(
                    caller,
                    member_id = %member_id,
                    "credentials not disabled: none for the member"
                );
                return Err(AuthError::NotFound);
            }
            DisableOutcome::Superseded => {
                tracing::warn!(
                    caller,
                    member_id = %member_id,
                    unsubscribed_at,
                    "credentials not disabled: created again after the member left"
                );
                return Ok(CredentialsDisabled {
                    disabled_at: 0,
                    revoked_sessions: 0,
                });
            }
        };
        let revoked = self.end_sessions(member_id, disabled.revoked).await;
        tracing::info!(
            caller,
            member_id = %member_id,
            disabled_at = disabled.disabled_at,
            revoked_sessions = revoked.len(),
            "credentials disabled, every session revoked"
        );
        Ok(CredentialsDisabled {
            disabled_at: disabled.disabled_at,
            revoked_sessions: revoked.len(),
        })
    }
}
