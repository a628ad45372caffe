//! A movement explained (#21, "every peso explained"): the movement itself, when it was or will
//! be confirmed, and for a purchase's accrual the purchase and the accrual as the rule engine
//! computed it when the purchase was posted.
//!
//! The explanation is never recomputed: posting stores the engine's [`Accrual`] (rules version,
//! and per line the category, the pesos paid, the rate, the rule and the pesos earned) with the
//! purchase, and this reads it back, so a later change of the rule file cannot rewrite what a
//! member was told. Purchases posted before explanations were stored read with no breakdown.
//!
//! Who may read: a member reads only their own movements ([`Ledger::movement_detail`]); a store
//! system names the member by document or scanned card as it does when posting
//! ([`Ledger::movement_detail_of_member`]). Another member's movement is not found, exactly
//! like one that does not exist, so an id never tells whether it is someone else's.

use chrono::{DateTime, Weekday};
use miclub_accrual::{Accrual, PaymentMethod};
use miclub_platform::calendar;

use super::super::{MemberId, MemberKey};
use super::{Ledger, Movement, MovementId, MovementStatus};
use crate::error::{AccountsError, Result};

/// The purchase behind an accrual, as it was posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurchaseExplanation {
    pub purchase_id: String,
    pub store_name: String,
    /// Unix milliseconds.
    pub purchased_at: i64,
    pub payment: PaymentMethod,
    /// Whole pesos paid.
    pub total: i64,
    /// Pesos accrued: the movement's amount.
    pub accrued: i64,
    /// Version of the rules that posted it.
    pub rules_version: String,
    /// The engine's accrual stored at posting; `None` for purchases posted before it was.
    pub accrual: Option<Accrual>,
}

impl PurchaseExplanation {
    /// The day of the purchase in Chile, the day the rules looked at.
    pub fn weekday(&self) -> Weekday {
        DateTime::from_timestamp_millis(self.purchased_at)
            .map(calendar::weekday_at)
            .unwrap_or(Weekday::Mon)
    }
}

/// A movement with what explains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovementDetail {
    pub movement: Movement,
    /// When a confirmed movement counted in the balance (Unix milliseconds): the confirmation
    /// of an accrual, or the recording of any other movement.
    pub confirmed_at: Option<i64>,
    /// When a pending accrual is due to confirm: the end of its purchase's return window.
    pub confirms_at: Option<i64>,
    /// The purchase of an accrual; `None` for any other movement.
    pub purchase: Option<PurchaseExplanation>,
}

/// A movement as stored, with its last change and its purchase (the store's read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMovementDetail {
    pub movement: Movement,
    /// Unix milliseconds of the row's last change (the confirmation, for a confirmed accrual).
    pub updated_at: i64,
    pub purchase: Option<PurchaseExplanation>,
}

impl Ledger {
    /// The caller's own movement `raw_id`, explained. A malformed id is refused under
    /// `movement_id` with a Spanish text; an unknown id and another member's movement are both
    /// [`AccountsError::MovementNotFound`].
    pub async fn movement_detail(
        &self,
        member_id: &MemberId,
        raw_id: &str,
    ) -> Result<MovementDetail> {
        let id = parse_movement_id(raw_id)?;
        let stored = self
            .store
            .movement_detail(member_id, &id)
            .await?
            .ok_or(AccountsError::MovementNotFound)?;
        Ok(self.explain(stored))
    }

    /// A store system's read: the movement `raw_id` of the active member named by `member`
    /// (document or scanned card, as when posting). Nobody by that key, and a movement that is
    /// not that member's, are both [`AccountsError::MovementNotFound`].
    pub async fn movement_detail_of_member(
        &self,
        member: &MemberKey,
        raw_id: &str,
    ) -> Result<MovementDetail> {
        let id = parse_movement_id(raw_id)?;
        let Some((member_id, _)) = self.find_member(member).await? else {
            return Err(AccountsError::MovementNotFound);
        };
        let stored = self
            .store
            .movement_detail(&member_id, &id)
            .await?
            .ok_or(AccountsError::MovementNotFound)?;
        Ok(self.explain(stored))
    }

    fn explain(&self, stored: StoredMovementDetail) -> MovementDetail {
        let (confirmed_at, confirms_at) = match stored.movement.status() {
            MovementStatus::Confirmed => (Some(stored.updated_at), None),
            MovementStatus::Pending => (
                None,
                Some(
                    stored
                        .movement
                        .occurred_at()
                        .saturating_add(self.return_window_ms),
                ),
            ),
        };
        MovementDetail {
            movement: stored.movement,
            confirmed_at,
            confirms_at,
            purchase: stored.purchase,
        }
    }
}

/// The id of a movement in a request, or the Spanish refusal of a malformed one.
fn parse_movement_id(raw: &str) -> Result<MovementId> {
    MovementId::parse(raw).map_err(|_| {
        AccountsError::invalid_field(
            "movement_id",
            "El movimiento indicado no es válido. Revisa el enlace e intenta de nuevo.",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_movement_id_is_refused_in_spanish_under_its_field() {
        for bad in ["", "a/b", "../x", &"x".repeat(65), "id con espacio", "ñ"] {
            match parse_movement_id(bad) {
                Err(AccountsError::InvalidField { field, message }) => {
                    assert_eq!(field, "movement_id");
                    assert!(message.starts_with("El movimiento"), "{message}");
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        assert!(parse_movement_id("0b5e7c2e-8d1c-4a4b-9a57-1f0e2c3d4e5f").is_ok());
    }

    #[test]
    fn the_weekday_of_a_purchase_is_the_day_in_chile() {
        let explanation = PurchaseExplanation {
            purchase_id: "p".into(),
            store_name: "Lider".into(),
            // Tuesday 2026-11-03 at 23:30 in Chile is already Wednesday in UTC.
            purchased_at: super::super::instant("2026-11-04T02:30:00Z"),
            payment: PaymentMethod::Cash,
            total: 1,
            accrued: 0,
            rules_version: "v".into(),
            accrual: None,
        };
        assert_eq!(explanation.weekday(), Weekday::Tue);
    }
}
