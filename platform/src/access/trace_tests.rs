//! Whose trace a port's call spans continue: a real port behind a real [`Policy`], its spans
//! collected in memory. A caller holding a token auth signed is one of ours and its trace is
//! continued; anyone else who reaches the port (no token, a forged or an expired one) is only
//! linked, so it chooses neither the trace id of its calls' log lines nor their sampling.

use std::sync::Arc;
use std::time::{Duration, Instant};

use miclub_proto::accounts::v1::GetBalanceRequest;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

use super::Policy;
use crate::telemetry::tests::{Captured, test_subscriber};
use crate::testing::{TestKeys, serve_port};

const HEALTH: &str = "/grpc.health.v1.Health/Check";
const BALANCE: &str = "/miclub.accounts.v1.AccountsService/GetBalance";

/// A caller's own trace context for one call: trace `n`, sampled.
fn sent(n: u128) -> SpanContext {
    SpanContext::new(
        TraceId::from(0x5eed_0000_0000_0000_0000_0000_0000_0000 + n),
        SpanId::from(0xca11),
        TraceFlags::SAMPLED,
        true,
        TraceState::default(),
    )
}

/// One call of `path` on `channel`, with the `traceparent` of `context` and `token` as its
/// bearer when there is one; whether the port answers or refuses it does not matter here.
async fn call(channel: &Channel, path: &str, context: &SpanContext, token: Option<&str>) {
    let traceparent = format!("00-{}-{}-01", context.trace_id(), context.span_id());
    let metadata = |request: &mut tonic::metadata::MetadataMap| {
        request.insert("traceparent", traceparent.parse().unwrap());
        if let Some(token) = token {
            request.insert("authorization", format!("Bearer {token}").parse().unwrap());
        }
    };
    if path == HEALTH {
        let mut request = tonic::Request::new(HealthCheckRequest::default());
        metadata(request.metadata_mut());
        let _ = HealthClient::new(channel.clone()).check(request).await;
    } else {
        let mut request = tonic::Request::new(GetBalanceRequest::default());
        metadata(request.metadata_mut());
        let _ = AccountsServiceClient::new(channel.clone())
            .get_balance(request)
            .await;
    }
}

/// The span the port exported for the call of `path` whose caller sent trace `context`,
/// continued or linked.
async fn span_of(exporter: &InMemorySpanExporter, path: &str, context: &SpanContext) -> SpanData {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let found = exporter
            .get_finished_spans()
            .unwrap()
            .into_iter()
            .find(|span| {
                span.name == path
                    && (span.span_context.trace_id() == context.trace_id()
                        || span
                            .links
                            .iter()
                            .any(|link| link.span_context.trace_id() == context.trace_id()))
            });
        if let Some(span) = found {
            return span;
        }
        assert!(
            Instant::now() < deadline,
            "no span of {path} for {context:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn continues(span: &SpanData, context: &SpanContext) -> bool {
    span.span_context.trace_id() == context.trace_id() && span.parent_span_id == context.span_id()
}

fn only_links(span: &SpanData, context: &SpanContext) -> bool {
    span.span_context.trace_id() != context.trace_id()
        && span.parent_span_id == SpanId::INVALID
        && span.links.len() == 1
        && span.links[0].span_context.span_id() == context.span_id()
}

#[test]
fn a_port_continues_the_trace_of_a_caller_holding_a_token_auth_signed_and_only_links_anyone_elses()
{
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    // One thread: the port's tasks run where the test's subscriber is the default.
    let _default =
        tracing::subscriber::set_default(test_subscriber(&provider, Captured::default()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let keys = TestKeys::new();
        let gate = Policy::new(Arc::new(keys.verifier(None)));
        let (port, _stop) = serve_port(&Default::default(), |routes| routes, gate).await;
        let channel = Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
            .unwrap()
            .connect()
            .await
            .unwrap();

        let member = keys.member_token("m1", "s1", 60);
        let service = keys.service_token("pos", 60);
        let expired = keys.service_token("pos", -60);
        let forged = TestKeys::new().service_token("pos", 60);
        // The port fetches auth's keys at its first verified call; a caller is known only
        // from then on (until then its trace is linked, as `signed_and_valid_now` says).
        call(&channel, BALANCE, &sent(0), Some(&member)).await;

        let cases: [(&str, &str, Option<&str>, bool); 7] = [
            (HEALTH, "a service token", Some(&service), true),
            (BALANCE, "the member's token", Some(&member), true),
            (HEALTH, "a member token", Some(&member), true),
            (HEALTH, "no token", None, false),
            (
                HEALTH,
                "a token signed with another key",
                Some(&forged),
                false,
            ),
            (HEALTH, "an expired token", Some(&expired), false),
            (BALANCE, "no token (refused)", None, false),
        ];
        for (n, (path, holding, token, ours)) in (1..).zip(cases) {
            let context = sent(n);
            call(&channel, path, &context, token).await;
            let span = span_of(&exporter, path, &context).await;
            let seen = format!(
                "{path} with {holding}: trace {}, parent {}, {} link(s)",
                span.span_context.trace_id(),
                span.parent_span_id,
                span.links.len()
            );
            if ours {
                assert!(continues(&span, &context), "not continued: {seen}");
            } else {
                assert!(only_links(&span, &context), "not only linked: {seen}");
            }
        }
    });
}
