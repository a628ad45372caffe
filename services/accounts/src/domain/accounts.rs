//! The use cases of accounts, what `grpc.rs` calls once it knows who the caller is.

use super::{Balance, MemberId, MemberState};
use crate::error::{AccountsError, Result};
use crate::store::Store;

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
}
