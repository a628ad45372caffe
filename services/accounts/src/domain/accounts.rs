//! The use cases of accounts, what `grpc.rs` calls once it knows who the caller is.

use miclub_platform::storage::now_millis;

use super::{Balance, MemberId, MemberState, TermsAgreement, TermsDecision, TermsVersion};
use crate::error::{AccountsError, Result};
use crate::store::{Joined, Store};

/// Reads members and balances for the member who asks.
#[derive(Debug, Clone)]
pub struct Accounts {
    store: Store,
}

impl Accounts {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The member's own record and whether they have a club account; for a member who left,
    /// what is left of it (the token of a member who just unsubscribed may still be alive).
    pub async fn member(&self, member_id: &MemberId) -> Result<MemberState> {
        self.store
            .member_state(member_id)
            .await?
            .ok_or(AccountsError::MemberNotFound)
    }

    /// The member's balance; [`AccountsError::NoClubAccount`] when they have no club account
    /// (an unknown member has none either).
    pub async fn balance(&self, member_id: &MemberId) -> Result<Balance> {
        self.store
            .balance(member_id)
            .await?
            .ok_or(AccountsError::NoClubAccount)
    }

    /// Joining in place: opens the member's club account with a zero balance and records
    /// their acceptance of the terms of `version`, together. Idempotent per member: when the
    /// account is already open nothing changes and the answer says `opened: false`.
    /// [`AccountsError::TermsNotAccepted`] unless `accepted`.
    pub async fn open_club_account(
        &self,
        member_id: &MemberId,
        accepted: bool,
        version: TermsVersion,
    ) -> Result<(Joined, Option<TermsAgreement>)> {
        if !accepted {
            return Err(AccountsError::TermsNotAccepted);
        }
        let now = now_millis();
        let terms = TermsAgreement {
            decision: TermsDecision::Accepted,
            version: Some(version.as_str().to_owned()),
            decided_at: now,
        };
        let joined = self
            .store
            .open_club_account_joining(member_id, &terms, now)
            .await?;
        if joined.opened {
            tracing::info!(
                member_id = %member_id,
                terms_version = version.as_str(),
                "club account opened by the member"
            );
        } else {
            tracing::info!(member_id = %member_id, "club account already open: nothing written");
        }
        // What the member's record says now (the earlier decision when nothing was written).
        let terms = match self.store.member_state(member_id).await? {
            Some(MemberState::Live(record)) => record.member.terms,
            _ => None,
        };
        Ok((joined, terms))
    }
}
