//! The ledger in storage: movements, and the balance that moves with them.
//!
//! The balance of a club account changes only in [`Store::record_movement`],
//! [`Store::confirm_movement`] and [`Store::confirm_movements`], in the same transaction as the
//! ledger rows, with a guarded `UPDATE … WHERE balance + $1 >= 0`: a movement that would take
//! the balance below zero updates no row and the whole transaction is rolled back. The
//! `CHECK (balance >= 0)` of the schema is the second line of defence.
//!
//! Lock order, so concurrent writers wait for each other instead of deadlocking: a movement
//! row before its account row, movements by id, accounts by member id.

use std::collections::BTreeMap;

use miclub_platform::rewards::{REWARD_PESOS_PER_DAY, REWARD_WINDOW_MS, REWARDS_PER_DAY};
use miclub_platform::storage::{Backend, is_unique_violation};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::purchases::accrual_from_json;
use super::{Store, corrupt};
use crate::domain::{
    Balance, MemberId, Movement, MovementId, MovementKind, MovementStatus, PurchaseExplanation,
    Reason, StoredMovementDetail, payment_method_from_str,
};
use crate::error::{AccountsError, Result};

const MOVEMENT_COLUMNS: &str = "id, member_id, kind, status, amount, reason, occurred_at";

/// One page of a member's movements in `[$2, $3)`, newest first (Mis Movimientos).
const MONTH_PAGE_SQL: &str = "SELECT id, member_id, kind, status, amount, reason, occurred_at \
     FROM movements WHERE member_id = $1 AND occurred_at >= $2 AND occurred_at < $3 \
     ORDER BY occurred_at DESC, id DESC LIMIT $4 OFFSET $5";

/// How many movements a member has in `[$2, $3)`.
const MONTH_COUNT_SQL: &str = "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM movements \
     WHERE member_id = $1 AND occurred_at >= $2 AND occurred_at < $3";

impl Store {
    /// Writes `movement` to the ledger and, when it is confirmed, adds it to the balance, in
    /// one transaction; `at` is when this happens (the balance's new `updated_at`). Answers the
    /// balance right after the movement.
    ///
    /// Refuses with [`AccountsError::InsufficientBalance`] when the balance would go below
    /// zero, [`AccountsError::NoClubAccount`] without a club account, and
    /// [`AccountsError::DuplicateMovement`] when the id is already in the ledger; a refusal
    /// changes nothing.
    pub async fn record_movement(&self, movement: &Movement, at: i64) -> Result<Balance> {
        self.record(movement, at, false).await
    }

    /// Records a mission's reward as [`Self::record_movement`] records a movement, marked as a
    /// reward. Refuses with [`AccountsError::RewardLimitReached`] when the member's rewards of
    /// the 24 hours up to `at` would pass [`REWARD_PESOS_PER_DAY`] pesos or [`REWARDS_PER_DAY`]
    /// movements; they are read while the account's row is locked, so concurrent rewards of one
    /// member cannot pass the limits together.
    pub async fn record_reward(&self, movement: &Movement, at: i64) -> Result<Balance> {
        self.record(movement, at, true).await
    }

    async fn record(&self, movement: &Movement, at: i64, reward: bool) -> Result<Balance> {
        let member_id = movement.member_id().as_str();
        let mut tx = self.db.pool().begin().await?;
        let balance = match movement.status() {
            MovementStatus::Confirmed => {
                // Writing first takes the row lock (PostgreSQL) or the write lock (SQLite)
                // before anything is read, so concurrent movements serialise on the account.
                let updated = sqlx::query(
                    "UPDATE club_accounts SET balance = balance + $1, updated_at = $2 \
                     WHERE member_id = $3 AND balance + $1 >= 0 \
                     RETURNING balance, updated_at",
                )
                .bind(movement.amount())
                .bind(at)
                .bind(member_id)
                .fetch_optional(&mut *tx)
                .await?;
                match updated {
                    Some(row) => Some(balance_from_row(&row)?),
                    None => {
                        let exists =
                            sqlx::query("SELECT 1 AS one FROM club_accounts WHERE member_id = $1")
                                .bind(member_id)
                                .fetch_optional(&mut *tx)
                                .await?
                                .is_some();
                        tx.rollback().await?;
                        return Err(if exists {
                            AccountsError::InsufficientBalance
                        } else {
                            AccountsError::NoClubAccount
                        });
                    }
                }
            }
            MovementStatus::Pending => None,
        };
        if reward {
            let row = sqlx::query(
                "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS pesos, \
                 CAST(COUNT(*) AS BIGINT) AS rewards FROM movements \
                 WHERE member_id = $1 AND reward AND occurred_at > $2",
            )
            .bind(member_id)
            .bind(at - REWARD_WINDOW_MS)
            .fetch_one(&mut *tx)
            .await?;
            let (pesos, rewards): (i64, i64) = (row.try_get("pesos")?, row.try_get("rewards")?);
            if pesos.saturating_add(movement.amount()) > REWARD_PESOS_PER_DAY
                || rewards >= REWARDS_PER_DAY
            {
                tx.rollback().await?;
                return Err(AccountsError::RewardLimitReached);
            }
        }
        // INSERT … SELECT: no row without a club account.
        let inserted = sqlx::query(
            "INSERT INTO movements (id, member_id, kind, status, amount, reason, occurred_at, \
             created_at, updated_at, reward) \
             SELECT $1, member_id, $2, $3, $4, $5, $6, $7, $7, $9 FROM club_accounts \
             WHERE member_id = $8",
        )
        .bind(movement.id().as_str())
        .bind(movement.kind().as_str())
        .bind(movement.status().as_str())
        .bind(movement.amount())
        .bind(movement.reason().as_str())
        .bind(movement.occurred_at())
        .bind(at)
        .bind(member_id)
        .bind(reward)
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(done) if done.rows_affected() == 0 => {
                tx.rollback().await?;
                return Err(AccountsError::NoClubAccount);
            }
            Ok(_) => {}
            Err(err) => {
                tx.rollback().await?;
                return Err(if is_unique_violation(&err) {
                    AccountsError::DuplicateMovement
                } else {
                    err.into()
                });
            }
        }
        let balance = match balance {
            Some(balance) => balance,
            None => {
                let row = sqlx::query(
                    "SELECT balance, updated_at FROM club_accounts WHERE member_id = $1",
                )
                .bind(member_id)
                .fetch_one(&mut *tx)
                .await?;
                balance_from_row(&row)?
            }
        };
        tx.commit().await?;
        Ok(balance)
    }

    pub async fn movement_exists(&self, id: &MovementId) -> Result<bool> {
        let row = sqlx::query("SELECT 1 AS one FROM movements WHERE id = $1")
            .bind(id.as_str())
            .fetch_optional(self.db.pool())
            .await?;
        Ok(row.is_some())
    }

    /// The movement with this id, if any.
    pub async fn find_movement(&self, id: &MovementId) -> Result<Option<Movement>> {
        let sql = format!("SELECT {MOVEMENT_COLUMNS} FROM movements WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id.as_str())
            .fetch_optional(self.db.pool())
            .await?;
        row.as_ref().map(movement_from_row).transpose()
    }

    /// The movement `id` of `member_id` with its last change and, for a purchase's accrual, the
    /// purchase and its stored accrual; `None` when the member has no movement of that id
    /// (whether or not another member has). One indexed read: the movement by primary key, the
    /// purchase by its unique `movement_id`.
    pub async fn movement_detail(
        &self,
        member_id: &MemberId,
        id: &MovementId,
    ) -> Result<Option<StoredMovementDetail>> {
        let row = sqlx::query(
            "SELECT m.id, m.member_id, m.kind, m.status, m.amount, m.reason, m.occurred_at, \
             m.updated_at, p.purchase_id, p.store_name, p.purchased_at, p.payment_method, \
             p.total, p.accrued, p.rules_version, p.accrual \
             FROM movements m LEFT JOIN purchases p ON p.movement_id = m.id \
             WHERE m.id = $1 AND m.member_id = $2",
        )
        .bind(id.as_str())
        .bind(member_id.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let movement = movement_from_row(&row)?;
        let purchase_id: Option<String> = row.try_get("purchase_id")?;
        let purchase = match purchase_id {
            None => None,
            Some(purchase_id) => {
                let method: String = row.try_get("payment_method")?;
                let payment = payment_method_from_str(&method).ok_or_else(|| {
                    AccountsError::CorruptRecord(format!(
                        "purchase {purchase_id}: payment method {method:?}"
                    ))
                })?;
                let accrual: Option<String> = row.try_get("accrual")?;
                Some(PurchaseExplanation {
                    accrual: accrual_from_json(&purchase_id, accrual.as_deref())?,
                    store_name: row.try_get("store_name")?,
                    purchased_at: row.try_get("purchased_at")?,
                    payment,
                    total: row.try_get("total")?,
                    accrued: row.try_get("accrued")?,
                    rules_version: row.try_get("rules_version")?,
                    purchase_id,
                })
            }
        };
        Ok(Some(StoredMovementDetail {
            movement,
            updated_at: row.try_get("updated_at")?,
            purchase,
        }))
    }

    /// Confirms a pending accrual and adds it to the balance, in one transaction.
    pub async fn confirm_movement(&self, id: &MovementId, at: i64) -> Result<()> {
        let confirmed = self.confirm_movements(std::slice::from_ref(id), at).await?;
        if confirmed == 0 {
            return Err(AccountsError::MovementNotPending);
        }
        Ok(())
    }

    /// Confirms those of `ids` that are still pending and adds each to its balance, all in one
    /// transaction; answers how many it confirmed (ids confirmed meanwhile by someone else are
    /// skipped). Rows are locked in id order, then accounts in member order.
    pub async fn confirm_movements(&self, ids: &[MovementId], at: i64) -> Result<u64> {
        let mut ids: Vec<&str> = ids.iter().map(MovementId::as_str).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut tx = self.db.pool().begin().await?;
        let mut per_member: BTreeMap<String, i64> = BTreeMap::new();
        let mut confirmed = 0;
        for id in ids {
            let row = sqlx::query(
                "UPDATE movements SET status = 'confirmed', updated_at = $1 \
                 WHERE id = $2 AND status = 'pending' RETURNING member_id, amount",
            )
            .bind(at)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(row) = row {
                let member_id: String = row.try_get("member_id")?;
                let amount: i64 = row.try_get("amount")?;
                *per_member.entry(member_id).or_default() += amount;
                confirmed += 1;
            }
        }
        for (member_id, amount) in &per_member {
            let updated = sqlx::query(
                "UPDATE club_accounts SET balance = balance + $1, updated_at = $2 \
                 WHERE member_id = $3 AND balance + $1 >= 0",
            )
            .bind(*amount)
            .bind(at)
            .bind(member_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if updated == 0 {
                tx.rollback().await?;
                return Err(AccountsError::InsufficientBalance);
            }
        }
        tx.commit().await?;
        Ok(confirmed)
    }

    /// Up to `limit` ids of pending accruals that occurred before `up_to`, in id order.
    pub async fn due_accruals(&self, up_to: i64, limit: i64) -> Result<Vec<MovementId>> {
        let rows = sqlx::query(
            "SELECT id FROM movements WHERE status = 'pending' AND occurred_at < $1 \
             ORDER BY id LIMIT $2",
        )
        .bind(up_to)
        .bind(limit)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("id")?;
                MovementId::parse(&id).map_err(|err| corrupt(&format!("movement {id}"), err))
            })
            .collect()
    }

    /// Every movement of the member, oldest first (pending included).
    pub async fn movements(&self, member_id: &MemberId) -> Result<Vec<Movement>> {
        let sql = format!(
            "SELECT {MOVEMENT_COLUMNS} FROM movements WHERE member_id = $1 \
             ORDER BY occurred_at, id"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(member_id.as_str())
            .fetch_all(self.db.pool())
            .await?;
        rows.iter().map(movement_from_row).collect()
    }

    /// The member's movements that occurred in `[from, to)`, newest first, `limit` of them
    /// after skipping `offset`. Served by the `(member_id, occurred_at)` index.
    pub async fn movements_between(
        &self,
        member_id: &MemberId,
        from: i64,
        to: i64,
        limit: u32,
        offset: i64,
    ) -> Result<Vec<Movement>> {
        let rows = sqlx::query(MONTH_PAGE_SQL)
            .bind(member_id.as_str())
            .bind(from)
            .bind(to)
            .bind(i64::from(limit))
            .bind(offset)
            .fetch_all(self.db.pool())
            .await?;
        rows.iter().map(movement_from_row).collect()
    }

    /// How many movements of the member occurred in `[from, to)`; the same index.
    pub async fn count_movements_between(
        &self,
        member_id: &MemberId,
        from: i64,
        to: i64,
    ) -> Result<i64> {
        let row = sqlx::query(MONTH_COUNT_SQL)
            .bind(member_id.as_str())
            .bind(from)
            .bind(to)
            .fetch_one(self.db.pool())
            .await?;
        Ok(row.try_get("n")?)
    }

    /// The plans of the two month queries ([`Store::movements_between`] and
    /// [`Store::count_movements_between`]) for these arguments, as the backend explains them:
    /// what tests and the benchmark check the `(member_id, occurred_at)` index against.
    pub async fn explain_month_queries(
        &self,
        member_id: &MemberId,
        from: i64,
        to: i64,
        limit: u32,
        offset: i64,
    ) -> Result<[String; 2]> {
        let (prefix, column) = match self.db.backend() {
            Backend::Postgres => ("EXPLAIN ", 0),
            Backend::Sqlite => ("EXPLAIN QUERY PLAN ", 3),
        };
        let page = sqlx::query(sqlx::AssertSqlSafe(format!("{prefix}{MONTH_PAGE_SQL}")))
            .bind(member_id.as_str())
            .bind(from)
            .bind(to)
            .bind(i64::from(limit))
            .bind(offset)
            .fetch_all(self.db.pool())
            .await?;
        let count = sqlx::query(sqlx::AssertSqlSafe(format!("{prefix}{MONTH_COUNT_SQL}")))
            .bind(member_id.as_str())
            .bind(from)
            .bind(to)
            .fetch_all(self.db.pool())
            .await?;
        let text = |rows: Vec<AnyRow>| -> Result<String> {
            let lines = rows
                .iter()
                .map(|row| row.try_get::<String, _>(column))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(lines.join("\n"))
        };
        Ok([text(page)?, text(count)?])
    }

    /// Sum of the member's confirmed movements: what the balance must equal.
    pub async fn confirmed_total(&self, member_id: &MemberId) -> Result<i64> {
        let row = sqlx::query(
            "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM movements \
             WHERE member_id = $1 AND status = 'confirmed'",
        )
        .bind(member_id.as_str())
        .fetch_one(self.db.pool())
        .await?;
        Ok(row.try_get("total")?)
    }
}

fn balance_from_row(row: &AnyRow) -> Result<Balance> {
    Balance::new(row.try_get("balance")?, row.try_get("updated_at")?)
        .map_err(|err| corrupt("club account", err))
}

fn movement_from_row(row: &AnyRow) -> Result<Movement> {
    let id: String = row.try_get("id")?;
    let read = || -> Result<Movement> {
        Movement::new(
            MovementId::parse(&id)?,
            MemberId::parse(&row.try_get::<String, _>("member_id")?)?,
            MovementKind::parse(&row.try_get::<String, _>("kind")?)?,
            MovementStatus::parse(&row.try_get::<String, _>("status")?)?,
            row.try_get("amount")?,
            Reason::parse(&row.try_get::<String, _>("reason")?)?,
            row.try_get("occurred_at")?,
        )
    };
    read().map_err(|err| match err {
        AccountsError::Database(err) => AccountsError::Database(err),
        other => corrupt(&format!("movement {id}"), other),
    })
}
