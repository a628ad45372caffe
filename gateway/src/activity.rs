//! Member activity marks: the idle limit of a session counts from its last member request, and
//! only the gateway sees requests. After a member token is verified, the session is marked
//! seen in the ephemeral store (`platform::tokens::seen_key` = now in milliseconds, the key auth
//! reads before a refresh; `/api/refresh` is not a member request and marks nothing). Each
//! process writes a session's mark at most once per [`WRITE_EVERY`], remembered in a bounded
//! in-process cache, so a busy page does not add a Redis write per request; the mark is thus up
//! to a minute old, which the idle limit (30 minutes by default) absorbs.

use std::time::{Duration, Instant};

use miclub_platform::ephemeral::SharedStore;
use miclub_platform::storage::now_millis;
use miclub_platform::tokens::seen_key;

/// Least time between two writes of one session's mark by this process.
pub const WRITE_EVERY: Duration = Duration::from_secs(60);

/// Life of a mark: longer than any session may last (auth's absolute limit, 12 hours by
/// default), so a mark never expires before its session.
const MARK_TTL: Duration = Duration::from_secs(24 * 3600);

/// Sessions whose last write is remembered; a session evicted from the cache costs one more
/// write, never a missed one.
const TRACKED_SESSIONS: usize = 100_000;

/// Writes the activity marks of the sessions this gateway serves.
pub struct ActivityMarks {
    store: SharedStore,
    /// When this process last wrote each session's mark.
    last_writes: quick_cache::sync::Cache<String, Instant>,
}

impl std::fmt::Debug for ActivityMarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActivityMarks").finish_non_exhaustive()
    }
}

impl ActivityMarks {
    pub fn new(store: SharedStore) -> Self {
        Self {
            store,
            last_writes: quick_cache::sync::Cache::new(TRACKED_SESSIONS),
        }
    }

    /// Marks session `sid` seen now, unless this process did within [`WRITE_EVERY`]. A failed
    /// write is logged and tried again on the next request: the request itself goes on.
    pub async fn mark_seen(&self, sid: &str) {
        let now = Instant::now();
        if self
            .last_writes
            .get(sid)
            .is_some_and(|last| now.duration_since(last) < WRITE_EVERY)
        {
            return;
        }
        self.last_writes.insert(sid.to_owned(), now);
        if let Err(err) = self
            .store
            .set(&seen_key(sid), &now_millis().to_string(), MARK_TTL)
            .await
        {
            tracing::warn!(sid, error = %err, "cannot mark the session seen");
            self.last_writes.remove(sid);
        }
    }
}
