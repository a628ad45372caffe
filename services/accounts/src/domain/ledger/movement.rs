//! The movement model: what a movement is (id, kind, status, signed pesos, reason, instant)
//! and the rules every movement obeys on construction.

use std::fmt;

use chrono::DateTime;

use super::super::MemberId;
use crate::error::{AccountsError, Result};

/// Opaque id of a movement; also what makes recording a movement idempotent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MovementId(String);

impl MovementId {
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    pub fn parse(raw: &str) -> Result<Self> {
        super::super::check_id("movement_id", raw)?;
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MovementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovementKind {
    /// Pesos earned with a purchase.
    Accrual,
    /// Pesos spent (e.g. at the till).
    Redemption,
    /// Pesos that lapsed.
    Expiration,
    /// A correction by customer service, either way.
    Adjustment,
}

impl MovementKind {
    pub const ALL: [MovementKind; 4] = [
        MovementKind::Accrual,
        MovementKind::Redemption,
        MovementKind::Expiration,
        MovementKind::Adjustment,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MovementKind::Accrual => "accrual",
            MovementKind::Redemption => "redemption",
            MovementKind::Expiration => "expiration",
            MovementKind::Adjustment => "adjustment",
        }
    }

    pub fn parse(raw: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == raw)
            .ok_or_else(|| AccountsError::invalid("kind", "not a movement kind"))
    }

    fn accepts(self, amount: i64) -> bool {
        match self {
            MovementKind::Accrual => amount > 0,
            MovementKind::Redemption | MovementKind::Expiration => amount < 0,
            MovementKind::Adjustment => amount != 0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovementStatus {
    /// Recorded but not yet in the balance (an accrual waiting for its purchase to settle).
    Pending,
    Confirmed,
}

impl MovementStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MovementStatus::Pending => "pending",
            MovementStatus::Confirmed => "confirmed",
        }
    }

    pub fn parse(raw: &str) -> Result<Self> {
        match raw {
            "pending" => Ok(MovementStatus::Pending),
            "confirmed" => Ok(MovementStatus::Confirmed),
            _ => Err(AccountsError::invalid("status", "not a movement status")),
        }
    }
}

/// Why a movement happened, in Spanish for the member: trimmed, 1 to 200 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason(String);

impl Reason {
    pub const MAX_CHARS: usize = 200;

    pub fn parse(raw: &str) -> Result<Self> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(AccountsError::invalid("reason", "empty"));
        }
        if trimmed.chars().count() > Self::MAX_CHARS || trimmed.chars().any(char::is_control) {
            return Err(AccountsError::invalid(
                "reason",
                "too long or control characters",
            ));
        }
        Ok(Self(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One entry of the ledger. Built only through [`Movement::new`], which checks the sign of
/// the amount against the kind and that only accruals are pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Movement {
    id: MovementId,
    member_id: MemberId,
    kind: MovementKind,
    status: MovementStatus,
    /// Signed whole pesos.
    amount: i64,
    reason: Reason,
    /// When it happened (the purchase, the redemption), Unix milliseconds.
    occurred_at: i64,
}

impl Movement {
    pub fn new(
        id: MovementId,
        member_id: MemberId,
        kind: MovementKind,
        status: MovementStatus,
        amount: i64,
        reason: Reason,
        occurred_at: i64,
    ) -> Result<Self> {
        if !kind.accepts(amount) {
            return Err(AccountsError::invalid(
                "amount",
                "wrong sign for the kind of movement",
            ));
        }
        if status == MovementStatus::Pending && kind != MovementKind::Accrual {
            return Err(AccountsError::invalid(
                "status",
                "only accruals can be pending",
            ));
        }
        Ok(Self {
            id,
            member_id,
            kind,
            status,
            amount,
            reason,
            occurred_at,
        })
    }

    pub fn id(&self) -> &MovementId {
        &self.id
    }

    pub fn member_id(&self) -> &MemberId {
        &self.member_id
    }

    pub fn kind(&self) -> MovementKind {
        self.kind
    }

    pub fn status(&self) -> MovementStatus {
        self.status
    }

    pub fn amount(&self) -> i64 {
        self.amount
    }

    pub fn reason(&self) -> &Reason {
        &self.reason
    }

    pub fn occurred_at(&self) -> i64 {
        self.occurred_at
    }

    /// The pesos this movement adds to the balance now: its amount once confirmed, 0 pending.
    pub fn balance_effect(&self) -> i64 {
        match self.status {
            MovementStatus::Confirmed => self.amount,
            MovementStatus::Pending => 0,
        }
    }
}

/// Parses an RFC 3339 instant into Unix milliseconds.
pub fn parse_instant(field: &'static str, raw: &str) -> Result<i64> {
    DateTime::parse_from_rfc3339(raw.trim())
        .map(|instant| instant.timestamp_millis())
        .map_err(|_| AccountsError::invalid(field, "not an RFC 3339 instant"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn movement(kind: MovementKind, status: MovementStatus, amount: i64) -> Result<Movement> {
        Movement::new(
            MovementId::generate(),
            MemberId::generate(),
            kind,
            status,
            amount,
            Reason::parse("Compra en Lider Providencia")?,
            0,
        )
    }

    #[test]
    fn the_sign_of_the_amount_must_match_the_kind() {
        use MovementKind::*;
        use MovementStatus::Confirmed;
        assert!(movement(Accrual, Confirmed, 100).is_ok());
        assert!(movement(Accrual, Confirmed, -100).is_err());
        assert!(movement(Redemption, Confirmed, -100).is_ok());
        assert!(movement(Redemption, Confirmed, 100).is_err());
        assert!(movement(Expiration, Confirmed, 0).is_err());
        assert!(movement(Adjustment, Confirmed, -5).is_ok());
        assert!(movement(Adjustment, Confirmed, 5).is_ok());
        assert!(movement(Adjustment, Confirmed, 0).is_err());
    }

    #[test]
    fn only_accruals_can_be_pending_and_pending_ones_do_not_count() {
        let pending = movement(MovementKind::Accrual, MovementStatus::Pending, 700).unwrap();
        assert_eq!(pending.balance_effect(), 0);
        assert!(movement(MovementKind::Redemption, MovementStatus::Pending, -700).is_err());
    }

    #[test]
    fn kinds_and_statuses_round_trip_through_their_stored_form() {
        for kind in MovementKind::ALL {
            assert_eq!(MovementKind::parse(kind.as_str()).unwrap(), kind);
        }
        for status in [MovementStatus::Pending, MovementStatus::Confirmed] {
            assert_eq!(MovementStatus::parse(status.as_str()).unwrap(), status);
        }
        assert!(MovementKind::parse("gift").is_err());
    }

    #[test]
    fn a_reason_is_readable_text() {
        assert!(Reason::parse("  ").is_err());
        assert!(Reason::parse(&"x".repeat(201)).is_err());
        assert_eq!(
            Reason::parse(" Canje en caja ").unwrap().as_str(),
            "Canje en caja"
        );
    }
}
