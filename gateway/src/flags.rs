//! The runtime flags (portal on, `changePasswordEnable`, `isLoginMaintenance`) as content
//! serves them, cached for a short time so a page load does not cost a gRPC call, and so an
//! operator's change is seen within `gateway.flags_cache_secs` without a restart.
//!
//! When content cannot be asked, the last flags it gave are used; before it ever answered, the
//! configured `[gateway.flags]` are. A content outage therefore never switches the portal off.

use std::sync::Arc;
use std::time::{Duration, Instant};

use miclub_platform::grpc::TracedChannel;
use miclub_proto::content::v1::GetFlagsRequest;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use tokio::sync::Mutex;

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
    content: ContentServiceClient<TracedChannel>,
    ttl: Duration,
    cached: Arc<Mutex<Cached>>,
}

impl FlagSource {
    pub fn new(
        content: ContentServiceClient<TracedChannel>,
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
        }
    }

    /// The flags now: from the cache while fresh, else from content. One caller refreshes at
    /// a time; the others wait for its answer instead of asking content too.
    pub async fn current(&self) -> Flags {
        let mut cached = self.cached.lock().await;
        if let Some(at) = cached.fetched
            && at.elapsed() < self.ttl
        {
            return cached.flags;
        }
        match self.content.clone().get_flags(GetFlagsRequest {}).await {
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
}
