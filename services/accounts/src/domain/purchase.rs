//! A purchase posted by a store system: its validated parts, the digest that recognises a
//! retry of the same post, and what posting it answers.
//!
//! A [`PurchaseOrder`] is the whole request once valid: the member's document in canonical
//! form, the store, the instant (not more than [`PurchaseOrder::MAX_CLOCK_SKEW_MS`] ahead of
//! the server's clock), the payment method and at least one line of positive pesos.

use chrono::DateTime;
use miclub_accrual::{PaymentMethod, Purchase, PurchaseError, PurchaseLine, weekday_in_chile};
use miclub_platform::identity::LoginId;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{MovementId, Reason};
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

/// Stored form of a payment method (the `purchases.payment_method` column).
pub fn payment_method_str(method: PaymentMethod) -> &'static str {
    match method {
        PaymentMethod::PartnerCard => "partner_card",
        PaymentMethod::OtherCard => "other_card",
        PaymentMethod::Cash => "cash",
    }
}

/// A valid purchase, ready to be posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurchaseOrder {
    key: IdempotencyKey,
    document: MemberDocument,
    store_id: StoreId,
    store_name: StoreName,
    /// Unix milliseconds, at most [`PurchaseOrder::MAX_CLOCK_SKEW_MS`] ahead of the server.
    purchased_at: i64,
    payment: PaymentMethod,
    /// What the rule engine reads: the weekday in Chile, the payment method and the lines
    /// (1 to [`PurchaseOrder::MAX_LINES`], in the order posted, positive, total bounded).
    purchase: Purchase,
}

impl PurchaseOrder {
    /// How far ahead of the server's clock a till's clock may be.
    pub const MAX_CLOCK_SKEW_MS: i64 = 5 * 60 * 1_000;
    pub const MAX_LINES: usize = 500;

    /// Checks what the parts cannot check alone: the instant against `now`, the lines.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        key: IdempotencyKey,
        document: MemberDocument,
        store_id: StoreId,
        store_name: StoreName,
        purchased_at: i64,
        payment: PaymentMethod,
        lines: Vec<PurchaseLine>,
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
        let purchase = Purchase::new(weekday_in_chile(instant), Some(payment), lines).map_err(
            |err| match err {
                PurchaseError::NoLines => AccountsError::invalid("lines", "no lines"),
                PurchaseError::NonPositiveAmount { .. } => {
                    AccountsError::invalid("lines", "a line amount is not positive")
                }
                PurchaseError::TotalTooLarge => {
                    AccountsError::invalid("lines", "the total is too large")
                }
            },
        )?;
        Ok(Self {
            key,
            document,
            store_id,
            store_name,
            purchased_at,
            payment,
            purchase,
        })
    }

    pub fn key(&self) -> &IdempotencyKey {
        &self.key
    }

    pub fn document(&self) -> &MemberDocument {
        &self.document
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

    pub fn lines(&self) -> &[PurchaseLine] {
        self.purchase.lines()
    }

    /// Whole pesos paid.
    pub fn total(&self) -> i64 {
        self.purchase.total()
    }

    /// The lines as stored and as sent to missions: `[{"category":"meat","amount":1000}]`.
    pub fn lines_json(&self) -> String {
        serde_json::to_string(self.lines()).unwrap_or_default()
    }

    /// What the member reads in their movements: "Compra en Lider Providencia".
    pub fn reason(&self) -> Result<Reason> {
        Reason::parse(&format!("Compra en {}", self.store_name.as_str()))
    }

    /// Hex SHA-256 of the canonical payload (everything but the key): JSON with a fixed field
    /// order, the document in canonical form and the instant in milliseconds, so the same
    /// purchase sent with another RUT format or UTC offset is still the same purchase.
    pub fn digest(&self) -> String {
        #[derive(Serialize)]
        struct Canonical<'a> {
            version: u8,
            member_document: &'a str,
            store_id: &'a str,
            store_name: &'a str,
            purchased_at: i64,
            payment_method: &'a str,
            lines: &'a [PurchaseLine],
        }
        let canonical = Canonical {
            version: 1,
            member_document: self.document.as_str(),
            store_id: self.store_id.as_str(),
            store_name: self.store_name.as_str(),
            purchased_at: self.purchased_at,
            payment_method: payment_method_str(self.payment()),
            lines: self.lines(),
        };
        let bytes = serde_json::to_vec(&canonical).unwrap_or_default();
        Sha256::digest(&bytes)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
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

    fn order(document: &str, purchased_at: i64, lines: Vec<PurchaseLine>) -> Result<PurchaseOrder> {
        PurchaseOrder::new(
            IdempotencyKey::parse("till-042:000123")?,
            MemberDocument::parse(document)?,
            StoreId::parse("lider-providencia")?,
            StoreName::parse("Lider Providencia")?,
            purchased_at,
            PaymentMethod::PartnerCard,
            lines,
            NOW,
        )
    }

    fn meat(amount: i64) -> PurchaseLine {
        PurchaseLine {
            category: Category::Meat,
            amount,
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
            r#"[{"category":"meat","amount":1000},{"category":"meat","amount":250}]"#
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
}
