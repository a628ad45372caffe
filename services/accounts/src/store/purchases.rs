//! Purchases in storage: the purchase row (with the accrual the rule engine computed for it, the
//! explanation Mis Movimientos shows), its pending accrual and its outbox event, written in one
//! transaction, and the lookups that make posting idempotent.
//!
//! The purchase row goes first, so a duplicate idempotency key fails before anything else is
//! written; on PostgreSQL a concurrent duplicate waits on the key's index entry until the first
//! transaction ends, then fails (or goes ahead if the first rolled back).

use miclub_platform::storage::is_unique_violation;
use sqlx::Row;

use miclub_accrual::Accrual;

use super::{Store, corrupt};
use crate::domain::{
    IdempotencyKey, MemberId, MovementId, NewPurchase, OrderLine, PostedPurchase, StoredPurchase,
    payment_method_str,
};
use crate::error::{AccountsError, Result};

impl Store {
    /// The active member holding this document (canonical form) and whether they have a club
    /// account. A pending or unsubscribed member is nobody a store can post a purchase to.
    pub async fn find_member_by_document(
        &self,
        document: &str,
    ) -> Result<Option<(MemberId, bool)>> {
        let row = sqlx::query(
            "SELECT m.member_id, (a.member_id IS NOT NULL) AS has_club_account \
             FROM members m LEFT JOIN club_accounts a ON a.member_id = m.member_id \
             WHERE m.document_number = $1 AND m.status = 'active'",
        )
        .bind(document)
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| -> Result<(MemberId, bool)> {
            let id: String = row.try_get("member_id")?;
            let member_id =
                MemberId::parse(&id).map_err(|err| corrupt(&format!("member {id}"), err.into()))?;
            Ok((
                member_id,
                miclub_platform::storage::flag(&row, "has_club_account")?,
            ))
        })
        .transpose()
    }

    /// The purchase posted under `key`, with the digest of its payload and its answer.
    pub async fn find_purchase(&self, key: &IdempotencyKey) -> Result<Option<StoredPurchase>> {
        let row = sqlx::query(
            "SELECT purchase_id, request_digest, movement_id, accrued, rules_version \
             FROM purchases WHERE idempotency_key = $1",
        )
        .bind(key.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.map(|row| -> Result<StoredPurchase> {
            let purchase_id: String = row.try_get("purchase_id")?;
            let movement_id: Option<String> = row.try_get("movement_id")?;
            let movement_id = movement_id
                .as_deref()
                .map(MovementId::parse)
                .transpose()
                .map_err(|err| corrupt(&format!("purchase {purchase_id}"), err))?;
            Ok(StoredPurchase {
                digest: row.try_get("request_digest")?,
                posted: PostedPurchase {
                    purchase_id,
                    movement_id,
                    accrued: row.try_get("accrued")?,
                    rules_version: row.try_get("rules_version")?,
                    replayed: false,
                },
            })
        })
        .transpose()
    }

    /// The lines of a posted purchase as stored; lines written before product categories
    /// existed read as unknown (0).
    pub async fn purchase_lines(&self, purchase_id: &str) -> Result<Option<Vec<OrderLine>>> {
        let row = sqlx::query("SELECT lines FROM purchases WHERE purchase_id = $1")
            .bind(purchase_id)
            .fetch_optional(self.db.pool())
            .await?;
        row.map(|row| -> Result<Vec<OrderLine>> {
            let lines: String = row.try_get("lines")?;
            OrderLine::parse_stored(&lines)
        })
        .transpose()
    }

    /// Writes the purchase, its pending accrual (when it accrued anything) and its outbox event
    /// in one transaction. Answers `false`, having written nothing, when the idempotency key is
    /// already taken; [`AccountsError::NoClubAccount`] when the member has no club account.
    pub async fn insert_purchase(&self, purchase: &NewPurchase<'_>, at: i64) -> Result<bool> {
        let order = purchase.order;
        let mut tx = self.db.pool().begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO purchases (purchase_id, idempotency_key, request_digest, member_id, \
             store_id, store_name, purchased_at, payment_method, lines, total, accrued, \
             rules_version, movement_id, created_at, accrual) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(&purchase.purchase_id)
        .bind(order.key().as_str())
        .bind(&purchase.digest)
        .bind(purchase.member_id.as_str())
        .bind(order.store_id().as_str())
        .bind(order.store_name().as_str())
        .bind(order.purchased_at())
        .bind(payment_method_str(order.payment()))
        .bind(order.lines_json())
        .bind(order.total())
        .bind(purchase.accrual.total)
        .bind(&purchase.accrual.rules_version)
        .bind(
            purchase
                .movement
                .as_ref()
                .map(|m| m.id().as_str().to_owned()),
        )
        .bind(at)
        .bind(accrual_json(purchase.accrual)?)
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(err) if is_unique_violation(&err) => {
                tx.rollback().await?;
                return Ok(false);
            }
            Err(err) => {
                tx.rollback().await?;
                return Err(err.into());
            }
        }
        if let Some(movement) = &purchase.movement {
            let inserted = sqlx::query(
                "INSERT INTO movements (id, member_id, kind, status, amount, reason, \
                 occurred_at, created_at, updated_at) \
                 SELECT $1, member_id, $2, $3, $4, $5, $6, $7, $7 FROM club_accounts \
                 WHERE member_id = $8",
            )
            .bind(movement.id().as_str())
            .bind(movement.kind().as_str())
            .bind(movement.status().as_str())
            .bind(movement.amount())
            .bind(movement.reason().as_str())
            .bind(movement.occurred_at())
            .bind(at)
            .bind(movement.member_id().as_str())
            .execute(&mut *tx)
            .await?;
            if inserted.rows_affected() == 0 {
                tx.rollback().await?;
                return Err(AccountsError::NoClubAccount);
            }
        }
        let event = &purchase.event;
        sqlx::query(
            "INSERT INTO outbox (event_id, topic, member_id, payload, created_at, published_at) \
             VALUES ($1, $2, $3, $4, $5, NULL)",
        )
        .bind(&event.event_id)
        .bind(event.topic)
        .bind(event.member_id.as_str())
        .bind(&event.payload)
        .bind(at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }
}

/// The stored form of an accrual (the `purchases.accrual` column): the engine's own JSON.
pub(super) fn accrual_json(accrual: &Accrual) -> Result<String> {
    serde_json::to_string(accrual)
        .map_err(|err| AccountsError::CorruptRecord(format!("accrual not serialisable: {err}")))
}

/// An accrual as stored; `None` (no column value) for purchases posted before it was stored.
pub(super) fn accrual_from_json(purchase_id: &str, json: Option<&str>) -> Result<Option<Accrual>> {
    json.map(|json| {
        serde_json::from_str(json).map_err(|err| {
            AccountsError::CorruptRecord(format!("purchase {purchase_id} accrual: {err}"))
        })
    })
    .transpose()
}
