//! Serving and calling gRPC the same way in every service.
//!
//! Servers get `grpc.health.v1` and reflection, a span per call that continues the caller's
//! trace, a count and latency per method and status code (see `telemetry`), and a drain on
//! shutdown (NOT_SERVING first, then stop accepting, then finish what is in flight). Clients
//! get lazy channels with timeouts and trace propagation.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Deserialize;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint, Server};
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::shutdown::Shutdown;
use crate::telemetry::{PropagateTrace, grpc_server_span, record_grpc_call};

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
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            host: "0.0.0.0".into(),
            port: 50051,
            drain_delay_ms: 5_000,
        }
    }
}

impl ServerSettings {
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
    /// e.g. `http://auth:50051`.
    pub url: String,
    pub connect_timeout_ms: u64,
    pub request_timeout_ms: u64,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            url: String::new(),
            connect_timeout_ms: 2_000,
            request_timeout_ms: 5_000,
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

    /// A channel that connects on first use and reconnects by itself.
    pub fn channel(&self) -> anyhow::Result<TracedChannel> {
        let endpoint = Endpoint::from_shared(self.url.clone())
            .with_context(|| format!("invalid grpc url {:?}", self.url))?
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

/// A server builder with the per-call span, and the health and reflection services of
/// `services` (fully-qualified gRPC service names), reported SERVING.
pub async fn server(services: &[&str]) -> anyhow::Result<(Server, Health, tonic::service::Routes)> {
    let (reporter, health_service) = tonic_health::server::health_reporter();
    let health = Health {
        reporter,
        services: services.iter().map(|s| (*s).to_owned()).collect(),
    };
    health.set(ServingStatus::Serving).await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(miclub_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .context("building grpc reflection")?;
    let routes = tonic::service::Routes::new(health_service).add_service(reflection);
    let builder = Server::builder()
        .trace_fn(grpc_server_span)
        .tcp_nodelay(true)
        .http2_keepalive_interval(Some(Duration::from_secs(30)));
    Ok((builder, health, routes))
}

/// Serves `routes` on `listener` until `shutdown`, draining as the module header says.
pub async fn serve(
    mut builder: Server,
    routes: tonic::service::Routes,
    listener: TcpListener,
    health: Health,
    drain_delay: Duration,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let address: SocketAddr = listener.local_addr()?;
    tracing::info!(%address, services = ?health.services, "grpc server listening");
    let routes = tonic::service::Routes::from(
        routes
            .into_axum_router()
            .layer(axum::middleware::from_fn(count_call)),
    );
    let stop = async move {
        shutdown.wait().await;
        health.set(ServingStatus::NotServing).await;
        tracing::info!(
            drain_ms = drain_delay.as_millis() as u64,
            "reporting not serving, draining"
        );
        tokio::time::sleep(drain_delay).await;
    };
    builder
        .add_routes(routes)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), stop)
        .await
        .context("grpc server failed")?;
    tracing::info!(%address, "grpc server stopped");
    Ok(())
}

/// Records the call's method, status code and latency. The code is the `grpc-status` header
/// of an error answered at once (tonic's trailers-only response); a call answered with a
/// message reports its status in the trailers, which is OK for unary calls.
async fn count_call(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let method = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let code = response
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
    // Unknown methods share one series, so stray paths cannot grow the metric without bound.
    let method = if code == tonic::Code::Unimplemented {
        "unimplemented"
    } else {
        method.as_str()
    };
    record_grpc_call(method, code, started.elapsed());
    response
}
