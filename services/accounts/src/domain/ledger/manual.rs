//! Back-office movements (redemptions, expirations, adjustments) and mission rewards: confirmed
//! at once, recorded idempotently by movement id. A reward is only ever a credit, within
//! `miclub_platform::rewards` (pesos and rewards per member in any 24 hours).

use miclub_platform::rewards::{REWARD_PESOS_PER_DAY, REWARDS_PER_DAY};

use super::super::MemberId;
use super::{Balance, Ledger, Movement, MovementId, MovementKind, MovementStatus, Reason};
use crate::error::{AccountsError, Result};

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

    /// A mission's reward: a credit of `amount` pesos (more than 0), an adjustment confirmed
    /// `now`.
    pub fn reward(
        id: MovementId,
        member_id: MemberId,
        amount: i64,
        reason: Reason,
        now: i64,
    ) -> Result<Self> {
        if amount <= 0 {
            return Err(AccountsError::invalid(
                "amount",
                "a reward is more than 0 pesos",
            ));
        }
        Self::new(
            id,
            member_id,
            MovementKind::Adjustment,
            amount,
            reason,
            None,
            now,
        )
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

impl Ledger {
    /// Records a back-office movement and answers the balance after it. The same movement id
    /// twice records once: the same content answers the stored movement (`replayed`), other
    /// content [`AccountsError::IdempotencyMismatch`].
    pub async fn record_movement(
        &self,
        request: &ManualMovement,
        now: i64,
    ) -> Result<RecordedMovement> {
        self.record(request, now, false).await
    }

    /// Records a mission's reward ([`ManualMovement::reward`]) as [`Self::record_movement`]
    /// does, within [`REWARD_PESOS_PER_DAY`] pesos and [`REWARDS_PER_DAY`] rewards per member
    /// in any 24 hours ([`AccountsError::RewardLimitReached`] beyond: missions tries again
    /// later). A replay is answered whatever the rewards since.
    pub async fn grant_reward(
        &self,
        request: &ManualMovement,
        now: i64,
    ) -> Result<RecordedMovement> {
        let granted = self.record(request, now, true).await;
        if let Err(AccountsError::RewardLimitReached) = granted {
            tracing::warn!(
                movement_id = %request.movement().id(),
                member_id = %request.movement().member_id(),
                amount = request.movement().amount(),
                pesos_per_day = REWARD_PESOS_PER_DAY,
                rewards_per_day = REWARDS_PER_DAY,
                "reward refused: the member's rewards of the last 24 hours would pass the limit"
            );
        }
        granted
    }

    async fn record(
        &self,
        request: &ManualMovement,
        now: i64,
        reward: bool,
    ) -> Result<RecordedMovement> {
        let id = request.movement().id();
        if let Some(replayed) = self.recorded(request).await? {
            return Ok(replayed);
        }
        let recorded = if reward {
            self.store.record_reward(request.movement(), now).await
        } else {
            self.store.record_movement(request.movement(), now).await
        };
        match recorded {
            Ok(balance) => Ok(RecordedMovement {
                movement: request.movement().clone(),
                balance,
                replayed: false,
            }),
            // A concurrent twin got there first (and may have used the pesos, or the day's
            // rewards, this one needed).
            Err(
                err @ (AccountsError::DuplicateMovement
                | AccountsError::InsufficientBalance
                | AccountsError::RewardLimitReached),
            ) => match self.recorded(request).await? {
                Some(replayed) => Ok(replayed),
                None => Err(err),
            },
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
}

#[cfg(test)]
mod tests {
    use super::super::instant;
    use super::*;

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
