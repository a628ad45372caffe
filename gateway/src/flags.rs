//! The runtime flags (portal on, `changePasswordEnable`, `isLoginMaintenance`) as content
//! serves them, cached for a short time so a page load does not cost a gRPC call, and so an
//! operator's change is seen within `gateway.flags_cache_secs` without a restart.
//!
//! When content cannot be asked, the last flags it gave are used; before it ever answered, the
//! configured `[gateway.flags]` are. A content outage therefore never switches the portal off.
//! Nor does a slow content hold pages up: one request at a time asks content, and the others
//! answer with the last known flags meanwhile instead of queueing behind it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use miclub_platform::access::ServiceChannel;
use miclub_proto::content::v1::GetFlagsRequest;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;

use crate::config::FlagSettings;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    pub portal_enabled: bool,
    pub change_password_enable: bool,
    pub is_login_maintenance: bool,
}

impl From<&FlagSettings> for Flags {
    fn from(settings: &FlagSettings) -> Self {
        Self {
            portal_enabled: settings.portal_enabled,
            change_password_enable: settings.change_password_enable,
            is_login_maintenance: settings.is_login_maintenance,
        }
    }
}

#[derive(Debug)]
struct Cached {
    flags: Flags,
    /// When content last answered; `None` while only the configured flags are known.
    fetched: Option<Instant>,
}

/// The flags with their cache; cheap to clone.
#[derive(Debug, Clone)]
pub struct FlagSource {
    content: ContentServiceClient<ServiceChannel>,
    ttl: Duration,
    cached: Arc<Mutex<Cached>>,
    /// Held by the one caller asking content.
    refreshing: Arc<tokio::sync::Mutex<()>>,
}

impl FlagSource {
    pub fn new(
        content: ContentServiceClient<ServiceChannel>,
        configured: &FlagSettings,
        ttl: Duration,
    ) -> Self {
        Self {
            content,
            ttl,
            cached: Arc::new(Mutex::new(Cached {
                flags: Flags::from(configured),
                fetched: None,
            })),
            refreshing: Arc::default(),
        }
    }

    /// The flags now: from the cache while fresh, else from content. One caller refreshes at
    /// a time; the others answer with the last known flags instead of waiting for content.
    pub async fn current(&self) -> Flags {
        if let Some(flags) = self.fresh() {
            return flags;
        }
        let Ok(_refreshing) = self.refreshing.try_lock() else {
            return self.cached().flags;
        };
        // Another caller may have refreshed between the check and the lock.
        if let Some(flags) = self.fresh() {
            return flags;
        }
        let answer = self.content.clone().get_flags(GetFlagsRequest {}).await;
        let mut cached = self.cached();
        match answer {
            Ok(answer) => {
                if let Some(flags) = answer.into_inner().flags {
                    let flags = Flags {
                        portal_enabled: flags.portal_enabled,
                        change_password_enable: flags.change_password_enable,
                        is_login_maintenance: flags.is_login_maintenance,
                    };
                    if flags != cached.flags {
                        tracing::info!(
                            portal_enabled = flags.portal_enabled,
                            change_password_enable = flags.change_password_enable,
                            is_login_maintenance = flags.is_login_maintenance,
                            "runtime flags changed"
                        );
                    }
                    cached.flags = flags;
                }
                cached.fetched = Some(Instant::now());
            }
            Err(status) => {
                // Ask again on the next request, but not within the same second.
                let retry_at = Instant::now()
                    .checked_sub(self.ttl.saturating_sub(Duration::from_secs(1)))
                    .unwrap_or_else(Instant::now);
                cached.fetched = Some(retry_at);
                tracing::warn!(code = ?status.code(), error = %status.message(), "runtime flags not refreshed: keeping the last known");
            }
        }
        cached.flags
    }

    /// The cached flags while younger than the cache period.
    fn fresh(&self) -> Option<Flags> {
        let cached = self.cached();
        cached
            .fetched
            .filter(|at| at.elapsed() < self.ttl)
            .map(|_| cached.flags)
    }

    fn cached(&self) -> std::sync::MutexGuard<'_, Cached> {
        // The lock guards plain data and is never held across an await: a poisoned one still
        // holds consistent flags.
        self.cached
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
