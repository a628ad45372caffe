//! Purchase posting: a purchase, its pending accrual and its outbox event written in one
//! transaction, idempotent by the order's key.

use miclub_accrual::Accrual;
use miclub_platform::storage::millis_to_rfc3339;

use super::super::{MemberId, MemberKey, PostedPurchase, PurchaseOrder};
use super::{Ledger, Movement, MovementId, MovementKind, MovementStatus};
use crate::error::{AccountsError, Result};

/// The event written to the outbox with a posted purchase, for missions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEvent {
    pub event_id: String,
    pub topic: &'static str,
    pub member_id: MemberId,
    /// JSON.
    pub payload: String,
}

impl OutboxEvent {
    pub const PURCHASE_POSTED: &str = "purchase.posted";
}

/// A purchase as it is written, with its accrual and its event.
#[derive(Debug, Clone)]
pub struct NewPurchase<'a> {
    pub order: &'a PurchaseOrder,
    pub purchase_id: String,
    pub digest: String,
    pub member_id: MemberId,
    pub accrual: &'a Accrual,
    /// The pending accrual; `None` when the purchase accrued nothing.
    pub movement: Option<Movement>,
    pub event: OutboxEvent,
}

/// A purchase already posted under an idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPurchase {
    pub digest: String,
    pub posted: PostedPurchase,
}

impl Ledger {
    /// The active member a store system names, by document or by scanned card, and whether
    /// they have a club account; `None` for nobody. A card exists only with its club account,
    /// so a number nobody (active) holds reads as an unknown document does.
    pub(super) async fn find_member(&self, key: &MemberKey) -> Result<Option<(MemberId, bool)>> {
        match key {
            MemberKey::Document(document) => {
                self.store.find_member_by_document(document.as_str()).await
            }
            MemberKey::Card(card) => Ok(self
                .store
                .find_member_by_card(card)
                .await?
                .map(|member_id| (member_id, true))),
        }
    }

    /// Posts a purchase: the purchase, its pending accrual and its outbox event in one
    /// transaction. A key already posted answers the stored answer (`replayed`) when the
    /// payload is the same, [`AccountsError::IdempotencyMismatch`] otherwise; that includes the
    /// concurrent duplicate, whose insert fails on the key once the first one commits.
    pub async fn post_purchase(&self, order: &PurchaseOrder, now: i64) -> Result<PostedPurchase> {
        let digest = order.digest();
        // A new key is the common case, so the key is not looked up first: the insert refuses a
        // taken one. A replay whose member is gone or lost their club account since must still
        // get its stored answer, so a refusal of the member looks the key up before it answers.
        let member = match self.find_member(order.member()).await? {
            None => Err(AccountsError::MemberNotFound),
            Some((_, false)) => Err(AccountsError::NoClubAccount),
            Some((member_id, true)) => Ok(member_id),
        };
        let member_id = match member {
            Ok(member_id) => member_id,
            Err(refusal) => {
                return match self.store.find_purchase(order.key()).await? {
                    Some(stored) => replay(stored, &digest),
                    None => Err(refusal),
                };
            }
        };
        let accrual = self.rules.accrue(order.purchase());
        let movement = if accrual.total > 0 {
            Some(Movement::new(
                MovementId::generate(),
                member_id.clone(),
                MovementKind::Accrual,
                MovementStatus::Pending,
                accrual.total,
                order.reason()?,
                order.purchased_at(),
            )?)
        } else {
            None
        };
        let purchase_id = uuid::Uuid::new_v4().to_string();
        let event_id = uuid::Uuid::new_v4().to_string();
        let payload = serde_json::json!({
            "event_id": event_id,
            "purchase_id": purchase_id,
            "member_id": member_id.as_str(),
            "purchased_at": millis_to_rfc3339(order.purchased_at()),
            "lines": order.lines(),
            "total": order.total(),
            "accrued": accrual.total,
        });
        let posted = PostedPurchase {
            purchase_id: purchase_id.clone(),
            movement_id: movement.as_ref().map(|m| m.id().clone()),
            accrued: accrual.total,
            rules_version: accrual.rules_version.clone(),
            replayed: false,
        };
        let purchase = NewPurchase {
            order,
            purchase_id,
            digest: digest.clone(),
            member_id: member_id.clone(),
            accrual: &accrual,
            movement,
            event: OutboxEvent {
                event_id,
                topic: OutboxEvent::PURCHASE_POSTED,
                member_id,
                payload: payload.to_string(),
            },
        };
        if self.store.insert_purchase(&purchase, now).await? {
            tracing::info!(
                purchase_id = %posted.purchase_id,
                accrued = posted.accrued,
                rules_version = %posted.rules_version,
                "purchase posted"
            );
            return Ok(posted);
        }
        // The key is taken: a retry of an earlier post, or a concurrent duplicate.
        let stored = self
            .store
            .find_purchase(order.key())
            .await?
            .ok_or_else(|| AccountsError::CorruptRecord("purchase key taken but absent".into()))?;
        replay(stored, &digest)
    }
}

/// The stored answer of an earlier post of the same key, if the payload is the same.
fn replay(stored: StoredPurchase, digest: &str) -> Result<PostedPurchase> {
    if stored.digest != digest {
        return Err(AccountsError::IdempotencyMismatch);
    }
    Ok(PostedPurchase {
        replayed: true,
        ..stored.posted
    })
}
