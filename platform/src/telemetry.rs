//! Logs and traces.
//!
//! Logs are structured JSON lines (or compact text for a terminal) through `tracing`; messages
//! are lowercase with structured fields. Every process also has an OpenTelemetry tracer so a
//! member request is one trace: the gateway injects W3C `traceparent` into gRPC metadata
//! ([`PropagateTrace`]) and each service continues it ([`grpc_server_span`]). Spans are exported
//! over OTLP only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde::Deserialize;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct TelemetrySettings {
    /// `tracing` filter directives, e.g. `info,sqlx=warn`. `RUST_LOG` wins when set.
    pub log_filter: String,
    /// JSON lines (for collectors) or human-readable text.
    pub json_logs: bool,
}

impl Default for TelemetrySettings {
    fn default() -> Self {
        Self {
            log_filter: "info,sqlx=warn,tower_http=warn,h2=warn,hyper=warn".into(),
            json_logs: true,
        }
    }
}

/// Flushes spans when dropped.
#[derive(Debug)]
pub struct TelemetryGuard {
    provider: SdkTracerProvider,
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// Installs the global subscriber and tracer for a process named `service`.
pub fn init(service: &str, settings: &TelemetrySettings) -> anyhow::Result<TelemetryGuard> {
    let mut builder = SdkTracerProvider::builder().with_resource(
        opentelemetry_sdk::Resource::builder()
            .with_service_name(service.to_owned())
            .build(),
    );
    if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some() {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .build()?;
        builder = builder.with_batch_exporter(exporter);
    }
    init_with_provider(service, settings, builder.build())
}

/// Like [`init`] with a provider of the caller's (tests collect spans in memory with it).
pub fn init_with_provider(
    service: &str,
    settings: &TelemetrySettings,
    provider: SdkTracerProvider,
) -> anyhow::Result<TelemetryGuard> {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    opentelemetry::global::set_tracer_provider(provider.clone());
    let filter =
        EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(&settings.log_filter))?;
    let fmt = if settings.json_logs {
        tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .boxed()
    } else {
        tracing_subscriber::fmt::layer().compact().boxed()
    };
    let otel = tracing_opentelemetry::layer().with_tracer(provider.tracer(service.to_owned()));
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt)
        .with(otel)
        .try_init()?;
    Ok(TelemetryGuard { provider })
}

struct MetadataInjector<'a>(&'a mut tonic::metadata::MetadataMap);

impl Injector for MetadataInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(key), Ok(value)) = (
            tonic::metadata::MetadataKey::from_bytes(key.as_bytes()),
            tonic::metadata::MetadataValue::try_from(value.as_str()),
        ) {
            self.0.insert(key, value);
        }
    }
}

struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// The trace context carried by incoming HTTP or gRPC headers.
pub fn extract_context(headers: &http::HeaderMap) -> opentelemetry::Context {
    TraceContextPropagator::new().extract(&HeaderExtractor(headers))
}

/// Writes the current span's trace context into outgoing gRPC metadata.
pub fn inject_current(metadata: &mut tonic::metadata::MetadataMap) {
    let context = tracing::Span::current().context();
    TraceContextPropagator::new().inject_context(&context, &mut MetadataInjector(metadata));
}

/// Client interceptor that carries the caller's trace into every gRPC call.
#[derive(Debug, Clone, Copy, Default)]
pub struct PropagateTrace;

impl tonic::service::Interceptor for PropagateTrace {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        inject_current(request.metadata_mut());
        Ok(request)
    }
}

/// The server span of one gRPC call, child of the caller's trace when it sent one.
pub fn grpc_server_span(request: &http::Request<()>) -> tracing::Span {
    let span = tracing::info_span!(
        "grpc.server",
        otel.name = %request.uri().path(),
        otel.kind = "server",
        rpc.system = "grpc",
    );
    let _ = span.set_parent(extract_context(request.headers()));
    span
}

/// Trace id of the current span as 32 hex digits, empty when there is none.
pub fn current_trace_id() -> String {
    use opentelemetry::trace::TraceContextExt;
    let context = tracing::Span::current().context();
    let span = context.span();
    let span_context = span.span_context();
    if span_context.is_valid() {
        span_context.trace_id().to_string()
    } else {
        String::new()
    }
}
