//! A purchase as the engine sees it: the day, how it was paid and its lines by category.
//!
//! [`Purchase::new`] is the only way to build one, so an accrual is never computed on an empty
//! purchase, a zero or negative line, or a total beyond [`MAX_TOTAL`].

use chrono::Weekday;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The largest purchase total accepted, in pesos: far above any real basket, low enough that
/// no arithmetic on it can overflow.
pub const MAX_TOTAL: i64 = 1_000_000_000;

/// Product category of a purchase line, the granularity of category rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Meat,
    FruitsAndVegetables,
    Cleaning,
    Drinks,
    Other,
}

impl Category {
    /// Every category, in the order the simulator shows them.
    pub const ALL: [Category; 5] = [
        Category::Meat,
        Category::FruitsAndVegetables,
        Category::Cleaning,
        Category::Drinks,
        Category::Other,
    ];

    /// The name a member reads.
    pub fn label(self) -> &'static str {
        match self {
            Category::Meat => "Carnes",
            Category::FruitsAndVegetables => "Frutas y verduras",
            Category::Cleaning => "Limpieza",
            Category::Drinks => "Bebidas",
            Category::Other => "Otros",
        }
    }
}

/// How a purchase was paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentMethod {
    /// The club's partner bank card (Lider BCI).
    PartnerCard,
    OtherCard,
    Cash,
}

/// The part of a purchase in one category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurchaseLine {
    pub category: Category,
    /// Whole pesos, positive.
    pub amount: i64,
}

/// Why a purchase was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PurchaseError {
    #[error("a purchase needs at least one line")]
    NoLines,
    #[error("line {index} has amount {amount}: amounts must be positive")]
    NonPositiveAmount { index: usize, amount: i64 },
    #[error("purchase total exceeds {MAX_TOTAL} pesos")]
    TotalTooLarge,
}

/// A validated purchase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "UncheckedPurchase")]
pub struct Purchase {
    weekday: Weekday,
    /// `None`: unknown (a simulation), so payment-method rules do not apply.
    payment: Option<PaymentMethod>,
    /// Non-empty, every amount positive.
    lines: Vec<PurchaseLine>,
    /// Sum of the line amounts, at most [`MAX_TOTAL`].
    total: i64,
}

impl Purchase {
    /// Validates a purchase: at least one line, every amount positive, total at most
    /// [`MAX_TOTAL`]. `payment` is `None` when unknown (the simulator): then only rules without
    /// a payment condition apply.
    pub fn new(
        weekday: Weekday,
        payment: Option<PaymentMethod>,
        lines: Vec<PurchaseLine>,
    ) -> Result<Purchase, PurchaseError> {
        if lines.is_empty() {
            return Err(PurchaseError::NoLines);
        }
        let mut total: i64 = 0;
        for (index, line) in lines.iter().enumerate() {
            if line.amount <= 0 {
                return Err(PurchaseError::NonPositiveAmount {
                    index,
                    amount: line.amount,
                });
            }
            total = total
                .checked_add(line.amount)
                .filter(|total| *total <= MAX_TOTAL)
                .ok_or(PurchaseError::TotalTooLarge)?;
        }
        Ok(Purchase {
            weekday,
            payment,
            lines,
            total,
        })
    }

    /// The day of the purchase in Chile.
    pub fn weekday(&self) -> Weekday {
        self.weekday
    }

    /// Sum of the lines, in pesos.
    pub fn total(&self) -> i64 {
        self.total
    }

    pub fn lines(&self) -> &[PurchaseLine] {
        &self.lines
    }

    pub fn payment(&self) -> Option<PaymentMethod> {
        self.payment
    }
}

/// The serialized form of a [`Purchase`], validated again on the way in.
#[derive(Deserialize)]
struct UncheckedPurchase {
    weekday: Weekday,
    payment: Option<PaymentMethod>,
    lines: Vec<PurchaseLine>,
}

impl TryFrom<UncheckedPurchase> for Purchase {
    type Error = PurchaseError;

    fn try_from(unchecked: UncheckedPurchase) -> Result<Self, Self::Error> {
        Purchase::new(unchecked.weekday, unchecked.payment, unchecked.lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(category: Category, amount: i64) -> PurchaseLine {
        PurchaseLine { category, amount }
    }

    #[test]
    fn a_purchase_totals_its_lines() {
        let purchase = Purchase::new(
            Weekday::Mon,
            Some(PaymentMethod::Cash),
            vec![line(Category::Meat, 10_000), line(Category::Drinks, 2_500)],
        )
        .unwrap();
        assert_eq!(purchase.total(), 12_500);
        assert_eq!(purchase.lines().len(), 2);
        assert_eq!(purchase.payment(), Some(PaymentMethod::Cash));
        assert_eq!(purchase.weekday(), Weekday::Mon);
    }

    #[test]
    fn a_purchase_without_lines_is_refused() {
        assert_eq!(
            Purchase::new(Weekday::Mon, None, vec![]),
            Err(PurchaseError::NoLines)
        );
    }

    #[test]
    fn a_zero_or_negative_line_is_refused_naming_the_line() {
        let lines = vec![line(Category::Meat, 100), line(Category::Other, 0)];
        assert_eq!(
            Purchase::new(Weekday::Mon, None, lines),
            Err(PurchaseError::NonPositiveAmount {
                index: 1,
                amount: 0
            })
        );
        let lines = vec![line(Category::Meat, -5)];
        assert!(matches!(
            Purchase::new(Weekday::Mon, None, lines),
            Err(PurchaseError::NonPositiveAmount { index: 0, .. })
        ));
    }

    #[test]
    fn a_total_of_exactly_the_limit_is_accepted_and_one_peso_more_is_refused() {
        let at_limit = vec![
            line(Category::Meat, MAX_TOTAL - 1),
            line(Category::Other, 1),
        ];
        assert_eq!(
            Purchase::new(Weekday::Mon, None, at_limit).unwrap().total(),
            MAX_TOTAL
        );
        let over = vec![line(Category::Meat, MAX_TOTAL), line(Category::Other, 1)];
        assert_eq!(
            Purchase::new(Weekday::Mon, None, over),
            Err(PurchaseError::TotalTooLarge)
        );
        let overflowing = vec![
            line(Category::Meat, i64::MAX),
            line(Category::Other, i64::MAX),
        ];
        assert_eq!(
            Purchase::new(Weekday::Mon, None, overflowing),
            Err(PurchaseError::TotalTooLarge)
        );
    }

    #[test]
    fn categories_and_payment_methods_serialize_in_snake_case() {
        assert_eq!(
            serde_json::to_string(&Category::FruitsAndVegetables).unwrap(),
            "\"fruits_and_vegetables\""
        );
        assert_eq!(
            serde_json::to_string(&PaymentMethod::PartnerCard).unwrap(),
            "\"partner_card\""
        );
    }

    #[test]
    fn a_deserialized_purchase_is_validated_like_a_new_one() {
        let purchase = Purchase::new(
            Weekday::Fri,
            Some(PaymentMethod::OtherCard),
            vec![line(Category::Drinks, 3_000)],
        )
        .unwrap();
        let json = serde_json::to_string(&purchase).unwrap();
        assert_eq!(serde_json::from_str::<Purchase>(&json).unwrap(), purchase);
        let forged = json.replace("3000", "-3000");
        assert!(serde_json::from_str::<Purchase>(&forged).is_err());
    }
}
