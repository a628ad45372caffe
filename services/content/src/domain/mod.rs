//! The content use cases: what the service does with the terms and conditions, the catalog
//! (promotions, partner benefits, banners, FAQs) and the runtime flags, plus the accumulation
//! simulator.
//!
//! The entities themselves live in [`model`](crate::model), beneath both the store and the
//! seed, so this module stands above all three: it takes shipped values from
//! [`seed`](crate::seed) and reads and writes through [`store`](crate::store). The model's
//! types are re-exported here, the paths callers have always used. Prost types never come in
//! here. [`Content`] is what the gRPC layer calls; it takes the current instant as an argument,
//! so every rule about time is tested without a clock.

mod simulator;

use std::sync::Arc;

use chrono::NaiveDate;
use miclub_accrual::{Accrual, Discount, RuleSet};

pub use simulator::{MAX_AMOUNT, Simulation, amount_field, category_name};

use crate::error::{ContentError, Result};
// Re-exported so that `domain::Alliance` and the like keep naming the model's types.
pub use crate::model::{
    Alliance, AllianceFields, Banner, BannerFields, Faq, FaqAudience, FaqFields, FlagName, Flags,
    Promotion, PromotionFields, Terms, TermsVersion, shipped_terms,
};
use crate::seed::Shipped;
use crate::store::{Store, Write};

/// How many shipped rows a start-up stored, per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seeded {
    pub promotions: usize,
    pub alliances: usize,
    pub banners: usize,
    pub faqs: usize,
    pub flags: usize,
}

/// The content use cases, over the store.
#[derive(Debug, Clone)]
pub struct Content {
    store: Store,
    /// The accrual rules the simulator applies: the same data accounts posts purchases with.
    rules: Arc<RuleSet>,
    /// The values of flags the database lacks (a fresh one before seeding).
    default_flags: Flags,
}

impl Content {
    pub fn new(store: Store, rules: Arc<RuleSet>, default_flags: Flags) -> Self {
        Self {
            store,
            rules,
            default_flags,
        }
    }

    /// Stores every shipped row and flag whose id the database lacks; stored ones are kept as
    /// they are, so an operator's change survives restarts. Safe from several replicas at once.
    pub async fn seed_shipped(&self, shipped: &Shipped, now: i64) -> Result<Seeded> {
        let mut seeded = Seeded::default();
        for promotion in &shipped.promotions {
            seeded.promotions += usize::from(
                self.store
                    .write_promotion(promotion, Write::IfMissing, now)
                    .await?,
            );
        }
        for alliance in &shipped.alliances {
            seeded.alliances += usize::from(
                self.store
                    .write_alliance(alliance, Write::IfMissing, now)
                    .await?,
            );
        }
        for banner in &shipped.banners {
            seeded.banners += usize::from(
                self.store
                    .write_banner(banner, Write::IfMissing, now)
                    .await?,
            );
        }
        for faq in &shipped.faqs {
            seeded.faqs += usize::from(self.store.write_faq(faq, Write::IfMissing, now).await?);
        }
        for name in FlagName::ALL {
            seeded.flags += usize::from(
                self.store
                    .insert_flag_if_missing(name, shipped.flags.get(name), now)
                    .await?,
            );
        }
        Ok(seeded)
    }

    /// Promotions in force on `today`, in display order.
    pub async fn promotions(&self, today: NaiveDate) -> Result<Vec<Promotion>> {
        self.store.promotions_in_force(&iso(today)).await
    }

    /// Partner benefits in force on `today`, in display order.
    pub async fn alliances(&self, today: NaiveDate) -> Result<Vec<Alliance>> {
        self.store.alliances_in_force(&iso(today)).await
    }

    /// Banners in force on `today`, in display order.
    pub async fn banners(&self, today: NaiveDate) -> Result<Vec<Banner>> {
        self.store.banners_in_force(&iso(today)).await
    }

    /// The FAQs of `audience`, in display order.
    pub async fn faqs(&self, audience: FaqAudience) -> Result<Vec<Faq>> {
        self.store.faqs(audience).await
    }

    pub async fn upsert_promotion(&self, promotion: &Promotion, now: i64) -> Result<()> {
        self.store
            .write_promotion(promotion, Write::Replace, now)
            .await
            .map(drop)
    }

    pub async fn upsert_alliance(&self, alliance: &Alliance, now: i64) -> Result<()> {
        self.store
            .write_alliance(alliance, Write::Replace, now)
            .await
            .map(drop)
    }

    pub async fn upsert_banner(&self, banner: &Banner, now: i64) -> Result<()> {
        self.store
            .write_banner(banner, Write::Replace, now)
            .await
            .map(drop)
    }

    pub async fn upsert_faq(&self, faq: &Faq, now: i64) -> Result<()> {
        self.store
            .write_faq(faq, Write::Replace, now)
            .await
            .map(drop)
    }

    /// Publishes `terms` (an operator's new version); true when this call stored it. The same
    /// version with the same text again is not an error (a retried call); with another text it
    /// is [`ContentError::TermsVersionTaken`], since members decided on the stored one. With
    /// `dated_now` (the caller named no instant), a retry compares title and body only.
    pub async fn publish_terms(&self, terms: &Terms, dated_now: bool, now: i64) -> Result<bool> {
        if self.store.insert_terms_if_missing(terms, now).await? {
            tracing::info!(version = %terms.version, published_at = terms.published_at, "terms published");
            return Ok(true);
        }
        match self.store.find_terms(&terms.version).await? {
            Some(stored)
                if stored.title == terms.title
                    && stored.body == terms.body
                    && (dated_now || stored.published_at == terms.published_at) =>
            {
                Ok(false)
            }
            _ => Err(ContentError::TermsVersionTaken),
        }
    }

    /// The flags as stored; a flag the database lacks has its shipped value.
    pub async fn flags(&self) -> Result<Flags> {
        let mut flags = self.default_flags;
        for (name, value) in self.store.flags().await? {
            flags.set(name, value);
        }
        Ok(flags)
    }

    /// Sets one flag on behalf of `by` (the calling service client) and answers every flag as
    /// it is afterwards, with the value it had before.
    pub async fn set_flag(
        &self,
        name: FlagName,
        value: bool,
        by: &str,
        now: i64,
    ) -> Result<(Flags, bool)> {
        let before = self.flags().await?.get(name);
        self.store.set_flag(name, value, now, by).await?;
        Ok((self.flags().await?, before))
    }

    /// What a simulated cart earns under the accrual rules.
    pub fn simulate(&self, simulation: &Simulation) -> (Accrual, Option<Discount>) {
        (
            simulation.run(&self.rules),
            simulation.discount(&self.rules),
        )
    }

    /// The terms in force at `now` (Unix ms): the newest version published at or before it.
    pub async fn current_terms(&self, now: i64) -> Result<Terms> {
        self.store
            .current_terms(now)
            .await?
            .ok_or(ContentError::TermsNotFound)
    }

    /// Publishes every version shipped with the service that the database lacks; `now` is the
    /// creation instant recorded. Safe to run on every start and from several replicas at once.
    ///
    /// A version already stored is never rewritten, even when the shipped text differs: members
    /// may have accepted what is stored. A changed text needs a new version; a difference is
    /// logged so that the mistake is seen.
    pub async fn publish_shipped_terms(&self, now: i64) -> Result<()> {
        for terms in shipped_terms() {
            if self.store.insert_terms_if_missing(&terms, now).await? {
                tracing::info!(version = %terms.version, "published shipped terms");
                continue;
            }
            let stored = self.store.find_terms(&terms.version).await?;
            if stored.as_ref() != Some(&terms) {
                tracing::warn!(
                    version = %terms.version,
                    "shipped terms differ from the stored version, which is kept: ship a new version instead"
                );
            }
        }
        Ok(())
    }
}

fn iso(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use miclub_platform::calendar;

    use super::*;

    #[test]
    fn the_day_in_chile_changes_at_santiago_midnight_not_utc() {
        // 2026-11-22T02:59:59Z is still Saturday 21 November at 23:59:59 in summer time (UTC-3).
        let saturday_night = 1_795_316_399_000;
        assert_eq!(
            DateTime::from_timestamp_millis(saturday_night)
                .unwrap()
                .to_rfc3339(),
            "2026-11-22T02:59:59+00:00"
        );
        assert_eq!(
            calendar::day_of_millis(saturday_night),
            NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
        );
        assert_eq!(
            calendar::day_of_millis(saturday_night + 1_000),
            NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
        );
    }
}
