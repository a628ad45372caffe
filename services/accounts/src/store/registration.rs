//! Registration and unsubscribing in storage: pending members and their takeover, activation,
//! the erasure of an unsubscribed member's data, and the bookkeeping of auth's
//! `DisableCredentials`.
//!
//! Every transaction here starts with a write, so on SQLite it takes the write lock (waiting on
//! `busy_timeout`) before it reads anything and never has to upgrade a read snapshot. Writes are
//! guarded by the state the caller read (`status <> 'active'`, the email), and a guard that no
//! longer holds makes the caller read again, so concurrent registrations of one document end
//! with one member: the loser of the `document_number` UNIQUE constraint reads the winner's
//! pending member back and takes it over. A member who left, and their returning registration
//! until it is activated, is taken over only with the address they left with
//! (`left_email_digest`, written by the erasure, cleared by activation; the takeover's `UPDATE`
//! repeats the check).

use miclub_platform::notify::{Notice, outbox};
use miclub_platform::storage::is_unique_violation;
use sqlx::Row;

use super::card::{Eligible, open_account_in};
use super::{Store, corrupt};
use crate::domain::{
    DocumentType, Email, Member, MemberId, MemberStatus, UnsubscribeChoice, left_email_digest,
};
use crate::error::{AccountsError, Result};

/// Rounds of [`Store::register_member`] against concurrent registrations before giving up.
const REGISTER_ATTEMPTS: usize = 4;

/// How [`Store::register_member`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registered {
    /// A new pending member with an empty club account.
    Created,
    /// A pending or unsubscribed member of the same document, its data replaced; its id is
    /// the member's id from now on.
    TookOver(MemberId),
    /// The member of this id and document is already active (a retry after activation):
    /// nothing changed.
    AlreadyActive,
}

/// A row that may stand in the way of a registration.
struct Holder {
    member_id: String,
    document_number: String,
    status: MemberStatus,
    /// Set while the row is a member who left, or their returning registration not yet
    /// activated: only a registration with that address may take it over.
    left_email_digest: Option<String>,
}

impl Store {
    /// Registers `member` (its id is the one the caller chose) as pending, with its club
    /// account, in one transaction. Idempotent by member id; a pending or unsubscribed member
    /// holding the document is taken over instead of inserting a second one.
    /// [`AccountsError::RutAlreadyRegistered`] when an active member holds the document,
    /// [`AccountsError::MemberExists`] when the id belongs to another document.
    pub async fn register_member(&self, member: &Member, at: i64) -> Result<Registered> {
        let document = member.document.canonical();
        let returning = left_email_digest(member.email.as_str());
        for attempt in 1..=REGISTER_ATTEMPTS {
            let holders = self.registration_holders(&member.id, &document).await?;
            let by_id = holders
                .iter()
                .find(|holder| holder.member_id == member.id.as_str());
            let by_document = holders
                .iter()
                .find(|holder| holder.document_number == document);
            let target = match (by_id, by_document) {
                (Some(own), _) if own.document_number != document => {
                    return Err(AccountsError::MemberExists);
                }
                (Some(own), _) if own.status == MemberStatus::Active => {
                    return Ok(Registered::AlreadyActive);
                }
                (Some(own), _) => Some(own),
                (None, Some(other)) if other.status == MemberStatus::Active => {
                    return Err(AccountsError::RutAlreadyRegistered {
                        foreign: member.document.document_type() == DocumentType::Foreign,
                    });
                }
                (None, Some(other)) => Some(other),
                (None, None) => None,
            };
            let done = match target {
                Some(holder) => {
                    if holder
                        .left_email_digest
                        .as_ref()
                        .is_some_and(|left| *left != returning)
                    {
                        tracing::info!(
                            member_id = %holder.member_id,
                            requested_member_id = %member.id,
                            "registration refused: not the address the member who left had"
                        );
                        return Err(AccountsError::PreviousEmailRequired);
                    }
                    let target = MemberId::parse(&holder.member_id).map_err(|err| {
                        corrupt(&format!("member {}", holder.member_id), err.into())
                    })?;
                    self.take_over(&target, member, &returning, at)
                        .await?
                        .then(|| {
                            if target == member.id {
                                Registered::Created
                            } else {
                                Registered::TookOver(target)
                            }
                        })
                }
                None => self
                    .insert_pending(member, at)
                    .await?
                    .then_some(Registered::Created),
            };
            if let Some(done) = done {
                return Ok(done);
            }
            tracing::info!(
                member_id = %member.id,
                attempt,
                "registration raced another one for the same document; reading again"
            );
        }
        Err(AccountsError::Unavailable(
            "registration kept racing another one".into(),
        ))
    }

    /// Members under the id or the document of a registration.
    async fn registration_holders(
        &self,
        member_id: &MemberId,
        document: &str,
    ) -> Result<Vec<Holder>> {
        let rows = sqlx::query(
            "SELECT member_id, document_number, status, left_email_digest FROM members \
             WHERE member_id = $1 OR document_number = $2",
        )
        .bind(member_id.as_str())
        .bind(document)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| -> Result<Holder> {
                let member_id: String = row.try_get("member_id")?;
                let status = MemberStatus::parse(&row.try_get::<String, _>("status")?)
                    .map_err(|err| corrupt(&format!("member {member_id}"), err))?;
                Ok(Holder {
                    document_number: row.try_get("document_number")?,
                    member_id,
                    status,
                    left_email_digest: row.try_get("left_email_digest")?,
                })
            })
            .collect()
    }

    /// Inserts `member` as pending with an empty club account; false when the id or document
    /// got taken meanwhile (the caller reads again).
    async fn insert_pending(&self, member: &Member, at: i64) -> Result<bool> {
        let terms = member.terms.as_ref();
        let mut tx = self.db.pool().begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO members (member_id, document_type, document_number, name, last_name, \
             mother_surname, phone_number, gender_id, birth_date, email, email_confirmed, \
             terms_decision, terms_version, terms_event_at, status, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, FALSE, $11, $12, $13, 'pending', \
             $14, $14)",
        )
        .bind(member.id.as_str())
        .bind(member.document.document_type().as_str())
        .bind(member.document.canonical())
        .bind(member.name.as_str())
        .bind(member.last_name.as_str())
        .bind(optional_text(
            member.mother_surname.as_ref().map(|n| n.as_str()),
        ))
        .bind(optional_text(
            member.phone_number.as_ref().map(|p| p.as_str()),
        ))
        .bind(member.gender_id.map(|g| i64::from(g.get())))
        .bind(member.birth_date.map(|d| d.iso()))
        .bind(member.email.as_str())
        .bind(terms.map(|t| t.decision.as_str()))
        .bind(terms.and_then(|t| t.version.clone()))
        .bind(terms.map(|t| t.decided_at))
        .bind(at)
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(err) if is_unique_violation(&err) => {
                tx.rollback().await?;
                return Ok(false);
            }
            Err(err) => return Err(err.into()),
        }
        open_account_in(&mut tx, &member.id, at, Eligible::AnyStatus).await?;
        tx.commit().await?;
        tracing::info!(member_id = %member.id, "pending member created");
        Ok(true)
    }

    /// Replaces the data of `target`, a pending or unsubscribed member of `member`'s document,
    /// with `member`'s: pending again, email unconfirmed, unsubscribe fields cleared, older
    /// confirmation links deleted, a club account opened if it had none. The ledger and the
    /// balance stay. False when `target` is no longer such a member (the caller reads again).
    async fn take_over(
        &self,
        target: &MemberId,
        member: &Member,
        returning: &str,
        at: i64,
    ) -> Result<bool> {
        let terms = member.terms.as_ref();
        let mut tx = self.db.pool().begin().await?;
        let updated = sqlx::query(
            "UPDATE members SET name = $1, last_name = $2, mother_surname = $3, \
             phone_number = $4, gender_id = $5, birth_date = $6, email = $7, \
             email_confirmed = FALSE, terms_decision = $8, terms_version = $9, \
             terms_event_at = $10, status = 'pending', unsubscribed_at = NULL, \
             unsubscribe_reason_id = NULL, unsubscribe_reason_text = NULL, \
             credentials_disabled_at = NULL, updated_at = $11 \
             WHERE member_id = $12 AND document_number = $13 AND status <> 'active' \
             AND (left_email_digest IS NULL OR left_email_digest = $14)",
        )
        .bind(member.name.as_str())
        .bind(member.last_name.as_str())
        .bind(optional_text(
            member.mother_surname.as_ref().map(|n| n.as_str()),
        ))
        .bind(optional_text(
            member.phone_number.as_ref().map(|p| p.as_str()),
        ))
        .bind(member.gender_id.map(|g| i64::from(g.get())))
        .bind(member.birth_date.map(|d| d.iso()))
        .bind(member.email.as_str())
        .bind(terms.map(|t| t.decision.as_str()))
        .bind(terms.and_then(|t| t.version.clone()))
        .bind(terms.map(|t| t.decided_at))
        .bind(at)
        .bind(target.as_str())
        .bind(member.document.canonical())
        .bind(returning)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if updated == 0 {
            tx.rollback().await?;
            return Ok(false);
        }
        // Kept when it had one (with its card number); opened, numbered, when not.
        open_account_in(&mut tx, target, at, Eligible::AnyStatus).await?;
        sqlx::query("DELETE FROM email_confirmations WHERE member_id = $1")
            .bind(target.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        tracing::info!(member_id = %target, "pending member registered over an earlier one");
        Ok(true)
    }

    /// Whether an active member other than `except` uses `email` (compared lowercased).
    pub async fn active_email_in_use(
        &self,
        email: &Email,
        except: Option<&MemberId>,
    ) -> Result<bool> {
        let row = sqlx::query(
            "SELECT 1 AS one FROM members \
             WHERE LOWER(email) = $1 AND status = 'active' AND member_id <> $2",
        )
        .bind(email.as_str().to_lowercase())
        .bind(except.map(MemberId::as_str).unwrap_or_default())
        .fetch_optional(self.db.pool())
        .await?;
        Ok(row.is_some())
    }

    /// Pending → active; false when the member was not pending. A returning member's
    /// `left_email_digest` goes with it: the account is theirs again.
    pub async fn activate_member(&self, member_id: &MemberId, at: i64) -> Result<bool> {
        let updated = sqlx::query(
            "UPDATE members SET status = 'active', left_email_digest = NULL, updated_at = $1 \
             WHERE member_id = $2 AND status = 'pending'",
        )
        .bind(at)
        .bind(member_id.as_str())
        .execute(self.db.pool())
        .await?
        .rows_affected();
        Ok(updated == 1)
    }

    /// Unsubscribes the member in one transaction, provided they have not left yet and `email`
    /// (lowercased) is still their address: status, instant and reason recorded; names, phone,
    /// email erased (`''`, the columns are NOT NULL), birth date and gender NULL, email
    /// unconfirmed, their confirmation links deleted. The club account and the movements are
    /// not touched. `notice` goes to the mail outbox in the same transaction. False when
    /// nothing changed (the caller reads again to say why), which includes a member with a
    /// restore link still usable at `at` (see [`Store::live_restore_until`]).
    pub async fn unsubscribe_member(
        &self,
        member_id: &MemberId,
        email: &str,
        choice: &UnsubscribeChoice,
        notice: &Notice,
        at: i64,
    ) -> Result<bool> {
        let mut tx = self.db.pool().begin().await?;
        let updated = sqlx::query(
            "UPDATE members SET status = 'unsubscribed', unsubscribed_at = $1, \
             unsubscribe_reason_id = $2, unsubscribe_reason_text = $3, \
             name = '', last_name = '', mother_surname = '', phone_number = '', email = '', \
             birth_date = NULL, gender_id = NULL, email_confirmed = FALSE, \
             confirmed_email = NULL, credentials_disabled_at = NULL, updated_at = $1, \
             left_email_digest = $6 \
             WHERE member_id = $4 AND status <> 'unsubscribed' AND LOWER(email) = $5 \
             AND NOT EXISTS (SELECT 1 FROM email_restores WHERE member_id = $4 \
             AND used_at IS NULL AND expires_at > $1)",
        )
        .bind(at)
        .bind(choice.reason_id())
        .bind(choice.text())
        .bind(member_id.as_str())
        .bind(email.to_lowercase())
        .bind(left_email_digest(email))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if updated == 0 {
            tx.rollback().await?;
            return Ok(false);
        }
        for erase in [
            "DELETE FROM email_confirmations WHERE member_id = $1",
            "DELETE FROM email_restores WHERE member_id = $1",
            "DELETE FROM email_claims WHERE member_id = $1",
        ] {
            sqlx::query(erase)
                .bind(member_id.as_str())
                .execute(&mut *tx)
                .await?;
        }
        outbox::enqueue(&mut tx, member_id.as_str(), notice, at).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Records that auth disabled the credentials of the unsubscribed member; false when the
    /// member is not (or no longer) waiting for it.
    pub async fn mark_credentials_disabled(&self, member_id: &MemberId, at: i64) -> Result<bool> {
        let updated = sqlx::query(
            "UPDATE members SET credentials_disabled_at = $1 \
             WHERE member_id = $2 AND status = 'unsubscribed' AND credentials_disabled_at IS NULL",
        )
        .bind(at)
        .bind(member_id.as_str())
        .execute(self.db.pool())
        .await?
        .rows_affected();
        Ok(updated == 1)
    }

    /// Unsubscribed members whose credentials auth has not disabled yet, oldest first.
    /// Each with the instant the member left, which auth uses to ignore a rejoined member.
    pub async fn credentials_to_disable(&self, limit: i64) -> Result<Vec<(MemberId, i64)>> {
        let rows = sqlx::query(
            "SELECT member_id, unsubscribed_at FROM members \
             WHERE status = 'unsubscribed' AND credentials_disabled_at IS NULL \
             ORDER BY unsubscribed_at LIMIT $1",
        )
        .bind(limit)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("member_id")?;
                let left: Option<i64> = row.try_get("unsubscribed_at")?;
                let member = MemberId::parse(&id)
                    .map_err(|err| corrupt(&format!("member {id}"), err.into()))?;
                Ok((member, left.unwrap_or_default()))
            })
            .collect()
    }
}

/// An optional text column stored as `''` when absent (as `insert_member` does).
fn optional_text(value: Option<&str>) -> &str {
    value.unwrap_or_default()
}
