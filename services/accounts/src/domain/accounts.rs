//! The use cases of accounts, what `grpc.rs` calls once it knows who the caller is.

use miclub_platform::storage::now_millis;

use super::{
    Balance, CardNumber, MemberId, MemberState, MemberStatus, PersonName, TermsAgreement,
    TermsDecision, TermsVersion,
};
use crate::error::{AccountsError, Result};
use crate::store::{Assignment, Joined, Store};

/// The member card as `GetMemberCard` answers it: who, the card's number, the balance, and
/// when it was read (what the web app shows as "Actualizado el …" when offline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberCard {
    pub name: PersonName,
    pub last_name: PersonName,
    pub card_number: CardNumber,
    pub balance: Balance,
    /// Unix milliseconds of the read.
    pub as_of: i64,
}

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

    /// The member's card; [`AccountsError::NoClubAccount`] when they have no club account (as
    /// [`Accounts::balance`] answers), [`AccountsError::MemberUnsubscribed`] for a member who
    /// left (their names are erased and no till accepts their card). One query in the usual
    /// case; an account the start-up backfill has not numbered yet gets its number here first.
    pub async fn member_card(&self, member_id: &MemberId) -> Result<MemberCard> {
        let as_of = now_millis();
        let stored = self
            .store
            .member_card(member_id)
            .await?
            .ok_or(AccountsError::NoClubAccount)?;
        match stored.status {
            MemberStatus::Active => {}
            MemberStatus::Unsubscribed => return Err(AccountsError::MemberUnsubscribed),
            // A pending member cannot log in; their token cannot exist.
            MemberStatus::Pending => return Err(AccountsError::MemberNotFound),
        }
        let (name, last_name) = stored
            .names()
            .map_err(|err| AccountsError::CorruptRecord(format!("member {member_id}: {err}")))?;
        let card_number = match stored.card_number {
            Some(card) => card,
            None => match self.store.assign_card_number(member_id).await? {
                Assignment::Assigned(card) => {
                    tracing::info!(member_id = %member_id, "card number assigned on first read");
                    card
                }
                Assignment::Existing(card) => card,
                Assignment::NoAccount => return Err(AccountsError::NoClubAccount),
            },
        };
        Ok(MemberCard {
            name,
            last_name,
            card_number,
            balance: stored.balance,
            as_of,
        })
    }

    /// Gives every club account opened before card numbers existed its number, `batch`
    /// accounts per read, and answers how many this call numbered. Idempotent and safe beside
    /// another replica doing the same: only accounts still without a number are touched, and
    /// one numbered meanwhile by someone else is left as it is (and not counted).
    pub async fn assign_missing_card_numbers(&self, batch: i64) -> Result<u64> {
        let mut assigned = 0;
        loop {
            let missing = self.store.accounts_without_card(batch).await?;
            if missing.is_empty() {
                return Ok(assigned);
            }
            for member_id in &missing {
                if let Assignment::Assigned(_) = self.store.assign_card_number(member_id).await? {
                    assigned += 1;
                }
            }
        }
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
