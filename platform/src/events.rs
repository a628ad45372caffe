//! The event bus between services: Redis Streams with consumer groups in production, an
//! in-memory stand-in with the same delivery rules in standalone and tests.
//!
//! Delivery is at least once. A consumer reads first the deliveries it took and did not
//! acknowledge (after a crash, say), then new ones; an event stays pending until acked, so
//! consumers must be idempotent by [`Event::id`]. Publishing the same event twice (a relay that
//! crashed between publishing and recording it) delivers it twice; the event id tells.
//!
//! [`connect`] picks the implementation from [`EventBusSettings`]: [`RedisBus`] when a Redis URL
//! is configured, [`MemoryBus`] otherwise.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, RedisError, Value};
use serde::Deserialize;
use thiserror::Error;
use tokio::sync::Notify;

/// One event: an id unique per event (the outbox row's), a topic and a JSON payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: String,
    pub topic: String,
    pub payload: String,
}

/// An event as a consumer group delivered it; `delivery_id` is what [`EventBus::ack`] takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub delivery_id: String,
    pub event: Event,
}

#[derive(Debug, Error)]
pub enum EventError {
    #[error("event bus unavailable: {0}")]
    Unavailable(String),
    #[error("malformed entry {0} in the stream")]
    Malformed(String),
}

#[async_trait]
pub trait EventBus: Send + Sync + fmt::Debug {
    /// Appends `event` to `stream`.
    async fn publish(&self, stream: &str, event: &Event) -> Result<(), EventError>;

    /// Up to `max` deliveries for `consumer` of `group` (created on first use, reading from the
    /// start of the stream): first its own unacknowledged ones, then new ones, waiting up to
    /// `wait` when there is nothing.
    async fn read(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        max: usize,
        wait: Duration,
    ) -> Result<Vec<Delivery>, EventError>;

    /// Marks a delivery done for `group`; it is not delivered to the group again.
    async fn ack(&self, stream: &str, group: &str, delivery_id: &str) -> Result<(), EventError>;

    /// Takes over up to `max` deliveries of `group` that another consumer took and has not
    /// acknowledged for at least `min_idle` (a pod that died, or was scaled away), and hands
    /// them to `consumer`, which must then handle and ack them like its own.
    async fn claim_stale(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery>, EventError>;
}

pub type SharedBus = Arc<dyn EventBus>;

/// Stream names, shared by publishers and consumers.
pub mod streams {
    /// `purchase.posted` events from accounts' outbox, consumed by missions.
    pub const PURCHASES: &str = "events:purchases";
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct EventBusSettings {
    /// `redis://host:port/db`; empty selects the in-memory bus (standalone and tests only).
    pub redis_url: String,
    /// Prefix of every stream key.
    pub key_prefix: String,
    /// Time allowed for a Redis reply (a blocking read gets its wait on top).
    pub response_timeout_ms: u64,
}

impl Default for EventBusSettings {
    fn default() -> Self {
        Self {
            redis_url: String::new(),
            key_prefix: "miclub:".into(),
            response_timeout_ms: 1_000,
        }
    }
}

/// Builds the bus the settings ask for: Redis Streams, or the in-memory bus when no URL is set,
/// which production refuses.
pub async fn connect(
    settings: &EventBusSettings,
    environment: crate::config::Environment,
) -> anyhow::Result<SharedBus> {
    if settings.redis_url.is_empty() && environment.is_production() {
        // Accounts publishes in one process and missions consumes in another: an in-memory bus
        // would lose every purchase event between them.
        anyhow::bail!(
            "production needs redis for the event bus (events.redis_url, APP_EVENTS__REDIS_URL): an in-memory bus sees no other process's events"
        );
    }
    if settings.redis_url.is_empty() {
        tracing::warn!("no redis url configured: using the in-memory event bus");
        return Ok(Arc::new(MemoryBus::new()));
    }
    Ok(Arc::new(RedisBus::connect(settings).await?))
}

/// Approximate cap on each stream's length (`XADD ... MAXLEN ~`): old entries are trimmed so a
/// stream does not grow without bound. Consumers are expected to keep up well within it.
const STREAM_MAX_LEN: u64 = 100_000;

impl From<RedisError> for EventError {
    fn from(err: RedisError) -> Self {
        EventError::Unavailable(err.to_string())
    }
}

/// Redis Streams with consumer groups.
///
/// Publishing, acknowledging and non-blocking reads share one reconnecting connection. A
/// blocking read (`XREADGROUP ... BLOCK`) holds its connection until it returns, so it takes
/// one of its own from a small pool, which keeps concurrent readers from queueing behind each
/// other and behind publishers.
pub struct RedisBus {
    client: redis::Client,
    conn: ConnectionManager,
    prefix: String,
    timeout: Duration,
    /// Idle connections for blocking reads.
    blocking: Mutex<Vec<MultiplexedConnection>>,
    /// (stream key, group) pairs whose group is known to exist.
    groups: Mutex<HashSet<(String, String)>>,
}

impl fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBus")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Idle blocking-read connections kept for reuse; more are opened on demand and dropped after.
const IDLE_BLOCKING_CONNECTIONS: usize = 4;

impl RedisBus {
    pub async fn connect(settings: &EventBusSettings) -> anyhow::Result<Self> {
        let client = redis::Client::open(settings.redis_url.as_str())?;
        let timeout = Duration::from_millis(settings.response_timeout_ms.max(1));
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1);
        let conn = ConnectionManager::new_with_config(client.clone(), config).await?;
        Ok(Self {
            client,
            conn,
            prefix: settings.key_prefix.clone(),
            timeout,
            blocking: Mutex::new(Vec::new()),
            groups: Mutex::new(HashSet::new()),
        })
    }

    fn key(&self, stream: &str) -> String {
        format!("{}{}", self.prefix, stream)
    }

    /// Creates the group (reading from the start of the stream, creating the stream if absent)
    /// once per process; an existing group is fine.
    async fn ensure_group(&self, key: &str, group: &str) -> Result<(), EventError> {
        let known = (key.to_owned(), group.to_owned());
        if self.groups.lock().expect("redis bus lock").contains(&known) {
            return Ok(());
        }
        let mut conn = self.conn.clone();
        let created: Result<(), RedisError> = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(key)
            .arg(group)
            .arg("0")
            .arg("MKSTREAM")
            .query_async(&mut conn)
            .await;
        match created {
            Ok(()) => {}
            Err(err) if is_code(&err, "BUSYGROUP") => {}
            Err(err) => return Err(err.into()),
        }
        self.groups.lock().expect("redis bus lock").insert(known);
        Ok(())
    }

    fn forget_group(&self, key: &str, group: &str) {
        self.groups
            .lock()
            .expect("redis bus lock")
            .remove(&(key.to_owned(), group.to_owned()));
    }

    /// One `XREADGROUP`: `from` is `0` (this consumer's pending entries) or `>` (new ones).
    async fn read_group(
        &self,
        key: &str,
        group: &str,
        consumer: &str,
        max: usize,
        from: &str,
        block: Option<Duration>,
    ) -> Result<Value, RedisError> {
        let mut cmd = redis::cmd("XREADGROUP");
        cmd.arg("GROUP")
            .arg(group)
            .arg(consumer)
            .arg("COUNT")
            .arg(max);
        let Some(wait) = block else {
            cmd.arg("STREAMS").arg(key).arg(from);
            let mut conn = self.conn.clone();
            return cmd.query_async(&mut conn).await;
        };
        let wait_ms = wait.as_millis().clamp(1, u64::MAX as u128) as u64;
        cmd.arg("BLOCK")
            .arg(wait_ms)
            .arg("STREAMS")
            .arg(key)
            .arg(from);
        let mut conn = self.blocking_connection().await?;
        // The server answers within `wait`; past that plus the usual allowance the connection is
        // presumed dead and dropped rather than returned to the pool.
        let reply = tokio::time::timeout(wait + self.timeout, cmd.query_async(&mut conn)).await;
        match reply {
            Ok(Ok(value)) => {
                let mut idle = self.blocking.lock().expect("redis bus lock");
                if idle.len() < IDLE_BLOCKING_CONNECTIONS {
                    idle.push(conn);
                }
                Ok(value)
            }
            Ok(Err(err)) => Err(err),
            Err(_) => Err(RedisError::from(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "blocking stream read timed out",
            ))),
        }
    }

    async fn blocking_connection(&self) -> Result<MultiplexedConnection, RedisError> {
        if let Some(conn) = self.blocking.lock().expect("redis bus lock").pop() {
            return Ok(conn);
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            // Bounded by the caller's own timeout, which knows the wait.
            .set_response_timeout(None);
        self.client
            .get_multiplexed_async_connection_with_config(&config)
            .await
    }

    /// Reads, recreating the group once when Redis no longer knows it (the stream key was
    /// deleted, say).
    async fn read_once(
        &self,
        key: &str,
        group: &str,
        consumer: &str,
        max: usize,
        from: &str,
        block: Option<Duration>,
    ) -> Result<Vec<Delivery>, EventError> {
        self.ensure_group(key, group).await?;
        let reply = match self
            .read_group(key, group, consumer, max, from, block)
            .await
        {
            Err(err) if is_code(&err, "NOGROUP") => {
                self.forget_group(key, group);
                self.ensure_group(key, group).await?;
                self.read_group(key, group, consumer, max, from, block)
                    .await?
            }
            other => other?,
        };
        let (deliveries, unreadable) = parse_read_reply(reply)?;
        // An entry trimmed away while pending, or one not written by `publish`, can never be
        // delivered: acknowledge it so it does not stall the consumer.
        for delivery_id in unreadable {
            tracing::warn!(stream = %key, group, delivery_id = %delivery_id, "skipping an unreadable stream entry");
            self.xack(key, group, &delivery_id).await?;
        }
        Ok(deliveries)
    }

    async fn xack(&self, key: &str, group: &str, delivery_id: &str) -> Result<(), EventError> {
        let mut conn = self.conn.clone();
        let _: i64 = redis::cmd("XACK")
            .arg(key)
            .arg(group)
            .arg(delivery_id)
            .query_async(&mut conn)
            .await?;
        Ok(())
    }
}

fn is_code(err: &RedisError, code: &str) -> bool {
    err.code() == Some(code) || err.to_string().contains(code)
}

#[async_trait]
impl EventBus for RedisBus {
    async fn publish(&self, stream: &str, event: &Event) -> Result<(), EventError> {
        let mut conn = self.conn.clone();
        let _: String = redis::cmd("XADD")
            .arg(self.key(stream))
            .arg("MAXLEN")
            .arg("~")
            .arg(STREAM_MAX_LEN)
            .arg("*")
            .arg("id")
            .arg(&event.id)
            .arg("topic")
            .arg(&event.topic)
            .arg("payload")
            .arg(&event.payload)
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    async fn read(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        max: usize,
        wait: Duration,
    ) -> Result<Vec<Delivery>, EventError> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let key = self.key(stream);
        let pending = self
            .read_once(&key, group, consumer, max, "0", None)
            .await?;
        if !pending.is_empty() {
            return Ok(pending);
        }
        let block = (!wait.is_zero()).then_some(wait);
        self.read_once(&key, group, consumer, max, ">", block).await
    }

    async fn ack(&self, stream: &str, group: &str, delivery_id: &str) -> Result<(), EventError> {
        self.xack(&self.key(stream), group, delivery_id).await
    }

    async fn claim_stale(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery>, EventError> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let key = self.key(stream);
        self.ensure_group(&key, group).await?;
        let mut conn = self.conn.clone();
        // Redis 7: [next cursor, claimed entries, ids deleted from the stream].
        let reply: Value = redis::cmd("XAUTOCLAIM")
            .arg(&key)
            .arg(group)
            .arg(consumer)
            .arg(min_idle.as_millis() as u64)
            .arg("0-0")
            .arg("COUNT")
            .arg(max)
            .query_async(&mut conn)
            .await?;
        let entries = match reply {
            Value::Array(mut parts) if parts.len() >= 2 => parts.swap_remove(1),
            _ => return Err(EventError::Malformed("XAUTOCLAIM reply".into())),
        };
        // The same shape as one stream of an XREADGROUP reply.
        let (deliveries, unreadable) =
            parse_read_reply(Value::Array(vec![Value::Array(vec![Value::Nil, entries])]))?;
        for delivery_id in unreadable {
            tracing::warn!(stream = %key, group, delivery_id = %delivery_id, "skipping an unreadable claimed entry");
            self.xack(&key, group, &delivery_id).await?;
        }
        if !deliveries.is_empty() {
            tracing::info!(stream = %key, group, consumer, claimed = deliveries.len(), "claimed deliveries another consumer left unacknowledged");
        }
        Ok(deliveries)
    }
}

/// Splits an `XREADGROUP` reply into deliveries and the ids of entries that cannot be delivered
/// (deleted while pending, or missing a field). A timed-out blocking read answers nil.
fn parse_read_reply(reply: Value) -> Result<(Vec<Delivery>, Vec<String>), EventError> {
    let malformed = |what: &str| EventError::Malformed(format!("XREADGROUP reply: {what}"));
    let streams: Vec<Value> = match reply {
        Value::Nil => return Ok((Vec::new(), Vec::new())),
        Value::Array(streams) => streams,
        // RESP3 answers a map of stream name to entries.
        Value::Map(pairs) => pairs
            .into_iter()
            .map(|(k, v)| Value::Array(vec![k, v]))
            .collect(),
        _ => return Err(malformed("not an array")),
    };
    let mut deliveries = Vec::new();
    let mut unreadable = Vec::new();
    for stream in streams {
        let Value::Array(mut parts) = stream else {
            return Err(malformed("stream is not a pair"));
        };
        let entries = match parts.pop() {
            Some(Value::Array(entries)) => entries,
            Some(Value::Nil) | None => Vec::new(),
            Some(_) => return Err(malformed("entries are not an array")),
        };
        for entry in entries {
            let Value::Array(mut entry) = entry else {
                return Err(malformed("entry is not a pair"));
            };
            if entry.len() != 2 {
                return Err(malformed("entry is not a pair"));
            }
            let fields = entry.pop().unwrap_or(Value::Nil);
            let delivery_id =
                text(entry.pop().unwrap_or(Value::Nil)).ok_or_else(|| malformed("entry id"))?;
            match event_from_fields(fields) {
                Some(event) => deliveries.push(Delivery { delivery_id, event }),
                None => unreadable.push(delivery_id),
            }
        }
    }
    Ok((deliveries, unreadable))
}

fn event_from_fields(fields: Value) -> Option<Event> {
    let pairs: Vec<(Value, Value)> = match fields {
        Value::Array(flat) => {
            let mut pairs = Vec::with_capacity(flat.len() / 2);
            let mut flat = flat.into_iter();
            while let (Some(k), Some(v)) = (flat.next(), flat.next()) {
                pairs.push((k, v));
            }
            pairs
        }
        Value::Map(pairs) => pairs,
        _ => return None,
    };
    let (mut id, mut topic, mut payload) = (None, None, None);
    for (k, v) in pairs {
        match text(k).as_deref() {
            Some("id") => id = text(v),
            Some("topic") => topic = text(v),
            Some("payload") => payload = text(v),
            _ => {}
        }
    }
    Some(Event {
        id: id?,
        topic: topic?,
        payload: payload?,
    })
}

fn text(value: Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes).ok(),
        Value::SimpleString(s) => Some(s),
        Value::VerbatimString { text, .. } => Some(text),
        _ => None,
    }
}

/// In-memory bus: one process (standalone) or one test. Same delivery rules as Redis Streams.
#[derive(Default)]
pub struct MemoryBus {
    streams: Mutex<HashMap<String, MemoryStream>>,
    notify: Notify,
}

impl fmt::Debug for MemoryBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBus").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct MemoryStream {
    /// Entries by sequence number.
    entries: BTreeMap<u64, Event>,
    next: u64,
    groups: HashMap<String, MemoryGroup>,
}

#[derive(Default)]
struct MemoryGroup {
    /// The last sequence handed to any consumer of the group.
    last_delivered: Option<u64>,
    /// Delivered and not acked, by consumer, with when each was (last) delivered.
    pending: HashMap<String, VecDeque<(u64, Instant)>>,
}

impl MemoryBus {
    pub fn new() -> Self {
        Self::default()
    }

    fn take(&self, stream: &str, group: &str, consumer: &str, max: usize) -> Vec<Delivery> {
        let mut streams = self.streams.lock().expect("memory bus lock");
        let stream = streams.entry(stream.to_owned()).or_default();
        let MemoryStream {
            entries, groups, ..
        } = stream;
        let group = groups.entry(group.to_owned()).or_default();
        let mut out = Vec::new();
        let pending = group.pending.entry(consumer.to_owned()).or_default();
        for (seq, _) in pending.iter().take(max) {
            if let Some(event) = entries.get(seq) {
                out.push(Delivery {
                    delivery_id: seq.to_string(),
                    event: event.clone(),
                });
            }
        }
        if !out.is_empty() {
            return out;
        }
        let from = group.last_delivered.map_or(0, |s| s + 1);
        for (seq, event) in entries.range(from..).take(max) {
            pending.push_back((*seq, Instant::now()));
            group.last_delivered = Some(*seq);
            out.push(Delivery {
                delivery_id: seq.to_string(),
                event: event.clone(),
            });
        }
        out
    }
}

#[async_trait]
impl EventBus for MemoryBus {
    async fn publish(&self, stream: &str, event: &Event) -> Result<(), EventError> {
        {
            let mut streams = self.streams.lock().expect("memory bus lock");
            let stream = streams.entry(stream.to_owned()).or_default();
            let seq = stream.next;
            stream.next += 1;
            stream.entries.insert(seq, event.clone());
        }
        self.notify.notify_waiters();
        Ok(())
    }

    async fn read(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        max: usize,
        wait: Duration,
    ) -> Result<Vec<Delivery>, EventError> {
        let notified = self.notify.notified();
        let first = self.take(stream, group, consumer, max);
        if !first.is_empty() || wait.is_zero() {
            return Ok(first);
        }
        let _ = tokio::time::timeout(wait, notified).await;
        Ok(self.take(stream, group, consumer, max))
    }

    async fn ack(&self, stream: &str, group: &str, delivery_id: &str) -> Result<(), EventError> {
        let seq: u64 = delivery_id
            .parse()
            .map_err(|_| EventError::Malformed(delivery_id.to_owned()))?;
        let mut streams = self.streams.lock().expect("memory bus lock");
        if let Some(group) = streams
            .get_mut(stream)
            .and_then(|s| s.groups.get_mut(group))
        {
            for pending in group.pending.values_mut() {
                pending.retain(|(s, _)| *s != seq);
            }
        }
        Ok(())
    }

    async fn claim_stale(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery>, EventError> {
        let mut streams = self.streams.lock().expect("memory bus lock");
        let Some(MemoryStream {
            entries, groups, ..
        }) = streams.get_mut(stream)
        else {
            return Ok(Vec::new());
        };
        let Some(group) = groups.get_mut(group) else {
            return Ok(Vec::new());
        };
        let mut claimed = Vec::new();
        for (owner, pending) in group.pending.iter_mut() {
            if owner == consumer {
                continue;
            }
            while claimed.len() < max {
                match pending.front() {
                    Some((seq, at)) if at.elapsed() >= min_idle => {
                        claimed.push(*seq);
                        pending.pop_front();
                    }
                    _ => break,
                }
            }
        }
        let mine = group.pending.entry(consumer.to_owned()).or_default();
        let now = Instant::now();
        let mut out = Vec::new();
        for seq in claimed {
            mine.push_back((seq, now));
            if let Some(event) = entries.get(&seq) {
                out.push(Delivery {
                    delivery_id: seq.to_string(),
                    event: event.clone(),
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: &str) -> Event {
        Event {
            id: id.into(),
            topic: "purchase.posted".into(),
            payload: "{}".into(),
        }
    }

    #[tokio::test]
    async fn an_unacknowledged_delivery_comes_back_to_its_consumer_before_new_ones() {
        let bus = MemoryBus::new();
        bus.publish("s", &event("a")).await.unwrap();
        bus.publish("s", &event("b")).await.unwrap();
        let first = bus.read("s", "g", "c1", 1, Duration::ZERO).await.unwrap();
        assert_eq!(first[0].event.id, "a");
        let again = bus.read("s", "g", "c1", 10, Duration::ZERO).await.unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].event.id, "a", "redelivered until acked");
        bus.ack("s", "g", &again[0].delivery_id).await.unwrap();
        let next = bus.read("s", "g", "c1", 10, Duration::ZERO).await.unwrap();
        assert_eq!(next[0].event.id, "b");
    }

    #[tokio::test]
    async fn each_group_sees_every_event_and_a_reader_waits_for_a_publish() {
        let bus = Arc::new(MemoryBus::new());
        bus.publish("s", &event("a")).await.unwrap();
        let one = bus.read("s", "g1", "c", 10, Duration::ZERO).await.unwrap();
        let other = bus.read("s", "g2", "c", 10, Duration::ZERO).await.unwrap();
        assert_eq!((one.len(), other.len()), (1, 1));
        bus.ack("s", "g1", &one[0].delivery_id).await.unwrap();

        let reader = {
            let bus = bus.clone();
            tokio::spawn(async move {
                bus.read("s", "g1", "c", 10, Duration::from_secs(5))
                    .await
                    .unwrap()
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        bus.publish("s", &event("b")).await.unwrap();
        let woken = reader.await.unwrap();
        assert_eq!(woken[0].event.id, "b");
    }
}
