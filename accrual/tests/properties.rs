//! Properties of the accrual rule engine over arbitrary purchases and arbitrary rule files
//! (issue #8, point 6): what the crate header promises must hold for every input, not only for
//! the examples of the unit tests. Rule sets are generated as TOML text and go through
//! [`RuleSet::from_toml`], so the parser is exercised on the way.

use chrono::Weekday;
use miclub_accrual::{
    Accrual, Category, FULL_RATE_BP, MAX_TOTAL, PaymentMethod, Purchase, PurchaseError,
    PurchaseLine, Rule, RuleSet,
};
use proptest::prelude::*;

const WEEKDAYS: [Weekday; 7] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
    Weekday::Sat,
    Weekday::Sun,
];
const DAY_NAMES: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
const METHODS: [PaymentMethod; 3] = [
    PaymentMethod::PartnerCard,
    PaymentMethod::OtherCard,
    PaymentMethod::Cash,
];
const METHOD_NAMES: [&str; 3] = ["partner_card", "other_card", "cash"];
const CATEGORY_NAMES: [&str; 5] = [
    "meat",
    "fruits_and_vegetables",
    "cleaning",
    "drinks",
    "other",
];

/// At most this many lines, so that `MAX_LINES * MAX_LINE` stays within [`MAX_TOTAL`].
const MAX_LINES: usize = 8;
const MAX_LINE: i64 = MAX_TOTAL / MAX_LINES as i64;

fn weekday() -> impl Strategy<Value = Weekday> {
    proptest::sample::select(WEEKDAYS.to_vec())
}

fn payment() -> impl Strategy<Value = Option<PaymentMethod>> {
    proptest::option::of(proptest::sample::select(METHODS.to_vec()))
}

fn category() -> impl Strategy<Value = Category> {
    proptest::sample::select(Category::ALL.to_vec())
}

/// Amounts of every size: a few pesos (where rounding down dominates), a real basket, and up to
/// the share of the purchase limit a line may have.
fn amount() -> impl Strategy<Value = i64> {
    prop_oneof![1..=200i64, 1..=500_000i64, 1..=MAX_LINE]
}

fn lines() -> impl Strategy<Value = Vec<PurchaseLine>> {
    proptest::collection::vec(
        (category(), amount()).prop_map(|(category, amount)| PurchaseLine { category, amount }),
        1..=MAX_LINES,
    )
}

fn purchase() -> impl Strategy<Value = Purchase> {
    (weekday(), payment(), lines())
        .prop_map(|(day, payment, lines)| Purchase::new(day, payment, lines).unwrap())
}

/// A non-empty subset of `names`, as a TOML array, or `None` (the condition left out).
fn condition(names: &'static [&'static str]) -> impl Strategy<Value = Option<String>> {
    proptest::option::of(
        proptest::sample::subsequence(names.to_vec(), 1..=names.len()).prop_map(|chosen| {
            let quoted: Vec<String> = chosen.iter().map(|name| format!("{name:?}")).collect();
            format!("[{}]", quoted.join(", "))
        }),
    )
}

/// A valid rule file: unique ids, every rule strictly above the base, rates within 100%.
fn valid_rule_file() -> impl Strategy<Value = String> {
    (0..FULL_RATE_BP).prop_flat_map(|base| {
        let rule = (
            (base + 1)..=FULL_RATE_BP,
            condition(&DAY_NAMES),
            condition(&METHOD_NAMES),
            condition(&CATEGORY_NAMES),
        );
        (Just(base), proptest::collection::vec(rule, 0..6)).prop_map(|(base, rules)| {
            let mut text =
                format!("version = \"v\"\nbase = {{ rate_bp = {base}, description = \"base\" }}\n");
            for (index, (rate, days, methods, categories)) in rules.into_iter().enumerate() {
                text.push_str(&format!(
                    "[[rules]]\nid = \"r{index}\"\nrate_bp = {rate}\ndescription = \"regla {index}\"\n"
                ));
                for (key, value) in [
                    ("weekdays", days),
                    ("payment_methods", methods),
                    ("categories", categories),
                ] {
                    if let Some(value) = value {
                        text.push_str(&format!("{key} = {value}\n"));
                    }
                }
            }
            text
        })
    })
}

/// A rule file that is often wrong in the ways the validation cares about: rates above 100% or
/// not above the base, repeated or blank ids, blank descriptions, empty or unknown condition
/// values, unknown keys.
fn doubtful_rule_file() -> impl Strategy<Value = String> {
    let text_value = prop_oneof![
        Just(String::new()),
        Just("  ".to_owned()),
        "[a-z]{1,3}",
        "\\PC{0,8}"
    ];
    let list = proptest::collection::vec(
        prop_oneof![
            proptest::sample::select(DAY_NAMES.to_vec()).prop_map(str::to_owned),
            proptest::sample::select(METHOD_NAMES.to_vec()).prop_map(str::to_owned),
            proptest::sample::select(CATEGORY_NAMES.to_vec()).prop_map(str::to_owned),
            "[a-z]{1,6}",
        ],
        0..3,
    );
    let key =
        proptest::sample::select(vec!["weekdays", "payment_methods", "categories", "weekday"]);
    let rule = (
        prop_oneof![Just("x".to_owned()), text_value.clone()],
        0..=20_000u32,
        text_value.clone(),
        proptest::option::of((key, list)),
    );
    (
        text_value.clone(),
        0..=20_000u32,
        text_value,
        proptest::collection::vec(rule, 0..4),
    )
        .prop_map(|(version, base, base_description, rules)| {
            let mut text = format!(
                "version = {version:?}\nbase = {{ rate_bp = {base}, description = {base_description:?} }}\n"
            );
            for (id, rate, description, condition) in rules {
                text.push_str(&format!(
                    "[[rules]]\nid = {id:?}\nrate_bp = {rate}\ndescription = {description:?}\n"
                ));
                if let Some((key, values)) = condition {
                    text.push_str(&format!("{key} = {values:?}\n"));
                }
            }
            text
        })
}

fn rules(text: &str) -> RuleSet {
    RuleSet::from_toml(text).unwrap_or_else(|err| panic!("{err}\n{text}"))
}

/// Whether `rule` applies to a line of `category` in `purchase`, computed from the rule's
/// public conditions, independently of the engine.
fn qualifies(rule: &Rule, purchase: &Purchase, category: Category) -> bool {
    rule.weekdays()
        .is_none_or(|days| days.contains(&purchase.weekday()))
        && rule.payment_methods().is_none_or(|methods| {
            purchase
                .payment()
                .is_some_and(|method| methods.contains(&method))
        })
        && rule
            .categories()
            .is_none_or(|categories| categories.contains(&category))
}

/// The rate the crate header promises for a line: the best qualifying rule, else the base.
fn expected_rate(rules: &RuleSet, purchase: &Purchase, category: Category) -> u32 {
    rules
        .rules()
        .iter()
        .filter(|rule| qualifies(rule, purchase, category))
        .map(Rule::rate_bp)
        .max()
        .unwrap_or(rules.base_rate_bp())
}

fn floor_pesos(amount: i64, rate_bp: u32) -> i64 {
    (i128::from(amount) * i128::from(rate_bp) / i128::from(FULL_RATE_BP)) as i64
}

fn with_lines(purchase: &Purchase, lines: Vec<PurchaseLine>) -> Purchase {
    Purchase::new(purchase.weekday(), purchase.payment(), lines).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_line_earns_the_best_qualifying_rate_rounded_down_and_never_less_than_zero(
        text in valid_rule_file(),
        purchase in purchase(),
    ) {
        let rules = rules(&text);
        let accrual = rules.accrue(&purchase);
        prop_assert_eq!(accrual.rules_version.as_str(), "v");
        prop_assert_eq!(accrual.lines.len(), purchase.lines().len());
        for (line, earned) in purchase.lines().iter().zip(&accrual.lines) {
            prop_assert_eq!(earned.category, line.category);
            prop_assert_eq!(earned.amount, line.amount);
            prop_assert_eq!(earned.rate_bp, expected_rate(&rules, &purchase, line.category));
            prop_assert_eq!(earned.pesos, floor_pesos(line.amount, earned.rate_bp));
            prop_assert!((0..=line.amount).contains(&earned.pesos));
            match &earned.rule_id {
                None => {
                    prop_assert_eq!(earned.rate_bp, rules.base_rate_bp());
                    prop_assert_eq!(earned.description.as_str(), rules.base_description());
                }
                Some(id) => {
                    let rule = rules.rules().iter().find(|rule| rule.id() == id).unwrap();
                    prop_assert!(qualifies(rule, &purchase, line.category));
                    prop_assert_eq!(rule.rate_bp(), earned.rate_bp);
                    prop_assert_eq!(rule.description(), earned.description.as_str());
                    // The first written of the best rules wins.
                    let first_best = rules
                        .rules()
                        .iter()
                        .find(|rule| qualifies(rule, &purchase, line.category)
                            && rule.rate_bp() == earned.rate_bp)
                        .unwrap();
                    prop_assert_eq!(first_best.id(), id.as_str());
                }
            }
        }
        prop_assert_eq!(accrual.total, accrual.lines.iter().map(|line| line.pesos).sum::<i64>());
    }

    #[test]
    fn a_purchase_earns_between_the_base_rate_and_the_best_rule_of_the_file(
        text in valid_rule_file(),
        purchase in purchase(),
    ) {
        let rules = rules(&text);
        let total = rules.accrue(&purchase).total;
        let best = rules.rules().iter().map(Rule::rate_bp).max().unwrap_or(rules.base_rate_bp());
        let at_base: i64 = purchase
            .lines()
            .iter()
            .map(|line| floor_pesos(line.amount, rules.base_rate_bp()))
            .sum();
        prop_assert!(total >= at_base, "{total} < {at_base} at base");
        prop_assert!(total <= floor_pesos(purchase.total(), best));
        prop_assert!(total <= purchase.total());
    }

    #[test]
    fn the_builtin_rules_never_pay_more_than_six_percent_nor_less_than_the_base(
        purchase in purchase(),
    ) {
        let accrual = RuleSet::builtin().accrue(&purchase);
        prop_assert!(accrual.total >= 0);
        prop_assert!(accrual.total <= purchase.total() * 6 / 100);
        for line in &accrual.lines {
            prop_assert!((80..=600).contains(&line.rate_bp));
        }
    }

    #[test]
    fn spending_more_on_a_line_never_earns_less(
        text in valid_rule_file(),
        purchase in purchase(),
        index in any::<proptest::sample::Index>(),
        extra in 1..=MAX_LINE,
    ) {
        let rules = rules(&text);
        let mut lines = purchase.lines().to_vec();
        let line = &mut lines[index.index(purchase.lines().len())];
        line.amount = (line.amount + extra).min(MAX_LINE);
        let bigger = with_lines(&purchase, lines);
        prop_assert!(rules.accrue(&bigger).total >= rules.accrue(&purchase).total);
    }

    #[test]
    fn the_order_of_the_lines_does_not_change_what_each_earns(
        text in valid_rule_file(),
        (purchase, shuffled) in purchase().prop_flat_map(|purchase| {
            let lines = Just(purchase.lines().to_vec()).prop_shuffle();
            (Just(purchase), lines)
        }),
    ) {
        let rules = rules(&text);
        let sorted = |accrual: Accrual| {
            let mut lines: Vec<_> = accrual
                .lines
                .into_iter()
                .map(|line| (line.category, line.amount, line.rate_bp, line.pesos, line.rule_id))
                .collect();
            lines.sort();
            (accrual.total, lines)
        };
        let reordered = with_lines(&purchase, shuffled);
        prop_assert_eq!(sorted(rules.accrue(&purchase)), sorted(rules.accrue(&reordered)));
    }

    #[test]
    fn splitting_a_line_in_two_loses_at_most_the_rounding_of_one_peso(
        text in valid_rule_file(),
        purchase in purchase(),
        index in any::<proptest::sample::Index>(),
        cut in any::<proptest::sample::Index>(),
    ) {
        let rules = rules(&text);
        let lines = purchase.lines().to_vec();
        let at = index.index(lines.len());
        prop_assume!(lines[at].amount >= 2 && lines.len() < MAX_LINES);
        let first = 1 + cut.index((lines[at].amount - 1) as usize) as i64;
        let mut split = lines.clone();
        split[at].amount = first;
        split.insert(at + 1, PurchaseLine { category: lines[at].category, amount: lines[at].amount - first });
        let whole = rules.accrue(&purchase).total;
        let parts = rules.accrue(&with_lines(&purchase, split)).total;
        prop_assert!(parts <= whole && whole - parts <= 1, "whole {whole}, parts {parts}");
    }

    #[test]
    fn knowing_the_payment_method_never_earns_less_than_the_simulator_estimate(
        text in valid_rule_file(),
        purchase in purchase(),
        method in proptest::sample::select(METHODS.to_vec()),
    ) {
        let rules = rules(&text);
        let unknown = Purchase::new(purchase.weekday(), None, purchase.lines().to_vec()).unwrap();
        let paid = Purchase::new(purchase.weekday(), Some(method), purchase.lines().to_vec()).unwrap();
        prop_assert!(rules.accrue(&paid).total >= rules.accrue(&unknown).total);
    }

    #[test]
    fn an_accrual_and_a_purchase_survive_a_json_round_trip(purchase in purchase()) {
        let accrual = RuleSet::builtin().accrue(&purchase);
        let json = serde_json::to_string(&accrual).unwrap();
        prop_assert_eq!(serde_json::from_str::<Accrual>(&json).unwrap(), accrual);
        let json = serde_json::to_string(&purchase).unwrap();
        prop_assert_eq!(serde_json::from_str::<Purchase>(&json).unwrap(), purchase);
    }

    #[test]
    fn a_purchase_is_accepted_exactly_when_it_has_lines_all_positive_within_the_limit(
        day in weekday(),
        lines in proptest::collection::vec(
            (category(), prop_oneof![any::<i64>(), -5..=5i64, (MAX_TOTAL - 5)..=(MAX_TOTAL + 5)])
                .prop_map(|(category, amount)| PurchaseLine { category, amount }),
            0..4,
        ),
    ) {
        // Lines are checked in order: the first non-positive line, or the first line that takes
        // the running total past the limit, decides the refusal.
        let mut expected = if lines.is_empty() { Err(PurchaseError::NoLines) } else { Ok(0i128) };
        for (index, line) in lines.iter().enumerate() {
            let Ok(running) = expected else { break };
            expected = if line.amount <= 0 {
                Err(PurchaseError::NonPositiveAmount { index, amount: line.amount })
            } else if running + i128::from(line.amount) > i128::from(MAX_TOTAL) {
                Err(PurchaseError::TotalTooLarge)
            } else {
                Ok(running + i128::from(line.amount))
            };
        }
        let got = Purchase::new(day, None, lines.clone());
        prop_assert_eq!(got.as_ref().map(|purchase| i128::from(purchase.total())).map_err(Clone::clone), expected);
        if let Ok(purchase) = got {
            prop_assert_eq!(purchase.lines(), lines.as_slice());
        }
    }

    #[test]
    fn arbitrary_text_as_a_rule_file_never_panics(text in "\\PC{0,200}") {
        let _ = RuleSet::from_toml(&text);
    }

    #[test]
    fn every_generated_valid_rule_file_is_accepted(text in valid_rule_file()) {
        prop_assert!(RuleSet::from_toml(&text).is_ok(), "{}", text);
    }

    #[test]
    fn a_doubtful_rule_file_is_refused_or_yields_a_rule_set_that_keeps_the_invariants(
        text in doubtful_rule_file(),
    ) {
        let Ok(rules) = RuleSet::from_toml(&text) else {
            return Ok(());
        };
        prop_assert!(!rules.version().trim().is_empty());
        prop_assert!(rules.base_rate_bp() <= FULL_RATE_BP);
        prop_assert!(!rules.base_description().trim().is_empty());
        let mut ids = std::collections::HashSet::new();
        for rule in rules.rules() {
            prop_assert!(!rule.id().trim().is_empty());
            prop_assert!(ids.insert(rule.id().to_owned()), "duplicate {}", rule.id());
            prop_assert!(rule.rate_bp() > rules.base_rate_bp() && rule.rate_bp() <= FULL_RATE_BP);
            prop_assert!(!rule.description().trim().is_empty());
            prop_assert!(rule.weekdays().is_none_or(|list| !list.is_empty()));
            prop_assert!(rule.payment_methods().is_none_or(|list| !list.is_empty()));
            prop_assert!(rule.categories().is_none_or(|list| !list.is_empty()));
        }
    }
}
