//! Serving and calling gRPC the same way in every service.
//!
//! Servers get `grpc.health.v1` and reflection, a span per call that continues the trace of a
//! caller the port's [`Gate`] vouches for (and links anyone else's), a count and latency per
//! method and status code (see `telemetry`), and a drain on shutdown (NOT_SERVING first, then
//! stop accepting, then finish what is in flight). Clients
//! get lazy channels with timeouts and trace propagation, read-only calls one bounded retry, and
//! every call one more attempt when the server refused it unprocessed ([`retry`]). Both sides
//! speak TLS when the process's [`InternalTls`] is on (see [`crate::tls`]): servers through
//! [`server`], clients through their settings' `tls`. A port takes its connections through
//! [`accepting`], which caps them per caller address and in all, and bounds how long each
//! lives ([`Lifetime`]).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Deserialize;
use tokio::net::TcpListener;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint, Server};
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::shutdown::Shutdown;
use crate::telemetry::{PropagateTrace, grpc_server_span, record_grpc_call};
use crate::tls::InternalTls;

mod accepting;
pub mod retry;

pub use accepting::{Accepted, accepting};

pub use retry::{RetryIdempotent, is_transport_failure, retry_idempotent, was_refused_unprocessed};

/// A channel whose calls carry the caller's trace context.
pub type TracedChannel = InterceptedService<Channel, PropagateTrace>;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ServerSettings {
    pub host: String,
    /// 0 picks a free port (tests, standalone).
    pub port: u16,
    /// Time between reporting NOT_SERVING and closing the listener, so load balancers notice.
    pub drain_delay_ms: u64,
    /// Connections one caller address may hold at once (0: no cap); more are closed as they
    /// are accepted ([`accepting`]). A caller keeps one connection per channel; the default
    /// leaves room for a store-system proxy that opens several for its tills.
    pub connections_per_client: usize,
    /// How long a connection may live (0: for ever). At this age the port asks the caller to
    /// go (HTTP/2 GOAWAY) once its calls in flight are answered; a gRPC client then opens a new
    /// connection, which also spreads callers over replicas added since. See [`Lifetime`].
    pub max_connection_age_ms: u64,
    /// How long a connection asked to go (at its maximum age, or at shutdown once the drain is
    /// over) has to finish its calls before it is cut: one that never started HTTP/2, or a
    /// caller that ignores GOAWAY. Calls time out on the caller's side after 5 s.
    pub max_connection_age_grace_ms: u64,
    /// Calls one connection may have open at once (HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`).
    /// tonic's builder otherwise lifts hyper's limit, so one connection could open calls without
    /// end, each held by the port until it ends.
    pub max_concurrent_streams: u32,
    /// The longest a call may take on this port, its request included (0: no limit but the
    /// caller's): a call whose request never ends is answered `CANCELLED` then, not held to its
    /// connection's end. Callers give up after 5 s; a `grpc-timeout` a caller sends shortens it.
    pub call_timeout_ms: u64,
    /// The process's internal TLS (section `[internal_tls]`, set by the binary, not read from
    /// this section); off by default.
    #[serde(skip)]
    pub tls: InternalTls,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            host: "0.0.0.0".into(),
            port: 50051,
            drain_delay_ms: 5_000,
            connections_per_client: 256,
            max_connection_age_ms: 300_000,
            max_connection_age_grace_ms: 10_000,
            max_concurrent_streams: 200,
            call_timeout_ms: 30_000,
            tls: InternalTls::off(),
        }
    }
}

impl ServerSettings {
    /// The port's connection [`Lifetime`].
    pub fn lifetime(&self) -> Lifetime {
        Lifetime {
            max_age: (self.max_connection_age_ms > 0)
                .then(|| Duration::from_millis(self.max_connection_age_ms)),
            grace: Duration::from_millis(self.max_connection_age_grace_ms),
        }
    }

    pub async fn bind(&self) -> anyhow::Result<TcpListener> {
        let address = format!("{}:{}", self.host, self.port);
        TcpListener::bind(&address)
            .await
            .with_context(|| format!("binding {address}"))
    }
}

/// Settings of a gRPC client of another service.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ClientSettings {
    /// e.g. `http://auth:50051`; `https://auth:50051` when internal TLS is on.
    pub url: String,
    pub connect_timeout_ms: u64,
    pub request_timeout_ms: u64,
    /// The process's internal TLS (section `[internal_tls]`, set by the binary): the url's
    /// scheme must agree with it, see [`InternalTls::for_url`].
    #[serde(skip)]
    pub tls: InternalTls,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            url: String::new(),
            connect_timeout_ms: 2_000,
            request_timeout_ms: 5_000,
            tls: InternalTls::off(),
        }
    }
}

impl ClientSettings {
    pub fn for_url(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            ..Self::default()
        }
    }

    /// These settings with the process's internal TLS.
    pub fn with_tls(self, tls: &InternalTls) -> Self {
        Self {
            tls: tls.clone(),
            ..self
        }
    }

    /// A channel that connects on first use and reconnects by itself; an error when the url's
    /// scheme disagrees with the internal TLS (no silent plaintext).
    pub fn channel(&self) -> anyhow::Result<TracedChannel> {
        let mut endpoint = Endpoint::from_shared(self.url.clone())
            .with_context(|| format!("invalid grpc url {:?}", self.url))?;
        if let Some(tls) = self.tls.for_url(&self.url)? {
            endpoint = endpoint
                .tls_config(tls)
                .with_context(|| format!("tls for grpc url {}", self.url))?;
        }
        let endpoint = endpoint
            .connect_timeout(Duration::from_millis(self.connect_timeout_ms))
            .timeout(Duration::from_millis(self.request_timeout_ms))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(30))
            .keep_alive_while_idle(true);
        Ok(InterceptedService::new(
            endpoint.connect_lazy(),
            PropagateTrace,
        ))
    }

    /// The deadline of one call, the budget [`retry_idempotent`] keeps within.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
}

/// The readiness a service reports over `grpc.health.v1`.
#[derive(Clone)]
pub struct Health {
    reporter: HealthReporter,
    services: Vec<String>,
}

impl std::fmt::Debug for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Health")
            .field("services", &self.services)
            .finish()
    }
}

impl Health {
    pub async fn set(&self, status: ServingStatus) {
        self.reporter.set_service_status("", status).await;
        for service in &self.services {
            self.reporter
                .set_service_status(service.as_str(), status)
                .await;
        }
    }
}

/// The gRPC health service every server runs.
pub const HEALTH_SERVICE: &str = "grpc.health.v1.Health";

/// The gRPC reflection service every server runs.
pub const REFLECTION_SERVICE: &str = "grpc.reflection.v1.ServerReflection";

/// A server builder with the calls and TLS of `settings` (TLS when its `tls` is on), and the
/// health and reflection services of `services` (fully-qualified gRPC service names), reported
/// SERVING. [`serve`] adds the span of each call, which needs the port's [`Gate`].
pub async fn server(
    services: &[&str],
    settings: &ServerSettings,
) -> anyhow::Result<(Server, Health, tonic::service::Routes)> {
    let (reporter, health_service) = tonic_health::server::health_reporter();
    let health = Health {
        reporter,
        services: services.iter().map(|s| (*s).to_owned()).collect(),
    };
    health.set(ServingStatus::Serving).await;
    // Reflection lists what this port serves (its services, health and reflection itself), not
    // every service of the descriptor set: a caller exploring a port sees what it may call.
    let listed = services
        .iter()
        .copied()
        .chain([HEALTH_SERVICE, REFLECTION_SERVICE]);
    let reflection = listed
        .fold(
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(miclub_proto::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET),
            |builder, name| builder.with_service_name(name),
        )
        .build_v1()
        .context("building grpc reflection")?;
    let routes = tonic::service::Routes::new(health_service).add_service(reflection);
    let mut builder = Server::builder();
    if let Some(config) = settings.tls.server_config()? {
        builder = builder
            .tls_config(config)
            .context("serving grpc over tls")?;
    }
    let mut builder = builder
        .max_concurrent_streams(settings.max_concurrent_streams)
        .tcp_nodelay(true)
        .http2_keepalive_interval(Some(Duration::from_secs(30)));
    if settings.call_timeout_ms > 0 {
        builder = builder.timeout(Duration::from_millis(settings.call_timeout_ms));
    }
    Ok((builder, health, routes))
}

/// What decides, before a service sees a call, whether its caller may make it: every port has
/// one (`access::Policy`; defined here so serving does not depend on token verification).
pub trait Gate: Send + Sync + 'static {
    /// The call to serve, or the status that refuses it.
    fn admit<'a>(
        &'a self,
        request: axum::extract::Request,
    ) -> Pin<Box<dyn Future<Output = Result<Pass, tonic::Status>> + Send + 'a>>;

    /// Whether the caller is known to be one of ours from the headers of its call alone, at
    /// once (the call's span is made before [`Self::admit`] runs): the span then continues the
    /// caller's trace, and only links it otherwise, so a stranger who reaches the port chooses
    /// neither the trace id of its calls' log lines nor whether they are sampled. Says nothing
    /// about what the caller may call.
    fn vouches_for(&self, headers: &http::HeaderMap) -> bool;
}

/// A call a [`Gate`] lets through.
pub struct Pass {
    /// The request to serve, possibly with what the gate learnt in its extensions.
    pub request: axum::extract::Request,
    /// What the answer's body is sent through, for a gate that follows the answer until the
    /// caller has taken it; `None` sends it as the service made it.
    pub answer: Option<Box<dyn FnOnce(axum::body::Body) -> axum::body::Body + Send>>,
}

impl Pass {
    /// A call whose answer is sent as the service made it.
    pub fn through(request: axum::extract::Request) -> Self {
        Self {
            request,
            answer: None,
        }
    }
}

/// How long a connection may live on a gRPC port.
///
/// Without a bound a connection could stay open for good: internal TLS authenticates the server
/// only, an HTTP/2 client answers keep-alive pings by itself, hyper's HTTP/2 server has no idle
/// timeout, and it waits without end for a connection's preface (plaintext in a mesh, or after
/// a finished TLS handshake). Such a connection also kept the server from ever stopping: on
/// shutdown hyper waits for the preface before it can say GOAWAY. And a channel through a
/// Kubernetes Service stays on the replica it first reached, never seeing replicas added later.
///
/// At `max_age` the server sends GOAWAY, gracefully (tonic's `max_connection_age`): the calls
/// in flight are answered and the caller's channel reconnects for its next one. At
/// `max_age + grace` [`accepting`]'s connection closes itself, whatever state HTTP/2 is in.
/// tonic's own `max_connection_age_grace` is not used: with it set, tonic skips the GOAWAY and
/// only cuts the connection at `max_age + grace`. On shutdown, [`serve`] gives connections the
/// drain and `grace`, then returns with whatever is still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetime {
    pub max_age: Option<Duration>,
    pub grace: Duration,
}

impl Default for Lifetime {
    fn default() -> Self {
        ServerSettings::default().lifetime()
    }
}

/// A bound gRPC listener with the rules its connections live by: how many one caller address
/// may hold at once (0: no cap) and how long each may live ([`accepting`]); they always go
/// together to [`serve`].
#[derive(Debug)]
pub struct CappedListener {
    pub listener: TcpListener,
    pub per_client: usize,
    pub lifetime: Lifetime,
}

/// Serves `routes` on `listener` until `shutdown`, draining as the module header says; every
/// call passes `gate` first. The parts of a [`Port`], which most callers use instead.
pub async fn serve(
    mut builder: Server,
    routes: tonic::service::Routes,
    listener: CappedListener,
    health: Health,
    drain_delay: Duration,
    shutdown: Shutdown,
    gate: Arc<dyn Gate>,
) -> anyhow::Result<()> {
    let CappedListener {
        listener,
        per_client,
        lifetime,
    } = listener;
    if let Some(age) = lifetime.max_age {
        builder = builder.max_connection_age(age);
    }
    let vouching = gate.clone();
    let mut builder = builder.trace_fn(move |request| {
        grpc_server_span(request, |headers| vouching.vouches_for(headers))
    });
    let address: SocketAddr = listener.local_addr()?;
    tracing::info!(%address, services = ?health.services, "grpc server listening");
    // Layers run outside in: the count sees the gate's refusals too.
    let routes = tonic::service::Routes::from(
        routes
            .into_axum_router()
            .layer(axum::middleware::from_fn_with_state(gate, guard))
            .layer(axum::middleware::from_fn(count_call)),
    );
    let stopping = shutdown.clone();
    let stop = async move {
        shutdown.wait().await;
        health.set(ServingStatus::NotServing).await;
        tracing::info!(
            drain_ms = drain_delay.as_millis() as u64,
            "reporting not serving, draining"
        );
        tokio::time::sleep(drain_delay).await;
    };
    let serving = builder
        .add_routes(routes)
        .serve_with_incoming_shutdown(accepting(listener, per_client, lifetime), stop);
    // The drain, then the grace for calls in flight; what is still open after that (a
    // connection that never started HTTP/2 holds tonic's wait for good) does not keep the
    // process from stopping: its task ends with the runtime, or at its own lifetime.
    let cut = async move {
        stopping.wait().await;
        tokio::time::sleep(drain_delay + lifetime.grace).await;
    };
    tokio::select! {
        served = serving => served.context("grpc server failed")?,
        () = cut => tracing::warn!(
            %address,
            grace_ms = lifetime.grace.as_millis() as u64,
            "grpc connections still open after the drain and grace; stopping without them"
        ),
    }
    tracing::info!(%address, "grpc server stopped");
    Ok(())
}

/// A service's gRPC port, built and bound but not yet serving: the service behind its gate,
/// with health and reflection, and the drain delay of its settings. Every service's
/// `Application` holds one, so tests and the standalone binary know the port before serving.
pub struct Port {
    server: Server,
    routes: tonic::service::Routes,
    listener: CappedListener,
    health: Health,
    gate: Arc<dyn Gate>,
    drain_delay: Duration,
    port: u16,
}

impl std::fmt::Debug for Port {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Port")
            .field("port", &self.port)
            .field("health", &self.health)
            .finish_non_exhaustive()
    }
}

impl Port {
    /// Builds the server of `service` (named `name`, fully qualified, for health and
    /// reflection), every call passing `gate` first, and binds the address of `settings`
    /// (port 0 picks a free one).
    pub async fn bind<S>(
        settings: &ServerSettings,
        name: &str,
        service: S,
        gate: Arc<dyn Gate>,
    ) -> anyhow::Result<Self>
    where
        S: tower::Service<http::Request<tonic::body::Body>, Error = std::convert::Infallible>
            + tonic::server::NamedService
            + Clone
            + Send
            + Sync
            + 'static,
        S::Response: axum::response::IntoResponse,
        S::Future: Send + 'static,
    {
        let (server, health, routes) = server(&[name], settings).await?;
        let routes = routes.add_service(service);
        let listener = settings.bind().await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            server,
            routes,
            listener: CappedListener {
                listener,
                per_client: settings.connections_per_client,
                lifetime: settings.lifetime(),
            },
            health,
            gate,
            drain_delay: Duration::from_millis(settings.drain_delay_ms),
            port,
        })
    }

    /// The port the listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until `shutdown` fires, then drains ([`serve`]).
    pub async fn serve(self, shutdown: Shutdown) -> anyhow::Result<()> {
        serve(
            self.server,
            self.routes,
            self.listener,
            self.health,
            self.drain_delay,
            shutdown,
            self.gate,
        )
        .await
    }
}

/// Runs the port's [`Gate`]: a refused call is answered with its status at once.
async fn guard(
    axum::extract::State(gate): axum::extract::State<Arc<dyn Gate>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    match gate.admit(request).await {
        Ok(Pass { request, answer }) => {
            let response = next.run(request).await;
            match answer {
                Some(answer) => response.map(answer),
                None => response,
            }
        }
        Err(status) => status.into_http(),
    }
}

/// The methods (`package.Service/Method`) of the services an encoded descriptor set describes.
pub(crate) fn described_methods(encoded: &[u8]) -> Vec<String> {
    use prost::Message as _;
    let set =
        prost_types::FileDescriptorSet::decode(encoded).expect("a compiled descriptor set decodes");
    let mut methods = Vec::new();
    for file in set.file {
        let package = file.package();
        for service in &file.service {
            for method in &service.method {
                methods.push(format!("{package}.{}/{}", service.name(), method.name()));
            }
        }
    }
    methods
}

/// Whether `path` (`/package.Service/Method`) names a method of the compiled contract, of
/// health or of reflection: a fixed set, whatever paths callers send.
fn is_served(path: &str) -> bool {
    static SERVED: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    SERVED
        .get_or_init(|| {
            [
                miclub_proto::FILE_DESCRIPTOR_SET,
                tonic_health::pb::FILE_DESCRIPTOR_SET,
                tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
                tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
            ]
            .into_iter()
            .flat_map(described_methods)
            .collect()
        })
        .contains(path.trim_start_matches('/'))
}

/// Records the call's method, status code and latency. The code is the `grpc-status` header
/// of an error answered at once (tonic's trailers-only response); a call answered with a
/// message reports its status in the trailers, which is OK for unary calls. A call that ends
/// unanswered here (the port's call timeout, or a caller that gave up) is counted `Cancelled`,
/// what tonic answers at the timeout.
async fn count_call(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let mut call = CountedCall {
        uri: request.uri().clone(),
        started: Instant::now(),
        code: tonic::Code::Cancelled,
    };
    let response = next.run(request).await;
    call.code = response
        .headers()
        .get("grpc-status")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<i32>().ok())
        .map(tonic::Code::from)
        .unwrap_or(if response.status().is_success() {
            tonic::Code::Ok
        } else {
            tonic::Code::Unknown
        });
    response
}

/// One call being counted: recorded when dropped, answered or not.
struct CountedCall {
    uri: http::Uri,
    started: Instant,
    code: tonic::Code,
}

impl Drop for CountedCall {
    fn drop(&mut self) {
        // Unknown methods share one series, so stray paths cannot grow the metric without
        // bound; a call dropped unanswered may name any path, so its own is checked.
        let method = match self.code {
            tonic::Code::Unimplemented => "unimplemented",
            tonic::Code::Cancelled if !is_served(self.uri.path()) => "unimplemented",
            _ => self.uri.path(),
        };
        record_grpc_call(method, self.code, self.started.elapsed());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_dropped_unanswered_is_counted_under_its_path_only_when_a_port_serves_it() {
        for served in [
            "/miclub.accounts.v1.AccountsService/GetBalance",
            "/grpc.health.v1.Health/Watch",
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        ] {
            assert!(is_served(served), "{served}");
        }
        for stray in [
            "/miclub.accounts.v1.AccountsService/GetBalance2",
            "/miclub.identity.v1.IdentityVerifier/Nope",
            "/x",
            "",
        ] {
            assert!(!is_served(stray), "{stray}");
        }
    }
}
