//! Short-lived shared state: login challenges, counters for rate limits, cooldowns and
//! revocations. Redis in production, an in-process map in standalone.
//!
//! Every operation a security rule depends on is atomic in both implementations: a counter
//! increment starts its window on the first hit, `take` reads and deletes in one step (single
//! use), and `set_if_absent` is the cooldown primitive.
//!
//! Each Redis command runs in a client span (`db.system = redis`, `db.operation`), so a trace
//! shows its Redis calls; keys are not recorded (they can hold member ids).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use serde::Deserialize;
use thiserror::Error;
use tracing::Instrument as _;

#[derive(Debug, Error)]
#[error("ephemeral store unavailable: {0}")]
pub struct StoreError(String);

impl From<redis::RedisError> for StoreError {
    fn from(err: redis::RedisError) -> Self {
        StoreError(err.to_string())
    }
}

#[async_trait]
pub trait EphemeralStore: Send + Sync + std::fmt::Debug + 'static {
    async fn get(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// A read this process may answer from memory while Redis has not reported the key
    /// changed (`ephemeral.client_cache`): a write made through another connection reaches it
    /// once Redis's invalidation push is read, a moment after the write is answered. For keys
    /// read on every request and seldom written, i.e. the revocation list. Stores without such a
    /// cache read as [`EphemeralStore::get`].
    async fn get_tracked(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.get(key).await
    }
    async fn set(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StoreError>;
    /// Sets only when the key is absent; true when this call set it.
    async fn set_if_absent(
        &self,
        key: &str,
        value: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError>;
    /// Reads and deletes in one step: of two concurrent callers only one gets the value.
    async fn take(&self, key: &str) -> Result<Option<String>, StoreError>;
    async fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Increments a counter; the first increment starts its `window`. Returns the new count.
    async fn incr(&self, key: &str, window: Duration) -> Result<i64, StoreError>;
    /// Gives back one count [`EphemeralStore::incr`] took, for a budget taken before the outcome
    /// is known and owed only by some outcomes: the window is kept, the count never goes below
    /// zero, and a counter whose window ended stays gone.
    async fn give_back(&self, key: &str) -> Result<(), StoreError>;
    /// Time left before the key expires; `None` when absent.
    async fn ttl(&self, key: &str) -> Result<Option<Duration>, StoreError>;
    async fn ping(&self) -> Result<(), StoreError>;
}

pub type SharedStore = Arc<dyn EphemeralStore>;

/// A request counted past its limit by [`count_in_window`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverLimit {
    /// Requests counted in the window so far, this one included.
    pub count: i64,
    /// What is left of the window: the wait a refused caller is told (`Retry-After`).
    pub wait: Duration,
}

/// Counts one request under `key` in a fixed `window` (the first count starts it): `None`
/// while the count is within `limit`, else how far past it and for how long. The one
/// rate-limit mechanism of the gateway's edge limits and auth's request limits.
pub async fn count_in_window(
    store: &dyn EphemeralStore,
    key: &str,
    window: Duration,
    limit: i64,
) -> Result<Option<OverLimit>, StoreError> {
    let count = store.incr(key, window).await?;
    if count <= limit {
        return Ok(None);
    }
    let wait = store.ttl(key).await?.unwrap_or(window);
    Ok(Some(OverLimit { count, wait }))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct EphemeralSettings {
    /// `redis://host:port/db`, or `rediss://…` for TLS; empty selects the in-memory store
    /// (standalone only).
    pub redis_url: String,
    /// PEM file of the CA a `rediss://` server's certificate must chain to
    /// (`APP_EPHEMERAL__CA_FILE`), e.g. a cloud provider's Redis CA; empty: the system's roots.
    /// Set with a plaintext `redis://` url it refuses to start: TLS was meant.
    pub ca_file: String,
    /// Prefix of every key, so services and tests can share one Redis.
    pub key_prefix: String,
    pub response_timeout_ms: u64,
    /// Server-assisted client-side caching of [`EphemeralStore::get_tracked`] reads (RESP3
    /// tracking, opt-in per command): Redis pushes an invalidation to this process when a key
    /// it read that way changes, so the revocation list, read on every request at every hop, is
    /// answered from memory. Every other read goes to Redis. The cache is dropped on every
    /// reconnect. On by default: a revocation written elsewhere reaches the checks within
    /// milliseconds instead of on the very next request (see the README).
    pub client_cache: bool,
    /// Longest a cached read is trusted without an invalidation, bounding what a lost push
    /// could cost.
    pub client_cache_ttl_ms: u64,
}

impl Default for EphemeralSettings {
    fn default() -> Self {
        Self {
            redis_url: String::new(),
            ca_file: String::new(),
            key_prefix: "miclub:".into(),
            response_timeout_ms: 1_000,
            client_cache: true,
            client_cache_ttl_ms: 10_000,
        }
    }
}

/// Builds the store the settings ask for.
pub async fn connect(
    settings: &EphemeralSettings,
    environment: crate::config::Environment,
) -> anyhow::Result<SharedStore> {
    if settings.redis_url.is_empty() && environment.is_production() {
        // Sessions' revocations, activity marks, throttles and one-time codes must be shared
        // by every replica: a per-process store would let each replica count and forget alone.
        anyhow::bail!(
            "production needs redis (ephemeral.redis_url, APP_EPHEMERAL__REDIS_URL): an in-memory store is not shared by replicas"
        );
    }
    if settings.redis_url.is_empty() {
        tracing::warn!("no redis url configured: using the in-memory ephemeral store");
        return Ok(Arc::new(MemoryStore::default()));
    }
    Ok(Arc::new(RedisStore::connect(settings).await?))
}

/// A client of `info`, over TLS with the configured CA for a `rediss://` url.
fn client_for(
    info: redis::ConnectionInfo,
    settings: &EphemeralSettings,
) -> anyhow::Result<redis::Client> {
    let tls = matches!(info.addr(), redis::ConnectionAddr::TcpTls { .. });
    if settings.ca_file.is_empty() {
        return Ok(redis::Client::open(info)?);
    }
    anyhow::ensure!(
        tls,
        "ephemeral.ca_file (APP_EPHEMERAL__CA_FILE) is set but ephemeral.redis_url is not rediss://: use rediss:// for tls"
    );
    let root_cert = std::fs::read(&settings.ca_file).map_err(|err| {
        anyhow::anyhow!(
            "reading ephemeral.ca_file (APP_EPHEMERAL__CA_FILE) at {}: {err}",
            settings.ca_file
        )
    })?;
    let anchors =
        <rustls_pki_types::CertificateDer as rustls_pki_types::pem::PemObject>::pem_slice_iter(
            &root_cert,
        )
        .filter(Result::is_ok)
        .count();
    anyhow::ensure!(
        anchors > 0,
        "ephemeral.ca_file (APP_EPHEMERAL__CA_FILE) at {} holds no certificate",
        settings.ca_file
    );
    let certificates = redis::TlsCertificates {
        client_tls: None,
        root_cert: Some(root_cert),
    };
    redis::Client::build_with_tls(info, certificates).map_err(|err| {
        anyhow::anyhow!("ephemeral.ca_file (APP_EPHEMERAL__CA_FILE) is not a usable ca: {err}")
    })
}

/// Redis through a reconnecting connection manager.
#[derive(Clone)]
pub struct RedisStore {
    conn: ConnectionManager,
    prefix: String,
    incr_script: redis::Script,
    give_back_script: redis::Script,
    /// `client_cache`: writes then wait for their own invalidation (see [`RedisStore::write`]).
    client_cache: bool,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl RedisStore {
    pub async fn connect(settings: &EphemeralSettings) -> anyhow::Result<Self> {
        let mut info =
            redis::IntoConnectionInfo::into_connection_info(settings.redis_url.as_str())?;
        if settings.client_cache {
            let resp3 = info
                .redis_settings()
                .clone()
                .set_protocol(redis::ProtocolVersion::RESP3);
            info = info.set_redis_settings(resp3);
        }
        let client = client_for(info, settings)?;
        let timeout = Duration::from_millis(settings.response_timeout_ms);
        let mut config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1);
        if settings.client_cache {
            config = config.set_cache_config(
                redis::caching::CacheConfig::new()
                    .set_mode(redis::caching::CacheMode::OptIn)
                    .set_default_client_ttl(Duration::from_millis(settings.client_cache_ttl_ms)),
            );
        }
        let conn = ConnectionManager::new_with_config(client, config).await?;
        Ok(Self {
            conn,
            prefix: settings.key_prefix.clone(),
            client_cache: settings.client_cache,
            // INCR and the window's expiry in one atomic step.
            incr_script: redis::Script::new(
                "local v = redis.call('INCR', KEYS[1]) \
                 if v == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end \
                 return v",
            ),
            // DECR keeps the key's expiry; the check keeps an expired counter from coming back
            // at -1 and a count from going below zero.
            give_back_script: redis::Script::new(
                "local v = tonumber(redis.call('GET', KEYS[1])) \
                 if v and v > 0 then return redis.call('DECR', KEYS[1]) end \
                 return 0",
            ),
        })
    }

    fn key(&self, key: &str) -> String {
        [self.prefix.as_str(), key].concat()
    }

    /// Runs a command that changes a key. With client-side caching, Redis sends this
    /// connection's invalidation of that key only after the command's reply, so a tracked read
    /// made right after the write could still be answered from the cache (a revocation followed at
    /// once by a check on the same connection passed in 4 of 15 runs of the tests before this). A `PING` in the same
    /// pipeline is answered after that invalidation, which redis-rs applies as it reads it, so
    /// once a write returns this process reads what it wrote. No extra round trip.
    async fn write<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        if !self.client_cache {
            return Ok(command.query_async(&mut conn).await?);
        }
        let (reply,): (T,) = redis::pipe()
            .add_command(command)
            .cmd("PING")
            .ignore()
            .query_async(&mut conn)
            .await?;
        Ok(reply)
    }

    /// `GET`, through the client-side cache when `tracked` and `client_cache` is on.
    async fn read(&self, key: &str, tracked: bool) -> Result<Option<String>, StoreError> {
        // Every member request reads the revocation list at each hop: the read gets its span
        // only when spans are exported (see `telemetry::spans_recorded`).
        let span = if crate::telemetry::spans_recorded() {
            tracing::info_span!(
                "redis",
                otel.name = "GET",
                otel.kind = "client",
                db.system = "redis",
                db.operation = "GET"
            )
        } else {
            tracing::Span::none()
        };
        let mut command = redis::cmd("GET");
        command.arg(self.key(key));
        if tracked {
            command.set_cache_config(redis::CommandCacheConfig::new().set_enable_cache(true));
        }
        let mut conn = self.conn.clone();
        Ok(command.query_async(&mut conn).instrument(span).await?)
    }

    /// Reads answered from the client-side cache and reads that went to Redis, when
    /// `client_cache` is on.
    pub fn client_cache_hits_and_misses(&self) -> Option<(usize, usize)> {
        self.conn
            .get_cache_statistics()
            .map(|stats| (stats.hit, stats.miss))
    }
}

fn millis(ttl: Duration) -> u64 {
    ttl.as_millis().clamp(1, u64::MAX as u128) as u64
}

#[async_trait]
impl EphemeralStore for RedisStore {
    async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.read(key, false).await
    }

    async fn get_tracked(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.read(key, true).await
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(otel.name = "SET", otel.kind = "client", db.system = "redis", db.operation = "SET")
    )]
    async fn set(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StoreError> {
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(key))
            .arg(value)
            .arg("PX")
            .arg(millis(ttl));
        self.write(command).await
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(
            otel.name = "SET NX",
            otel.kind = "client",
            db.system = "redis",
            db.operation = "SET NX"
        )
    )]
    async fn set_if_absent(
        &self,
        key: &str,
        value: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(key))
            .arg(value)
            .arg("NX")
            .arg("PX")
            .arg(millis(ttl));
        let reply: Option<String> = self.write(command).await?;
        Ok(reply.is_some())
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(
            otel.name = "GETDEL",
            otel.kind = "client",
            db.system = "redis",
            db.operation = "GETDEL"
        )
    )]
    async fn take(&self, key: &str) -> Result<Option<String>, StoreError> {
        let mut command = redis::cmd("GETDEL");
        command.arg(self.key(key));
        self.write(command).await
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(otel.name = "DEL", otel.kind = "client", db.system = "redis", db.operation = "DEL")
    )]
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        let mut command = redis::cmd("DEL");
        command.arg(self.key(key));
        let _: i64 = self.write(command).await?;
        Ok(())
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(otel.name = "INCR", otel.kind = "client", db.system = "redis", db.operation = "INCR")
    )]
    async fn incr(&self, key: &str, window: Duration) -> Result<i64, StoreError> {
        // Not through `write`: counters are never read through the client-side cache.
        let mut conn = self.conn.clone();
        Ok(self
            .incr_script
            .key(self.key(key))
            .arg(millis(window))
            .invoke_async(&mut conn)
            .await?)
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(otel.name = "DECR", otel.kind = "client", db.system = "redis", db.operation = "DECR")
    )]
    async fn give_back(&self, key: &str) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: i64 = self
            .give_back_script
            .key(self.key(key))
            .invoke_async(&mut conn)
            .await?;
        Ok(())
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(otel.name = "PTTL", otel.kind = "client", db.system = "redis", db.operation = "PTTL")
    )]
    async fn ttl(&self, key: &str) -> Result<Option<Duration>, StoreError> {
        let mut conn = self.conn.clone();
        let ms: i64 = redis::cmd("PTTL")
            .arg(self.key(key))
            .query_async(&mut conn)
            .await?;
        Ok((ms >= 0).then(|| Duration::from_millis(ms as u64)))
    }

    #[tracing::instrument(
        name = "redis",
        skip_all,
        fields(otel.name = "PING", otel.kind = "client", db.system = "redis", db.operation = "PING")
    )]
    async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: String = redis::cmd("PING").query_async(&mut conn).await?;
        Ok(())
    }
}

/// In-process stand-in for Redis; expiry is checked on access.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, (String, Instant)>>,
}

impl MemoryStore {
    fn with_live<R>(
        &self,
        key: &str,
        f: impl FnOnce(&mut HashMap<String, (String, Instant)>) -> R,
    ) -> R {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if entries.get(key).is_some_and(|(_, expires)| *expires <= now) {
            entries.remove(key);
        }
        if entries.len() > 10_000 {
            entries.retain(|_, (_, expires)| *expires > now);
        }
        f(&mut entries)
    }
}

#[async_trait]
impl EphemeralStore for MemoryStore {
    async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.with_live(key, |e| e.get(key).map(|(v, _)| v.clone())))
    }

    async fn set(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StoreError> {
        self.with_live(key, |e| {
            e.insert(key.to_owned(), (value.to_owned(), Instant::now() + ttl))
        });
        Ok(())
    }

    async fn set_if_absent(
        &self,
        key: &str,
        value: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        Ok(self.with_live(key, |e| {
            if e.contains_key(key) {
                false
            } else {
                e.insert(key.to_owned(), (value.to_owned(), Instant::now() + ttl));
                true
            }
        }))
    }

    async fn take(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.with_live(key, |e| e.remove(key).map(|(v, _)| v)))
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.with_live(key, |e| e.remove(key));
        Ok(())
    }

    async fn incr(&self, key: &str, window: Duration) -> Result<i64, StoreError> {
        Ok(self.with_live(key, |e| {
            let entry = e
                .entry(key.to_owned())
                .or_insert_with(|| ("0".to_owned(), Instant::now() + window));
            let next = entry.0.parse::<i64>().unwrap_or(0) + 1;
            entry.0 = next.to_string();
            next
        }))
    }

    async fn give_back(&self, key: &str) -> Result<(), StoreError> {
        self.with_live(key, |e| {
            if let Some(entry) = e.get_mut(key) {
                let count = entry.0.parse::<i64>().unwrap_or(0);
                if count > 0 {
                    entry.0 = (count - 1).to_string();
                }
            }
        });
        Ok(())
    }

    async fn ttl(&self, key: &str) -> Result<Option<Duration>, StoreError> {
        Ok(self.with_live(key, |e| {
            e.get(key)
                .map(|(_, expires)| expires.saturating_duration_since(Instant::now()))
        }))
    }

    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::SpanKind;
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};

    use super::*;
    use crate::telemetry::tests::{Captured, test_subscriber};

    #[tokio::test]
    async fn redis_commands_are_client_spans_naming_the_operation() {
        let settings = EphemeralSettings {
            redis_url: std::env::var("TEST_REDIS_URL")
                .unwrap_or_else(|_| "redis://127.0.0.1:6379".into()),
            key_prefix: format!("test-{}:", uuid::Uuid::new_v4()),
            ..EphemeralSettings::default()
        };
        let store = RedisStore::connect(&settings).await.unwrap();
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let guard =
            tracing::subscriber::set_default(test_subscriber(&provider, Captured::default()));
        assert_eq!(store.incr("hits", Duration::from_secs(5)).await.unwrap(), 1);
        assert_eq!(store.get("hits").await.unwrap().as_deref(), Some("1"));
        store.delete("hits").await.unwrap();
        drop(guard);
        provider.force_flush().unwrap();
        let spans = exporter.get_finished_spans().unwrap();
        let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
        assert_eq!(names, ["INCR", "GET", "DEL"]);
        for span in &spans {
            assert_eq!(span.span_kind, SpanKind::Client);
            let system = span
                .attributes
                .iter()
                .find(|kv| kv.key.as_str() == "db.system")
                .map(|kv| kv.value.as_str().into_owned());
            assert_eq!(system.as_deref(), Some("redis"));
        }
    }
}
