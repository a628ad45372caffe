//! Logs, traces and metrics.
//!
//! Logs are structured JSON lines (or compact text for a terminal) through `tracing`, written
//! to stdout by a thread of their own (`log_writer`); messages are lowercase with structured
//! fields, and a line written inside a traced span carries that span's `trace_id` and `span_id`.
//! Every process also has an OpenTelemetry tracer so a member request is one trace: the gateway
//! injects W3C `traceparent` into gRPC metadata ([`PropagateTrace`]) and each service continues
//! it ([`grpc_server_span`]); a trace sent by an internet client, or by a gRPC caller its port
//! does not vouch for, is only linked ([`RemoteTrace::Link`]). Spans are recorded and exported
//! over OTLP only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
//!
//! Metrics (request counts by status, latency histograms) are kept by a process-wide Prometheus
//! recorder ([`metrics_handle`]) and served as `GET /metrics` on an ops listener
//! ([`ops_router`], within [`ConnectionSettings::ops`]'s limits: [`serve_ops`]);
//! `telemetry.ops_port` starts one for the process, the gateway has its own.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use serde::Deserialize;
use tracing::Subscriber;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, MakeWriter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use self::span_fields::JsonSpanFields;
use crate::listener::{ConnectionSettings, Limits};

mod propagation;
mod span_fields;

pub use self::propagation::{PropagateTrace, RemoteTrace, adopt_remote_trace, inject_current};

/// What a test needs to collect spans in memory ([`init_with_provider`] with a provider whose
/// simple exporter is an [`InMemorySpanExporter`]) without depending on the SDK itself.
pub use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct TelemetrySettings {
    /// `tracing` filter directives, e.g. `info,sqlx=warn`. `RUST_LOG` wins when set.
    pub log_filter: String,
    /// JSON lines (for collectors) or human-readable text.
    pub json_logs: bool,
    /// Port of the ops listener serving `GET /metrics` for the whole process
    /// (`APP_TELEMETRY__OPS_PORT`); absent: none (tests, standalone), 0: any free port. The
    /// deployment sets 9090 on every service; the gateway serves its own (`gateway.ops_port`).
    pub ops_port: Option<u16>,
}

impl Default for TelemetrySettings {
    fn default() -> Self {
        Self {
            log_filter: "info,sqlx=warn,tower_http=warn,h2=warn,hyper=warn".into(),
            json_logs: true,
            ops_port: None,
        }
    }
}

/// Flushes spans, then the log lines still queued for stdout, when dropped.
#[derive(Debug)]
pub struct TelemetryGuard {
    provider: SdkTracerProvider,
    /// Dropped after the provider's shutdown (fields drop after `Drop::drop`), so what the
    /// shutdown logs is written too.
    _log_writer: tracing_appender::non_blocking::WorkerGuard,
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// Whether spans reach a collector: set by [`init`] when an OTLP exporter is configured and by
/// [`init_with_provider`] (a test's provider).
static SPANS_RECORDED: AtomicBool = AtomicBool::new(false);

/// Whether the fine-grained client spans (one per SQL statement, one per Redis read) are worth
/// making. Without a collector nobody sees them, and on the balance path they cost about a
/// sixth of the throughput (`bench/gateway.sh`); the request and RPC spans are always made,
/// so log lines keep their trace and span ids.
pub fn spans_recorded() -> bool {
    SPANS_RECORDED.load(Ordering::Relaxed)
}

/// Installs the global subscriber and tracer for a process named `service`, and serves its
/// metrics on `ops_port` when one is set (call it inside the Tokio runtime).
pub fn init(service: &str, settings: &TelemetrySettings) -> anyhow::Result<TelemetryGuard> {
    let mut builder = SdkTracerProvider::builder().with_resource(
        opentelemetry_sdk::Resource::builder()
            .with_service_name(service.to_owned())
            .build(),
    );
    let exporting = std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
    if exporting {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .build()?;
        builder = builder.with_batch_exporter(exporter);
    } else {
        // Nothing would receive the spans: record none, which keeps their cost off every
        // request. Spans still get ids, so log lines keep their trace_id and span_id and a
        // request stays one trace across the services' logs.
        builder = builder.with_sampler(opentelemetry_sdk::trace::Sampler::AlwaysOff);
    }
    let guard = install(service, settings, builder.build(), exporting)?;
    if let Some(port) = settings.ops_port {
        let listener = std::net::TcpListener::bind(("0.0.0.0", port))
            .with_context(|| format!("binding the ops port {port}"))?;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        // Lives as long as the process: metrics stay scrapeable while the service drains.
        tokio::spawn(serve_ops(listener));
    }
    Ok(guard)
}

/// Like [`init`] with a provider of the caller's (tests collect spans in memory with it).
pub fn init_with_provider(
    service: &str,
    settings: &TelemetrySettings,
    provider: SdkTracerProvider,
) -> anyhow::Result<TelemetryGuard> {
    install(service, settings, provider, true)
}

fn install(
    service: &str,
    settings: &TelemetrySettings,
    provider: SdkTracerProvider,
    recorded: bool,
) -> anyhow::Result<TelemetryGuard> {
    SPANS_RECORDED.store(recorded, Ordering::Relaxed);
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    opentelemetry::global::set_tracer_provider(provider.clone());
    metrics_handle();
    let filter =
        EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(&settings.log_filter))?;
    let (writer, log_writer) = log_writer(std::io::stdout());
    subscriber(service, filter, settings.json_logs, &provider, writer).try_init()?;
    Ok(TelemetryGuard {
        provider,
        _log_writer: log_writer,
    })
}

/// Log lines are formatted where they happen and written to `out` by a thread of their own, so
/// no request waits on the write (or on another thread holding stdout). Never lossy: when the
/// queue is full (128 000 lines behind) the logging thread waits rather than drop a line.
fn log_writer<W: std::io::Write + Send + 'static>(
    out: W,
) -> (
    tracing_appender::non_blocking::NonBlocking,
    tracing_appender::non_blocking::WorkerGuard,
) {
    tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("log-writer")
        .finish(out)
}

/// The filter, the log lines written to `writer`, and the tracer of `provider`.
pub(crate) fn subscriber<W>(
    service: &str,
    filter: EnvFilter,
    json_logs: bool,
    provider: &SdkTracerProvider,
    writer: W,
) -> impl Subscriber + Send + Sync + for<'a> LookupSpan<'a> + 'static
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let fmt = if json_logs {
        let format = tracing_subscriber::fmt::format()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false);
        tracing_subscriber::fmt::layer()
            .fmt_fields(JsonSpanFields)
            .event_format(WithTraceIds(format))
            .with_writer(writer)
            .boxed()
    } else {
        tracing_subscriber::fmt::layer()
            .compact()
            .with_writer(writer)
            .boxed()
    };
    // Every poll of an instrumented future enters and exits its spans. By default that also
    // reads the clock twice (busy and idle times) and activates an OpenTelemetry context;
    // neither is used here (propagation reads the span's own context), and on the balance path
    // they were a few percent of the gateway's CPU. Thread attributes are dropped for the same
    // reason: tokio moves tasks between threads, so they say little.
    let otel = tracing_opentelemetry::layer()
        .with_tracked_inactivity(false)
        .with_context_activation(false)
        .with_threads(false)
        .with_tracer(provider.tracer(service.to_owned()));
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt)
        .with(otel)
        .with(RecordTraceIds)
}

/// The OpenTelemetry ids of a span, kept in its extensions for the log lines written inside it.
/// Kept as the ids themselves: most spans write no line, so they are formatted only for a line.
#[derive(Debug, Clone, Copy)]
struct TraceIds {
    trace_id: opentelemetry::trace::TraceId,
    span_id: opentelemetry::trace::SpanId,
}

/// Notes a span's trace and span ids the first time it is entered. Not earlier: until then a
/// server span may still be given the caller's trace as its parent.
struct RecordTraceIds;

impl<S> Layer<S> for RecordTraceIds
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_enter(&self, id: &tracing::span::Id, ctx: tracing_subscriber::layer::Context<'_, S>) {
        let Some(span) = ctx.span(id) else {
            return;
        };
        if span.extensions().get::<TraceIds>().is_some() {
            return;
        }
        let Some(context) = tracing::dispatcher::get_default(|dispatch| {
            tracing_opentelemetry::get_otel_context(id, dispatch)
        }) else {
            return;
        };
        let otel_span = context.span();
        let span_context = otel_span.span_context();
        if span_context.is_valid() {
            span.extensions_mut().insert(TraceIds {
                trace_id: span_context.trace_id(),
                span_id: span_context.span_id(),
            });
        }
    }
}

/// A JSON event format that adds `trace_id` and `span_id` of the innermost traced span.
struct WithTraceIds<F>(F);

impl<S, N, F> FormatEvent<S, N> for WithTraceIds<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let ids = ctx.event_scope().and_then(|scope| {
            scope
                .into_iter()
                .find_map(|span| span.extensions().get::<TraceIds>().copied())
        });
        let Some(ids) = ids else {
            return self.0.format_event(ctx, writer, event);
        };
        let mut line = String::new();
        self.0.format_event(ctx, Writer::new(&mut line), event)?;
        match line.strip_prefix('{') {
            Some(rest) => write!(
                writer,
                "{{\"trace_id\":\"{}\",\"span_id\":\"{}\",{rest}",
                ids.trace_id, ids.span_id
            ),
            None => writer.write_str(&line),
        }
    }
}

/// Latency buckets in seconds, from a cache hit to a timeout.
const LATENCY_BUCKETS: &[f64] = &[
    0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The process-wide Prometheus recorder, installed on first use.
pub fn metrics_handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_duration_seconds".into()), LATENCY_BUCKETS)
            .expect("latency buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder was installed first: /metrics stays empty");
        }
        metrics::describe_counter!(
            "http_server_requests_total",
            "HTTP requests answered, by method, route template and status class"
        );
        metrics::describe_histogram!(
            "http_server_request_duration_seconds",
            metrics::Unit::Seconds,
            "time to answer an HTTP request, by method, route template and status class"
        );
        metrics::describe_counter!(
            "http_connections_refused_total",
            "connections closed as they were accepted, by listener and reason (per_client: one \
             address already held its cap)"
        );
        metrics::describe_counter!(
            "email_change_notices_total",
            "tries of the previous address's email change notice, by outcome (sent; retrying: \
             the try failed and another is due; given_up: refused for good, or not taken in the \
             link's life; void: an earlier link restored the address, or the member left)"
        );
        metrics::describe_counter!(
            "mail_outbox_notices_total",
            "tries of a notice in the mail outbox (password changed or reset, unsubscribed), by \
             outcome (sent; retrying: the try failed and another is due; given_up: refused for \
             good, or not taken in three days)"
        );
        metrics::describe_counter!(
            "grpc_server_calls_total",
            "gRPC calls answered, by method and status code"
        );
        metrics::describe_histogram!(
            "grpc_server_call_duration_seconds",
            metrics::Unit::Seconds,
            "time to answer a gRPC call, by method and status code"
        );
        handle
    })
}

/// `GET /metrics` in the Prometheus text format.
pub fn ops_router() -> axum::Router {
    async fn render() -> impl axum::response::IntoResponse {
        let handle = metrics_handle();
        handle.run_upkeep();
        (
            [(
                http::header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            handle.render(),
        )
    }
    axum::Router::new().route("/metrics", axum::routing::get(render))
}

/// Serves [`ops_router`] on `listener` for as long as the task runs, within the ops port's
/// connection limits ([`ConnectionSettings::ops`]): the port shares the process's descriptors,
/// so connections that send nothing must not be able to use them up.
pub async fn serve_ops(listener: tokio::net::TcpListener) {
    if let Ok(address) = listener.local_addr() {
        tracing::info!(%address, "ops listener serving /metrics");
    }
    let limits = Limits::resolve("ops", &ConnectionSettings::ops(), |_| false);
    crate::listener::serve(
        listener,
        ops_router(),
        limits,
        std::future::pending(),
        Duration::ZERO,
    )
    .await;
}

/// The counter and latency histogram of one label set.
struct Series {
    answered: metrics::Counter,
    duration: metrics::Histogram,
}

/// A metric family's handles by label set. Registering a handle hashes and allocates every
/// label and looks it up in the recorder; each label set is registered on its first request and
/// its handles reused after, so a request only takes a read lock and bumps two atomics. Label
/// sets are bounded by the callers (route templates, known RPCs, status classes and codes).
struct SeriesCache<K> {
    by_name: std::sync::RwLock<SeriesByName<K>>,
}

/// The name label (route or RPC) first, then the few other label sets seen with it.
type SeriesByName<K> = std::collections::HashMap<Box<str>, Vec<(K, Series)>>;

impl<K: Copy + PartialEq> SeriesCache<K> {
    fn new() -> Self {
        // Handles taken before the recorder exists would count nowhere, for good.
        metrics_handle();
        Self {
            by_name: Default::default(),
        }
    }

    fn record(&self, name: &str, key: K, elapsed: Duration, register: impl FnOnce() -> Series) {
        let record = |series: &Series| {
            series.answered.increment(1);
            series.duration.record(elapsed.as_secs_f64());
        };
        {
            let by_name = self.by_name.read().unwrap_or_else(|e| e.into_inner());
            let known = by_name
                .get(name)
                .and_then(|sets| sets.iter().find(|(k, _)| *k == key));
            if let Some((_, series)) = known {
                return record(series);
            }
        }
        let mut by_name = self.by_name.write().unwrap_or_else(|e| e.into_inner());
        let sets = by_name.entry(name.into()).or_default();
        match sets.iter().find(|(k, _)| *k == key) {
            Some((_, series)) => record(series),
            None => {
                let series = register();
                record(&series);
                sets.push((key, series));
            }
        }
    }
}

/// Counts one answered HTTP request. `route` is the route template (never the raw path, so
/// ids in paths do not make new series); errors are the `5xx` (and `4xx`) status classes.
pub fn record_http_request(method: &'static str, route: &str, status: u16, elapsed: Duration) {
    static SERIES: OnceLock<SeriesCache<(&'static str, &'static str)>> = OnceLock::new();
    let class = match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    };
    SERIES
        .get_or_init(SeriesCache::new)
        .record(route, (method, class), elapsed, || {
            let labels = [
                ("method", method.to_owned()),
                ("route", route.to_owned()),
                ("status", class.to_owned()),
            ];
            Series {
                answered: metrics::counter!("http_server_requests_total", &labels),
                duration: metrics::histogram!("http_server_request_duration_seconds", &labels),
            }
        });
}

/// Counts one answered gRPC call; `method` is the full path (`/package.Service/Method`).
pub fn record_grpc_call(method: &str, code: tonic::Code, elapsed: Duration) {
    static SERIES: OnceLock<SeriesCache<tonic::Code>> = OnceLock::new();
    SERIES
        .get_or_init(SeriesCache::new)
        .record(method, code, elapsed, || {
            let labels = [("method", method.to_owned()), ("code", format!("{code:?}"))];
            Series {
                answered: metrics::counter!("grpc_server_calls_total", &labels),
                duration: metrics::histogram!("grpc_server_call_duration_seconds", &labels),
            }
        });
}

/// The server span of one gRPC call. When the caller sent a `traceparent`, the span continues
/// it if `vouched` says the caller is one of ours (the portal's processes and the stores'
/// systems, whose trace context is their own), and only links it otherwise: anyone else who
/// reaches the port, with no token or a forged one, is treated as an internet client is at the
/// gateway ([`RemoteTrace::Link`]). `vouched` is asked only when a `traceparent` came.
pub fn grpc_server_span(
    request: &http::Request<()>,
    vouched: impl FnOnce(&http::HeaderMap) -> bool,
) -> tracing::Span {
    let span = tracing::info_span!(
        "grpc.server",
        otel.name = request.uri().path(),
        otel.kind = "server",
        rpc.system = "grpc",
    );
    let headers = request.headers();
    if headers.contains_key("traceparent") {
        let how = if vouched(headers) {
            RemoteTrace::Continue
        } else {
            RemoteTrace::Link
        };
        adopt_remote_trace(&span, headers, how);
    }
    span
}

/// Trace id of the current span as 32 hex digits, empty when there is none.
pub fn current_trace_id() -> String {
    let context = tracing::Span::current().context();
    let span = context.span();
    let span_context = span.span_context();
    if span_context.is_valid() {
        span_context.trace_id().to_string()
    } else {
        String::new()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::Value;

    use super::*;

    /// Log output kept in memory.
    #[derive(Clone, Default)]
    pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Captured {
        pub(crate) fn lines(&self) -> Vec<Value> {
            let bytes = self.0.lock().unwrap().clone();
            String::from_utf8(bytes)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect()
        }
    }

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Captured {
        type Writer = Captured;

        fn make_writer(&'a self) -> Captured {
            self.clone()
        }
    }

    /// A JSON-logging subscriber over `provider`, writing to `captured`.
    pub(crate) fn test_subscriber(
        provider: &SdkTracerProvider,
        captured: Captured,
    ) -> impl Subscriber + Send + Sync + 'static {
        // The tests collect spans, as `init_with_provider` does.
        SPANS_RECORDED.store(true, Ordering::Relaxed);
        subscriber("test", EnvFilter::new("info"), true, provider, captured)
    }

    fn ids_of(span: &tracing::Span) -> (String, String) {
        let context = span.context();
        let otel_span = context.span();
        let span_context = otel_span.span_context();
        (
            span_context.trace_id().to_string(),
            span_context.span_id().to_string(),
        )
    }

    #[test]
    fn a_log_line_inside_a_traced_span_carries_its_trace_and_span_ids() {
        let provider = SdkTracerProvider::builder().build();
        let captured = Captured::default();
        let ids =
            tracing::subscriber::with_default(test_subscriber(&provider, captured.clone()), || {
                tracing::info!("outside any span");
                let span = tracing::info_span!("work");
                let _entered = span.enter();
                tracing::info!(answer = 42, "inside the span");
                ids_of(&span)
            });
        let lines = captured.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["message"], "outside any span");
        assert!(lines[0].get("trace_id").is_none(), "{}", lines[0]);
        assert_eq!(lines[1]["message"], "inside the span");
        assert_eq!(lines[1]["answer"], 42);
        assert_eq!(lines[1]["trace_id"], ids.0.as_str());
        assert_eq!(lines[1]["span_id"], ids.1.as_str());
        assert_eq!(ids.0.len(), 32);
    }

    #[test]
    fn log_lines_leave_through_the_writer_thread_whole_in_order_and_none_lost() {
        let provider = SdkTracerProvider::builder().build();
        let captured = Captured::default();
        let (writer, guard) = log_writer(captured.clone());
        let subscriber = subscriber("test", EnvFilter::new("info"), true, &provider, writer);
        tracing::subscriber::with_default(subscriber, || {
            for line in 0..5_000 {
                tracing::info!(line, "balance read");
            }
        });
        // The guard flushes the queue on drop, as at the end of the process.
        drop(guard);
        let lines = captured.lines();
        assert_eq!(lines.len(), 5_000);
        for (expected, line) in lines.iter().enumerate() {
            assert_eq!(line["line"], expected, "{line}");
            assert_eq!(line["message"], "balance read");
        }
    }

    #[test]
    fn each_label_set_counts_its_own_calls_however_often_its_handles_are_reused() {
        let method = "/miclub.test.v1.CountedService/Count";
        for _ in 0..3 {
            record_grpc_call(method, tonic::Code::Ok, Duration::from_millis(1));
        }
        record_grpc_call(method, tonic::Code::NotFound, Duration::from_millis(1));
        let rendered = metrics_handle().render();
        let count = |code: &str| {
            let series = format!(r#"grpc_server_calls_total{{method="{method}",code="{code}"}} "#);
            rendered
                .lines()
                .find_map(|line| line.strip_prefix(series.as_str()))
                .unwrap_or_else(|| panic!("no {code} series in {rendered}"))
                .to_owned()
        };
        assert_eq!(count("Ok"), "3");
        assert_eq!(count("NotFound"), "1");
    }

    #[test]
    fn a_grpc_server_span_continues_only_a_vouched_callers_trace_and_logs_its_id() {
        let caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        let request = http::Request::builder()
            .uri("/miclub.accounts.v1.AccountsService/GetBalance")
            .header(
                "traceparent",
                format!("00-{caller_trace}-00f067aa0ba902b7-01"),
            )
            .body(())
            .unwrap();
        let provider = SdkTracerProvider::builder().build();
        let logged_trace_id = |vouched: bool| {
            let captured = Captured::default();
            tracing::subscriber::with_default(test_subscriber(&provider, captured.clone()), || {
                let span = grpc_server_span(&request, |_| vouched);
                let _entered = span.enter();
                tracing::info!("handling the call");
            });
            let line = captured.lines().remove(0);
            assert_ne!(line["span_id"], "00f067aa0ba902b7");
            line["trace_id"].as_str().unwrap().to_owned()
        };
        assert_eq!(logged_trace_id(true), caller_trace);
        let own = logged_trace_id(false);
        assert_ne!(own, caller_trace);
        assert_eq!(own.len(), 32, "a trace id of the span's own: {own}");
    }

    #[test]
    fn a_grpc_call_without_a_traceparent_never_asks_for_its_caller_to_be_vouched_for() {
        let request = http::Request::builder()
            .uri("/grpc.health.v1.Health/Check")
            .body(())
            .unwrap();
        let _span = grpc_server_span(&request, |_| panic!("asked without a traceparent"));
    }
}
