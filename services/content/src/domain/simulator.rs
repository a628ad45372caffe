//! The accumulation simulator: the pesos a cart would earn on a weekday, computed by the same
//! rule engine (`miclub-accrual`) and the same rule data as purchase posting in accounts.
//!
//! [`Simulation::new`] validates the form (weekday 1–7, each amount 0 to $10.000.000, at least
//! one above 0) and refuses with the form's field name and a Spanish message; the cart then
//! becomes an accrual [`Purchase`] exactly as a till would post it: one line per category with
//! an amount, paid with the partner card (Lider BCI) or another card. A price discount (the
//! Monday bank-card offer) is answered apart by [`Simulation::discount`], never as pesos earned.

use chrono::Weekday;
use miclub_accrual::{Accrual, Category, Discount, PaymentMethod, Purchase, PurchaseLine, RuleSet};

use crate::error::{ContentError, Result};

/// The largest amount per category, in pesos.
pub const MAX_AMOUNT: i64 = 10_000_000;

/// A valid simulator form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simulation {
    purchase: Purchase,
}

impl Simulation {
    /// `week_day` is 1 (Monday) to 7 (Sunday); `amounts` are whole pesos in the order of
    /// [`Category::ALL`] (meat, fruits and vegetables, cleaning, drinks, other).
    pub fn new(week_day: i32, amounts: [i64; 5], partner_card: bool) -> Result<Self> {
        let weekday = weekday(week_day).ok_or(ContentError::invalid_input(
            "weekDay",
            "Elige un día de la semana.",
        ))?;
        for (category, amount) in Category::ALL.into_iter().zip(amounts) {
            if amount < 0 {
                return Err(ContentError::invalid_input(
                    amount_field(category),
                    "El monto no puede ser negativo.",
                ));
            }
            if amount > MAX_AMOUNT {
                return Err(ContentError::invalid_input(
                    amount_field(category),
                    "El monto máximo por categoría es $10.000.000.",
                ));
            }
        }
        let lines: Vec<PurchaseLine> = Category::ALL
            .into_iter()
            .zip(amounts)
            .filter(|(_, amount)| *amount > 0)
            .map(|(category, amount)| PurchaseLine { category, amount })
            .collect();
        if lines.is_empty() {
            return Err(ContentError::invalid_input(
                amount_field(Category::Meat),
                "Ingresa al menos un monto.",
            ));
        }
        let payment = if partner_card {
            PaymentMethod::PartnerCard
        } else {
            PaymentMethod::OtherCard
        };
        // At most five lines of $10.000.000 each: far below the engine's limit.
        let purchase = Purchase::new(weekday, Some(payment), lines)
            .map_err(|_| ContentError::invalid("lines", "cart beyond the engine's limits"))?;
        Ok(Self { purchase })
    }

    /// The cart as the rule engine sees it.
    pub fn purchase(&self) -> &Purchase {
        &self.purchase
    }

    /// What the cart earns under `rules`.
    pub fn run(&self, rules: &RuleSet) -> Accrual {
        rules.accrue(&self.purchase)
    }

    /// The price discount the cart gets at the till under `rules` (the Monday bank-card
    /// offer): shown apart, never added to what it earns.
    pub fn discount(&self, rules: &RuleSet) -> Option<Discount> {
        rules.discount(&self.purchase)
    }
}

/// 1 = Monday … 7 = Sunday, as the simulator form numbers the days.
fn weekday(number: i32) -> Option<Weekday> {
    match number {
        1 => Some(Weekday::Mon),
        2 => Some(Weekday::Tue),
        3 => Some(Weekday::Wed),
        4 => Some(Weekday::Thu),
        5 => Some(Weekday::Fri),
        6 => Some(Weekday::Sat),
        7 => Some(Weekday::Sun),
        _ => None,
    }
}

/// The form's field of a category's amount.
pub fn amount_field(category: Category) -> &'static str {
    match category {
        Category::Meat => "meatAmount",
        Category::FruitsAndVegetables => "fruitsAndVegetablesAmount",
        Category::Cleaning => "cleaningAmount",
        Category::Drinks => "drinksAmount",
        Category::Other => "otherAmount",
    }
}

/// The category's name in the API (`SimulatedLine.category`).
pub fn category_name(category: Category) -> &'static str {
    match category {
        Category::Meat => "meat",
        Category::FruitsAndVegetables => "fruits_and_vegetables",
        Category::Cleaning => "cleaning",
        Category::Drinks => "drinks",
        Category::Other => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(result: Result<Simulation>) -> (&'static str, &'static str) {
        match result {
            Err(ContentError::InvalidInput { field, message }) => (field, message),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn days_are_numbered_from_monday_to_sunday() {
        assert_eq!(weekday(1), Some(Weekday::Mon));
        assert_eq!(weekday(3), Some(Weekday::Wed));
        assert_eq!(weekday(7), Some(Weekday::Sun));
        for out in [0, 8, -1, i32::MAX, i32::MIN] {
            assert_eq!(weekday(out), None, "{out}");
        }
    }

    #[test]
    fn only_categories_with_an_amount_become_lines_in_form_order() {
        let simulation = Simulation::new(2, [0, 5_000, 0, 1_000, 0], true).unwrap();
        let purchase = simulation.purchase();
        assert_eq!(purchase.weekday(), Weekday::Tue);
        assert_eq!(purchase.payment(), Some(PaymentMethod::PartnerCard));
        let lines: Vec<(Category, i64)> = purchase
            .lines()
            .iter()
            .map(|line| (line.category, line.amount))
            .collect();
        assert_eq!(
            lines,
            vec![
                (Category::FruitsAndVegetables, 5_000),
                (Category::Drinks, 1_000)
            ]
        );
        let other_card = Simulation::new(2, [1, 0, 0, 0, 0], false).unwrap();
        assert_eq!(
            other_card.purchase().payment(),
            Some(PaymentMethod::OtherCard)
        );
    }

    #[test]
    fn the_limits_of_an_amount_are_zero_and_ten_million_inclusive() {
        assert!(Simulation::new(1, [MAX_AMOUNT; 5], true).is_ok());
        assert_eq!(
            refusal(Simulation::new(1, [0, 0, MAX_AMOUNT + 1, 0, 0], true)),
            (
                "cleaningAmount",
                "El monto máximo por categoría es $10.000.000."
            )
        );
        assert_eq!(
            refusal(Simulation::new(1, [0, 0, 0, 0, -1], true)),
            ("otherAmount", "El monto no puede ser negativo.")
        );
    }

    #[test]
    fn the_monday_partner_card_offer_is_a_discount_apart_from_the_pesos_earned() {
        let rules = RuleSet::builtin();
        let simulation = Simulation::new(1, [10_000, 0, 0, 0, 0], true).unwrap();
        let accrual = simulation.run(&rules);
        assert_eq!(accrual.total, 90);
        assert_eq!(accrual.lines[0].rate_bp, 90);
        let discount = simulation.discount(&rules).expect("the monday discount");
        assert_eq!((discount.pesos, discount.rate_bp), (600, 600));
        let other_card = Simulation::new(1, [10_000, 0, 0, 0, 0], false).unwrap();
        assert_eq!(other_card.discount(&rules), None);
    }
}
