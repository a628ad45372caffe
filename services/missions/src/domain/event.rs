//! The `purchase.posted` event accounts publishes on `events:purchases`, as missions reads it.
//!
//! Unknown fields are ignored, so accounts may add some; what missions needs is checked here,
//! and an event without it is malformed (logged and acknowledged by the consumer, never
//! retried: a retry would not make it readable).

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::Deserialize;

use super::mission::MemberId;

/// The topic missions counts; every other topic on the stream is acknowledged and skipped.
pub const PURCHASE_POSTED: &str = "purchase.posted";

#[derive(Debug, Deserialize)]
struct Payload {
    #[serde(default)]
    event_id: String,
    member_id: String,
    purchased_at: String,
    #[serde(default)]
    lines: Vec<Line>,
}

#[derive(Debug, Deserialize)]
struct Line {
    #[serde(default)]
    amount: i64,
    /// 0 (or absent) when the till did not say.
    #[serde(default)]
    product_category_id: i32,
}

/// A posted purchase, reduced to what missions counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purchase {
    /// The event's id: what makes counting idempotent.
    pub event_id: String,
    pub member_id: MemberId,
    /// The day of the purchase in Chile.
    pub day: NaiveDate,
    /// Pesos per product category id (known categories only, lines of one category added up).
    pub by_category: BTreeMap<i32, i64>,
}

impl Purchase {
    /// Reads an event; `event_id` is the bus event's id (the payload's is used when it is
    /// empty). `Err` names what is wrong, for the log.
    pub fn parse(event_id: &str, payload: &str) -> Result<Self, String> {
        let payload: Payload =
            serde_json::from_str(payload).map_err(|err| format!("not a purchase event: {err}"))?;
        let event_id = match event_id.trim() {
            "" => payload.event_id.trim().to_owned(),
            id => id.to_owned(),
        };
        if event_id.is_empty() {
            return Err("no event id".into());
        }
        let member_id = MemberId::parse(&payload.member_id).map_err(|_| "no valid member_id")?;
        let purchased_at = chrono::DateTime::parse_from_rfc3339(payload.purchased_at.trim())
            .map_err(|_| "purchased_at is not RFC 3339")?;
        let mut by_category = BTreeMap::new();
        for line in payload.lines {
            if line.product_category_id > 0 && line.amount > 0 {
                let total = by_category.entry(line.product_category_id).or_insert(0i64);
                *total = total.saturating_add(line.amount);
            }
        }
        Ok(Self {
            event_id,
            member_id,
            day: miclub_platform::calendar::day_of_millis(purchased_at.timestamp_millis()),
            by_category,
        })
    }

    /// What this purchase adds to a goal in `category`: pesos, or 1 purchase; `None` when it has
    /// no line in that category.
    pub fn amount_in(&self, category: i32) -> Option<i64> {
        self.by_category.get(&category).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYLOAD: &str = r#"{
        "event_id": "payload-id", "purchase_id": "p1",
        "member_id": "7b0f6d2e-0000-4000-8000-000000000001",
        "purchased_at": "2026-11-21T02:30:00Z", "total": 25000, "accrued": 200,
        "something_new": {"a": 1},
        "lines": [
            {"category": "meat", "amount": 15000, "product_category_id": 10},
            {"category": "meat", "amount": 2000, "product_category_id": 10, "extra": true},
            {"category": "other", "amount": 8000, "product_category_id": 0}
        ]
    }"#;

    #[test]
    fn a_purchase_event_is_read_with_unknown_fields_ignored() {
        let purchase = Purchase::parse("bus-id", PAYLOAD).unwrap();
        assert_eq!(purchase.event_id, "bus-id");
        assert_eq!(
            purchase.member_id.as_str(),
            "7b0f6d2e-0000-4000-8000-000000000001"
        );
        assert_eq!(purchase.day.to_string(), "2026-11-20");
        assert_eq!(purchase.amount_in(10), Some(17_000));
        assert_eq!(purchase.amount_in(0), None, "unknown category not counted");
        assert_eq!(purchase.amount_in(2), None);
    }

    #[test]
    fn the_payload_event_id_is_used_when_the_bus_gives_none() {
        assert_eq!(Purchase::parse("", PAYLOAD).unwrap().event_id, "payload-id");
    }

    #[test]
    fn a_malformed_payload_is_refused() {
        for payload in [
            "not json",
            "{}",
            r#"{"member_id": "m1", "purchased_at": "yesterday"}"#,
            r#"{"member_id": "", "purchased_at": "2026-11-21T02:30:00Z"}"#,
        ] {
            assert!(Purchase::parse("e1", payload).is_err(), "{payload}");
        }
    }
}
