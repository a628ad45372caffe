//! Auth's copy of a member's email: where one-time codes go. Accounts owns the member's
//! address and its confirmation; once a member confirms a new address there, accounts tells
//! auth (`SetLoginEmail`, service token only), and the next code goes to the new address.

use miclub_platform::storage::now_millis;

use super::Auth;
use super::security::EventKind;
use super::types::{Email, MemberId, mask_email};
use crate::error::{AuthError, AuthResult};

impl Auth {
    /// Sets the login email of `member_id` and marks it verified (accounts saw the member
    /// confirm it). Idempotent. `NotFound` when auth has no enabled credentials for the
    /// member: an unsubscribed member's address stays erased until they join again.
    /// `caller` is the internal client that asked, for the log.
    pub async fn set_login_email(
        &self,
        caller: &str,
        member_id: &MemberId,
        email: &Email,
    ) -> AuthResult<()> {
        let before = self.store.credentials_by_member_id(member_id).await?;
        let found = self
            .store
            .set_login_email(member_id, email.as_str(), now_millis())
            .await?;
        if !found {
            tracing::info!(caller, member_id = %member_id.as_str(), "login email not set: no enabled credentials for the member");
            return Err(AuthError::NotFound);
        }
        // A new address is an event of the member's; the same one set again (a retry, a
        // recovery proving the mailbox) is not.
        if before.is_some_and(|before| !before.email.eq_ignore_ascii_case(email.as_str())) {
            self.record_event(member_id, EventKind::EmailChanged, "")
                .await;
        }
        tracing::info!(
            caller,
            member_id = %member_id.as_str(),
            email = %mask_email(email.as_str()),
            "login email set"
        );
        Ok(())
    }
}
