//! The content domain: the terms and conditions and their versions.
//!
//! Every type here validates on construction, so a value that exists is a valid one; `grpc.rs`
//! builds answers from them and `store.rs` builds them from rows. Prost types never come in
//! here. [`Content`] is what the gRPC layer calls; it takes the current instant as an argument,
//! so every rule about time is tested without a clock.

mod terms;

pub use terms::{Terms, TermsVersion, shipped_terms};

use crate::error::{ContentError, Result};
use crate::store::Store;

/// The content use cases, over the store.
#[derive(Debug, Clone)]
pub struct Content {
    store: Store,
}

impl Content {
    pub fn new(store: Store) -> Self {
        Self { store }
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
