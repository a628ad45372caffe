//! The change notices in storage, as their relay sees them: the restore rows whose notice is
//! due, the guarded `UPDATE` that claims one (and swaps in the digest of the token about to be
//! mailed), recording a notice sent, tried again later or given up, and deleting the rows whose
//! link expired.
//!
//! A claim is a compare-and-swap on the row's `token_hash`: two relays reading the same due row
//! both try it, and only the first finds the digest it read. The winner's lease
//! (`notice_due_at` moved past the longest send) keeps the row off every relay while it sends;
//! one that dies mid-send leaves the row to be claimed again once the lease passes.

use sqlx::Row;

use super::{Store, corrupt};
use crate::domain::{DueNotice, Email, MemberId, StoredRestore};
use crate::error::{AccountsError, Result};

impl Store {
    /// Up to `limit` restore rows whose notice is due at `now`, the oldest change first. A row
    /// that cannot be read comes back as its digest with the reason, so the relay can give it
    /// up and go on with the others.
    pub async fn due_change_notices(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<std::result::Result<DueNotice, (String, AccountsError)>>> {
        let rows = sqlx::query(
            "SELECT r.token_hash, r.member_id, r.previous_email, r.new_email, r.expires_at, \
             r.used_at, r.created_at, CAST(r.notice_tries AS BIGINT) AS notice_tries, m.status \
             FROM email_restores r JOIN members m ON m.member_id = r.member_id \
             WHERE r.notice_due_at IS NOT NULL AND r.notice_due_at <= $1 \
             ORDER BY r.created_at, r.token_hash LIMIT $2",
        )
        .bind(now)
        .bind(limit)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let digest: String = row.try_get("token_hash")?;
                let read = || -> Result<DueNotice> {
                    Ok(DueNotice {
                        digest: digest.clone(),
                        restore: StoredRestore {
                            member_id: MemberId::parse(&row.try_get::<String, _>("member_id")?)?,
                            previous_email: Email::parse(
                                &row.try_get::<String, _>("previous_email")?,
                            )?,
                            new_email: Email::parse(&row.try_get::<String, _>("new_email")?)?,
                            expires_at: row.try_get("expires_at")?,
                            used_at: row.try_get("used_at")?,
                            member_active: row.try_get::<String, _>("status")? == "active",
                        },
                        changed_at: row.try_get("created_at")?,
                        tries: row.try_get("notice_tries")?,
                    })
                };
                Ok(read().map_err(|err| {
                    let err = match err {
                        AccountsError::Database(err) => AccountsError::Database(err),
                        other => corrupt("email change notice", other),
                    };
                    (digest.clone(), err)
                }))
            })
            .collect()
    }

    /// Claims the due notice of the row whose digest is `digest` until `until`, counting a try,
    /// and makes `new_digest` (the token about to be mailed) the row's; false when another
    /// relay claimed it first, or it is no longer due.
    pub async fn claim_change_notice(
        &self,
        digest: &str,
        new_digest: &str,
        now: i64,
        until: i64,
    ) -> Result<bool> {
        let claimed = sqlx::query(
            "UPDATE email_restores \
             SET token_hash = $1, notice_due_at = $2, notice_tries = notice_tries + 1 \
             WHERE token_hash = $3 AND notice_due_at IS NOT NULL AND notice_due_at <= $4",
        )
        .bind(new_digest)
        .bind(until)
        .bind(digest)
        .bind(now)
        .execute(self.db.pool())
        .await?;
        Ok(claimed.rows_affected() == 1)
    }

    /// Records the notice of the row `digest` taken by the mail relay at `at`: nothing more is
    /// due.
    pub async fn change_notice_sent(&self, digest: &str, at: i64) -> Result<()> {
        sqlx::query(
            "UPDATE email_restores SET notice_due_at = NULL, notice_sent_at = $1 \
             WHERE token_hash = $2",
        )
        .bind(at)
        .bind(digest)
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// Deletes the restore rows whose link expired by `now` and whose notice is settled (sent,
    /// given up or void): nothing reads them any more (an expired link answers as an unknown
    /// one), and each holds two of a member's addresses. Auth keeps the change in the member's
    /// security events. Answers how many.
    pub async fn purge_expired_restores(&self, now: i64) -> Result<u64> {
        let purged = sqlx::query(
            "DELETE FROM email_restores WHERE expires_at <= $1 AND notice_due_at IS NULL",
        )
        .bind(now)
        .execute(self.db.pool())
        .await?;
        Ok(purged.rows_affected())
    }

    /// Makes the notice of the row `digest` due again at `due_at`, or never (`None`: given up).
    pub async fn change_notice_due(&self, digest: &str, due_at: Option<i64>) -> Result<()> {
        sqlx::query("UPDATE email_restores SET notice_due_at = $1 WHERE token_hash = $2")
            .bind(due_at)
            .bind(digest)
            .execute(self.db.pool())
            .await?;
        Ok(())
    }
}
