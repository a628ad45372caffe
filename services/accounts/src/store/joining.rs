//! Joining in place: a member with a login but no club account opens one from Mi Cuenta.
//!
//! One transaction writes first (so concurrent calls of the same member serialise on the
//! account row on PostgreSQL, on the write lock on SQLite), then reads what it needs to answer.
//! The account is opened by [`open_account_in`], with its card number; its insert is
//! `ON CONFLICT DO NOTHING`: whichever call comes second finds the account open and
//! writes nothing, which is what makes the call idempotent per member.

use sqlx::Row;

use super::Store;
use super::card::{Eligible, Opening, open_account_in};
use crate::domain::{Balance, MemberId, MemberStatus, TermsAgreement};
use crate::error::{AccountsError, Result};

/// What [`Store::open_club_account_joining`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joined {
    /// The balance right after the call (0 when just opened).
    pub balance: Balance,
    /// True when this call opened the account and recorded `terms`.
    pub opened: bool,
}

impl Store {
    /// Opens the active member's club account with a zero balance and records `terms` (their
    /// acceptance) in one transaction; when the account is already open, writes nothing and
    /// answers its balance with `opened: false`. Refuses an unknown or pending member
    /// ([`AccountsError::MemberNotFound`]) and one who left
    /// ([`AccountsError::MemberUnsubscribed`]); a refusal writes nothing. No ledger row is
    /// written: the opening balance is the empty ledger's sum.
    pub async fn open_club_account_joining(
        &self,
        member_id: &MemberId,
        terms: &TermsAgreement,
        at: i64,
    ) -> Result<Joined> {
        let mut tx = self.db.pool().begin().await?;
        let opened = match open_account_in(&mut tx, member_id, at, Eligible::ActiveOnly).await? {
            Opening::Opened(card) => {
                tracing::debug!(member_id = %member_id, card = ?card, "club account numbered");
                true
            }
            Opening::AlreadyOpen | Opening::NoSuchMember => false,
        };
        if opened {
            sqlx::query(
                "UPDATE members SET terms_decision = $1, terms_version = $2, \
                 terms_event_at = $3, updated_at = $3 WHERE member_id = $4",
            )
            .bind(terms.decision.as_str())
            .bind(terms.version.as_deref())
            .bind(terms.decided_at)
            .bind(member_id.as_str())
            .execute(&mut *tx)
            .await?;
        } else {
            // Nothing inserted: say why, without writing anything.
            let status = sqlx::query("SELECT status FROM members WHERE member_id = $1")
                .bind(member_id.as_str())
                .fetch_optional(&mut *tx)
                .await?;
            let status = match status {
                Some(row) => MemberStatus::parse(&row.try_get::<String, _>("status")?)?,
                None => return Err(AccountsError::MemberNotFound),
            };
            match status {
                MemberStatus::Active => {}
                MemberStatus::Unsubscribed => return Err(AccountsError::MemberUnsubscribed),
                MemberStatus::Pending => return Err(AccountsError::MemberNotFound),
            }
        }
        let row = sqlx::query("SELECT balance, updated_at FROM club_accounts WHERE member_id = $1")
            .bind(member_id.as_str())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| {
                AccountsError::CorruptRecord(format!("club account of {member_id} vanished"))
            })?;
        let balance = Balance::new(row.try_get("balance")?, row.try_get("updated_at")?)
            .map_err(|err| AccountsError::CorruptRecord(format!("club account: {err}")))?;
        tx.commit().await?;
        Ok(Joined { balance, opened })
    }
}
