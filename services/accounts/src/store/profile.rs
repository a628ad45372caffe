//! The profile in storage: the update of the editable fields, email confirmation links and
//! the terms decision.
//!
//! Lock order, so concurrent writers wait for each other instead of deadlocking: the member row
//! before their `email_confirmations` rows. A link is only ever issued for the address the
//! member has at that instant, unconfirmed, checked in the same statement that stores it.

use sqlx::{AnyConnection, Row};

use super::{Store, corrupt};
use crate::domain::{
    Email, MemberId, NewConfirmation, ProfileChanges, StoredConfirmation, TermsAgreement,
};
use crate::error::{AccountsError, Result};

/// Rounds of [`Store::update_profile`] against concurrent email changes before giving up.
const UPDATE_ATTEMPTS: usize = 3;

impl Store {
    /// Replaces the editable fields of the member in one statement and answers whether the
    /// email changed. A new email is stored unconfirmed and `link` is issued for it,
    /// superseding the member's older links, in the same transaction.
    pub async fn update_profile(
        &self,
        member_id: &MemberId,
        changes: &ProfileChanges,
        link: &NewConfirmation,
        at: i64,
    ) -> Result<bool> {
        for _ in 0..UPDATE_ATTEMPTS {
            let current = sqlx::query("SELECT email FROM members WHERE member_id = $1")
                .bind(member_id.as_str())
                .fetch_optional(self.db.pool())
                .await?
                .ok_or(AccountsError::MemberNotFound)?;
            let current: String = current.try_get("email")?;
            let changed = current != changes.email.as_str();
            let mut tx = self.db.pool().begin().await?;
            // Applies only to the email just read, so `changed` is exact even when another
            // update of the same member races this one; the loser reads again.
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
            .bind(&current)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if updated == 0 {
                tx.rollback().await?;
                continue;
            }
            if changed {
                insert_confirmation(&mut tx, member_id, &changes.email, link, at).await?;
            }
            tx.commit().await?;
            return Ok(changed);
        }
        Err(AccountsError::Unavailable(
            "member record kept changing".into(),
        ))
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

    /// The link whose token has SHA-256 `digest`, with the member's current address.
    pub async fn email_confirmation(&self, digest: &str) -> Result<Option<StoredConfirmation>> {
        let row = sqlx::query(
            "SELECT c.member_id, c.email, c.expires_at, c.used_at, m.email AS current_email \
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
            })
        };
        read().map(Some).map_err(|err| match err {
            AccountsError::Database(err) => AccountsError::Database(err),
            other => corrupt("email confirmation", other),
        })
    }

    /// Marks `email` confirmed and the link used, in one transaction, provided the link is
    /// still unused and unexpired at `at` and `email` still the member's address; false (nothing
    /// changed) otherwise.
    pub async fn complete_email_confirmation(
        &self,
        digest: &str,
        member_id: &MemberId,
        email: &Email,
        at: i64,
    ) -> Result<bool> {
        let mut tx = self.db.pool().begin().await?;
        let member = sqlx::query(
            "UPDATE members SET email_confirmed = TRUE, updated_at = $1 \
             WHERE member_id = $2 AND email = $3",
        )
        .bind(at)
        .bind(member_id.as_str())
        .bind(email.as_str())
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
        if link == 1 {
            tx.commit().await?;
            Ok(true)
        } else {
            tx.rollback().await?;
            Ok(false)
        }
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
