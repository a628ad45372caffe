//! The profile in storage: the update of the editable fields, email confirmation links, the
//! restore links of the change notice, the claims that keep an address to one member, and the
//! terms decision.
//!
//! Lock order, so concurrent writers wait for each other instead of deadlocking: the member row
//! before their `email_confirmations` rows. A link is only ever issued for the address the
//! member has at that instant, unconfirmed, checked in the same statement that stores it.

use sqlx::{AnyConnection, Row};

use super::{Store, corrupt};
use crate::domain::{
    Email, MemberId, NewConfirmation, NewRestore, ProfileChanges, StoredConfirmation,
    StoredRestore, TermsAgreement,
};
use crate::error::{AccountsError, Result};

/// Rounds of [`Store::claim_email`] against concurrent claims before giving up.
const CLAIM_ATTEMPTS: usize = 3;

impl Store {
    /// Replaces the editable fields of the member in one statement, provided their email is
    /// still `expected` (the address the caller decided on, e.g. whether a password was needed):
    /// `None` (nothing written) when it is not any more, else whether the email changed. A new
    /// email is stored unconfirmed and `link`, when given, is issued for it, superseding the
    /// member's older links, in the same transaction.
    pub async fn update_profile(
        &self,
        member_id: &MemberId,
        expected: &Email,
        changes: &ProfileChanges,
        link: Option<&NewConfirmation>,
        at: i64,
    ) -> Result<Option<bool>> {
        let changed = expected != &changes.email;
        let mut tx = self.db.pool().begin().await?;
        let updated = sqlx::query(
            "UPDATE members SET email = $1, \
             email_confirmed = CASE WHEN email = $1 THEN email_confirmed ELSE FALSE END, \
             name = $2, last_name = $3, mother_surname = $4, phone_number = $5, \
             birth_date = $6, gender_id = $7, updated_at = $8 \
             WHERE member_id = $9 AND email = $10",
        )
        .bind(changes.email.as_str())
        .bind(changes.name.as_str())
        .bind(changes.last_name.as_str())
        .bind(
            changes
                .mother_surname
                .as_ref()
                .map(|n| n.as_str())
                .unwrap_or_default(),
        )
        .bind(
            changes
                .phone_number
                .as_ref()
                .map(|p| p.as_str())
                .unwrap_or_default(),
        )
        .bind(changes.birth_date.map(|d| d.iso()))
        .bind(changes.gender_id.map(|g| i64::from(g.get())))
        .bind(at)
        .bind(member_id.as_str())
        .bind(expected.as_str())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if updated == 0 {
            tx.rollback().await?;
            return Ok(None);
        }
        if changed {
            match link {
                Some(link) => {
                    insert_confirmation(&mut tx, member_id, &changes.email, link, at).await?;
                }
                // No link for this address: the older ones (for another address) go.
                None => {
                    sqlx::query(
                        "DELETE FROM email_confirmations WHERE member_id = $1 AND used_at IS NULL",
                    )
                    .bind(member_id.as_str())
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        tx.commit().await?;
        Ok(Some(changed))
    }

    /// Stores `link` for `email` and deletes the member's older unused links, provided `email`
    /// is still the member's address and unconfirmed; false (nothing stored) otherwise.
    pub async fn issue_email_confirmation(
        &self,
        member_id: &MemberId,
        email: &Email,
        link: &NewConfirmation,
        at: i64,
    ) -> Result<bool> {
        let mut tx = self.db.pool().begin().await?;
        let issued = insert_confirmation(&mut tx, member_id, email, link, at).await?;
        if issued {
            tx.commit().await?;
        } else {
            tx.rollback().await?;
        }
        Ok(issued)
    }

    /// Deletes the confirmation links that expired by `now` and can only answer "invalid" any
    /// more: the unused ones, and the used ones of an address that is no longer the member's
    /// confirmed one. Each held an address the member may have left long ago. A used link of
    /// the member's current confirmed address stays: it still answers "already confirmed", and
    /// holds nothing the member's row does not. Answers how many.
    pub async fn purge_spent_confirmations(&self, now: i64) -> Result<u64> {
        let purged = sqlx::query(
            "DELETE FROM email_confirmations WHERE expires_at <= $1 AND NOT EXISTS ( \
             SELECT 1 FROM members m WHERE m.member_id = email_confirmations.member_id \
             AND email_confirmations.used_at IS NOT NULL \
             AND LOWER(m.email) = LOWER(email_confirmations.email) \
             AND LOWER(COALESCE(m.confirmed_email, '')) = LOWER(email_confirmations.email))",
        )
        .bind(now)
        .execute(self.db.pool())
        .await?;
        Ok(purged.rows_affected())
    }

    /// The link whose token has SHA-256 `digest`, with the member's current address.
    pub async fn email_confirmation(&self, digest: &str) -> Result<Option<StoredConfirmation>> {
        let row = sqlx::query(
            "SELECT c.member_id, c.email, c.expires_at, c.used_at, m.email AS current_email, \
             m.confirmed_email \
             FROM email_confirmations c JOIN members m ON m.member_id = c.member_id \
             WHERE c.token_hash = $1",
        )
        .bind(digest)
        .fetch_optional(self.db.pool())
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let read = || -> Result<StoredConfirmation> {
            Ok(StoredConfirmation {
                member_id: MemberId::parse(&row.try_get::<String, _>("member_id")?)?,
                email: Email::parse(&row.try_get::<String, _>("email")?)?,
                expires_at: row.try_get("expires_at")?,
                used_at: row.try_get("used_at")?,
                current_email: Email::parse(&row.try_get::<String, _>("current_email")?)?,
                previous_email: row
                    .try_get::<Option<String>, _>("confirmed_email")?
                    .filter(|email| !email.is_empty())
                    .map(|email| Email::parse(&email))
                    .transpose()?,
            })
        };
        read().map(Some).map_err(|err| match err {
            AccountsError::Database(err) => AccountsError::Database(err),
            other => corrupt("email confirmation", other),
        })
    }

    /// Marks `confirmation.email` confirmed (and the member's confirmed address) and the link
    /// used, and stores `restore` for the previous address with its change notice due (the
    /// notice relay's outbox, `change_notices.rs`), in one transaction, provided the
    /// link is still unused and unexpired at `at`, the address still the member's, and their
    /// confirmed address still `confirmation.previous_email`; false (nothing changed) otherwise.
    pub async fn complete_email_confirmation(
        &self,
        digest: &str,
        confirmation: &StoredConfirmation,
        restore: Option<&NewRestore>,
        at: i64,
    ) -> Result<bool> {
        let member_id = &confirmation.member_id;
        let mut tx = self.db.pool().begin().await?;
        let member = sqlx::query(
            "UPDATE members SET email_confirmed = TRUE, confirmed_email = email, updated_at = $1 \
             WHERE member_id = $2 AND email = $3 AND COALESCE(confirmed_email, '') = $4",
        )
        .bind(at)
        .bind(member_id.as_str())
        .bind(confirmation.email.as_str())
        .bind(
            confirmation
                .previous_email
                .as_ref()
                .map(Email::as_str)
                .unwrap_or_default(),
        )
        .execute(&mut *tx)
        .await?
        .rows_affected();
        let link = if member == 1 {
            sqlx::query(
                "UPDATE email_confirmations SET used_at = $1 \
                 WHERE token_hash = $2 AND member_id = $3 AND used_at IS NULL AND expires_at > $1",
            )
            .bind(at)
            .bind(digest)
            .bind(member_id.as_str())
            .execute(&mut *tx)
            .await?
            .rows_affected()
        } else {
            0
        };
        if link != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        if let Some(restore) = restore {
            sqlx::query(
                "INSERT INTO email_restores (token_hash, member_id, previous_email, new_email, \
                 expires_at, created_at, notice_due_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
            )
            .bind(&restore.digest)
            .bind(member_id.as_str())
            .bind(restore.previous_email.as_str())
            .bind(confirmation.email.as_str())
            .bind(restore.expires_at)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// When the last restore link of the member that is neither used (nor voided) nor expired
    /// at `now` expires; `None` when none is left.
    pub async fn live_restore_until(&self, member_id: &MemberId, now: i64) -> Result<Option<i64>> {
        let until = sqlx::query_scalar(
            "SELECT expires_at FROM email_restores \
             WHERE member_id = $1 AND used_at IS NULL AND expires_at > $2 \
             ORDER BY expires_at DESC LIMIT 1",
        )
        .bind(member_id.as_str())
        .bind(now)
        .fetch_optional(self.db.pool())
        .await?;
        Ok(until)
    }

    /// The restore link whose token has SHA-256 `digest`, with whether its member is still
    /// active.
    pub async fn email_restore(&self, digest: &str) -> Result<Option<StoredRestore>> {
        let row = sqlx::query(
            "SELECT r.member_id, r.previous_email, r.new_email, r.expires_at, r.used_at, \
             m.status FROM email_restores r JOIN members m ON m.member_id = r.member_id \
             WHERE r.token_hash = $1",
        )
        .bind(digest)
        .fetch_optional(self.db.pool())
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let read = || -> Result<StoredRestore> {
            Ok(StoredRestore {
                member_id: MemberId::parse(&row.try_get::<String, _>("member_id")?)?,
                previous_email: Email::parse(&row.try_get::<String, _>("previous_email")?)?,
                new_email: Email::parse(&row.try_get::<String, _>("new_email")?)?,
                expires_at: row.try_get("expires_at")?,
                used_at: row.try_get("used_at")?,
                member_active: row.try_get::<String, _>("status")? == "active",
            })
        };
        read().map(Some).map_err(|err| match err {
            AccountsError::Database(err) => AccountsError::Database(err),
            other => corrupt("email restore", other),
        })
    }

    /// Makes `previous_email` the member's confirmed address again and uses the restore link,
    /// voiding the member's restore links of later changes and pending confirmation links, in one
    /// transaction, provided the link is unused and unexpired at `at` and the member active;
    /// false (nothing changed) otherwise.
    pub async fn complete_email_restore(
        &self,
        digest: &str,
        member_id: &MemberId,
        previous_email: &Email,
        at: i64,
    ) -> Result<bool> {
        let mut tx = self.db.pool().begin().await?;
        let link = sqlx::query(
            "UPDATE email_restores SET used_at = $1 \
             WHERE token_hash = $2 AND member_id = $3 AND used_at IS NULL AND expires_at > $1",
        )
        .bind(at)
        .bind(digest)
        .bind(member_id.as_str())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        let member = if link == 1 {
            sqlx::query(
                "UPDATE members SET email = $1, email_confirmed = TRUE, confirmed_email = $1, \
                 updated_at = $2 WHERE member_id = $3 AND status = 'active'",
            )
            .bind(previous_email.as_str())
            .bind(at)
            .bind(member_id.as_str())
            .execute(&mut *tx)
            .await?
            .rows_affected()
        } else {
            0
        };
        if member != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        // Links of later changes go with it; links of earlier changes stay: someone who
        // changed the address twice cannot void the first owner's link by using their own.
        sqlx::query(
            "UPDATE email_restores SET used_at = $1 WHERE member_id = $2 AND used_at IS NULL \
             AND created_at >= (SELECT created_at FROM email_restores WHERE token_hash = $3)",
        )
        .bind(at)
        .bind(member_id.as_str())
        .bind(digest)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM email_confirmations WHERE member_id = $1 AND used_at IS NULL")
            .bind(member_id.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Whether `email` belongs to an active member other than `member_id`: their address
    /// (confirmed or not), or an address they are confirming or may still restore (a claim
    /// held, see [`Store::claim_email`]).
    pub async fn email_belongs_to_another(
        &self,
        member_id: &MemberId,
        email: &Email,
        at: i64,
    ) -> Result<bool> {
        if self.active_email_in_use(email, Some(member_id)).await? {
            return Ok(true);
        }
        match self.claim_owner(email).await? {
            Some(owner) if owner != member_id.as_str() => {
                self.claim_is_held(&owner, email, at).await
            }
            _ => Ok(false),
        }
    }

    /// Claims `email` for `member_id` before it is confirmed (or restored) for them; false
    /// when another active member has it confirmed or holds the claim. The claim's primary
    /// key serialises two members confirming the same address at once: the second waits for
    /// the first and then finds the claim taken.
    pub async fn claim_email(&self, member_id: &MemberId, email: &Email, at: i64) -> Result<bool> {
        let confirmed_elsewhere = sqlx::query(
            "SELECT 1 AS one FROM members WHERE LOWER(email) = $1 AND email_confirmed \
             AND status = 'active' AND member_id <> $2",
        )
        .bind(email.as_str())
        .bind(member_id.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        if confirmed_elsewhere.is_some() {
            return Ok(false);
        }
        for _ in 0..CLAIM_ATTEMPTS {
            let inserted = sqlx::query(
                "INSERT INTO email_claims (email, member_id, claimed_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (email) DO NOTHING",
            )
            .bind(email.as_str())
            .bind(member_id.as_str())
            .bind(at)
            .execute(self.db.pool())
            .await?
            .rows_affected();
            if inserted == 1 {
                return Ok(true);
            }
            let Some(owner) = self.claim_owner(email).await? else {
                continue;
            };
            if owner == member_id.as_str() {
                return Ok(true);
            }
            if self.claim_is_held(&owner, email, at).await? {
                return Ok(false);
            }
            // A stale claim: taken over only from the owner just read, so of two members
            // taking it over at once one wins and the other reads again.
            let taken = sqlx::query(
                "UPDATE email_claims SET member_id = $1, claimed_at = $2 \
                 WHERE email = $3 AND member_id = $4",
            )
            .bind(member_id.as_str())
            .bind(at)
            .bind(email.as_str())
            .bind(&owner)
            .execute(self.db.pool())
            .await?
            .rows_affected();
            if taken == 1 {
                return Ok(true);
            }
        }
        Err(AccountsError::Unavailable(
            "email claim kept changing".into(),
        ))
    }

    async fn claim_owner(&self, email: &Email) -> Result<Option<String>> {
        let row = sqlx::query("SELECT member_id FROM email_claims WHERE email = $1")
            .bind(email.as_str())
            .fetch_optional(self.db.pool())
            .await?;
        Ok(row.map(|row| row.try_get("member_id")).transpose()?)
    }

    /// Whether `owner` still holds `email`: active, and it is their address, their confirmed
    /// address, or the previous address a usable restore link of theirs would bring back.
    async fn claim_is_held(&self, owner: &str, email: &Email, at: i64) -> Result<bool> {
        let row = sqlx::query(
            "SELECT 1 AS one FROM members m WHERE m.member_id = $1 AND m.status = 'active' \
             AND (LOWER(m.email) = $2 OR LOWER(COALESCE(m.confirmed_email, '')) = $2 \
             OR EXISTS (SELECT 1 FROM email_restores r WHERE r.member_id = m.member_id \
             AND LOWER(r.previous_email) = $2 AND r.used_at IS NULL AND r.expires_at > $3))",
        )
        .bind(owner)
        .bind(email.as_str())
        .bind(at)
        .fetch_optional(self.db.pool())
        .await?;
        Ok(row.is_some())
    }

    /// Records the member's decision on the terms; [`AccountsError::MemberNotFound`] when
    /// there is no such member (or they unsubscribed).
    pub async fn record_terms_decision(
        &self,
        member_id: &MemberId,
        agreement: &TermsAgreement,
    ) -> Result<()> {
        let updated = sqlx::query(
            "UPDATE members SET terms_decision = $1, terms_version = $2, terms_event_at = $3, \
             updated_at = $3 WHERE member_id = $4 AND status <> 'unsubscribed'",
        )
        .bind(agreement.decision.as_str())
        .bind(agreement.version.as_deref())
        .bind(agreement.decided_at)
        .bind(member_id.as_str())
        .execute(self.db.pool())
        .await?
        .rows_affected();
        if updated == 0 {
            return Err(AccountsError::MemberNotFound);
        }
        Ok(())
    }
}

/// Inserts `link` for `email` when that is the member's unconfirmed address, then deletes the
/// member's other unused links (a new link supersedes the older ones). True when inserted.
async fn insert_confirmation(
    conn: &mut AnyConnection,
    member_id: &MemberId,
    email: &Email,
    link: &NewConfirmation,
    at: i64,
) -> Result<bool> {
    let inserted = sqlx::query(
        "INSERT INTO email_confirmations (token_hash, member_id, email, expires_at, created_at) \
         SELECT $1, member_id, email, $2, $3 FROM members \
         WHERE member_id = $4 AND email = $5 AND NOT email_confirmed",
    )
    .bind(&link.digest)
    .bind(link.expires_at)
    .bind(at)
    .bind(member_id.as_str())
    .bind(email.as_str())
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(false);
    }
    sqlx::query(
        "DELETE FROM email_confirmations \
         WHERE member_id = $1 AND used_at IS NULL AND token_hash <> $2",
    )
    .bind(member_id.as_str())
    .bind(&link.digest)
    .execute(&mut *conn)
    .await?;
    Ok(true)
}
