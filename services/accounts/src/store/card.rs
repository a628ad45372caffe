//! Club accounts and their card numbers: the one way a club account is opened
//! ([`open_account_in`], with its number in the same row), the member card read in one query,
//! the lookup of a member by card at the till, and the assignment of a number to an account
//! opened before numbers existed (the start-up backfill, and a read that finds one missing).
//!
//! A drawn number that is already taken is refused by the unique index
//! `club_accounts_card_number`. Opening uses `ON CONFLICT DO NOTHING` (which covers that index as
//! well as the primary key), so a collision never aborts the caller's transaction on PostgreSQL;
//! assignment is a single statement outside any transaction, so a refused one leaves nothing to
//! undo. Either way the caller draws again, at most [`CARD_DRAWS`] times.

use miclub_platform::storage::is_unique_violation;
use sqlx::AnyConnection;
use sqlx::Row;

use super::{Store, corrupt};
use crate::domain::{Balance, CardNumber, MemberId, MemberStatus, PersonName};
use crate::error::{AccountsError, Result};

/// How many numbers one opening or assignment draws before giving up. With 9·10¹⁰ numbers and
/// five million taken, a draw collides about once in 18 000; eight in a row means something
/// else is wrong.
pub const CARD_DRAWS: usize = 8;

/// What [`open_account_in`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Opening {
    /// The account was opened with this number.
    Opened(CardNumber),
    /// The member already had an account: nothing written.
    AlreadyOpen,
    /// No member row matches (unknown, or not active when `active_only`): nothing written.
    NoSuchMember,
}

/// Which members [`open_account_in`] may open an account for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Eligible {
    /// Any member row (registration opens the account of a pending member it just wrote).
    AnyStatus,
    /// Active members only (joining in place).
    ActiveOnly,
}

/// Opens `member_id`'s club account with a zero balance and a fresh card number, on `conn`
/// (the caller's transaction, so the number is written together with whatever opened it).
pub(super) async fn open_account_in(
    conn: &mut AnyConnection,
    member_id: &MemberId,
    at: i64,
    eligible: Eligible,
) -> Result<Opening> {
    let (insert, member) = match eligible {
        Eligible::AnyStatus => (
            "INSERT INTO club_accounts (member_id, balance, created_at, updated_at, card_number) \
             SELECT member_id, 0, $2, $2, $3 FROM members WHERE member_id = $1 \
             ON CONFLICT DO NOTHING",
            "SELECT 1 AS one FROM members WHERE member_id = $1",
        ),
        Eligible::ActiveOnly => (
            "INSERT INTO club_accounts (member_id, balance, created_at, updated_at, card_number) \
             SELECT member_id, 0, $2, $2, $3 FROM members \
             WHERE member_id = $1 AND status = 'active' \
             ON CONFLICT DO NOTHING",
            "SELECT 1 AS one FROM members WHERE member_id = $1 AND status = 'active'",
        ),
    };
    for _ in 0..CARD_DRAWS {
        let card = CardNumber::generate();
        let inserted = sqlx::query(insert)
            .bind(member_id.as_str())
            .bind(at)
            .bind(card.as_str())
            .execute(&mut *conn)
            .await?
            .rows_affected();
        if inserted == 1 {
            return Ok(Opening::Opened(card));
        }
        // Nothing inserted: an open account, no such member, or the number was taken.
        let open = sqlx::query("SELECT 1 AS one FROM club_accounts WHERE member_id = $1")
            .bind(member_id.as_str())
            .fetch_optional(&mut *conn)
            .await?;
        if open.is_some() {
            return Ok(Opening::AlreadyOpen);
        }
        let exists = sqlx::query(member)
            .bind(member_id.as_str())
            .fetch_optional(&mut *conn)
            .await?;
        if exists.is_none() {
            return Ok(Opening::NoSuchMember);
        }
        tracing::debug!(member_id = %member_id, "card number taken: drawing again");
    }
    Err(AccountsError::CardNumbersExhausted)
}

/// What [`Store::assign_card_number`] found or did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assignment {
    /// This call gave the account its number.
    Assigned(CardNumber),
    /// The account already had one (another replica, or an earlier call): unchanged.
    Existing(CardNumber),
    /// The member has no club account.
    NoAccount,
}

/// A member's card as read in one query, before the domain checks its status.
#[derive(Debug, Clone)]
pub struct StoredCard {
    pub status: MemberStatus,
    pub name: String,
    pub last_name: String,
    /// `None` only for an account opened before numbers existed that the backfill has not
    /// reached yet (or one opened by an older replica during a rollout).
    pub card_number: Option<CardNumber>,
    pub balance: Balance,
}

impl StoredCard {
    /// The names, checked (a member who left has them erased: the caller refuses first).
    pub fn names(&self) -> Result<(PersonName, PersonName)> {
        Ok((
            PersonName::parse("name", &self.name)?,
            PersonName::parse("last_name", &self.last_name)?,
        ))
    }
}

impl Store {
    /// The member's card: names, number and balance in one query (a join of the account and
    /// the member); `None` when the member has no club account.
    pub async fn member_card(&self, member_id: &MemberId) -> Result<Option<StoredCard>> {
        let row = sqlx::query(
            "SELECT m.status, m.name, m.last_name, a.card_number, a.balance, a.updated_at \
             FROM club_accounts a JOIN members m ON m.member_id = a.member_id \
             WHERE a.member_id = $1",
        )
        .bind(member_id.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| -> Result<StoredCard> {
            let read = || -> Result<StoredCard> {
                let card_number: Option<String> = row.try_get("card_number")?;
                Ok(StoredCard {
                    status: MemberStatus::parse(&row.try_get::<String, _>("status")?)?,
                    name: row.try_get("name")?,
                    last_name: row.try_get("last_name")?,
                    card_number: card_number.as_deref().map(CardNumber::parse).transpose()?,
                    balance: Balance::new(row.try_get("balance")?, row.try_get("updated_at")?)?,
                })
            };
            read().map_err(|err| match err {
                AccountsError::Database(err) => AccountsError::Database(err),
                other => corrupt(&format!("club account of {member_id}"), other),
            })
        })
        .transpose()
    }

    /// The active member whose club account has this card number; `None` for a number nobody
    /// holds (or held by a member who is pending or left), as for an unknown document.
    pub async fn find_member_by_card(&self, card: &CardNumber) -> Result<Option<MemberId>> {
        let row = sqlx::query(
            "SELECT m.member_id FROM club_accounts a JOIN members m ON m.member_id = a.member_id \
             WHERE a.card_number = $1 AND m.status = 'active'",
        )
        .bind(card.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| -> Result<MemberId> {
            let id: String = row.try_get("member_id")?;
            MemberId::parse(&id).map_err(|err| corrupt(&format!("member {id}"), err.into()))
        })
        .transpose()
    }

    /// Gives `member_id`'s club account a card number if it has none; never changes one it has
    /// (`WHERE card_number IS NULL`), so two replicas doing it at once assign one number.
    pub async fn assign_card_number(&self, member_id: &MemberId) -> Result<Assignment> {
        for _ in 0..CARD_DRAWS {
            let card = CardNumber::generate();
            let updated = sqlx::query(
                "UPDATE club_accounts SET card_number = $1 \
                 WHERE member_id = $2 AND card_number IS NULL",
            )
            .bind(card.as_str())
            .bind(member_id.as_str())
            .execute(self.db.pool())
            .await;
            match updated {
                Ok(done) if done.rows_affected() == 1 => return Ok(Assignment::Assigned(card)),
                Ok(_) => {
                    let row =
                        sqlx::query("SELECT card_number FROM club_accounts WHERE member_id = $1")
                            .bind(member_id.as_str())
                            .fetch_optional(self.db.pool())
                            .await?;
                    let Some(row) = row else {
                        return Ok(Assignment::NoAccount);
                    };
                    let stored: Option<String> = row.try_get("card_number")?;
                    return match stored {
                        Some(stored) => Ok(Assignment::Existing(
                            CardNumber::parse(&stored)
                                .map_err(|err| corrupt(&format!("card of {member_id}"), err))?,
                        )),
                        // Not possible once the update matched nothing, unless the row was
                        // written in between by something that clears numbers: nothing does.
                        None => Err(AccountsError::CorruptRecord(format!(
                            "card of {member_id} still missing after assignment"
                        ))),
                    };
                }
                Err(err) if is_unique_violation(&err) => {
                    tracing::debug!(member_id = %member_id, "card number taken: drawing again");
                }
                Err(err) => return Err(err.into()),
            }
        }
        Err(AccountsError::CardNumbersExhausted)
    }

    /// Up to `limit` club accounts without a card number (oldest member ids first).
    pub async fn accounts_without_card(&self, limit: i64) -> Result<Vec<MemberId>> {
        let rows = sqlx::query(
            "SELECT member_id FROM club_accounts WHERE card_number IS NULL \
             ORDER BY member_id LIMIT $1",
        )
        .bind(limit)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("member_id")?;
                MemberId::parse(&id).map_err(|err| corrupt(&format!("member {id}"), err.into()))
            })
            .collect()
    }
}
