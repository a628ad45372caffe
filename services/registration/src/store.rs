//! Storage of registration flows (sqlx, portable SQL on PostgreSQL and SQLite; see
//! `platform::storage`).
//!
//! Rows are keyed by the hash of the flow id. Every change is one conditional `UPDATE` that names
//! the status it expects, so a completed flow is never reopened and the member id, once chosen,
//! is never replaced by a concurrent request.

use miclub_platform::member::MemberId;
use miclub_platform::storage::{Database, DatabaseSettings, Migrations};
use sqlx::Row;
use sqlx::any::AnyRow;
use sqlx::migrate::Migrator;

use crate::domain::flow::{Flow, FlowKey, PersonalData, Status, Step};
use crate::domain::identity::Identity;
use crate::error::{RegistrationError, Result};

/// Schema migrations, embedded in the binary.
pub static POSTGRES_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/postgres");
pub static SQLITE_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/sqlite");
pub static MIGRATIONS: Migrations = Migrations {
    postgres: &POSTGRES_MIGRATIONS,
    sqlite: &SQLITE_MIGRATIONS,
};

const COLUMNS: &str = "id, step, status, document_type, document_number, card_serial, country, \
     name, last_name, mother_surname, phone_number, birth_date, gender_id, email, member_id, \
     terms_version, created_at, updated_at, expires_at";

#[derive(Debug, Clone)]
pub struct Store {
    db: Database,
}

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

    /// Stores a new flow (step 1 accepted).
    pub async fn insert(&self, flow: &Flow) -> Result<()> {
        let identity = &flow.identity;
        sqlx::query(
            "INSERT INTO registration_flows (id, step, status, document_type, document_number, \
             card_serial, country, created_at, updated_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(flow.key.as_str())
        .bind(flow.step.number())
        .bind(flow.status.as_str())
        .bind(identity.document_type())
        .bind(identity.document_number())
        .bind(identity.card_serial().map(str::to_owned))
        .bind(identity.country())
        .bind(flow.created_at)
        .bind(flow.updated_at)
        .bind(flow.expires_at)
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// The flow stored under `key`, expired or not.
    pub async fn find(&self, key: &FlowKey) -> Result<Option<Flow>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM registration_flows WHERE id = $1"
        )))
        .bind(key.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.as_ref().map(flow_from_row).transpose()
    }

    /// Stores accepted personal data and moves the flow to step 3, unless it completed or
    /// expired meanwhile; true when stored.
    pub async fn save_personal_data(
        &self,
        key: &FlowKey,
        data: &PersonalData,
        now: i64,
        expires_at: i64,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE registration_flows SET name = $1, last_name = $2, mother_surname = $3, \
             phone_number = $4, birth_date = $5, gender_id = $6, email = $7, step = $8, \
             updated_at = $9, expires_at = $10 \
             WHERE id = $11 AND status <> 'completed' AND expires_at > $9",
        )
        .bind(data.name.as_str())
        .bind(data.last_name.as_str())
        .bind(data.mother_surname.as_str())
        .bind(data.phone_number.as_str())
        .bind(data.birth_date.as_str())
        .bind(i64::from(data.gender_id))
        .bind(data.email.as_str())
        .bind(Step::Password.number())
        .bind(now)
        .bind(expires_at)
        .bind(key.as_str())
        .execute(self.db.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Records the member id and terms version of a completion that starts now, only if none was
    /// chosen before; the caller reads the flow again to learn which one holds.
    pub async fn start_completion(
        &self,
        key: &FlowKey,
        member_id: &MemberId,
        terms_version: &str,
        now: i64,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE registration_flows SET member_id = $1, terms_version = $2, \
             status = 'completing', updated_at = $3 \
             WHERE id = $4 AND member_id IS NULL AND status = 'open' AND expires_at > $3",
        )
        .bind(member_id.as_str())
        .bind(terms_version)
        .bind(now)
        .bind(key.as_str())
        .execute(self.db.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Keeps a flow in progress alive until `expires_at` (an accepted step 3 attempt).
    pub async fn extend(&self, key: &FlowKey, now: i64, expires_at: i64) -> Result<()> {
        sqlx::query(
            "UPDATE registration_flows SET updated_at = $1, expires_at = $2 \
             WHERE id = $3 AND status <> 'completed'",
        )
        .bind(now)
        .bind(expires_at)
        .bind(key.as_str())
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// Replaces the member id with the one accounts answered (a reused pending member).
    pub async fn replace_member_id(
        &self,
        key: &FlowKey,
        member_id: &MemberId,
        now: i64,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE registration_flows SET member_id = $1, updated_at = $2 \
             WHERE id = $3 AND status = 'completing'",
        )
        .bind(member_id.as_str())
        .bind(now)
        .bind(key.as_str())
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// Marks the flow completed and erases the personal data it no longer needs. The row stays
    /// until it expires, so a repeated completion is answered as expired and creates nothing.
    pub async fn mark_completed(&self, key: &FlowKey, now: i64) -> Result<()> {
        sqlx::query(
            "UPDATE registration_flows SET status = 'completed', name = NULL, last_name = NULL, \
             mother_surname = NULL, phone_number = NULL, birth_date = NULL, gender_id = NULL, \
             email = NULL, updated_at = $1 WHERE id = $2",
        )
        .bind(now)
        .bind(key.as_str())
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// Deletes the flow of `key` with everything entered in it (the member cancelled); true when
    /// there was one.
    pub async fn delete(&self, key: &FlowKey) -> Result<bool> {
        let done = sqlx::query("DELETE FROM registration_flows WHERE id = $1")
            .bind(key.as_str())
            .execute(self.db.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Deletes the flows expired at `now`; answers how many.
    pub async fn delete_expired(&self, now: i64) -> Result<u64> {
        let done = sqlx::query("DELETE FROM registration_flows WHERE expires_at <= $1")
            .bind(now)
            .execute(self.db.pool())
            .await?;
        Ok(done.rows_affected())
    }

    /// How many flows are stored, expired or not.
    pub async fn count(&self) -> Result<i64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM registration_flows")
            .fetch_one(self.db.pool())
            .await?;
        Ok(row.try_get::<i64, _>("n")?)
    }
}

fn flow_from_row(row: &AnyRow) -> Result<Flow> {
    let key: String = row.try_get("id")?;
    let corrupt = |what: &str| {
        RegistrationError::CorruptRecord(format!("flow {}: {what}", &key[..12.min(key.len())]))
    };
    let step = Step::from_number(row.try_get("step")?).ok_or_else(|| corrupt("step"))?;
    let status =
        Status::parse(&row.try_get::<String, _>("status")?).ok_or_else(|| corrupt("status"))?;
    let card_serial: Option<String> = row.try_get("card_serial")?;
    let identity = Identity::from_stored(
        &row.try_get::<String, _>("document_type")?,
        &row.try_get::<String, _>("document_number")?,
        card_serial.as_deref(),
        &row.try_get::<String, _>("country")?,
    )
    .ok_or_else(|| corrupt("identity"))?;
    let email: Option<String> = row.try_get("email")?;
    let personal_data = match email {
        Some(email) => Some(PersonalData {
            name: row
                .try_get::<Option<String>, _>("name")?
                .unwrap_or_default(),
            last_name: row
                .try_get::<Option<String>, _>("last_name")?
                .unwrap_or_default(),
            mother_surname: row
                .try_get::<Option<String>, _>("mother_surname")?
                .unwrap_or_default(),
            phone_number: row
                .try_get::<Option<String>, _>("phone_number")?
                .unwrap_or_default(),
            birth_date: row
                .try_get::<Option<String>, _>("birth_date")?
                .unwrap_or_default(),
            gender_id: row
                .try_get::<Option<i64>, _>("gender_id")?
                .and_then(|id| i32::try_from(id).ok())
                .ok_or_else(|| corrupt("gender_id"))?,
            email,
        }),
        None => None,
    };
    Ok(Flow {
        key: FlowKey::from_stored(key.clone()),
        step,
        status,
        identity,
        personal_data,
        member_id: row
            .try_get::<Option<String>, _>("member_id")?
            .map(|id| MemberId::parse(&id).map_err(|_| corrupt("member_id")))
            .transpose()?,
        terms_version: row.try_get("terms_version")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        expires_at: row.try_get("expires_at")?,
    })
}
