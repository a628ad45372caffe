//! Keeps a completion that creates nothing (the email is another member's) as slow as one that
//! creates a member, so the time of the answer does not tell whether an address is a member's
//! (ASVS 5.0 V6.3.8).
//!
//! The real path pays a gRPC round trip and an argon2id hash in auth, another round trip and a
//! mail in accounts; the other path only asks accounts. Rather than burning the same CPU for
//! nothing (which would double what a flood of completions costs), the real path's duration is
//! sampled and the other path waits for one of the recent samples: the same distribution, under
//! the same load, for the price of a timer. Until a real completion has been timed in this
//! process, the configured fallback stands in.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

/// How many recent real completions are kept.
const SAMPLES: usize = 32;

/// Recent durations of real completions.
#[derive(Debug)]
pub struct Pace {
    /// The last [`SAMPLES`] durations, oldest first.
    recent: Mutex<VecDeque<Duration>>,
    fallback: Duration,
}

impl Pace {
    pub fn new(fallback: Duration) -> Self {
        Self {
            recent: Mutex::new(VecDeque::with_capacity(SAMPLES)),
            fallback,
        }
    }

    /// Remembers how long a real completion took (from asking accounts to the member active).
    pub fn record(&self, took: Duration) {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() == SAMPLES {
            recent.pop_front();
        }
        recent.push_back(took);
    }

    /// How long the completion that creates nothing should take: one recent real duration
    /// picked at random, or the fallback when none was timed yet.
    pub fn target(&self) -> Duration {
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.is_empty() {
            return self.fallback;
        }
        recent[rand::random_range(0..recent.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_samples_the_fallback_stands_in_and_then_only_recent_samples_count() {
        let pace = Pace::new(Duration::from_millis(250));
        assert_eq!(pace.target(), Duration::from_millis(250));
        for ms in 0..SAMPLES as u64 + 10 {
            pace.record(Duration::from_millis(1_000 + ms));
        }
        for _ in 0..200 {
            let target = pace.target();
            assert!(
                target >= Duration::from_millis(1_010) && target < Duration::from_millis(1_042),
                "{target:?}"
            );
        }
    }
}
