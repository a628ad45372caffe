//! The ledger of a club account: movements in whole pesos, the balance they add up to, and
//! its use cases ([`Ledger`]): the member's movements by calendar month in Chile, purchase
//! posting, back-office movements and the confirmation of accruals once the return window of
//! their purchase has closed.
//!
//! Invariants (also enforced by the schema): accruals add (`amount > 0`), redemptions and
//! expirations take (`amount < 0`), adjustments go either way (`amount != 0`); only accruals
//! can be pending, and pending movements do not count in the balance until confirmed. The
//! balance is never negative and always equals the sum of the confirmed movements.
//!
//! One file per responsibility: the movement model ([`movement`]), the balance ([`balance`]),
//! which months a member may browse ([`month`]) and the pages of one
//! ([`browsing`]), purchase posting ([`posting`]), back-office movements ([`manual`]), the
//! confirmation of due accruals ([`confirmation`]) and a movement explained ([`detail`]). Each use case is an `impl Ledger` block
//! in the file of its responsibility.

mod balance;
mod browsing;
mod confirmation;
mod detail;
mod manual;
mod month;
mod movement;
mod posting;

use std::sync::Arc;

use miclub_accrual::RuleSet;

use crate::store::Store;

pub use balance::Balance;
pub use browsing::{MovementsPage, PageRequest};
pub use detail::{MovementDetail, PurchaseExplanation, StoredMovementDetail};
pub use manual::{ManualMovement, RecordedMovement};
pub use month::{Month, requested_month};
pub use movement::{Movement, MovementId, MovementKind, MovementStatus, Reason, parse_instant};
pub use posting::{NewPurchase, OutboxEvent, StoredPurchase};

/// The ledger's use cases: the member's movements by month, purchase posting, back-office
/// movements and the confirmation of due accruals.
#[derive(Debug, Clone)]
pub struct Ledger {
    store: Store,
    rules: Arc<RuleSet>,
    /// How long after its purchase a pending accrual confirms (the return window), in
    /// milliseconds: what a pending movement's detail says.
    return_window_ms: i64,
}

impl Ledger {
    /// The return window a ledger assumes until told otherwise: the configuration's default.
    const DEFAULT_RETURN_WINDOW_MS: i64 = 14 * 24 * 60 * 60 * 1_000;

    pub fn new(store: Store, rules: Arc<RuleSet>) -> Self {
        Self {
            store,
            rules,
            return_window_ms: Self::DEFAULT_RETURN_WINDOW_MS,
        }
    }

    /// The same ledger with the configured return window (`accrual.return_window_days`).
    pub fn with_return_window(self, window: std::time::Duration) -> Self {
        Self {
            return_window_ms: i64::try_from(window.as_millis()).unwrap_or(i64::MAX),
            ..self
        }
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }
}

/// `raw` (RFC 3339) in Unix milliseconds, for the tests' instants.
#[cfg(test)]
fn instant(raw: &str) -> i64 {
    parse_instant("at", raw).unwrap()
}
