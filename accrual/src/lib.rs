//! The Mi Club accrual rule engine: how many pesos a purchase earns.
//!
//! One engine serves purchase posting (accounts) and the simulator (content), so the
//! simulator's estimate is exactly what the same purchase accrues. It is a pure library: no IO,
//! no clock; the caller says on which day the purchase happened (platform's
//! `calendar::weekday_at` turns an instant into that day in Chile).
//!
//! The rules are data, a TOML file read by [`RuleSet::from_toml`]; [`RuleSet::builtin`] is the
//! club's current file, `rules/default.toml`. The semantics:
//!
//! - Every [`PurchaseLine`] is accrued on its own, as `floor(amount * rate_bp / 10_000)` pesos
//!   (rates in basis points, 100 bp = 1%, computed in `i128` so nothing overflows).
//! - A rule has optional conditions on the weekday, the payment method and the category; an
//!   absent condition matches anything, and a line qualifies for a rule when all of its
//!   conditions match.
//! - A line earns at the single best qualifying rule (the highest rate; between equal rates the
//!   one written first) or, when no rule qualifies, at the base rate. Rules never stack.
//! - Every rule pays more than the base rate (a file where one does not is refused), so the
//!   best qualifying rule always beats the base.
//! - When the payment method is unknown (the simulator asks before paying), only rules without
//!   a payment condition can qualify.
//!
//! - `[[discounts]]` are price discounts at the till (the Monday 6% with the partner card), not
//!   accumulation: [`RuleSet::discount`] names the best one for a whole purchase, and
//!   [`RuleSet::accrue`] never counts it.
//!
//! The resulting [`Accrual`] records the rules version and, per line, the rate, the pesos, the
//! rule applied and its Spanish description, so a stored accrual explains itself later.

mod purchase;
mod rules;

pub use purchase::{Category, MAX_TOTAL, PaymentMethod, Purchase, PurchaseError, PurchaseLine};
pub use rules::{Accrual, Discount, FULL_RATE_BP, LineAccrual, Rule, RuleSet, RulesError};
