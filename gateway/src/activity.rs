//! Member activity marks: the idle limit of a session counts from its last member request, and
//! only the gateway sees requests. After a member token is verified, the session is marked
//! seen in the ephemeral store (`seen:sid:<sid>` = now in milliseconds, the key auth reads
//! before a refresh; `/api/refresh` is not a member request and marks nothing). Each process
//! writes a session's mark at most once per [`WRITE_EVERY`], remembered in a bounded
//! in-process map, so a busy page does not add a Redis write per request; the mark is thus up
//! to a minute old, which the idle limit (30 minutes by default) absorbs.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use miclub_platform::ephemeral::SharedStore;
use miclub_platform::storage::now_millis;

/// Least time between two writes of one session's mark by this process.
pub const WRITE_EVERY: Duration = Duration::from_secs(60);

/// Life of a mark: longer than any session may last (auth's absolute limit, 12 hours by
/// default), so a mark never expires before its session.
const MARK_TTL: Duration = Duration::from_secs(24 * 3600);

/// Sessions remembered at most; past it, entries older than [`WRITE_EVERY`] are dropped (and
/// everything, if that is not enough: the cost is one more write per session).
const MAX_TRACKED: usize = 100_000;

/// When this process last wrote each session's mark.
static LAST_WRITES: LazyLock<Mutex<HashMap<String, Instant>>> = LazyLock::new(Mutex::default);

/// The activity mark of session `sid`, as auth reads it.
pub fn seen_key(sid: &str) -> String {
    format!("seen:sid:{sid}")
}

/// Marks session `sid` seen now, unless this process did within [`WRITE_EVERY`]. A failed
/// write is logged and tried again on the next request: the request itself goes on.
pub async fn mark_seen(store: &SharedStore, sid: &str) {
    let now = Instant::now();
    {
        let mut writes = LAST_WRITES.lock().unwrap_or_else(|p| p.into_inner());
        if writes
            .get(sid)
            .is_some_and(|last| now.duration_since(*last) < WRITE_EVERY)
        {
            return;
        }
        if writes.len() >= MAX_TRACKED {
            writes.retain(|_, last| now.duration_since(*last) < WRITE_EVERY);
            if writes.len() >= MAX_TRACKED {
                writes.clear();
            }
        }
        writes.insert(sid.to_owned(), now);
    }
    if let Err(err) = store
        .set(&seen_key(sid), &now_millis().to_string(), MARK_TTL)
        .await
    {
        tracing::warn!(sid, error = %err, "cannot mark the session seen");
        LAST_WRITES
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(sid);
    }
}
