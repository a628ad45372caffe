//! W3C trace context across the hops: the gateway and every gRPC client write `traceparent`
//! (and `tracestate` when there is one) into the call's metadata ([`PropagateTrace`]); a server
//! continues the caller's trace from it, or only links it when it does not trust the caller
//! ([`adopt_remote_trace`]).
//!
//! Reading is OpenTelemetry's `TraceContextPropagator`. Writing is done here: the propagator
//! builds `traceparent` with `format!` and always adds a `tracestate`, even an empty one, with
//! both header names parsed again; on every gateway call that cost about 4,500 instructions
//! (`bench/instructions.sh`). The value is the same; a test compares the two. It goes out
//! never-indexed: indexing a value no other call repeats cost both ends about 2,500 more.

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{SpanContext, TraceContextExt, TraceFlags};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tonic::metadata::{MetadataMap, MetadataValue};
use tracing_opentelemetry::OpenTelemetrySpanExt;

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
fn extract_context(headers: &http::HeaderMap) -> opentelemetry::Context {
    TraceContextPropagator::new().extract(&HeaderExtractor(headers))
}

/// What a server does with the trace context its caller sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteTrace {
    /// The span is the caller's child, so the request is one trace across the hop: for a caller
    /// whose `traceparent` is our own (a service, a proxy that writes its own).
    Continue,
    /// The span starts a trace of its own and records the caller's as a link: for anyone on the
    /// internet, who must choose neither the trace id our log lines carry (and so share it with
    /// another member's request) nor whether the request is sampled (a sent `sampled=0` would
    /// keep it out of the traces). OpenTelemetry's advice for a public edge.
    Link,
}

/// Gives `span` the trace context `headers` carry, as `how` says; nothing when they carry none.
pub fn adopt_remote_trace(span: &tracing::Span, headers: &http::HeaderMap, how: RemoteTrace) {
    if !headers.contains_key("traceparent") {
        return;
    }
    let context = extract_context(headers);
    match how {
        RemoteTrace::Continue => {
            let _ = span.set_parent(context);
        }
        // An invalid context (a malformed header) is not linked.
        RemoteTrace::Link => span.add_link(context.span().span_context().clone()),
    }
}

/// Writes the current span's trace context into outgoing gRPC metadata.
pub fn inject_current(metadata: &mut MetadataMap) {
    let context = tracing::Span::current().context();
    inject(context.span().span_context(), metadata);
}

/// `traceparent`, and `tracestate` when it is not empty (W3C: it may then be left out), of a
/// valid span context; nothing for an invalid one.
fn inject(span_context: &SpanContext, metadata: &mut MetadataMap) {
    if !span_context.is_valid() {
        return;
    }
    if let Ok(mut value) = MetadataValue::try_from(traceparent(span_context)) {
        // A new value on every call: indexed, it would be copied into both ends' HPACK tables
        // and push out the headers that do repeat. Sensitive is h2's only never-indexed switch.
        value.set_sensitive(true);
        metadata.insert("traceparent", value);
    }
    let state = span_context.trace_state().header();
    if !state.is_empty()
        && let Ok(value) = MetadataValue::try_from(state)
    {
        metadata.insert("tracestate", value);
    }
}

/// `00-<trace id>-<span id>-<flags>` in lowercase hex, the sampled flag only (as the propagator
/// writes it).
fn traceparent(span_context: &SpanContext) -> String {
    let mut value = String::with_capacity(55);
    value.push_str("00-");
    push_hex(&mut value, &span_context.trace_id().to_bytes());
    value.push('-');
    push_hex(&mut value, &span_context.span_id().to_bytes());
    value.push('-');
    push_hex(
        &mut value,
        &[(span_context.trace_flags() & TraceFlags::SAMPLED).to_u8()],
    );
    value
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::str::FromStr;

    use opentelemetry::Context;
    use opentelemetry::trace::{SpanId, TraceId, TraceState, TracerProvider as _};
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    fn span_context(trace: u128, span: u64, flags: u8, state: &str) -> SpanContext {
        SpanContext::new(
            TraceId::from(trace),
            SpanId::from(span),
            TraceFlags::new(flags),
            false,
            TraceState::from_str(state).unwrap(),
        )
    }

    /// What OpenTelemetry's own propagator writes for `span_context`.
    fn propagators(span_context: &SpanContext) -> HashMap<String, String> {
        let mut written = HashMap::new();
        let context = Context::new().with_remote_span_context(span_context.clone());
        TraceContextPropagator::new().inject_context(&context, &mut written);
        written
    }

    fn ours(span_context: &SpanContext) -> MetadataMap {
        let mut metadata = MetadataMap::new();
        inject(span_context, &mut metadata);
        metadata
    }

    #[test]
    fn the_traceparent_written_is_the_one_opentelemetrys_propagator_writes() {
        let cases = [
            span_context(
                0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736,
                0x00f0_67aa_0ba9_02b7,
                1,
                "",
            ),
            span_context(1, 1, 0, ""),
            span_context(u128::MAX, u64::MAX, 0xff, ""),
            span_context(
                0x0a00_0000_0000_0000_0000_0000_0000_00b0,
                0x0c00_0000_0000_00d0,
                1,
                "vendor=x,other=y",
            ),
        ];
        for case in &cases {
            let expected = propagators(case);
            let metadata = ours(case);
            assert_eq!(
                metadata.get("traceparent").unwrap().to_str().unwrap(),
                expected["traceparent"]
            );
            match expected["tracestate"].as_str() {
                "" => assert!(metadata.get("tracestate").is_none()),
                state => assert_eq!(metadata.get("tracestate").unwrap().to_str().unwrap(), state),
            }
        }
    }

    #[test]
    fn the_traceparent_is_sent_as_never_indexed_since_no_two_calls_share_it() {
        let metadata = ours(&span_context(7, 9, 1, ""));
        assert!(metadata.get("traceparent").unwrap().is_sensitive());
    }

    #[test]
    fn a_written_context_is_read_back_as_the_same_remote_parent() {
        let sent = span_context(
            0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
            0x0102_0304_0506_0708,
            1,
            "a=b",
        );
        let headers = ours(&sent).into_headers();
        let received = extract_context(&headers);
        let received = received.span();
        let received = received.span_context();
        assert_eq!(received.trace_id(), sent.trace_id());
        assert_eq!(received.span_id(), sent.span_id());
        assert!(received.is_sampled());
        assert!(received.is_remote());
        assert_eq!(received.trace_state().header(), "a=b");
    }

    /// The span a server makes for a request whose headers are `headers`, as exported by a
    /// tracer that samples everything it starts itself.
    fn server_span(headers: &http::HeaderMap, how: RemoteTrace) -> Option<SpanData> {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!("http.request");
            adopt_remote_trace(&span, headers, how);
            span.in_scope(|| tracing::info!("answered"));
        });
        exporter.get_finished_spans().unwrap().pop()
    }

    fn sent(flags: u8) -> (SpanContext, http::HeaderMap) {
        let sent = span_context(
            0x5eed_0000_0000_0000_0000_0000_0000_0001,
            0x0000_0000_0000_0bad,
            flags,
            "",
        );
        let headers = ours(&sent).into_headers();
        (sent, headers)
    }

    #[test]
    fn a_trusted_callers_trace_is_continued_by_the_servers_span() {
        let (sent, headers) = sent(1);
        let span = server_span(&headers, RemoteTrace::Continue).expect("sampled");
        assert_eq!(span.span_context.trace_id(), sent.trace_id());
        assert_eq!(span.parent_span_id, sent.span_id());
    }

    #[test]
    fn an_untrusted_callers_trace_is_linked_and_never_becomes_the_spans_own() {
        let (sent, headers) = sent(1);
        let span = server_span(&headers, RemoteTrace::Link).expect("sampled");
        assert_ne!(span.span_context.trace_id(), sent.trace_id());
        assert_eq!(span.parent_span_id, SpanId::INVALID, "a root of its own");
        let linked: Vec<_> = span.links.iter().map(|l| &l.span_context).collect();
        assert_eq!(linked.len(), 1);
        assert_eq!(linked[0].trace_id(), sent.trace_id());
        assert_eq!(linked[0].span_id(), sent.span_id());
    }

    #[test]
    fn an_untrusted_caller_cannot_keep_its_request_out_of_the_traces() {
        let (_, unsampled) = sent(0);
        assert!(
            server_span(&unsampled, RemoteTrace::Continue).is_none(),
            "a continued parent decides the sampling"
        );
        assert!(server_span(&unsampled, RemoteTrace::Link).is_some());
    }

    #[test]
    fn a_malformed_traceparent_is_neither_continued_nor_linked() {
        let mut headers = http::HeaderMap::new();
        headers.insert("traceparent", "00-not-a-trace-01".parse().unwrap());
        for how in [RemoteTrace::Continue, RemoteTrace::Link] {
            let span = server_span(&headers, how).expect("sampled");
            assert_eq!(span.parent_span_id, SpanId::INVALID);
            assert!(span.links.is_empty());
        }
    }

    #[test]
    fn an_invalid_span_context_writes_nothing() {
        assert!(ours(&SpanContext::empty_context()).is_empty());
    }
}
