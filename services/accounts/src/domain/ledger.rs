//! The ledger of a club account: movements in whole pesos, the balance they add up to, and
//! its use cases ([`Ledger`]): the member's movements by calendar month in Chile, purchase
//! posting, back-office movements and the confirmation of accruals once the return window of
//! their purchase has closed.
//!
//! Invariants (also enforced by the schema): accruals add (`amount > 0`), redemptions and
//! expirations take (`amount < 0`), adjustments go either way (`amount != 0`); only accruals
//! can be pending, and pending movements do not count in the balance until confirmed. The
//! balance is never negative and always equals the sum of the confirmed movements.

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone};
use chrono_tz::America::Santiago;
use miclub_accrual::{Accrual, RuleSet};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::{millis_to_rfc3339, now_millis};

use super::{MemberId, PostedPurchase, PurchaseOrder};
use crate::error::{AccountsError, Result};
use crate::store::Store;

/// Opaque id of a movement; also what makes recording a movement idempotent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MovementId(String);

impl MovementId {
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    pub fn parse(raw: &str) -> Result<Self> {
        super::check_id("movement_id", raw)?;
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

/// The balance of a club account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Balance {
    /// Whole pesos, never negative.
    pesos: i64,
    /// Instant of the last movement that changed it (the opening before any), Unix milliseconds.
    updated_at: i64,
}

impl Balance {
    pub fn new(pesos: i64, updated_at: i64) -> Result<Self> {
        if pesos < 0 {
            return Err(AccountsError::invalid("balance", "negative"));
        }
        Ok(Self { pesos, updated_at })
    }

    pub fn pesos(&self) -> i64 {
        self.pesos
    }

    pub fn updated_at(&self) -> i64 {
        self.updated_at
    }
}

/// Parses an RFC 3339 instant into Unix milliseconds.
pub fn parse_instant(field: &'static str, raw: &str) -> Result<i64> {
    DateTime::parse_from_rfc3339(raw.trim())
        .map(|instant| instant.timestamp_millis())
        .map_err(|_| AccountsError::invalid(field, "not an RFC 3339 instant"))
}

/// A calendar month in Chile (America/Santiago), the unit a member browses movements by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Month {
    year: i32,
    /// 1..=12
    month: u32,
}

impl Month {
    pub const FIRST_YEAR: i32 = 2000;

    /// A month a member may ask for: a year from 2000 to next year (in Chile at `now`) and a
    /// month from 1 to 12, refused with the Spanish text of the field otherwise.
    pub fn parse(year: i32, month: i32, now: i64) -> Result<Self> {
        let last_year = Self::containing(now).year + 1;
        if !(Self::FIRST_YEAR..=last_year).contains(&year) {
            return Err(AccountsError::InvalidField {
                field: "year",
                message: "Elige un año válido.",
            });
        }
        match u32::try_from(month) {
            Ok(month @ 1..=12) => Ok(Self { year, month }),
            _ => Err(AccountsError::InvalidField {
                field: "month",
                message: "Elige un mes válido.",
            }),
        }
    }

    /// The month `instant` (Unix milliseconds) falls in, in Chile.
    pub fn containing(instant: i64) -> Self {
        let local = DateTime::from_timestamp_millis(instant)
            .unwrap_or_default()
            .with_timezone(&Santiago);
        Self {
            year: local.year(),
            month: local.month(),
        }
    }

    pub fn year(self) -> i32 {
        self.year
    }

    pub fn month(self) -> u32 {
        self.month
    }

    /// The month `count` months before this one.
    pub fn months_before(self, count: u32) -> Self {
        let index = self.year * 12 + self.month as i32 - 1 - count as i32;
        Self {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) as u32 + 1,
        }
    }

    pub fn next(self) -> Self {
        let index = self.year * 12 + self.month as i32;
        Self {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) as u32 + 1,
        }
    }

    /// First instant of the month in Chile, Unix milliseconds.
    pub fn start(self) -> i64 {
        self.at(1, 0)
    }

    /// First instant of the next month: the month is `start() .. end()`.
    pub fn end(self) -> i64 {
        self.next().start()
    }

    /// `day` of this month at `hour`:00 in Chile, Unix milliseconds; a day past the month's
    /// end runs into the next one. An hour skipped by the change to summer time (Chile moves
    /// from midnight to 01:00) is the first instant after the gap.
    pub fn at(self, day: u32, hour: u32) -> i64 {
        let first = NaiveDate::from_ymd_opt(self.year, self.month, 1).unwrap_or_default();
        let local = first.and_time(NaiveTime::MIN)
            + Duration::days(i64::from(day.max(1)) - 1)
            + Duration::hours(i64::from(hour));
        let mut probe = local;
        loop {
            match Santiago.from_local_datetime(&probe) {
                LocalResult::Single(instant) | LocalResult::Ambiguous(instant, _) => {
                    return instant.timestamp_millis();
                }
                LocalResult::None => probe += Duration::minutes(30),
            }
        }
    }
}

/// Which page of a month's movements, and how many per page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// 1..=[`PageRequest::MAX_PAGE`]
    page: u32,
    /// 1..=[`PageRequest::MAX_SIZE`]
    size: u32,
}

impl PageRequest {
    pub const DEFAULT_SIZE: u32 = 10;
    pub const MAX_SIZE: u32 = 100;
    pub const MAX_PAGE: u32 = 10_000;

    /// `page` 0 means the first, `size` 0 the default; anything else out of range is refused
    /// with the Spanish text of the field.
    pub fn parse(page: i32, size: i32) -> Result<Self> {
        let page = match u32::try_from(page) {
            Ok(0) => 1,
            Ok(page) if page <= Self::MAX_PAGE => page,
            _ => {
                return Err(AccountsError::InvalidField {
                    field: "page",
                    message: "Elige una página válida.",
                });
            }
        };
        let size = match u32::try_from(size) {
            Ok(0) => Self::DEFAULT_SIZE,
            Ok(size) if size <= Self::MAX_SIZE => size,
            _ => {
                return Err(AccountsError::InvalidField {
                    field: "page_size",
                    message: "Elige un tamaño de página válido.",
                });
            }
        };
        Ok(Self { page, size })
    }

    pub fn page(self) -> u32 {
        self.page
    }

    pub fn size(self) -> u32 {
        self.size
    }

    /// Rows before this page.
    pub fn offset(self) -> i64 {
        i64::from(self.page - 1) * i64::from(self.size)
    }
}

/// One page of a member's movements in a month, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovementsPage {
    pub movements: Vec<Movement>,
    pub request: PageRequest,
    /// Movements in the whole month.
    pub total_count: i64,
}

impl MovementsPage {
    /// Pages in the month (0 when it has no movements).
    pub fn total_pages(&self) -> i64 {
        let size = i64::from(self.request.size);
        (self.total_count + size - 1) / size
    }
}

/// A movement a back office records: a redemption, expiration or adjustment, confirmed at
/// once (accruals only come from purchases).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManualMovement {
    movement: Movement,
    /// False when the caller left the instant to us: a retry then happens at another "now",
    /// which must not make it look like another movement.
    occurred_at_given: bool,
}

impl ManualMovement {
    /// How far ahead of the server's clock a caller's clock may be.
    pub const MAX_CLOCK_SKEW_MS: i64 = 5 * 60 * 1_000;

    pub fn new(
        id: MovementId,
        member_id: MemberId,
        kind: MovementKind,
        amount: i64,
        reason: Reason,
        occurred_at: Option<i64>,
        now: i64,
    ) -> Result<Self> {
        if kind == MovementKind::Accrual {
            return Err(AccountsError::invalid(
                "kind",
                "accruals come from purchases",
            ));
        }
        if occurred_at.is_some_and(|at| at > now + Self::MAX_CLOCK_SKEW_MS) {
            return Err(AccountsError::invalid("occurred_at", "in the future"));
        }
        let movement = Movement::new(
            id,
            member_id,
            kind,
            MovementStatus::Confirmed,
            amount,
            reason,
            occurred_at.unwrap_or(now),
        )?;
        Ok(Self {
            movement,
            occurred_at_given: occurred_at.is_some(),
        })
    }

    pub fn movement(&self) -> &Movement {
        &self.movement
    }

    /// Whether `stored` is this same movement recorded earlier.
    fn is_recorded_as(&self, stored: &Movement) -> bool {
        let wanted = &self.movement;
        stored.member_id() == wanted.member_id()
            && stored.kind() == wanted.kind()
            && stored.status() == wanted.status()
            && stored.amount() == wanted.amount()
            && stored.reason() == wanted.reason()
            && (!self.occurred_at_given || stored.occurred_at() == wanted.occurred_at())
    }
}

/// What recording a movement answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMovement {
    pub movement: Movement,
    /// The balance right after the movement (the current one for a replay).
    pub balance: Balance,
    /// True when the movement was already in the ledger.
    pub replayed: bool,
}

/// The event written to the outbox with a posted purchase, for missions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEvent {
    pub event_id: String,
    pub topic: &'static str,
    pub member_id: MemberId,
    /// JSON.
    pub payload: String,
}

impl OutboxEvent {
    pub const PURCHASE_POSTED: &str = "purchase.posted";
}

/// A purchase as it is written, with its accrual and its event.
#[derive(Debug, Clone)]
pub struct NewPurchase<'a> {
    pub order: &'a PurchaseOrder,
    pub purchase_id: String,
    pub digest: String,
    pub member_id: MemberId,
    pub accrual: &'a Accrual,
    /// The pending accrual; `None` when the purchase accrued nothing.
    pub movement: Option<Movement>,
    pub event: OutboxEvent,
}

/// A purchase already posted under an idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPurchase {
    pub digest: String,
    pub posted: PostedPurchase,
}

/// The ledger's use cases: the member's movements by month, purchase posting, back-office
/// movements and the confirmation of due accruals.
#[derive(Debug, Clone)]
pub struct Ledger {
    store: Store,
    rules: Arc<RuleSet>,
}

impl Ledger {
    /// Due accruals confirmed per transaction.
    const CONFIRM_BATCH: i64 = 500;

    pub fn new(store: Store, rules: Arc<RuleSet>) -> Self {
        Self { store, rules }
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// One page of the member's movements in `month`, newest first;
    /// [`AccountsError::NoClubAccount`] without a club account.
    pub async fn movements(
        &self,
        member_id: &MemberId,
        month: Month,
        page: PageRequest,
    ) -> Result<MovementsPage> {
        if self.store.balance(member_id).await?.is_none() {
            return Err(AccountsError::NoClubAccount);
        }
        let (from, to) = (month.start(), month.end());
        let total_count = self
            .store
            .count_movements_between(member_id, from, to)
            .await?;
        let movements = if page.offset() < total_count {
            self.store
                .movements_between(member_id, from, to, page.size(), page.offset())
                .await?
        } else {
            Vec::new()
        };
        Ok(MovementsPage {
            movements,
            request: page,
            total_count,
        })
    }

    /// Posts a purchase: the purchase, its pending accrual and its outbox event in one
    /// transaction. A key already posted answers the stored answer (`replayed`) when the
    /// payload is the same, [`AccountsError::IdempotencyMismatch`] otherwise; that includes the
    /// concurrent duplicate, whose insert fails on the key once the first one commits.
    pub async fn post_purchase(&self, order: &PurchaseOrder, now: i64) -> Result<PostedPurchase> {
        let digest = order.digest();
        if let Some(stored) = self.store.find_purchase(order.key()).await? {
            return replay(stored, &digest);
        }
        let (member_id, has_club_account) = self
            .store
            .find_member_by_document(order.document().as_str())
            .await?
            .ok_or(AccountsError::MemberNotFound)?;
        if !has_club_account {
            return Err(AccountsError::NoClubAccount);
        }
        let accrual = self.rules.accrue(order.purchase());
        let movement = if accrual.total > 0 {
            Some(Movement::new(
                MovementId::generate(),
                member_id.clone(),
                MovementKind::Accrual,
                MovementStatus::Pending,
                accrual.total,
                order.reason()?,
                order.purchased_at(),
            )?)
        } else {
            None
        };
        let purchase_id = uuid::Uuid::new_v4().to_string();
        let event_id = uuid::Uuid::new_v4().to_string();
        let payload = serde_json::json!({
            "event_id": event_id,
            "purchase_id": purchase_id,
            "member_id": member_id.as_str(),
            "purchased_at": millis_to_rfc3339(order.purchased_at()),
            "lines": order.lines(),
            "total": order.total(),
            "accrued": accrual.total,
        });
        let posted = PostedPurchase {
            purchase_id: purchase_id.clone(),
            movement_id: movement.as_ref().map(|m| m.id().clone()),
            accrued: accrual.total,
            rules_version: accrual.rules_version.clone(),
            replayed: false,
        };
        let purchase = NewPurchase {
            order,
            purchase_id,
            digest: digest.clone(),
            member_id: member_id.clone(),
            accrual: &accrual,
            movement,
            event: OutboxEvent {
                event_id,
                topic: OutboxEvent::PURCHASE_POSTED,
                member_id,
                payload: payload.to_string(),
            },
        };
        if self.store.insert_purchase(&purchase, now).await? {
            tracing::info!(
                purchase_id = %posted.purchase_id,
                accrued = posted.accrued,
                rules_version = %posted.rules_version,
                "purchase posted"
            );
            return Ok(posted);
        }
        // The key was taken between our look and our insert: a concurrent duplicate.
        let stored = self
            .store
            .find_purchase(order.key())
            .await?
            .ok_or_else(|| AccountsError::CorruptRecord("purchase key taken but absent".into()))?;
        replay(stored, &digest)
    }

    /// Records a back-office movement and answers the balance after it. The same movement id
    /// twice records once: the same content answers the stored movement (`replayed`), other
    /// content [`AccountsError::IdempotencyMismatch`].
    pub async fn record_movement(
        &self,
        request: &ManualMovement,
        now: i64,
    ) -> Result<RecordedMovement> {
        let id = request.movement().id();
        if let Some(replayed) = self.recorded(request).await? {
            return Ok(replayed);
        }
        match self.store.record_movement(request.movement(), now).await {
            Ok(balance) => Ok(RecordedMovement {
                movement: request.movement().clone(),
                balance,
                replayed: false,
            }),
            // A concurrent twin got there first (and may have used the pesos this one needed).
            Err(err @ (AccountsError::DuplicateMovement | AccountsError::InsufficientBalance)) => {
                match self.recorded(request).await? {
                    Some(replayed) => Ok(replayed),
                    None => Err(err),
                }
            }
            Err(AccountsError::NoClubAccount)
                if !self
                    .store
                    .member_exists(request.movement().member_id())
                    .await? =>
            {
                tracing::info!(movement_id = %id, "movement for an unknown member");
                Err(AccountsError::MemberNotFound)
            }
            Err(err) => Err(err),
        }
    }

    /// The stored twin of `request`, if it was recorded already.
    async fn recorded(&self, request: &ManualMovement) -> Result<Option<RecordedMovement>> {
        let Some(stored) = self.store.find_movement(request.movement().id()).await? else {
            return Ok(None);
        };
        if !request.is_recorded_as(&stored) {
            return Err(AccountsError::IdempotencyMismatch);
        }
        let balance = self
            .store
            .balance(stored.member_id())
            .await?
            .ok_or(AccountsError::NoClubAccount)?;
        Ok(Some(RecordedMovement {
            movement: stored,
            balance,
            replayed: true,
        }))
    }

    /// Confirms every pending accrual that occurred before `up_to`, each added to its balance
    /// in the same transaction as its change of status; answers how many this call confirmed.
    pub async fn confirm_due(&self, up_to: i64, now: i64) -> Result<u64> {
        let mut confirmed = 0;
        loop {
            let due = self.store.due_accruals(up_to, Self::CONFIRM_BATCH).await?;
            if due.is_empty() {
                break;
            }
            confirmed += self.store.confirm_movements(&due, now).await?;
            if (due.len() as i64) < Self::CONFIRM_BATCH {
                break;
            }
        }
        Ok(confirmed)
    }

    /// Every `interval`, confirms the accruals whose return window has closed, until
    /// `shutdown`; a failed round is logged and retried at the next tick.
    pub async fn confirm_periodically(
        self,
        return_window: std::time::Duration,
        interval: std::time::Duration,
        shutdown: Shutdown,
    ) {
        let window_ms = i64::try_from(return_window.as_millis()).unwrap_or(i64::MAX);
        // The first round one interval after start: a restart does not confirm at once.
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stopped = shutdown.wait();
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                () = &mut stopped => break,
                _ = ticks.tick() => {}
            }
            let now = now_millis();
            match self.confirm_due(now.saturating_sub(window_ms), now).await {
                Ok(confirmed) => tracing::info!(confirmed, "due accruals confirmed"),
                Err(err) => tracing::error!(error = %err, "confirming due accruals failed"),
            }
        }
        tracing::info!("accrual confirmation stopped");
    }
}

/// The stored answer of an earlier post of the same key, if the payload is the same.
fn replay(stored: StoredPurchase, digest: &str) -> Result<PostedPurchase> {
    if stored.digest != digest {
        return Err(AccountsError::IdempotencyMismatch);
    }
    Ok(PostedPurchase {
        replayed: true,
        ..stored.posted
    })
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
    fn a_balance_is_never_negative() {
        assert!(Balance::new(-1, 0).is_err());
        assert_eq!(Balance::new(0, 0).unwrap().pesos(), 0);
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

    fn instant(raw: &str) -> i64 {
        parse_instant("at", raw).unwrap()
    }

    #[test]
    fn two_in_the_morning_utc_on_the_first_of_november_is_still_october_in_santiago() {
        let october = Month::containing(instant("2026-11-01T02:00:00Z"));
        assert_eq!((october.year(), october.month()), (2026, 10));
        // October ends at midnight in Chile, summer time (UTC-3).
        assert_eq!(october.end(), instant("2026-11-01T03:00:00Z"));
        assert_eq!(october.start(), instant("2026-10-01T00:00:00-03:00"));
        assert_eq!(Month::containing(october.end()).month(), 11);
        assert_eq!(Month::containing(october.end() - 1).month(), 10);
    }

    #[test]
    fn months_follow_chiles_winter_and_summer_time() {
        let june = Month::parse(2026, 6, instant("2026-11-21T12:00:00Z")).unwrap();
        assert_eq!(june.start(), instant("2026-06-01T04:00:00Z"));
        // Summer time starts at midnight on the first Sunday of September: that midnight
        // does not exist, the day starts at 01:00.
        let september = june.next().next().next();
        assert_eq!(september.at(6, 0), instant("2026-09-06T01:00:00-03:00"));
        assert_eq!(september.at(5, 23), instant("2026-09-05T23:00:00-04:00"));
    }

    #[test]
    fn months_count_back_across_years() {
        let january = Month::containing(instant("2026-01-15T12:00:00Z"));
        let december = january.months_before(1);
        assert_eq!((december.year(), december.month()), (2025, 12));
        let before = january.months_before(13);
        assert_eq!((before.year(), before.month()), (2024, 12));
        assert_eq!(december.next(), january);
    }

    #[test]
    fn a_member_may_ask_for_a_month_from_2000_to_next_year() {
        let now = instant("2026-12-31T23:30:00-03:00");
        assert!(Month::parse(2000, 1, now).is_ok());
        assert!(Month::parse(2027, 12, now).is_ok());
        for (year, month, field, message) in [
            (1999, 12, "year", "Elige un año válido."),
            (2028, 1, "year", "Elige un año válido."),
            (2026, 0, "month", "Elige un mes válido."),
            (2026, 13, "month", "Elige un mes válido."),
            (2026, -1, "month", "Elige un mes válido."),
        ] {
            match Month::parse(year, month, now) {
                Err(AccountsError::InvalidField {
                    field: f,
                    message: m,
                }) => {
                    assert_eq!((f, m), (field, message), "{year}-{month}");
                }
                other => panic!("{year}-{month}: {other:?}"),
            }
        }
    }

    #[test]
    fn pages_are_one_based_ten_by_default_and_bounded() {
        let first = PageRequest::parse(0, 0).unwrap();
        assert_eq!((first.page(), first.size(), first.offset()), (1, 10, 0));
        let third = PageRequest::parse(3, 25).unwrap();
        assert_eq!(third.offset(), 50);
        assert!(PageRequest::parse(10_000, 100).is_ok());
        for (page, size) in [(-1, 0), (10_001, 0), (1, 101), (1, -3)] {
            assert!(PageRequest::parse(page, size).is_err(), "{page} {size}");
        }
        let page = |total_count| MovementsPage {
            movements: vec![],
            request: first,
            total_count,
        };
        assert_eq!(page(0).total_pages(), 0);
        assert_eq!(page(10).total_pages(), 1);
        assert_eq!(page(13).total_pages(), 2);
    }

    #[test]
    fn a_back_office_movement_is_confirmed_at_once_never_an_accrual_nor_in_the_future() {
        let now = instant("2026-11-21T12:00:00Z");
        let manual = |kind, amount, at| {
            ManualMovement::new(
                MovementId::parse("bo-1").unwrap(),
                MemberId::parse("m-1").unwrap(),
                kind,
                amount,
                Reason::parse("Canje en caja").unwrap(),
                at,
                now,
            )
        };
        let redemption = manual(MovementKind::Redemption, -500, None).unwrap();
        assert_eq!(redemption.movement().status(), MovementStatus::Confirmed);
        assert_eq!(redemption.movement().occurred_at(), now);
        assert!(manual(MovementKind::Accrual, 500, None).is_err());
        assert!(manual(MovementKind::Redemption, 500, None).is_err());
        assert!(manual(MovementKind::Adjustment, -5, Some(now + 5 * 60_000)).is_ok());
        assert!(manual(MovementKind::Adjustment, -5, Some(now + 5 * 60_000 + 1)).is_err());

        // A retry without an instant is the same movement at another "now"; with one, the
        // instant must match too.
        let retried = ManualMovement::new(
            MovementId::parse("bo-1").unwrap(),
            MemberId::parse("m-1").unwrap(),
            MovementKind::Redemption,
            -500,
            Reason::parse("Canje en caja").unwrap(),
            None,
            now + 60_000,
        )
        .unwrap();
        assert!(retried.is_recorded_as(redemption.movement()));
        let dated = manual(MovementKind::Redemption, -500, Some(now - 1)).unwrap();
        assert!(!dated.is_recorded_as(redemption.movement()));
        let other = manual(MovementKind::Redemption, -501, None).unwrap();
        assert!(!other.is_recorded_as(redemption.movement()));
    }
}
