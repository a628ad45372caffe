//! The Mi Club accrual rule engine: how many pesos a purchase earns.
//!
//! One engine serves purchase posting (accounts) and the simulator (content), so the
//! simulator's estimate is exactly what the same purchase accrues. It is a pure library: no IO,
//! no clock; the caller says on which day the purchase happened ([`weekday_in_chile`] turns an
//! instant into that day).
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
//! The resulting [`Accrual`] records the rules version and, per line, the rate, the pesos, the
//! rule applied and its Spanish description, so a stored accrual explains itself later.

mod purchase;
mod rules;

use chrono::{DateTime, Datelike, Utc, Weekday};

pub use purchase::{Category, MAX_TOTAL, PaymentMethod, Purchase, PurchaseError, PurchaseLine};
pub use rules::{Accrual, FULL_RATE_BP, LineAccrual, Rule, RuleSet, RulesError};

/// The day of the week of `instant` in Chile (America/Santiago, daylight saving included):
/// the day a purchase counts for, whatever the server's time zone.
pub fn weekday_in_chile(instant: DateTime<Utc>) -> Weekday {
    instant
        .with_timezone(&chrono_tz::America::Santiago)
        .weekday()
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn two_in_the_morning_utc_on_tuesday_is_still_monday_in_santiago() {
        // November is summer time in Chile, UTC-3.
        let instant = Utc.with_ymd_and_hms(2026, 11, 3, 2, 0, 0).unwrap();
        assert_eq!(instant.weekday(), Weekday::Tue);
        assert_eq!(weekday_in_chile(instant), Weekday::Mon);
    }

    #[test]
    fn the_day_changes_at_midnight_in_santiago_not_in_utc() {
        let last_minute = Utc.with_ymd_and_hms(2026, 11, 3, 2, 59, 59).unwrap();
        let next_day = Utc.with_ymd_and_hms(2026, 11, 3, 3, 0, 0).unwrap();
        assert_eq!(weekday_in_chile(last_minute), Weekday::Mon);
        assert_eq!(weekday_in_chile(next_day), Weekday::Tue);
    }

    #[test]
    fn in_winter_santiago_is_four_hours_behind_utc() {
        // 2026-07-07 is a Tuesday; winter time is UTC-4, so 03:30Z is Monday 23:30.
        let instant = Utc.with_ymd_and_hms(2026, 7, 7, 3, 30, 0).unwrap();
        assert_eq!(weekday_in_chile(instant), Weekday::Mon);
        let instant = Utc.with_ymd_and_hms(2026, 7, 7, 4, 0, 0).unwrap();
        assert_eq!(weekday_in_chile(instant), Weekday::Tue);
    }
}
