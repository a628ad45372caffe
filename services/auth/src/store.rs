//! SQL of the auth service: credentials and refresh tokens, on PostgreSQL or SQLite.
//!
//! Queries follow the portable conventions of `platform::storage` (`$n` placeholders, BIGINT
//! milliseconds, TEXT ids, flags read with `flag`). The rules a race could break are enforced
//! by the statements themselves: a refresh token is marked used only if nobody did first
//! (`… AND used_at IS NULL`, rows affected checked), in the same transaction that stores its
//! successor; a password change stores the new hash and revokes every live refresh token of
//! the member in one transaction, so there is no moment with the new password and old
//! sessions, nor a failed change that revoked them. Replacing credentials (a rejoin) and
//! disabling them (an unsubscribe) revoke the sessions in their own transaction the same way;
//! the unique login id and member id decide between concurrent creations.
//!
//! The member's security view reads two more tables: `sessions` (one row per refresh family:
//! start, last renewal, user agent; open while the family holds a live refresh token) and
//! `security_events` (90 days of what happened to the account). Every query of theirs names
//! the member, so one member's id can never reach another member's rows.

use std::collections::BTreeSet;

use miclub_platform::member::MemberId;
use miclub_platform::notify::{Notice, outbox};
use miclub_platform::storage::{Database, DatabaseSettings, Migrations, flag, is_unique_violation};
use sqlx::Row;
use sqlx::any::AnyRow;
use sqlx::migrate::Migrator;

use crate::domain::hashing::HashScheme;

/// Schema migrations, embedded in the binary.
pub static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/postgres");
pub static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/sqlite");
pub static MIGRATIONS: Migrations = Migrations {
    postgres: &POSTGRES_MIGRATIONS,
    sqlite: &SQLITE_MIGRATIONS,
};

/// A member's credentials as stored.
#[derive(Debug, Clone)]
pub struct CredentialRecord {
    pub member_id: MemberId,
    pub login_id: String,
    pub email: String,
    pub password_hash: String,
    pub hash_scheme: HashScheme,
    pub email_verified: bool,
    pub disabled: bool,
    /// When the member last changed their password (milliseconds); `None` if never.
    pub password_changed_at: Option<i64>,
    /// When the member unsubscribed (milliseconds); `None` while enabled (and for credentials
    /// disabled before the instant was recorded).
    pub disabled_at: Option<i64>,
}

impl CredentialRecord {
    /// True when the password was changed at or after `instant` (milliseconds): a login
    /// started then was started with the previous password.
    pub fn password_changed_since(&self, instant: i64) -> bool {
        self.password_changed_at.is_some_and(|at| at >= instant)
    }
}

/// Credentials to create.
#[derive(Debug, Clone)]
pub struct NewCredentials<'a> {
    pub member_id: &'a MemberId,
    pub login_id: &'a str,
    pub email: &'a str,
    pub password_hash: &'a str,
    pub hash_scheme: HashScheme,
    pub email_verified: bool,
}

/// What [`Store::create_or_replace_credentials`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialsWritten {
    /// New credentials.
    Created,
    /// The member's credentials for the same login id were replaced; the sessions that were
    /// live (refresh families) are revoked in SQL, each once.
    Replaced { revoked: Vec<String> },
    /// Another member holds the login id, or this member is active with a verified email (a
    /// finished registration is never redone); nothing changed.
    LoginIdTaken,
    /// The member has credentials for another login id; nothing changed.
    MemberHasOtherLoginId,
}

/// What [`Store::disable_credentials`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisableOutcome {
    Disabled(Disabled),
    /// The member has no credentials.
    NoCredentials,
    /// The credentials were (re)created after the member left: a rejoined member's.
    Superseded,
}

/// The member's credentials are disabled (now or earlier).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disabled {
    /// When they were first disabled (milliseconds).
    pub disabled_at: i64,
    /// Sessions (refresh families) that were live and are now revoked in SQL, each once.
    pub revoked: Vec<String>,
}

/// A refresh token as stored, with what a renewal needs to know about its member.
#[derive(Debug, Clone)]
pub struct RefreshRecord {
    pub family_id: String,
    pub member_id: MemberId,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub member_disabled: bool,
    /// When the session began (its code step), milliseconds since the epoch.
    pub session_started_at: i64,
}

/// A refresh token to store.
#[derive(Debug, Clone)]
pub struct NewRefresh<'a> {
    pub token_hash: &'a str,
    pub family_id: &'a str,
    pub member_id: &'a MemberId,
    pub created_at: i64,
    pub expires_at: i64,
    /// When the session began; the same for every token of a family.
    pub session_started_at: i64,
}

/// An open session (refresh family) as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub session_id: String,
    /// When the session began (its code step), milliseconds.
    pub started_at: i64,
    /// Its last renewal (or its start), milliseconds.
    pub last_seen_at: i64,
    /// The user agent of the code step, at most 256 characters; empty when unknown.
    pub user_agent: String,
}

/// A security event as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecurityEventRecord {
    pub kind: String,
    pub occurred_at: i64,
    pub user_agent: String,
}

#[derive(Debug, Clone)]
pub struct Store {
    db: Database,
}

const CREDENTIAL_COLUMNS: &str = "member_id, login_id, email, password_hash, hash_scheme, \
     email_verified, disabled, password_changed_at, disabled_at";

impl Store {
    pub fn new(db: Database) -> Self {
        Self { db }
    }

    /// Connects and applies the migrations of the backend the URL names.
    pub async fn connect(settings: &DatabaseSettings) -> anyhow::Result<Self> {
        Ok(Self::new(MIGRATIONS.open(settings).await?))
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    pub async fn credentials_by_login_id(
        &self,
        login_id: &str,
    ) -> Result<Option<CredentialRecord>, sqlx::Error> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {CREDENTIAL_COLUMNS} FROM credentials WHERE login_id = $1"
        )))
        .bind(login_id)
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| credential(&row)).transpose()
    }

    pub async fn credentials_by_member_id(
        &self,
        member_id: &MemberId,
    ) -> Result<Option<CredentialRecord>, sqlx::Error> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {CREDENTIAL_COLUMNS} FROM credentials WHERE member_id = $1"
        )))
        .bind(member_id.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| credential(&row)).transpose()
    }

    /// Creates credentials; `false` when the member or the login id already has some.
    pub async fn insert_credentials(
        &self,
        new: &NewCredentials<'_>,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let result = sqlx::query(
            "INSERT INTO credentials \
             (member_id, login_id, email, password_hash, hash_scheme, email_verified, disabled, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(new.member_id.as_str())
        .bind(new.login_id)
        .bind(new.email)
        .bind(new.password_hash)
        .bind(new.hash_scheme.as_str())
        .bind(new.email_verified)
        .bind(false)
        .bind(now)
        .bind(now)
        .execute(self.db.pool())
        .await;
        match result {
            Ok(_) => Ok(true),
            Err(err) if is_unique_violation(&err) => Ok(false),
            Err(err) => Err(err),
        }
    }

    /// Creates the member's credentials, or replaces those of the same member and login id:
    /// new argon2id hash and email, enabled, email not verified, `password_changed_at = now`
    /// (a login or reset started before cannot complete) and every live session revoked, in
    /// one transaction. Race-safe: the unique login id and member id decide between concurrent
    /// calls, and the loser of an identical pair replaces what the winner created.
    pub async fn create_or_replace_credentials(
        &self,
        new: &NewCredentials<'_>,
        now: i64,
    ) -> Result<CredentialsWritten, sqlx::Error> {
        // Two rounds at most: a replace that finds nothing, an insert that loses a race to
        // the same member, then the replace that finds the winner's row.
        for _ in 0..2 {
            if let Some(revoked) = self.replace_credentials(new, now).await? {
                return Ok(CredentialsWritten::Replaced { revoked });
            }
            let created = sqlx::query(
                "INSERT INTO credentials \
                 (member_id, login_id, email, password_hash, hash_scheme, email_verified, disabled, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(new.member_id.as_str())
            .bind(new.login_id)
            .bind(new.email)
            .bind(new.password_hash)
            .bind(new.hash_scheme.as_str())
            .bind(new.email_verified)
            .bind(false)
            .bind(now)
            .bind(now)
            .execute(self.db.pool())
            .await;
            match created {
                Ok(_) => return Ok(CredentialsWritten::Created),
                Err(err) if is_unique_violation(&err) => {}
                Err(err) => return Err(err),
            }
            // Somebody holds the login id or the member id: who?
            if let Some(holder) = self.credentials_by_login_id(new.login_id).await?
                && holder.member_id != *new.member_id
            {
                return Ok(CredentialsWritten::LoginIdTaken);
            }
            if let Some(mine) = self.credentials_by_member_id(new.member_id).await? {
                if mine.login_id != new.login_id {
                    return Ok(CredentialsWritten::MemberHasOtherLoginId);
                }
                // An active member who proved their email is nobody's registration to redo.
                if !mine.disabled && mine.email_verified {
                    return Ok(CredentialsWritten::LoginIdTaken);
                }
            }
            // The same member and login id, created concurrently: replace it.
        }
        Err(sqlx::Error::Protocol(
            "credentials neither inserted nor replaced after a unique violation".into(),
        ))
    }

    /// The replace half of [`Store::create_or_replace_credentials`]; `None` when the member
    /// has no credentials for this login id.
    async fn replace_credentials(
        &self,
        new: &NewCredentials<'_>,
        now: i64,
    ) -> Result<Option<Vec<String>>, sqlx::Error> {
        let mut tx = self.db.pool().begin().await?;
        let updated = sqlx::query(
            "UPDATE credentials SET email = $1, password_hash = $2, hash_scheme = $3, \
             email_verified = $4, disabled = $5, disabled_at = NULL, password_changed_at = $6, \
             created_at = $7, updated_at = $7 WHERE member_id = $8 AND login_id = $9 \
             AND (disabled = $10 OR email_verified = $11)",
        )
        .bind(new.email)
        .bind(new.password_hash)
        .bind(new.hash_scheme.as_str())
        .bind(new.email_verified)
        .bind(false)
        .bind(now)
        .bind(now)
        .bind(new.member_id.as_str())
        .bind(new.login_id)
        .bind(true)
        .bind(false)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if updated != 1 {
            tx.rollback().await?;
            return Ok(None);
        }
        let families = revoke_live_sessions(&mut *tx, new.member_id, now).await?;
        tx.commit().await?;
        Ok(Some(families))
    }

    /// Unsubscribe: disables the member's credentials, erases the email, records the instant
    /// the first time (a repeat keeps it) and revokes every live refresh token, in one
    /// transaction. `None` when the member has no credentials.
    ///
    /// `unsubscribed_at` (0: unconditional) guards a rejoined member: credentials created or
    /// replaced after it are left alone.
    pub async fn disable_credentials(
        &self,
        member_id: &MemberId,
        unsubscribed_at: i64,
        now: i64,
    ) -> Result<DisableOutcome, sqlx::Error> {
        let mut tx = self.db.pool().begin().await?;
        let row = sqlx::query(
            "UPDATE credentials SET disabled = $1, email = '', email_verified = $2, \
             disabled_at = COALESCE(disabled_at, $3), updated_at = $4 WHERE member_id = $5 \
             AND ($6 = 0 OR created_at <= $6) RETURNING disabled_at",
        )
        .bind(true)
        .bind(false)
        .bind(now)
        .bind(now)
        .bind(member_id.as_str())
        .bind(unsubscribed_at)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(match self.credentials_by_member_id(member_id).await? {
                Some(_) => DisableOutcome::Superseded,
                None => DisableOutcome::NoCredentials,
            });
        };
        let disabled_at: i64 = row.try_get("disabled_at")?;
        let revoked = revoke_live_sessions(&mut *tx, member_id, now).await?;
        tx.commit().await?;
        Ok(DisableOutcome::Disabled(Disabled {
            disabled_at,
            revoked,
        }))
    }

    /// Replaces a password hash (rehash of a legacy or outdated hash).
    pub async fn replace_password_hash(
        &self,
        member_id: &MemberId,
        password_hash: &str,
        scheme: HashScheme,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE credentials SET password_hash = $1, hash_scheme = $2, updated_at = $3 WHERE member_id = $4",
        )
        .bind(password_hash)
        .bind(scheme.as_str())
        .bind(now)
        .bind(member_id.as_str())
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// The member's new password: stores its argon2id hash and revokes every live refresh
    /// token of the member, atomically. Returns the sessions (refresh-token families) that
    /// were live, each once; `None` (nothing changed) when the member has no credentials.
    pub async fn change_password(
        &self,
        member_id: &MemberId,
        password_hash: &str,
        notice: &Notice,
        now: i64,
    ) -> Result<Option<Vec<String>>, sqlx::Error> {
        let mut tx = self.db.pool().begin().await?;
        let updated = sqlx::query(
            "UPDATE credentials SET password_hash = $1, hash_scheme = $2, \
             password_changed_at = $3, updated_at = $4 WHERE member_id = $5",
        )
        .bind(password_hash)
        .bind(HashScheme::Argon2id.as_str())
        .bind(now)
        .bind(now)
        .bind(member_id.as_str())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if updated != 1 {
            tx.rollback().await?;
            return Ok(None);
        }
        let families = revoke_live_sessions(&mut *tx, member_id, now).await?;
        outbox::enqueue(&mut tx, member_id.as_str(), notice, now).await?;
        tx.commit().await?;
        Ok(Some(families))
    }

    /// Revokes every live refresh token of the member created up to `now`; returns their
    /// sessions, each once.
    pub async fn revoke_member_sessions(
        &self,
        member_id: &MemberId,
        now: i64,
    ) -> Result<Vec<String>, sqlx::Error> {
        revoke_live_sessions(self.db.pool(), member_id, now).await
    }

    /// Sets where the member's one-time codes go and marks the address verified; `false` when
    /// the member has no enabled credentials (an unsubscribed member's address stays erased).
    /// Setting the same address again changes nothing else.
    pub async fn set_login_email(
        &self,
        member_id: &MemberId,
        email: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let updated = sqlx::query(
            "UPDATE credentials SET email = $1, email_verified = $2, updated_at = $3 \
             WHERE member_id = $4 AND disabled = $5",
        )
        .bind(email)
        .bind(true)
        .bind(now)
        .bind(member_id.as_str())
        .bind(false)
        .execute(self.db.pool())
        .await?
        .rows_affected();
        Ok(updated == 1)
    }

    pub async fn insert_refresh(&self, new: &NewRefresh<'_>) -> Result<(), sqlx::Error> {
        insert_refresh(self.db.pool(), new).await
    }

    pub async fn refresh_by_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<RefreshRecord>, sqlx::Error> {
        let row = sqlx::query(
            "SELECT r.family_id, r.member_id, r.expires_at, r.used_at, r.revoked_at, c.disabled, \
             COALESCE(r.session_started_at, r.created_at) AS session_started_at \
             FROM refresh_tokens r JOIN credentials c ON c.member_id = r.member_id \
             WHERE r.token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| {
            Ok(RefreshRecord {
                family_id: row.try_get("family_id")?,
                member_id: stored_member_id(&row)?,
                expires_at: row.try_get("expires_at")?,
                used_at: row.try_get("used_at")?,
                revoked_at: row.try_get("revoked_at")?,
                member_disabled: flag(&row, "disabled")?,
                session_started_at: row.try_get("session_started_at")?,
            })
        })
        .transpose()
    }

    /// Marks `old_hash` used and stores its successor, atomically. `false` (and nothing
    /// stored) when the old token was already used or revoked: somebody else got there first.
    pub async fn rotate_refresh(
        &self,
        old_hash: &str,
        next: &NewRefresh<'_>,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.db.pool().begin().await?;
        let marked = sqlx::query(
            "UPDATE refresh_tokens SET used_at = $1 \
             WHERE token_hash = $2 AND used_at IS NULL AND revoked_at IS NULL",
        )
        .bind(next.created_at)
        .bind(old_hash)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if marked != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        insert_refresh(&mut *tx, next).await?;
        // The renewal is the session's last sighting: one update by primary key.
        sqlx::query("UPDATE sessions SET last_seen_at = $1 WHERE session_id = $2")
            .bind(next.created_at)
            .bind(next.family_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Records a session the code step opens (before its first refresh token).
    pub async fn insert_session(
        &self,
        session_id: &str,
        member_id: &MemberId,
        started_at: i64,
        user_agent: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO sessions (session_id, member_id, started_at, last_seen_at, user_agent) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(session_id)
        .bind(member_id.as_str())
        .bind(started_at)
        .bind(started_at)
        .bind(user_agent)
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// The member's open sessions (a live refresh token in the family, begun after
    /// `started_after`), the most recently seen first.
    pub async fn open_sessions(
        &self,
        member_id: &MemberId,
        started_after: i64,
        now: i64,
    ) -> Result<Vec<SessionRecord>, sqlx::Error> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{OPEN_SESSIONS} ORDER BY s.last_seen_at DESC, s.session_id"
        )))
        .bind(member_id.as_str())
        .bind(started_after)
        .bind(now)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter().map(session_record).collect()
    }

    /// The member's open session `session_id`; `None` when it is not open or not the member's.
    pub async fn open_session_of(
        &self,
        member_id: &MemberId,
        session_id: &str,
        started_after: i64,
        now: i64,
    ) -> Result<Option<SessionRecord>, sqlx::Error> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{OPEN_SESSIONS} AND s.session_id = $4"
        )))
        .bind(member_id.as_str())
        .bind(started_after)
        .bind(now)
        .bind(session_id)
        .fetch_optional(self.db.pool())
        .await?;
        row.as_ref().map(session_record).transpose()
    }

    /// Revokes every live refresh token of the member outside session `keep`; returns their
    /// sessions, each once.
    pub async fn revoke_other_sessions(
        &self,
        member_id: &MemberId,
        keep: &str,
        now: i64,
    ) -> Result<Vec<String>, sqlx::Error> {
        let rows = sqlx::query(
            "UPDATE refresh_tokens SET revoked_at = $1 \
             WHERE member_id = $2 AND family_id <> $3 AND revoked_at IS NULL AND expires_at > $4 \
             RETURNING family_id",
        )
        .bind(now)
        .bind(member_id.as_str())
        .bind(keep)
        .bind(now)
        .fetch_all(self.db.pool())
        .await?;
        let families: BTreeSet<String> = rows
            .iter()
            .map(|row| row.try_get("family_id"))
            .collect::<Result<_, _>>()?;
        Ok(families.into_iter().collect())
    }

    /// The user agent session `session_id` was opened with; `None` for an unknown session.
    pub async fn session_user_agent(
        &self,
        session_id: &str,
    ) -> Result<Option<String>, sqlx::Error> {
        let row = sqlx::query("SELECT user_agent FROM sessions WHERE session_id = $1")
            .bind(session_id)
            .fetch_optional(self.db.pool())
            .await?;
        row.map(|row| row.try_get("user_agent")).transpose()
    }

    /// Records a security event of the member.
    pub async fn insert_security_event(
        &self,
        member_id: &MemberId,
        kind: &str,
        occurred_at: i64,
        user_agent: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO security_events (event_id, member_id, kind, occurred_at, user_agent) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(member_id.as_str())
        .bind(kind)
        .bind(occurred_at)
        .bind(user_agent)
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// The member's security events since `since`, newest first, at most `limit`.
    pub async fn security_events(
        &self,
        member_id: &MemberId,
        since: i64,
        limit: i64,
    ) -> Result<Vec<SecurityEventRecord>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT kind, occurred_at, user_agent FROM security_events \
             WHERE member_id = $1 AND occurred_at >= $2 \
             ORDER BY occurred_at DESC, event_id LIMIT $3",
        )
        .bind(member_id.as_str())
        .bind(since)
        .bind(limit)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(SecurityEventRecord {
                    kind: row.try_get("kind")?,
                    occurred_at: row.try_get("occurred_at")?,
                    user_agent: row.try_get("user_agent")?,
                })
            })
            .collect()
    }

    /// Deletes security events older than `before` and sessions whose family has no refresh
    /// token left (housekeeping); returns (events, sessions) deleted.
    pub async fn purge_security_history(&self, before: i64) -> Result<(u64, u64), sqlx::Error> {
        let events = sqlx::query("DELETE FROM security_events WHERE occurred_at < $1")
            .bind(before)
            .execute(self.db.pool())
            .await?
            .rows_affected();
        let sessions = sqlx::query(
            "DELETE FROM sessions WHERE NOT EXISTS \
             (SELECT 1 FROM refresh_tokens r WHERE r.family_id = sessions.session_id)",
        )
        .execute(self.db.pool())
        .await?
        .rows_affected();
        Ok((events, sessions))
    }

    /// Revokes every token of a session; returns how many were still live.
    pub async fn revoke_family(&self, family_id: &str, now: i64) -> Result<u64, sqlx::Error> {
        Ok(sqlx::query(
            "UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(family_id)
        .execute(self.db.pool())
        .await?
        .rows_affected())
    }

    /// Deletes tokens that expired before `before` (housekeeping).
    pub async fn purge_expired_refresh(&self, before: i64) -> Result<u64, sqlx::Error> {
        Ok(
            sqlx::query("DELETE FROM refresh_tokens WHERE expires_at < $1")
                .bind(before)
                .execute(self.db.pool())
                .await?
                .rows_affected(),
        )
    }
}

async fn insert_refresh<'e, E>(executor: E, new: &NewRefresh<'_>) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query(
        "INSERT INTO refresh_tokens \
         (token_hash, family_id, member_id, created_at, expires_at, session_started_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(new.token_hash)
    .bind(new.family_id)
    .bind(new.member_id.as_str())
    .bind(new.created_at)
    .bind(new.expires_at)
    .bind(new.session_started_at)
    .execute(executor)
    .await?;
    Ok(())
}

async fn revoke_live_sessions<'e, E>(
    executor: E,
    member_id: &MemberId,
    now: i64,
) -> Result<Vec<String>, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    // Expired tokens stay as they are: their sessions are over, and the purge deletes them.
    let rows = sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = $1 \
         WHERE member_id = $2 AND revoked_at IS NULL AND expires_at > $3 AND created_at <= $4 \
         RETURNING family_id",
    )
    .bind(now)
    .bind(member_id.as_str())
    .bind(now)
    .bind(now)
    .fetch_all(executor)
    .await?;
    let families: BTreeSet<String> = rows
        .iter()
        .map(|row| row.try_get("family_id"))
        .collect::<Result<_, _>>()?;
    Ok(families.into_iter().collect())
}

/// The open sessions of member `$1` begun after `$2` at instant `$3`: a refresh token of the
/// family neither spent nor revoked nor expired.
const OPEN_SESSIONS: &str = "SELECT s.session_id, s.started_at, s.last_seen_at, s.user_agent \
     FROM sessions s WHERE s.member_id = $1 AND s.started_at > $2 AND EXISTS \
     (SELECT 1 FROM refresh_tokens r WHERE r.family_id = s.session_id AND r.member_id = $1 \
     AND r.used_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > $3)";

fn session_record(row: &AnyRow) -> Result<SessionRecord, sqlx::Error> {
    Ok(SessionRecord {
        session_id: row.try_get("session_id")?,
        started_at: row.try_get("started_at")?,
        last_seen_at: row.try_get("last_seen_at")?,
        user_agent: row.try_get("user_agent")?,
    })
}

fn credential(row: &AnyRow) -> Result<CredentialRecord, sqlx::Error> {
    let scheme: String = row.try_get("hash_scheme")?;
    Ok(CredentialRecord {
        member_id: stored_member_id(row)?,
        login_id: row.try_get("login_id")?,
        email: row.try_get("email")?,
        password_hash: row.try_get("password_hash")?,
        hash_scheme: HashScheme::parse(&scheme).ok_or_else(|| sqlx::Error::ColumnDecode {
            index: "hash_scheme".into(),
            source: format!("unknown hash scheme {scheme:?}").into(),
        })?,
        email_verified: flag(row, "email_verified")?,
        disabled: flag(row, "disabled")?,
        password_changed_at: row.try_get("password_changed_at")?,
        disabled_at: row.try_get("disabled_at")?,
    })
}

/// The row's `member_id`, refused as a decode error (the service's internal error) unless it
/// is a valid [`MemberId`].
fn stored_member_id(row: &AnyRow) -> Result<MemberId, sqlx::Error> {
    let raw: String = row.try_get("member_id")?;
    MemberId::parse(&raw).map_err(|err| sqlx::Error::ColumnDecode {
        index: "member_id".into(),
        source: err.into(),
    })
}
