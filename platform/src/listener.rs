//! HTTP/1.1 listeners with the limits `axum::serve` has no setting for: the gateway's
//! member-facing port and every process's ops port (`GET /metrics`, [`crate::telemetry`]).
//! Without them a connection that says nothing holds its socket forever: about 20,000 idle
//! connections from one machine used up the standalone portal's descriptors, and every
//! member's request went unanswered while they stayed open. An ops port shares the process's
//! descriptors with its gRPC port, its databases and Redis, so it needs the same limits, only
//! smaller ([`ConnectionSettings::ops`]).
//!
//! - A connection that has not sent a whole request head within `header_timeout_ms` is closed;
//!   the wait for the next request on a kept-alive connection counts too (hyper's header read
//!   timeout, which needs a timer).
//! - A request's body must be whole within `body_timeout_ms` of its head ([`body_deadline`]),
//!   so a body trickled in cannot hold the connection either.
//! - A request head larger than `max_head_bytes` is answered 431 and the connection closed.
//!   hyper buffers up to about 400 KiB of head per connection by default, so the connections
//!   the caps allow could hold that much memory each; a browser's head is a few KiB.
//! - An answer that makes no progress for `write_timeout_ms` ends the connection: a client that
//!   asks (or pipelines many asks) and never reads would otherwise hold it for good, the server
//!   waiting on a full socket buffer where no other timeout applies (tokio-io-timeout's
//!   `TimeoutStream`, the same rule as nginx's `send_timeout`).
//! - One client address holds at most `per_client` connections at once; more are closed as
//!   they are accepted and counted in `http_connections_refused_total`. The addresses the
//!   caller names are not counted: behind the ingress every connection to the gateway comes
//!   from it, and it keeps its own limits.
//! - At most `max` connections are open in all (by default the open-file limit less what the
//!   process keeps for its own databases, Redis, gRPC and files). Beyond that, accepting waits
//!   and new connections queue in the kernel, so the process never runs out of descriptors
//!   for its own work.
//!
//! HTTP/1.1 only: browsers reach the portal over HTTP/1.1 here, or over HTTP/2 to the ingress,
//! which speaks HTTP/1.1 to the gateway, and Prometheus scrapes over HTTP/1.1; an HTTP/2
//! connection could stay idle with no header timeout to end it.

pub mod body_deadline;

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use serde::Deserialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;
use tower::ServiceExt;

use body_deadline::with_deadline;

/// Descriptors kept for the process's own work when `max` comes from the open-file limit.
const RESERVED_DESCRIPTORS: u64 = 512;

/// Limits on a listener's connections, so that connections that send nothing cannot hold it
/// (the module header tells why each exists). The gateway reads its member-facing port's from
/// `[gateway.connections]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ConnectionSettings {
    /// Milliseconds a connection has to send a request's head, the wait for the next request on
    /// a kept-alive connection included; then it is closed.
    pub header_timeout_ms: u64,
    /// Milliseconds a request's body has, from the moment its head arrived, to be whole; then it
    /// ends in [`body_deadline::BodyTimedOut`] (the gateway answers 408) and the connection is
    /// closed.
    pub body_timeout_ms: u64,
    /// Milliseconds an answer may make no progress (the client reads none of it); then the
    /// connection is closed.
    pub write_timeout_ms: u64,
    /// Connections one client address may hold at once (0: no cap). The addresses the caller
    /// trusts (the gateway's `trusted_proxies`) are not counted.
    pub per_client: usize,
    /// Connections open at once in all; 0 (the default): the open-file limit less what the
    /// process keeps for its own connections and files.
    pub max: usize,
    /// Bytes a request head (request line and headers) may take; a larger one is answered 431
    /// and the connection closed. 32 KiB is what nginx allows by default (four 8 KiB buffers).
    pub max_head_bytes: usize,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        Self {
            header_timeout_ms: 20_000,
            body_timeout_ms: 20_000,
            write_timeout_ms: 60_000,
            per_client: 64,
            max: 0,
            max_head_bytes: 32 * 1024,
        }
    }
}

impl ConnectionSettings {
    /// An ops port's: its only route is `GET /metrics`, scraped by a few Prometheus servers
    /// every few seconds over one kept-alive connection each. A scrape's request head is a few
    /// hundred bytes, so 10 s and 8 KiB are ample; 8 connections per address and 64 in all
    /// leave room for several scrapers and a person with `curl`, and keep a flood from using
    /// the descriptors the process needs for its own work.
    pub fn ops() -> Self {
        Self {
            header_timeout_ms: 10_000,
            body_timeout_ms: 10_000,
            write_timeout_ms: 10_000,
            per_client: 8,
            max: 64,
            max_head_bytes: 8 * 1024,
        }
    }
}

/// Which peers are not counted per client (the gateway's trusted proxies).
type Uncounted = Arc<dyn Fn(IpAddr) -> bool + Send + Sync>;

/// The limits in force, resolved from the settings once at start-up.
#[derive(Clone)]
pub struct Limits {
    /// Names the listener in its logs and in `http_connections_refused_total`.
    pub listener: &'static str,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub write_timeout: Duration,
    /// 0: no cap.
    pub per_client: usize,
    pub max: usize,
    pub max_head_bytes: usize,
    uncounted: Uncounted,
}

impl std::fmt::Debug for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits")
            .field("listener", &self.listener)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("write_timeout", &self.write_timeout)
            .field("per_client", &self.per_client)
            .field("max", &self.max)
            .field("max_head_bytes", &self.max_head_bytes)
            .finish_non_exhaustive()
    }
}

impl Limits {
    /// The limits of `settings` for the listener named `listener`; peers for which `uncounted`
    /// holds are not counted per client.
    pub fn resolve(
        listener: &'static str,
        settings: &ConnectionSettings,
        uncounted: impl Fn(IpAddr) -> bool + Send + Sync + 'static,
    ) -> Self {
        let max = match settings.max {
            0 => from_open_file_limit(),
            max => max,
        };
        Self {
            listener,
            header_timeout: Duration::from_millis(settings.header_timeout_ms),
            body_timeout: Duration::from_millis(settings.body_timeout_ms),
            write_timeout: Duration::from_millis(settings.write_timeout_ms),
            per_client: settings.per_client,
            max,
            max_head_bytes: settings.max_head_bytes,
            uncounted: Arc::new(uncounted),
        }
    }
}

/// The soft open-file limit less [`RESERVED_DESCRIPTORS`], and at least 64.
pub(crate) fn from_open_file_limit() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(u64::MAX);
    usize::try_from(limit.saturating_sub(RESERVED_DESCRIPTORS).max(64)).unwrap_or(usize::MAX)
}

/// Serves `service` on `listener` within `limits` until `shutdown` resolves, then stops
/// accepting and waits up to `drain` for the requests in flight (idle connections are closed at
/// once); a request still running after that is cut, so a stuck client cannot hold a rollout.
pub async fn serve<S>(
    listener: TcpListener,
    service: S,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    drain: Duration,
) where
    S: tower::Service<Request, Response = Response, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    tracing::info!(
        listener = limits.listener,
        header_timeout_ms = limits.header_timeout.as_millis() as u64,
        body_timeout_ms = limits.body_timeout.as_millis() as u64,
        write_timeout_ms = limits.write_timeout.as_millis() as u64,
        per_client = limits.per_client,
        max = limits.max,
        max_head_bytes = limits.max_head_bytes,
        "connection limits"
    );
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // Not `max_buf_size`: one read may fill the buffer past it, and a head that arrives
        // whole in that read is accepted.
        .max_header_size(limits.max_head_bytes);
    let slots = Arc::new(Semaphore::new(limits.max));
    let clients = ClientCounts::default();
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = accept(&listener) => match accepted {
                Some(accepted) => accepted,
                None => continue,
            },
            () = &mut shutdown => break,
        };
        let counted = if (limits.uncounted)(peer.ip()) {
            None
        } else {
            match clients.admit(peer.ip(), limits.per_client) {
                Some(counted) => Some(counted),
                None => {
                    refused_per_client(limits.listener, peer.ip(), limits.per_client);
                    continue;
                }
            }
        };
        let body_timeout = limits.body_timeout;
        let service = service
            .clone()
            .map_request(move |request: hyper::Request<Incoming>| {
                let mut request = request.map(|body| with_deadline(body, body_timeout));
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            });
        let mut io = TimeoutStream::new(stream);
        io.set_write_timeout(Some(limits.write_timeout));
        let connection = graceful.watch(http.serve_connection(
            TokioIo::new(Box::pin(io)),
            TowerToHyperService::new(service),
        ));
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, "connection ended with an error");
            }
            drop(counted);
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(drain, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            drain_ms = drain.as_millis() as u64,
            "requests still running after the drain: cut"
        );
    }
}

/// The next connection, with Nagle's algorithm off. `None` when the accept failed: a connection
/// gone before it was taken is nothing; anything else (descriptors, memory) is logged and
/// accepting pauses a moment rather than spin.
async fn accept(listener: &TcpListener) -> Option<(TcpStream, std::net::SocketAddr)> {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    match listener.accept().await {
        Ok((stream, peer)) => {
            nagle_off(&stream);
            Some((stream, peer))
        }
        Err(err)
            if matches!(
                err.kind(),
                ConnectionAborted | ConnectionRefused | ConnectionReset
            ) =>
        {
            None
        }
        Err(err) => {
            tracing::error!(error = %err, "accepting a connection failed");
            tokio::time::sleep(Duration::from_millis(250)).await;
            None
        }
    }
}

/// `TCP_NODELAY`, as on the gRPC ports ([`crate::grpc::accepting`]): an answer written in
/// pieces, or a request from an ingress, would otherwise wait for the client's delayed ACK.
fn nagle_off(stream: &TcpStream) {
    if let Err(err) = stream.set_nodelay(true) {
        tracing::debug!(error = %err, "cannot set TCP_NODELAY on an accepted connection");
    }
}

/// How much of something each key holds (connections, calls, bytes), each part counted until
/// its [`Counted`] drops; a key is forgotten at zero, so the map holds only current holders.
/// Keyed with foldhash (randomly seeded per map) rather than SipHash: a gRPC answer takes and
/// gives back a count, and SipHash over a member id was most of that cost.
#[derive(Debug)]
pub(crate) struct Counts<K>(Arc<Mutex<HashMap<K, usize, foldhash::fast::RandomState>>>);

impl<K> Default for Counts<K> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<K> Clone for Counts<K> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<K: std::hash::Hash + Eq + Clone> Counts<K> {
    /// Counts one more for `key`, unless it already holds `cap` (0: no cap).
    pub(crate) fn admit(&self, key: K, cap: usize) -> Option<Counted<K>> {
        self.take(key, 1, cap)
    }

    /// Counts `amount` more for `key`, unless that would take it past `cap` (0: no cap).
    pub(crate) fn take(&self, key: K, amount: usize, cap: usize) -> Option<Counted<K>> {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(key.clone()).or_default();
        if cap != 0 && *count + amount > cap {
            if *count == 0 {
                counts.remove(&key);
            }
            return None;
        }
        *count += amount;
        Some(Counted {
            counts: self.clone(),
            key,
            amount,
        })
    }
}

/// Open connections by client address (also the gRPC ports', [`crate::grpc::accepting`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientCounts(Counts<IpAddr>);

impl ClientCounts {
    /// Counts one more connection from `ip`'s [`client_address`], unless it already holds `cap`
    /// (0: no cap).
    pub(crate) fn admit(&self, ip: IpAddr, cap: usize) -> Option<Counted<IpAddr>> {
        self.0.admit(client_address(ip), cap)
    }
}

/// The client an address stands for in every per-client count: an IPv4 address written as
/// IPv4-mapped IPv6 (a dual-stack listener's view of it) is the same client.
pub fn client_address(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}

/// Records a connection closed because `ip` already held its `cap` on the listener named
/// `listener`: the one place every listener counts and logs it.
pub(crate) fn refused_per_client(listener: &'static str, ip: IpAddr, cap: usize) {
    metrics::counter!(
        "http_connections_refused_total",
        "listener" => listener,
        "reason" => "per_client"
    )
    .increment(1);
    tracing::debug!(
        listener,
        client = %ip,
        per_client = cap,
        "too many connections from one address: closed"
    );
}

/// One counted part of what a key holds; uncounted when dropped.
#[derive(Debug)]
pub(crate) struct Counted<K: std::hash::Hash + Eq> {
    counts: Counts<K>,
    key: K,
    amount: usize,
}

impl<K: std::hash::Hash + Eq> Counted<K> {
    /// Counts `amount` for the same key instead of what this part counted, unless that would
    /// take the key past `cap` (0: no cap); a smaller amount is always counted.
    pub(crate) fn resize(&mut self, amount: usize, cap: usize) -> bool {
        let mut counts = self.counts.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(count) = counts.get_mut(&self.key) else {
            return false;
        };
        let total = *count - self.amount + amount;
        if amount > self.amount && cap != 0 && total > cap {
            return false;
        }
        *count = total;
        self.amount = amount;
        true
    }
}

impl<K: std::hash::Hash + Eq> Drop for Counted<K> {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&self.key) {
            *count -= self.amount;
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_listener_accepts_with_nagle_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let _client = TcpStream::connect(address).await.unwrap();
        let (accepted, _) = accept(&listener).await.unwrap();
        assert!(
            accepted.nodelay().unwrap(),
            "an answer in pieces would wait for the client's delayed ACK"
        );
    }

    #[test]
    fn an_address_is_admitted_up_to_its_cap_and_again_once_one_closes() {
        let counts = ClientCounts::default();
        let ip: IpAddr = "203.0.113.7".parse().unwrap();
        let first = counts.admit(ip, 2).unwrap();
        let _second = counts.admit(ip, 2).unwrap();
        assert!(counts.admit(ip, 2).is_none());
        // Another address is counted apart, and the same one written as IPv4-mapped IPv6 is not.
        assert!(counts.admit("203.0.113.8".parse().unwrap(), 2).is_some());
        assert!(
            counts
                .admit("::ffff:203.0.113.7".parse().unwrap(), 2)
                .is_none()
        );
        drop(first);
        assert!(counts.admit(ip, 2).is_some());
    }

    #[test]
    fn an_amount_is_held_within_its_cap_changes_within_it_and_is_given_back_whole() {
        let counts: Counts<&str> = Counts::default();
        let mut first = counts.take("member-a", 40, 100).unwrap();
        assert!(first.resize(90, 100));
        assert!(!first.resize(101, 100), "past the cap");
        assert!(counts.take("member-a", 11, 100).is_none());
        assert!(counts.take("member-b", 100, 100).is_some(), "another key");
        let second = counts.take("member-a", 10, 100).unwrap();
        assert!(first.resize(95, 0), "no cap");
        assert!(
            first.resize(20, 100),
            "a smaller amount, though the key is past its cap"
        );
        assert_eq!(counts.0.lock().unwrap()["member-a"], 30);
        drop(first);
        assert_eq!(counts.0.lock().unwrap()["member-a"], 10);
        drop(second);
        assert!(counts.0.lock().unwrap().is_empty(), "forgotten at zero");
        assert!(counts.take("member-c", 101, 100).is_none());
        assert!(
            counts.0.lock().unwrap().is_empty(),
            "a refusal leaves nothing"
        );
    }

    #[test]
    fn a_cap_of_zero_counts_without_refusing_and_forgets_closed_addresses() {
        let counts = ClientCounts::default();
        let ip: IpAddr = "198.51.100.1".parse().unwrap();
        let held: Vec<_> = (0..100).map(|_| counts.admit(ip, 0).unwrap()).collect();
        drop(held);
        assert!(counts.0.0.lock().unwrap().is_empty());
    }
}
