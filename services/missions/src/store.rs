//! Storage of missions and progress (sqlx, portable SQL on PostgreSQL and SQLite; see
//! `platform::storage`).
//!
//! Counting a purchase is one transaction ([`Store::count_purchase`]): the event id is recorded
//! first (a redelivered event finds it and counts nothing), progress moves with one `UPDATE`
//! each (capped at the goal, computed by the database so concurrent events add up), and a
//! mission is completed by a guarded `UPDATE … WHERE completed_at IS NULL`, so of two events
//! that reach the goal together exactly one completes it. Row locks (PostgreSQL) or the single
//! writer (SQLite) order concurrent transactions.

use chrono::NaiveDate;
use miclub_platform::storage::{Database, DatabaseSettings, Migrations, Transaction};
use sqlx::Row;
use sqlx::any::AnyRow;
use sqlx::migrate::Migrator;

use crate::domain::event::Purchase;
use crate::domain::mission::{
    GoalKind, MemberId, MemberMission, Mission, MissionId, format_date, parse_date,
};
use crate::domain::ports::{Reward, reward_movement_id};
use crate::error::{MissionsError, Result};

/// Schema migrations, embedded in the binary.
pub static POSTGRES_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/postgres");
pub static SQLITE_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/sqlite");
pub static MIGRATIONS: Migrations = Migrations {
    postgres: &POSTGRES_MIGRATIONS,
    sqlite: &SQLITE_MIGRATIONS,
};

const MISSION_COLUMNS: &str = "m.mission_id, m.category_id, m.title, m.description, m.goal_kind, \
     m.goal, m.reward, m.starts_on, m.ends_on";

/// Missions assigned to member `$2`: those with no members listed, or listing them.
const ASSIGNED_TO_MEMBER: &str = "(NOT EXISTS (SELECT 1 FROM mission_members a \
     WHERE a.mission_id = m.mission_id) OR EXISTS (SELECT 1 FROM mission_members a \
     WHERE a.mission_id = m.mission_id AND a.member_id = $2))";

/// What counting a purchase did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counted {
    /// The event was counted before: nothing changed.
    Redelivery,
    /// Counted now; `missions` moved, and `completed` are the rewards of the missions this
    /// event completed (to grant after commit).
    Counted {
        missions: usize,
        completed: Vec<Reward>,
    },
}

/// One member's row of a mission, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub progress: i64,
    pub completed_at: Option<i64>,
    pub reward_granted_at: Option<i64>,
}

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

    /// Creates or replaces `mission` and its members; true when it was created.
    pub async fn upsert_mission(&self, mission: &Mission, now: i64) -> Result<bool> {
        let mut tx = self.db.pool().begin().await?;
        let exists = sqlx::query("SELECT 1 AS one FROM missions WHERE mission_id = $1")
            .bind(mission.id.as_str())
            .fetch_optional(&mut *tx)
            .await?
            .is_some();
        let sql = if exists {
            "UPDATE missions SET category_id = $2, title = $3, description = $4, goal_kind = $5, \
             goal = $6, reward = $7, starts_on = $8, ends_on = $9, updated_at = $10 \
             WHERE mission_id = $1"
        } else {
            "INSERT INTO missions (mission_id, category_id, title, description, goal_kind, goal, \
             reward, starts_on, ends_on, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)"
        };
        sqlx::query(sql)
            .bind(mission.id.as_str())
            .bind(i64::from(mission.category_id))
            .bind(mission.title.as_str())
            .bind(mission.description.as_str())
            .bind(mission.goal_kind.as_str())
            .bind(mission.goal)
            .bind(mission.reward)
            .bind(format_date(mission.starts_on))
            .bind(format_date(mission.ends_on))
            .bind(now)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM mission_members WHERE mission_id = $1")
            .bind(mission.id.as_str())
            .execute(&mut *tx)
            .await?;
        for member in &mission.member_ids {
            sqlx::query("INSERT INTO mission_members (mission_id, member_id) VALUES ($1, $2)")
                .bind(mission.id.as_str())
                .bind(member.as_str())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(!exists)
    }

    /// The mission stored under `id`, with its members.
    pub async fn find_mission(&self, id: &MissionId) -> Result<Option<Mission>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {MISSION_COLUMNS} FROM missions m WHERE m.mission_id = $1"
        )))
        .bind(id.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut mission = mission_from_row(&row)?;
        let members = sqlx::query(
            "SELECT member_id FROM mission_members WHERE mission_id = $1 ORDER BY member_id",
        )
        .bind(id.as_str())
        .fetch_all(self.db.pool())
        .await?;
        mission.member_ids = members
            .iter()
            .map(|row| {
                let raw: String = row.try_get("member_id")?;
                MemberId::parse(&raw)
                    .map_err(|_| MissionsError::CorruptRecord(format!("member of {}", id)))
            })
            .collect::<Result<_>>()?;
        Ok(Some(mission))
    }

    /// The member's missions that started by `today` and ended on `listed_from` or later, with
    /// their progress (member ids not loaded).
    pub async fn member_missions(
        &self,
        member: &MemberId,
        today: NaiveDate,
        listed_from: NaiveDate,
    ) -> Result<Vec<MemberMission>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {MISSION_COLUMNS}, p.progress, p.completed_at FROM missions m \
             LEFT JOIN member_progress p ON p.mission_id = m.mission_id AND p.member_id = $2 \
             WHERE m.starts_on <= $1 AND m.ends_on >= $3 AND {ASSIGNED_TO_MEMBER} \
             ORDER BY m.ends_on, m.mission_id"
        )))
        .bind(format_date(today))
        .bind(member.as_str())
        .bind(format_date(listed_from))
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let mission = mission_from_row(row)?;
                let progress = row.try_get::<Option<i64>, _>("progress")?.unwrap_or(0);
                Ok(MemberMission {
                    progress: progress.clamp(0, mission.goal),
                    completed_at: row.try_get("completed_at")?,
                    mission,
                })
            })
            .collect()
    }

    /// Whether a mission in force on `day` is assigned to `member`.
    pub async fn has_missions(&self, member: &MemberId, day: NaiveDate) -> Result<bool> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) AS n FROM missions m \
             WHERE m.starts_on <= $1 AND m.ends_on >= $1 AND {ASSIGNED_TO_MEMBER}"
        )))
        .bind(format_date(day))
        .bind(member.as_str())
        .fetch_one(self.db.pool())
        .await?;
        Ok(row.try_get::<i64, _>("n")? > 0)
    }

    /// Marks the member's history as loading (or loaded).
    pub async fn set_history_loading(
        &self,
        member: &MemberId,
        loading: bool,
        now: i64,
    ) -> Result<()> {
        let query = if loading {
            sqlx::query(
                "INSERT INTO history_loading (member_id, since) VALUES ($1, $2) \
                 ON CONFLICT (member_id) DO NOTHING",
            )
            .bind(member.as_str())
            .bind(now)
        } else {
            sqlx::query("DELETE FROM history_loading WHERE member_id = $1").bind(member.as_str())
        };
        query.execute(self.db.pool()).await?;
        Ok(())
    }

    pub async fn is_history_loading(&self, member: &MemberId) -> Result<bool> {
        let row = sqlx::query("SELECT 1 AS one FROM history_loading WHERE member_id = $1")
            .bind(member.as_str())
            .fetch_optional(self.db.pool())
            .await?;
        Ok(row.is_some())
    }

    /// Counts `purchase` once, in one transaction; see the module docs.
    pub async fn count_purchase(&self, purchase: &Purchase, now: i64) -> Result<Counted> {
        let mut tx = self.db.pool().begin().await?;
        let first = sqlx::query(
            "INSERT INTO processed_events (event_id, processed_at) VALUES ($1, $2) \
             ON CONFLICT (event_id) DO NOTHING",
        )
        .bind(purchase.event_id.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        if first.rows_affected() == 0 {
            tx.rollback().await?;
            return Ok(Counted::Redelivery);
        }
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {MISSION_COLUMNS} FROM missions m \
             WHERE m.starts_on <= $1 AND m.ends_on >= $1 AND {ASSIGNED_TO_MEMBER} \
             ORDER BY m.mission_id"
        )))
        .bind(format_date(purchase.day))
        .bind(purchase.member_id.as_str())
        .fetch_all(&mut *tx)
        .await?;
        let mut moved = 0;
        let mut completed = Vec::new();
        for row in &rows {
            let mission = mission_from_row(row)?;
            let Some(amount) = purchase.amount_in(mission.category_id) else {
                continue;
            };
            let step = match mission.goal_kind {
                GoalKind::Amount => amount,
                GoalKind::Purchases => 1,
            };
            moved += 1;
            if let Some(reward) = advance(&mut tx, &mission, &purchase.member_id, step, now).await?
            {
                completed.push(reward);
            }
        }
        tx.commit().await?;
        Ok(Counted::Counted {
            missions: moved,
            completed,
        })
    }

    /// Rewards of missions completed before `completed_before` that accounts has not recorded
    /// yet, oldest first.
    pub async fn ungranted_rewards(
        &self,
        completed_before: i64,
        limit: i64,
    ) -> Result<Vec<Reward>> {
        let rows = sqlx::query(
            "SELECT mission_id, member_id, reward, reward_description FROM member_progress \
             WHERE completed_at IS NOT NULL AND completed_at < $1 AND reward_granted_at IS NULL \
             ORDER BY completed_at, mission_id, member_id LIMIT $2",
        )
        .bind(completed_before)
        .bind(limit)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let mission = MissionId::from_stored(row.try_get("mission_id")?);
                let member_raw: String = row.try_get("member_id")?;
                let member = MemberId::parse(&member_raw).map_err(|_| {
                    MissionsError::CorruptRecord(format!("progress of {mission}: member id"))
                })?;
                let amount: Option<i64> = row.try_get("reward")?;
                let description: Option<String> = row.try_get("reward_description")?;
                match (amount, description) {
                    (Some(amount), Some(description)) => Ok(Reward {
                        mission_id: mission.as_str().to_owned(),
                        movement_id: reward_movement_id(&mission, &member),
                        member_id: member,
                        amount,
                        description,
                    }),
                    _ => Err(MissionsError::CorruptRecord(format!(
                        "progress of {mission}: completed without a reward"
                    ))),
                }
            })
            .collect()
    }

    /// Records that accounts has the reward of `mission` for `member`.
    pub async fn mark_granted(
        &self,
        mission: &MissionId,
        member: &MemberId,
        now: i64,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE member_progress SET reward_granted_at = $1 \
             WHERE mission_id = $2 AND member_id = $3 AND reward_granted_at IS NULL",
        )
        .bind(now)
        .bind(mission.as_str())
        .bind(member.as_str())
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// The member's row of a mission, if any.
    pub async fn progress(
        &self,
        mission: &MissionId,
        member: &MemberId,
    ) -> Result<Option<Progress>> {
        let row = sqlx::query(
            "SELECT progress, completed_at, reward_granted_at FROM member_progress \
             WHERE mission_id = $1 AND member_id = $2",
        )
        .bind(mission.as_str())
        .bind(member.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| {
            Ok(Progress {
                progress: row.try_get("progress")?,
                completed_at: row.try_get("completed_at")?,
                reward_granted_at: row.try_get("reward_granted_at")?,
            })
        })
        .transpose()
    }

    /// Sets a member's progress on a mission unless they have some (the demo seed).
    pub async fn seed_progress(
        &self,
        mission: &MissionId,
        member: &MemberId,
        progress: i64,
        now: i64,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO member_progress (mission_id, member_id, progress, updated_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (mission_id, member_id) DO NOTHING",
        )
        .bind(mission.as_str())
        .bind(member.as_str())
        .bind(progress)
        .bind(now)
        .execute(self.db.pool())
        .await?;
        Ok(())
    }
}

/// Adds `step` to the member's progress on `mission` (capped at the goal) and completes it if
/// the goal is reached and nobody completed it before; the reward when this call completed it.
async fn advance(
    tx: &mut Transaction,
    mission: &Mission,
    member: &MemberId,
    step: i64,
    now: i64,
) -> Result<Option<Reward>> {
    sqlx::query(
        "INSERT INTO member_progress (mission_id, member_id, progress, updated_at) \
         VALUES ($1, $2, 0, $3) ON CONFLICT (mission_id, member_id) DO NOTHING",
    )
    .bind(mission.id.as_str())
    .bind(member.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "UPDATE member_progress SET progress = CASE WHEN progress + $1 >= $2 THEN $2 \
         ELSE progress + $1 END, updated_at = $3 \
         WHERE mission_id = $4 AND member_id = $5 AND completed_at IS NULL",
    )
    .bind(step)
    .bind(mission.goal)
    .bind(now)
    .bind(mission.id.as_str())
    .bind(member.as_str())
    .execute(&mut **tx)
    .await?;
    let description = mission.reward_description();
    let completed = sqlx::query(
        "UPDATE member_progress SET completed_at = $1, reward = $2, reward_description = $3, \
         updated_at = $1 \
         WHERE mission_id = $4 AND member_id = $5 AND completed_at IS NULL AND progress >= $6",
    )
    .bind(now)
    .bind(mission.reward)
    .bind(description.as_str())
    .bind(mission.id.as_str())
    .bind(member.as_str())
    .bind(mission.goal)
    .execute(&mut **tx)
    .await?;
    if completed.rows_affected() == 0 {
        return Ok(None);
    }
    Ok(Some(Reward {
        mission_id: mission.id.as_str().to_owned(),
        movement_id: reward_movement_id(&mission.id, member),
        member_id: member.clone(),
        amount: mission.reward,
        description,
    }))
}

fn mission_from_row(row: &AnyRow) -> Result<Mission> {
    let id: String = row.try_get("mission_id")?;
    let corrupt = |what: &str| MissionsError::CorruptRecord(format!("mission {id}: {what}"));
    let category_id =
        i32::try_from(row.try_get::<i64, _>("category_id")?).map_err(|_| corrupt("category_id"))?;
    let goal_kind = GoalKind::parse(&row.try_get::<String, _>("goal_kind")?)
        .ok_or_else(|| corrupt("goal_kind"))?;
    let starts_on =
        parse_date(&row.try_get::<String, _>("starts_on")?).ok_or_else(|| corrupt("starts_on"))?;
    let ends_on =
        parse_date(&row.try_get::<String, _>("ends_on")?).ok_or_else(|| corrupt("ends_on"))?;
    Ok(Mission {
        id: MissionId::from_stored(id.clone()),
        category_id,
        title: row.try_get("title")?,
        description: row.try_get("description")?,
        goal_kind,
        goal: row.try_get("goal")?,
        reward: row.try_get("reward")?,
        starts_on,
        ends_on,
        member_ids: Vec::new(),
    })
}
