//! A purchase posted by a store system: its validated parts, the digest that recognises a
//! retry of the same post, and what posting it answers.
//!
//! A [`PurchaseOrder`] is the whole request once valid: the member's document in canonical
//! form, the store, the instant (not more than [`PurchaseOrder::MAX_CLOCK_SKEW_MS`] ahead of
//! the server's clock), the payment method and at least one line of positive pesos. Each
//! [`OrderLine`] carries, besides what the accrual engine reads, the club's
//! [`ProductCategoryId`] that missions count.

use chrono::DateTime;
use miclub_accrual::{Category, PaymentMethod, Purchase, PurchaseError, PurchaseLine};
use miclub_platform::calendar;
use miclub_platform::identity::LoginId;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{CardNumber, MovementId, Reason};
use crate::error::{AccountsError, Result};

/// The store system's key of one purchase: 8 to 128 ASCII letters, digits, `_`, `.`, `:`
/// or `-`. Posting twice with the same key posts once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn parse(raw: &str) -> Result<Self> {
        let valid = (8..=128).contains(&raw.len())
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'));
        if valid {
            Ok(Self(raw.to_owned()))
        } else {
            Err(AccountsError::invalid(
                "idempotency_key",
                "8 to 128 letters, digits, _ . : or -",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The member's identity document as scanned at checkout, in the canonical form members are
/// stored with (RUT `12345678-5`, foreign documents uppercased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberDocument(String);

impl MemberDocument {
    pub fn parse(raw: &str) -> Result<Self> {
        LoginId::parse(raw)
            .map(|id| Self(id.canonical()))
            .map_err(|_| AccountsError::invalid("member_document", "not a rut or document"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Who a purchase is for, as the till identified the member: the identity document, or the
/// number of the member card (the digital card's barcode). Exactly one is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberKey {
    Document(MemberDocument),
    Card(CardNumber),
}

impl MemberKey {
    /// The key from the two request fields (`member_document`, `member_card`; empty means not
    /// given): both or neither is refused naming the field at fault (`member_card` when both,
    /// `member_document`, the usual one, when neither).
    pub fn parse(document: &str, card: &str) -> Result<Self> {
        match (document.is_empty(), card.is_empty()) {
            (false, true) => Ok(Self::Document(MemberDocument::parse(document)?)),
            (true, false) => Ok(Self::Card(CardNumber::parse_field("member_card", card)?)),
            (false, false) => Err(AccountsError::invalid(
                "member_card",
                "member_document and member_card both given",
            )),
            (true, true) => Err(AccountsError::invalid(
                "member_document",
                "neither member_document nor member_card given",
            )),
        }
    }
}

/// Id of a store in the chain's systems; the shape of every opaque id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreId(String);

impl StoreId {
    pub fn parse(raw: &str) -> Result<Self> {
        super::check_id("store_id", raw)?;
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The store's name as the member reads it ("Lider Providencia"): trimmed, 1 to 100
/// characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreName(String);

impl StoreName {
    pub const MAX_CHARS: usize = 100;

    pub fn parse(raw: &str) -> Result<Self> {
        let trimmed = raw.trim();
        if trimmed.is_empty()
            || trimmed.chars().count() > Self::MAX_CHARS
            || trimmed.chars().any(char::is_control)
        {
            return Err(AccountsError::invalid(
                "store_name",
                "1 to 100 characters of text",
            ));
        }
        Ok(Self(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The club's product category of a line (1 to 57, 16 unused), what missions count; 0 when the
/// store system does not know it. It never changes the accrual.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProductCategoryId(u8);

impl ProductCategoryId {
    pub const UNKNOWN: Self = Self(0);
    pub const MAX: u8 = 57;
    /// The one id in 1..=57 the club does not use.
    pub const UNUSED: u8 = 16;

    /// Checks the id a store system sent: 0, or 1 to 57 but 16.
    pub fn parse(raw: i64) -> Result<Self> {
        match u8::try_from(raw) {
            Ok(id) if id <= Self::MAX && id != Self::UNUSED => Ok(Self(id)),
            _ => Err(AccountsError::invalid_field(
                "lines",
                "Una línea tiene una categoría de producto inválida: usa 0 (desconocida) o un \
                 número del 1 al 57, excepto el 16.",
            )),
        }
    }

    pub fn get(self) -> u8 {
        self.0
    }

    pub fn is_unknown(self) -> bool {
        self.0 == 0
    }
}

/// One line of a posted purchase: the accrual category, whole pesos, and the product category
/// for missions. Serialised as stored in `purchases.lines` and sent in the `purchase.posted`
/// event: `{"category":"meat","amount":15000,"product_category_id":10}`; rows written before
/// product categories existed lack the field and read as unknown (0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderLine {
    pub category: Category,
    /// Whole pesos; [`PurchaseOrder::new`] requires them positive.
    pub amount: i64,
    #[serde(default)]
    pub product_category_id: ProductCategoryId,
}

impl OrderLine {
    /// A line whose product category the store system did not send.
    pub fn new(category: Category, amount: i64) -> Self {
        Self {
            category,
            amount,
            product_category_id: ProductCategoryId::UNKNOWN,
        }
    }

    /// The lines of a `purchases.lines` column, old rows included.
    pub fn parse_stored(json: &str) -> Result<Vec<Self>> {
        serde_json::from_str(json)
            .map_err(|err| AccountsError::CorruptRecord(format!("purchase lines: {err}")))
    }

    fn for_engine(&self) -> PurchaseLine {
        PurchaseLine {
            category: self.category,
            amount: self.amount,
        }
    }
}

/// Stored form of a payment method (the `purchases.payment_method` column).
pub fn payment_method_str(method: PaymentMethod) -> &'static str {
    match method {
        PaymentMethod::PartnerCard => "partner_card",
        PaymentMethod::OtherCard => "other_card",
        PaymentMethod::Cash => "cash",
    }
}

/// A payment method from its stored form; `None` for anything [`payment_method_str`] never
/// writes.
pub fn payment_method_from_str(raw: &str) -> Option<PaymentMethod> {
    [
        PaymentMethod::PartnerCard,
        PaymentMethod::OtherCard,
        PaymentMethod::Cash,
    ]
    .into_iter()
    .find(|method| payment_method_str(*method) == raw)
}

/// A valid purchase, ready to be posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurchaseOrder {
    key: IdempotencyKey,
    member: MemberKey,
    store_id: StoreId,
    store_name: StoreName,
    /// Unix milliseconds, at most [`PurchaseOrder::MAX_CLOCK_SKEW_MS`] ahead of the server.
    purchased_at: i64,
    payment: PaymentMethod,
    /// What the rule engine reads: the weekday in Chile, the payment method and the lines
    /// (1 to [`PurchaseOrder::MAX_LINES`], in the order posted, positive, total bounded).
    purchase: Purchase,
    /// The lines as posted, product categories included; the same order as `purchase`'s.
    lines: Vec<OrderLine>,
}

impl PurchaseOrder {
    /// How far ahead of the server's clock a till's clock may be.
    pub const MAX_CLOCK_SKEW_MS: i64 = 5 * 60 * 1_000;
    pub const MAX_LINES: usize = 500;

    /// Checks what the parts cannot check alone: the instant against `now`, the lines.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        key: IdempotencyKey,
        member: MemberKey,
        store_id: StoreId,
        store_name: StoreName,
        purchased_at: i64,
        payment: PaymentMethod,
        lines: Vec<OrderLine>,
        now: i64,
    ) -> Result<Self> {
        let instant = DateTime::from_timestamp_millis(purchased_at)
            .ok_or_else(|| AccountsError::invalid("purchased_at", "out of range"))?;
        if purchased_at > now + Self::MAX_CLOCK_SKEW_MS {
            return Err(AccountsError::invalid("purchased_at", "in the future"));
        }
        if lines.len() > Self::MAX_LINES {
            return Err(AccountsError::invalid("lines", "more than 500 lines"));
        }
        let engine_lines = lines.iter().map(OrderLine::for_engine).collect();
        let purchase = Purchase::new(calendar::weekday_at(instant), Some(payment), engine_lines)
            .map_err(|err| match err {
                PurchaseError::NoLines => AccountsError::invalid("lines", "no lines"),
                PurchaseError::NonPositiveAmount { .. } => {
                    AccountsError::invalid("lines", "a line amount is not positive")
                }
                PurchaseError::TotalTooLarge => {
                    AccountsError::invalid("lines", "the total is too large")
                }
            })?;
        Ok(Self {
            key,
            member,
            store_id,
            store_name,
            purchased_at,
            payment,
            purchase,
            lines,
        })
    }

    pub fn key(&self) -> &IdempotencyKey {
        &self.key
    }

    /// Whom the purchase is for, as the till named them.
    pub fn member(&self) -> &MemberKey {
        &self.member
    }

    pub fn store_id(&self) -> &StoreId {
        &self.store_id
    }

    pub fn store_name(&self) -> &StoreName {
        &self.store_name
    }

    pub fn purchased_at(&self) -> i64 {
        self.purchased_at
    }

    /// The purchase as the accrual engine takes it.
    pub fn purchase(&self) -> &Purchase {
        &self.purchase
    }

    pub fn payment(&self) -> PaymentMethod {
        self.payment
    }

    pub fn lines(&self) -> &[OrderLine] {
        &self.lines
    }

    /// Whole pesos paid.
    pub fn total(&self) -> i64 {
        self.purchase.total()
    }

    /// The lines as stored and as sent to missions:
    /// `[{"category":"meat","amount":1000,"product_category_id":10}]`.
    pub fn lines_json(&self) -> String {
        serde_json::to_string(self.lines()).unwrap_or_default()
    }

    /// What the member reads in their movements: "Compra en Lider Providencia".
    pub fn reason(&self) -> Result<Reason> {
        Reason::parse(&format!("Compra en {}", self.store_name.as_str()))
    }

    /// Hex SHA-256 of the canonical payload (everything but the key): JSON with a fixed field
    /// order, the member key under its own name (`member_document` or `member_card`, so the
    /// same purchase keyed by card is another payload than keyed by document), the document in
    /// canonical form and the instant in milliseconds, so the same
    /// purchase sent with another RUT format or UTC offset is still the same purchase. A line's
    /// product category enters only when known, so posts without product categories keep the
    /// digests they had before product categories existed (their retries still replay).
    pub fn digest(&self) -> String {
        #[derive(Serialize)]
        struct CanonicalLine {
            category: Category,
            amount: i64,
            #[serde(skip_serializing_if = "unknown_category")]
            product_category_id: ProductCategoryId,
        }
        #[derive(Serialize)]
        struct Canonical<'a> {
            version: u8,
            #[serde(skip_serializing_if = "Option::is_none")]
            member_document: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            member_card: Option<&'a str>,
            store_id: &'a str,
            store_name: &'a str,
            purchased_at: i64,
            payment_method: &'a str,
            lines: Vec<CanonicalLine>,
        }
        let canonical = Canonical {
            version: 1,
            member_document: match &self.member {
                MemberKey::Document(document) => Some(document.as_str()),
                MemberKey::Card(_) => None,
            },
            member_card: match &self.member {
                MemberKey::Card(card) => Some(card.as_str()),
                MemberKey::Document(_) => None,
            },
            store_id: self.store_id.as_str(),
            store_name: self.store_name.as_str(),
            purchased_at: self.purchased_at,
            payment_method: payment_method_str(self.payment()),
            lines: self
                .lines
                .iter()
                .map(|line| CanonicalLine {
                    category: line.category,
                    amount: line.amount,
                    product_category_id: line.product_category_id,
                })
                .collect(),
        };
        let bytes = serde_json::to_vec(&canonical).unwrap_or_default();
        Sha256::digest(&bytes)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

fn unknown_category(id: &ProductCategoryId) -> bool {
    id.is_unknown()
}

/// The answer of a post, stored with the purchase so a retry gets the same one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostedPurchase {
    pub purchase_id: String,
    /// The pending accrual; `None` when the purchase accrued nothing.
    pub movement_id: Option<MovementId>,
    /// Pesos accrued, pending until the return window closes.
    pub accrued: i64,
    pub rules_version: String,
    /// True when this is the stored answer of an earlier identical post.
    pub replayed: bool,
}

#[cfg(test)]
mod tests {
    use miclub_accrual::Category;

    use super::*;

    const NOW: i64 = 1_780_000_000_000;

    fn order(document: &str, purchased_at: i64, lines: Vec<OrderLine>) -> Result<PurchaseOrder> {
        keyed(MemberKey::parse(document, "")?, purchased_at, lines)
    }

    fn keyed(member: MemberKey, purchased_at: i64, lines: Vec<OrderLine>) -> Result<PurchaseOrder> {
        PurchaseOrder::new(
            IdempotencyKey::parse("till-042:000123")?,
            member,
            StoreId::parse("lider-providencia")?,
            StoreName::parse("Lider Providencia")?,
            purchased_at,
            PaymentMethod::PartnerCard,
            lines,
            NOW,
        )
    }

    fn meat(amount: i64) -> OrderLine {
        OrderLine::new(Category::Meat, amount)
    }

    fn beef(amount: i64) -> OrderLine {
        OrderLine {
            product_category_id: ProductCategoryId::parse(10).unwrap(),
            ..meat(amount)
        }
    }

    #[test]
    fn an_idempotency_key_is_eight_to_128_safe_characters() {
        assert!(IdempotencyKey::parse("abcdefgh").is_ok());
        assert!(IdempotencyKey::parse("till-1:2026.11.21_0001").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(128)).is_ok());
        for bad in ["abcdefg", "has space1", "ñandú-1234", "slash/1234"] {
            assert!(IdempotencyKey::parse(bad).is_err(), "{bad}");
        }
        assert!(IdempotencyKey::parse(&"k".repeat(129)).is_err());
    }

    #[test]
    fn exactly_one_member_key_is_taken_and_the_digest_says_which() {
        let card = CardNumber::generate();
        let by_card = MemberKey::parse("", card.as_str()).unwrap();
        assert_eq!(by_card, MemberKey::Card(card.clone()));
        let field = |err: AccountsError| match err {
            AccountsError::Invalid { field, .. } => field,
            other => panic!("not a field refusal: {other:?}"),
        };
        assert_eq!(
            field(MemberKey::parse("11.111.111-1", card.as_str()).unwrap_err()),
            "member_card"
        );
        assert_eq!(
            field(MemberKey::parse("", "").unwrap_err()),
            "member_document"
        );
        assert_eq!(
            field(MemberKey::parse("", "123456789012").unwrap_err()),
            "member_card"
        );
        assert_eq!(
            field(MemberKey::parse("11.111.111-2", "").unwrap_err()),
            "member_document"
        );

        let at = NOW - 60_000;
        let by_card = keyed(by_card, at, vec![meat(1_000)]).unwrap();
        let by_document = order("11.111.111-1", at, vec![meat(1_000)]).unwrap();
        assert_ne!(by_card.digest(), by_document.digest());
        let other_card = keyed(
            MemberKey::Card(CardNumber::generate()),
            at,
            vec![meat(1_000)],
        )
        .unwrap();
        assert_ne!(by_card.digest(), other_card.digest());
    }

    #[test]
    fn the_member_document_is_kept_in_the_canonical_form_of_the_members_table() {
        assert_eq!(
            MemberDocument::parse("11.111.111-1").unwrap().as_str(),
            "11111111-1"
        );
        assert_eq!(
            MemberDocument::parse("p1234567").unwrap().as_str(),
            "P1234567"
        );
        assert!(MemberDocument::parse("11.111.111-2").is_err());
        assert!(MemberDocument::parse("").is_err());
    }

    #[test]
    fn a_purchase_may_come_from_a_till_a_little_ahead_but_not_from_the_future() {
        let lines = vec![meat(1_000)];
        assert!(order("11111111-1", NOW + 5 * 60 * 1_000, lines.clone()).is_ok());
        assert!(order("11111111-1", NOW + 5 * 60 * 1_000 + 1, lines).is_err());
    }

    #[test]
    fn a_purchase_has_lines_of_positive_pesos() {
        assert!(order("11111111-1", NOW, vec![]).is_err());
        assert!(order("11111111-1", NOW, vec![meat(1_000), meat(0)]).is_err());
        assert!(order("11111111-1", NOW, vec![meat(-5)]).is_err());
        assert!(order("11111111-1", NOW, vec![meat(1_000_000_001)]).is_err());
        let two = order("11111111-1", NOW, vec![meat(1_000), meat(250)]).unwrap();
        assert_eq!(two.total(), 1_250);
        assert_eq!(
            two.lines_json(),
            r#"[{"category":"meat","amount":1000,"product_category_id":0},{"category":"meat","amount":250,"product_category_id":0}]"#
        );
        assert_eq!(
            two.reason().unwrap().as_str(),
            "Compra en Lider Providencia"
        );
    }

    #[test]
    fn the_digest_ignores_the_spelling_of_the_document_and_sees_any_change_of_content() {
        let a = order("11111111-1", NOW, vec![meat(1_000)]).unwrap();
        let same = order("11.111.111-1", NOW, vec![meat(1_000)]).unwrap();
        let other_amount = order("11111111-1", NOW, vec![meat(1_001)]).unwrap();
        let other_instant = order("11111111-1", NOW - 1, vec![meat(1_000)]).unwrap();
        assert_eq!(a.digest(), same.digest());
        assert_eq!(a.digest().len(), 64);
        assert_ne!(a.digest(), other_amount.digest());
        assert_ne!(a.digest(), other_instant.digest());
    }

    #[test]
    fn a_product_category_is_unknown_or_one_to_57_but_16() {
        for good in [0, 1, 15, 17, 57] {
            assert_eq!(
                ProductCategoryId::parse(good).unwrap().get(),
                good as u8,
                "{good}"
            );
        }
        for bad in [-1, 16, 58, 256, i64::MAX] {
            let err = ProductCategoryId::parse(bad).unwrap_err();
            match err {
                AccountsError::InvalidField { field, message } => {
                    assert_eq!(field, "lines");
                    assert!(message.contains("categoría de producto"), "{message}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn lines_keep_their_product_category_and_old_stored_lines_read_as_unknown() {
        let posted = order("11111111-1", NOW, vec![beef(15_000), meat(250)]).unwrap();
        assert_eq!(
            posted.lines_json(),
            r#"[{"category":"meat","amount":15000,"product_category_id":10},{"category":"meat","amount":250,"product_category_id":0}]"#
        );
        assert_eq!(
            OrderLine::parse_stored(&posted.lines_json()).unwrap(),
            posted.lines()
        );
        let old = OrderLine::parse_stored(r#"[{"category":"drinks","amount":990}]"#).unwrap();
        assert_eq!(old, vec![OrderLine::new(Category::Drinks, 990)]);
        assert!(OrderLine::parse_stored("not json").is_err());
    }

    #[test]
    fn the_digest_of_lines_without_product_categories_is_the_one_of_before_they_existed() {
        // The canonical form as it was before product categories: posts retried across the
        // upgrade must still match their stored digest.
        #[derive(Serialize)]
        struct Before<'a> {
            version: u8,
            member_document: &'a str,
            store_id: &'a str,
            store_name: &'a str,
            purchased_at: i64,
            payment_method: &'a str,
            lines: &'a [PurchaseLine],
        }
        let posted = order("11111111-1", NOW, vec![meat(1_000), meat(250)]).unwrap();
        let before = serde_json::to_vec(&Before {
            version: 1,
            member_document: "11111111-1",
            store_id: "lider-providencia",
            store_name: "Lider Providencia",
            purchased_at: NOW,
            payment_method: "partner_card",
            lines: posted.purchase().lines(),
        })
        .unwrap();
        let before: String = Sha256::digest(&before)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_eq!(posted.digest(), before);

        // A known product category is part of the purchase.
        let with_category = order("11111111-1", NOW, vec![beef(1_000), meat(250)]).unwrap();
        assert_ne!(with_category.digest(), posted.digest());
    }
}
