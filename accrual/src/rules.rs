//! Accrual rules as data: the TOML rule file, its validation, and [`RuleSet::accrue`], which
//! applies them to a purchase (the semantics are in the crate header).
//!
//! The file is parsed strictly: an unknown key is an error, because a misspelt condition
//! (`weekday` for `weekdays`) would otherwise silently turn into "any day".

use std::collections::HashSet;

use chrono::Weekday;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::purchase::{Category, PaymentMethod, Purchase};

/// 100%: the highest rate a rule may have, in basis points.
pub const FULL_RATE_BP: u32 = 10_000;

/// The club's current rule file.
const BUILTIN: &str = include_str!("../rules/default.toml");

/// Why a rule file was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesError {
    #[error("rule file is not valid: {0}")]
    Syntax(String),
    #[error("rule file has an empty version")]
    EmptyVersion,
    #[error("a rule has an empty id")]
    EmptyId,
    #[error("rule id {0:?} appears more than once")]
    DuplicateId(String),
    /// `rule` is the rule id, or `base`.
    #[error("rule {rule:?} has rate {rate_bp} bp, outside 0..={FULL_RATE_BP}")]
    RateOutOfRange { rule: String, rate_bp: u32 },
    #[error("rule {rule:?} has an empty description")]
    EmptyDescription { rule: String },
    #[error("rule {rule:?} has an empty {condition} list (leave it out to match anything)")]
    EmptyCondition {
        rule: String,
        condition: &'static str,
    },
    #[error(
        "rule {rule:?} pays {rate_bp} bp, not more than the base {base_bp} bp, so it can never apply"
    )]
    NotAboveBase {
        rule: String,
        rate_bp: u32,
        base_bp: u32,
    },
}

/// One accrual rule: a rate and the conditions under which a line earns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    id: String,
    rate_bp: u32,
    description: String,
    /// `None`: any day. Never an empty list.
    weekdays: Option<Vec<Weekday>>,
    /// `None`: any payment, including an unknown one. Never an empty list.
    payment_methods: Option<Vec<PaymentMethod>>,
    /// `None`: any category. Never an empty list.
    categories: Option<Vec<Category>>,
}

impl Rule {
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn rate_bp(&self) -> u32 {
        self.rate_bp
    }

    /// What the member reads, in Spanish.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The days the rule applies on; `None` is every day.
    pub fn weekdays(&self) -> Option<&[Weekday]> {
        self.weekdays.as_deref()
    }

    /// The payment methods the rule requires; `None` is any (or an unknown) one.
    pub fn payment_methods(&self) -> Option<&[PaymentMethod]> {
        self.payment_methods.as_deref()
    }

    /// The categories the rule covers; `None` is all of them.
    pub fn categories(&self) -> Option<&[Category]> {
        self.categories.as_deref()
    }

    fn matches(&self, purchase: &Purchase, category: Category) -> bool {
        let day = self
            .weekdays
            .as_ref()
            .is_none_or(|days| days.contains(&purchase.weekday()));
        let payment = self.payment_methods.as_ref().is_none_or(|methods| {
            purchase
                .payment()
                .is_some_and(|method| methods.contains(&method))
        });
        let category_matches = self
            .categories
            .as_ref()
            .is_none_or(|categories| categories.contains(&category));
        day && payment && category_matches
    }
}

/// A validated set of rules with its version and base rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSet {
    /// Non-empty; recorded in every accrual.
    version: String,
    /// At most [`FULL_RATE_BP`].
    base_rate_bp: u32,
    base_description: String,
    /// Unique ids, each rate above the base, in file order (which breaks ties).
    rules: Vec<Rule>,
    /// Price discounts (never accumulation); ids unique among rules and discounts, no
    /// category condition, in file order (which breaks ties).
    discounts: Vec<Rule>,
}

/// A price discount that applies to a whole purchase: money off at the till, never pesos
/// added to the club account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discount {
    pub discount_id: String,
    /// The rate, in basis points.
    pub rate_bp: u32,
    /// `floor(purchase total * rate_bp / 10_000)`.
    pub pesos: i64,
    /// What the member reads, in Spanish.
    pub description: String,
}

/// The pesos earned by a purchase and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accrual {
    /// Version of the rule set that computed it.
    pub rules_version: String,
    /// Sum of the lines' pesos.
    pub total: i64,
    /// One entry per purchase line, in the purchase's order.
    pub lines: Vec<LineAccrual>,
}

/// The pesos earned by one purchase line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineAccrual {
    pub category: Category,
    /// The line's amount in pesos.
    pub amount: i64,
    /// The rate applied, in basis points.
    pub rate_bp: u32,
    /// `floor(amount * rate_bp / 10_000)`.
    pub pesos: i64,
    /// The rule applied; `None` is the base rate.
    pub rule_id: Option<String>,
    /// The rule's (or the base rate's) Spanish description.
    pub description: String,
}

impl RuleSet {
    /// Parses and validates a rule file (format in `rules/default.toml`): non-empty version,
    /// rates within 0..=10 000 bp, unique non-empty ids, non-empty descriptions, no empty
    /// condition list, every rule above the base rate, no unknown keys.
    pub fn from_toml(text: &str) -> Result<RuleSet, RulesError> {
        let file: RuleFile =
            toml::from_str(text).map_err(|err| RulesError::Syntax(err.to_string()))?;
        file.validate()
    }

    /// The club's current rules, `rules/default.toml`, compiled into the binary.
    pub fn builtin() -> RuleSet {
        RuleSet::from_toml(BUILTIN).expect("the builtin rule file is valid (tested)")
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    /// The rate of a line no rule applies to, in basis points.
    pub fn base_rate_bp(&self) -> u32 {
        self.base_rate_bp
    }

    /// The Spanish description of the base rate.
    pub fn base_description(&self) -> &str {
        &self.base_description
    }

    /// The rules, in file order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The price discounts, in file order.
    pub fn discounts(&self) -> &[Rule] {
        &self.discounts
    }

    /// The best discount `purchase` gets at the till (highest rate; the first written wins a
    /// tie), on its whole total; `None` when none applies. Never part of [`Self::accrue`].
    pub fn discount(&self, purchase: &Purchase) -> Option<Discount> {
        let best = self
            .discounts
            .iter()
            .filter(|discount| {
                purchase
                    .lines()
                    .first()
                    .is_some_and(|line| discount.matches(purchase, line.category))
            })
            .fold(None, |best: Option<&Rule>, rule| match best {
                Some(best) if best.rate_bp >= rule.rate_bp => Some(best),
                _ => Some(rule),
            })?;
        Some(Discount {
            discount_id: best.id.clone(),
            rate_bp: best.rate_bp,
            pesos: pesos_at(purchase.total(), best.rate_bp),
            description: best.description.clone(),
        })
    }

    /// What `purchase` earns: each line at its best qualifying rule, or at the base rate.
    pub fn accrue(&self, purchase: &Purchase) -> Accrual {
        let lines: Vec<LineAccrual> = purchase
            .lines()
            .iter()
            .map(|line| {
                let (rate_bp, rule_id, description) = match self.best_rule(purchase, line.category)
                {
                    Some(rule) => (rule.rate_bp, Some(rule.id.clone()), &rule.description),
                    None => (self.base_rate_bp, None, &self.base_description),
                };
                LineAccrual {
                    category: line.category,
                    amount: line.amount,
                    rate_bp,
                    pesos: pesos_at(line.amount, rate_bp),
                    rule_id,
                    description: description.clone(),
                }
            })
            .collect();
        Accrual {
            rules_version: self.version.clone(),
            total: lines.iter().map(|line| line.pesos).sum(),
            lines,
        }
    }

    /// The highest-rate rule matching a line of `category`; the first written wins a tie.
    fn best_rule(&self, purchase: &Purchase, category: Category) -> Option<&Rule> {
        self.rules
            .iter()
            .filter(|rule| rule.matches(purchase, category))
            .fold(None, |best: Option<&Rule>, rule| match best {
                Some(best) if best.rate_bp >= rule.rate_bp => Some(best),
                _ => Some(rule),
            })
    }
}

/// `floor(amount * rate_bp / 10_000)` without overflow.
fn pesos_at(amount: i64, rate_bp: u32) -> i64 {
    let pesos = (i128::from(amount) * i128::from(rate_bp)).div_euclid(i128::from(FULL_RATE_BP));
    // |pesos| <= |amount| because rate_bp <= 10_000, so it fits.
    i64::try_from(pesos).expect("a rate of at most 100% keeps pesos within the amount")
}

/// The rule file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    version: String,
    base: BaseEntry,
    #[serde(default)]
    rules: Vec<RuleEntry>,
    #[serde(default)]
    discounts: Vec<DiscountEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiscountEntry {
    id: String,
    rate_bp: u32,
    description: String,
    weekdays: Option<Vec<DayName>>,
    payment_methods: Option<Vec<PaymentMethod>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BaseEntry {
    rate_bp: u32,
    description: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    id: String,
    rate_bp: u32,
    description: String,
    weekdays: Option<Vec<DayName>>,
    payment_methods: Option<Vec<PaymentMethod>>,
    categories: Option<Vec<Category>>,
}

/// Day names as the rule file spells them, lowercase English.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum DayName {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl From<DayName> for Weekday {
    fn from(day: DayName) -> Weekday {
        match day {
            DayName::Monday => Weekday::Mon,
            DayName::Tuesday => Weekday::Tue,
            DayName::Wednesday => Weekday::Wed,
            DayName::Thursday => Weekday::Thu,
            DayName::Friday => Weekday::Fri,
            DayName::Saturday => Weekday::Sat,
            DayName::Sunday => Weekday::Sun,
        }
    }
}

impl RuleFile {
    fn validate(self) -> Result<RuleSet, RulesError> {
        let version = self.version.trim().to_owned();
        if version.is_empty() {
            return Err(RulesError::EmptyVersion);
        }
        let base_rate_bp = check_rate("base", self.base.rate_bp)?;
        let base_description = check_description("base", self.base.description)?;
        let mut seen = HashSet::new();
        let mut rules = Vec::with_capacity(self.rules.len());
        for entry in self.rules {
            let id = entry.id.trim().to_owned();
            if id.is_empty() {
                return Err(RulesError::EmptyId);
            }
            if !seen.insert(id.clone()) {
                return Err(RulesError::DuplicateId(id));
            }
            let rate_bp = check_rate(&id, entry.rate_bp)?;
            if rate_bp <= base_rate_bp {
                return Err(RulesError::NotAboveBase {
                    rule: id,
                    rate_bp,
                    base_bp: base_rate_bp,
                });
            }
            let description = check_description(&id, entry.description)?;
            let weekdays = check_condition(&id, "weekdays", entry.weekdays)?
                .map(|days| days.into_iter().map(Weekday::from).collect());
            let payment_methods = check_condition(&id, "payment_methods", entry.payment_methods)?;
            let categories = check_condition(&id, "categories", entry.categories)?;
            rules.push(Rule {
                id,
                rate_bp,
                description,
                weekdays,
                payment_methods,
                categories,
            });
        }
        let mut discounts = Vec::with_capacity(self.discounts.len());
        for entry in self.discounts {
            let id = entry.id.trim().to_owned();
            if id.is_empty() {
                return Err(RulesError::EmptyId);
            }
            if !seen.insert(id.clone()) {
                return Err(RulesError::DuplicateId(id));
            }
            let rate_bp = check_rate(&id, entry.rate_bp)?;
            let description = check_description(&id, entry.description)?;
            let weekdays = check_condition(&id, "weekdays", entry.weekdays)?
                .map(|days| days.into_iter().map(Weekday::from).collect());
            let payment_methods = check_condition(&id, "payment_methods", entry.payment_methods)?;
            discounts.push(Rule {
                id,
                rate_bp,
                description,
                weekdays,
                payment_methods,
                categories: None,
            });
        }
        Ok(RuleSet {
            version,
            base_rate_bp,
            base_description,
            rules,
            discounts,
        })
    }
}

fn check_rate(rule: &str, rate_bp: u32) -> Result<u32, RulesError> {
    if rate_bp > FULL_RATE_BP {
        return Err(RulesError::RateOutOfRange {
            rule: rule.to_owned(),
            rate_bp,
        });
    }
    Ok(rate_bp)
}

fn check_description(rule: &str, description: String) -> Result<String, RulesError> {
    let description = description.trim();
    if description.is_empty() {
        return Err(RulesError::EmptyDescription {
            rule: rule.to_owned(),
        });
    }
    Ok(description.to_owned())
}

fn check_condition<T>(
    rule: &str,
    condition: &'static str,
    values: Option<Vec<T>>,
) -> Result<Option<Vec<T>>, RulesError> {
    match values {
        Some(values) if values.is_empty() => Err(RulesError::EmptyCondition {
            rule: rule.to_owned(),
            condition,
        }),
        values => Ok(values),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::purchase::{MAX_TOTAL, PurchaseLine};

    use Category::*;
    use PaymentMethod::*;

    fn purchase(
        weekday: Weekday,
        payment: Option<PaymentMethod>,
        lines: &[(Category, i64)],
    ) -> Purchase {
        let lines = lines
            .iter()
            .map(|&(category, amount)| PurchaseLine { category, amount })
            .collect();
        Purchase::new(weekday, payment, lines).unwrap()
    }

    /// The one line of `purchase` accrued with the builtin rules.
    fn single(
        weekday: Weekday,
        payment: Option<PaymentMethod>,
        line: (Category, i64),
    ) -> LineAccrual {
        let accrual = RuleSet::builtin().accrue(&purchase(weekday, payment, &[line]));
        assert_eq!(accrual.lines.len(), 1);
        assert_eq!(accrual.total, accrual.lines[0].pesos);
        accrual.lines.into_iter().next().unwrap()
    }

    #[test]
    fn the_builtin_rules_parse_and_carry_their_version() {
        let rules = RuleSet::builtin();
        assert_eq!(rules.version(), "2026-11-2");
        assert_eq!(rules.base_rate_bp(), 80);
        assert_eq!(rules.base_description(), "0,8% en todas tus compras");
        assert_eq!(rules.rules().len(), 5);
        assert_eq!(rules.discounts().len(), 1);
    }

    #[test]
    fn the_base_rule_gives_point_eight_percent_without_a_rule_id() {
        let line = single(Weekday::Thu, Some(Cash), (Other, 10_000));
        assert_eq!(line.rate_bp, 80);
        assert_eq!(line.pesos, 80);
        assert_eq!(line.rule_id, None);
        assert_eq!(line.description, "0,8% en todas tus compras");
    }

    #[test]
    fn the_partner_card_gives_point_nine_percent_on_any_day() {
        for day in [Weekday::Tue, Weekday::Thu, Weekday::Sun] {
            let line = single(day, Some(PartnerCard), (Other, 10_000));
            assert_eq!(line.rate_bp, 90);
            assert_eq!(line.pesos, 90);
            assert_eq!(line.rule_id.as_deref(), Some("tarjeta-lider-bci"));
        }
        assert_eq!(
            single(Weekday::Thu, Some(OtherCard), (Other, 10_000)).rate_bp,
            80
        );
    }

    #[test]
    fn monday_with_the_partner_card_is_a_six_percent_discount_never_added_to_the_accrual() {
        let rules = RuleSet::builtin();
        for category in Category::ALL {
            let line = single(Weekday::Mon, Some(PartnerCard), (category, 10_000));
            assert_eq!(line.pesos, 90, "the partner card's 0,9%, as on any day");
            assert_eq!(line.rule_id.as_deref(), Some("tarjeta-lider-bci"));
        }
        let cart = purchase(
            Weekday::Mon,
            Some(PartnerCard),
            &[(Meat, 10_000), (Drinks, 2_555)],
        );
        assert_eq!(rules.accrue(&cart).total, 90 + 22);
        assert_eq!(
            rules.discount(&cart),
            Some(Discount {
                discount_id: "lunes-descuento-tarjeta-lider-bci".into(),
                rate_bp: 600,
                pesos: 753,
                description: "Lunes 6% de descuento con Tarjeta Lider BCI".into(),
            })
        );
        // Another day, another card, or no card: no discount.
        for (day, payment) in [
            (Weekday::Tue, Some(PartnerCard)),
            (Weekday::Mon, Some(Cash)),
            (Weekday::Mon, Some(OtherCard)),
            (Weekday::Mon, None),
        ] {
            assert_eq!(
                rules.discount(&purchase(day, payment, &[(Meat, 10_000)])),
                None
            );
        }
        assert_eq!(single(Weekday::Mon, Some(Cash), (Meat, 10_000)).pesos, 80);
    }

    #[test]
    fn a_discount_shares_the_rule_ids_and_refuses_a_category_condition() {
        let base = "version = \"v\"\n[base]\nrate_bp = 80\ndescription = \"b\"\n";
        let dup = format!(
            "{base}[[rules]]\nid = \"x\"\nrate_bp = 90\ndescription = \"d\"\n\
             [[discounts]]\nid = \"x\"\nrate_bp = 600\ndescription = \"d\"\n"
        );
        assert_eq!(
            RuleSet::from_toml(&dup),
            Err(RulesError::DuplicateId("x".into()))
        );
        let category = format!(
            "{base}[[discounts]]\nid = \"y\"\nrate_bp = 600\ndescription = \"d\"\ncategories = [\"meat\"]\n"
        );
        assert!(matches!(
            RuleSet::from_toml(&category),
            Err(RulesError::Syntax(_))
        ));
    }

    #[test]
    fn tuesday_gives_three_percent_on_fruits_and_vegetables_only() {
        let line = single(Weekday::Tue, Some(Cash), (FruitsAndVegetables, 10_000));
        assert_eq!(line.pesos, 300);
        assert_eq!(line.rule_id.as_deref(), Some("martes-frutas-y-verduras"));
        assert_eq!(single(Weekday::Tue, Some(Cash), (Meat, 10_000)).pesos, 80);
        assert_eq!(
            single(Weekday::Wed, Some(Cash), (FruitsAndVegetables, 10_000)).pesos,
            80
        );
    }

    #[test]
    fn wednesday_gives_three_percent_on_meat_only() {
        let line = single(Weekday::Wed, Some(OtherCard), (Meat, 10_000));
        assert_eq!(line.pesos, 300);
        assert_eq!(line.rule_id.as_deref(), Some("miercoles-carnes"));
        assert_eq!(
            single(Weekday::Wed, Some(OtherCard), (Drinks, 10_000)).pesos,
            80
        );
        assert_eq!(
            single(Weekday::Thu, Some(OtherCard), (Meat, 10_000)).pesos,
            80
        );
    }

    #[test]
    fn friday_gives_two_percent_on_drinks_only() {
        let line = single(Weekday::Fri, Some(Cash), (Drinks, 10_000));
        assert_eq!(line.pesos, 200);
        assert_eq!(line.rule_id.as_deref(), Some("viernes-bebidas"));
        assert_eq!(
            single(Weekday::Fri, Some(Cash), (Cleaning, 10_000)).pesos,
            80
        );
        assert_eq!(single(Weekday::Sat, Some(Cash), (Drinks, 10_000)).pesos, 80);
    }

    #[test]
    fn saturday_gives_two_percent_on_cleaning_only() {
        let line = single(Weekday::Sat, Some(Cash), (Cleaning, 10_000));
        assert_eq!(line.pesos, 200);
        assert_eq!(line.rule_id.as_deref(), Some("sabado-limpieza"));
        assert_eq!(single(Weekday::Sat, Some(Cash), (Other, 10_000)).pesos, 80);
        assert_eq!(
            single(Weekday::Sun, Some(Cash), (Cleaning, 10_000)).pesos,
            80
        );
    }

    #[test]
    fn pesos_are_rounded_down_line_by_line() {
        // 999 * 0.8% = 7.992 → 7; 124 * 0.8% = 0.992 → 0. Summed first it would be 8.
        let accrual = RuleSet::builtin().accrue(&purchase(
            Weekday::Thu,
            Some(Cash),
            &[(Meat, 999), (Other, 124)],
        ));
        assert_eq!(
            accrual.lines.iter().map(|l| l.pesos).collect::<Vec<_>>(),
            [7, 0]
        );
        assert_eq!(accrual.total, 7);
        assert_eq!(
            single(Weekday::Mon, Some(PartnerCard), (Meat, 111)).pesos,
            0
        );
        assert_eq!(
            single(Weekday::Mon, Some(PartnerCard), (Meat, 112)).pesos,
            1
        );
    }

    #[test]
    fn the_best_rule_wins_and_rules_never_stack() {
        // Tuesday, partner card, fruits: 0.9% and 3% both apply; only 3% counts, not 3.9%.
        let line = single(
            Weekday::Tue,
            Some(PartnerCard),
            (FruitsAndVegetables, 10_000),
        );
        assert_eq!(line.rate_bp, 300);
        assert_eq!(line.pesos, 300);
        // Line by line: the other line gets the partner card's 0.9%.
        let accrual = RuleSet::builtin().accrue(&purchase(
            Weekday::Tue,
            Some(PartnerCard),
            &[(FruitsAndVegetables, 10_000), (Meat, 10_000)],
        ));
        assert_eq!(accrual.total, 300 + 90);
        assert_eq!(accrual.rules_version, "2026-11-2");
    }

    #[test]
    fn between_rules_of_equal_rate_the_first_written_wins() {
        let rules = RuleSet::from_toml(
            r#"
            version = "t"
            base = { rate_bp = 10, description = "base" }
            [[rules]]
            id = "primera"
            rate_bp = 50
            description = "primera"
            [[rules]]
            id = "segunda"
            rate_bp = 50
            description = "segunda"
            "#,
        )
        .unwrap();
        let accrual = rules.accrue(&purchase(Weekday::Mon, None, &[(Meat, 1_000)]));
        assert_eq!(accrual.lines[0].rule_id.as_deref(), Some("primera"));
    }

    #[test]
    fn an_unknown_payment_only_gets_rules_without_a_payment_condition() {
        // The simulator on a Monday: the partner-card rules cannot apply.
        let monday = single(Weekday::Mon, None, (Meat, 10_000));
        assert_eq!(monday.rate_bp, 80);
        assert_eq!(monday.rule_id, None);
        // Day and category rules still do.
        let wednesday = single(Weekday::Wed, None, (Meat, 10_000));
        assert_eq!(wednesday.rate_bp, 300);
    }

    #[test]
    fn the_largest_purchase_at_full_rate_does_not_overflow() {
        let rules = RuleSet::from_toml(
            r#"
            version = "t"
            base = { rate_bp = 10000, description = "todo" }
            "#,
        )
        .unwrap();
        let accrual = rules.accrue(&purchase(Weekday::Mon, None, &[(Meat, MAX_TOTAL)]));
        assert_eq!(accrual.total, MAX_TOTAL);
        assert_eq!(pesos_at(i64::MAX, FULL_RATE_BP), i64::MAX);
    }

    #[test]
    fn an_accrual_round_trips_through_json() {
        let accrual = RuleSet::builtin().accrue(&purchase(
            Weekday::Mon,
            Some(PartnerCard),
            &[(Meat, 12_345), (Drinks, 990)],
        ));
        let json = serde_json::to_value(&accrual).unwrap();
        assert_eq!(json["lines"][0]["category"], "meat");
        assert_eq!(json["lines"][0]["rule_id"], "tarjeta-lider-bci");
        assert_eq!(serde_json::from_value::<Accrual>(json).unwrap(), accrual);
    }

    fn refused(text: &str) -> RulesError {
        RuleSet::from_toml(text).unwrap_err()
    }

    const BASE: &str = "version = \"t\"\nbase = { rate_bp = 80, description = \"base\" }\n";

    #[test]
    fn a_rule_file_that_is_not_toml_or_misses_the_base_is_refused() {
        assert!(matches!(refused("version = "), RulesError::Syntax(_)));
        let err = refused("version = \"t\"");
        assert!(err.to_string().contains("base"), "{err}");
    }

    #[test]
    fn a_rule_file_with_an_empty_version_is_refused() {
        assert_eq!(
            refused("version = \"  \"\nbase = { rate_bp = 80, description = \"base\" }"),
            RulesError::EmptyVersion
        );
    }

    #[test]
    fn a_rate_above_one_hundred_percent_is_refused_naming_the_rule() {
        let err = refused(&format!(
            "{BASE}[[rules]]\nid = \"x\"\nrate_bp = 10001\ndescription = \"d\"\n"
        ));
        assert_eq!(
            err,
            RulesError::RateOutOfRange {
                rule: "x".into(),
                rate_bp: 10_001
            }
        );
        assert_eq!(
            err.to_string(),
            "rule \"x\" has rate 10001 bp, outside 0..=10000"
        );
        assert!(matches!(
            refused("version = \"t\"\nbase = { rate_bp = 20000, description = \"b\" }"),
            RulesError::RateOutOfRange { .. }
        ));
        assert!(matches!(
            refused(&format!(
                "{BASE}[[rules]]\nid = \"x\"\nrate_bp = -1\ndescription = \"d\"\n"
            )),
            RulesError::Syntax(_)
        ));
    }

    #[test]
    fn a_duplicate_rule_id_is_refused() {
        let rule = "[[rules]]\nid = \"lunes\"\nrate_bp = 600\ndescription = \"d\"\n";
        assert_eq!(
            refused(&format!("{BASE}{rule}{rule}")),
            RulesError::DuplicateId("lunes".into())
        );
    }

    #[test]
    fn an_empty_description_or_id_is_refused() {
        assert_eq!(
            refused(&format!(
                "{BASE}[[rules]]\nid = \"x\"\nrate_bp = 90\ndescription = \" \"\n"
            )),
            RulesError::EmptyDescription { rule: "x".into() }
        );
        assert_eq!(
            refused("version = \"t\"\nbase = { rate_bp = 80, description = \"\" }"),
            RulesError::EmptyDescription {
                rule: "base".into()
            }
        );
        assert_eq!(
            refused(&format!(
                "{BASE}[[rules]]\nid = \"\"\nrate_bp = 90\ndescription = \"d\"\n"
            )),
            RulesError::EmptyId
        );
    }

    #[test]
    fn a_misspelt_key_or_unknown_value_is_refused_rather_than_matching_anything() {
        let err = refused(&format!(
            "{BASE}[[rules]]\nid = \"x\"\nrate_bp = 90\ndescription = \"d\"\nweekday = [\"monday\"]\n"
        ));
        assert!(err.to_string().contains("weekday"), "{err}");
        let err = refused(&format!(
            "{BASE}[[rules]]\nid = \"x\"\nrate_bp = 90\ndescription = \"d\"\ncategories = [\"fish\"]\n"
        ));
        assert!(err.to_string().contains("fish"), "{err}");
    }

    #[test]
    fn an_empty_condition_list_is_refused() {
        assert_eq!(
            refused(&format!(
                "{BASE}[[rules]]\nid = \"x\"\nrate_bp = 90\ndescription = \"d\"\nweekdays = []\n"
            )),
            RulesError::EmptyCondition {
                rule: "x".into(),
                condition: "weekdays"
            }
        );
    }

    #[test]
    fn a_rule_that_does_not_beat_the_base_is_refused() {
        assert_eq!(
            refused(&format!(
                "{BASE}[[rules]]\nid = \"x\"\nrate_bp = 80\ndescription = \"d\"\n"
            )),
            RulesError::NotAboveBase {
                rule: "x".into(),
                rate_bp: 80,
                base_bp: 80
            }
        );
    }
}
