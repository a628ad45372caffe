//! The confirmation window: pending accruals count in the balance once the return window of
//! their purchase has closed, confirmed in batches now and then.

use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;

use super::Ledger;
use crate::error::Result;

impl Ledger {
    /// Due accruals confirmed per transaction.
    const CONFIRM_BATCH: i64 = 500;

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
