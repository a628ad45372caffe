//! One trace per member request across the processes (issue #17, item 7): the six processes
//! export their spans over OTLP to a collector stand-in in this test (the manifests'
//! `OTEL_EXPORTER_OTLP_ENDPOINT` pointed at it), and one `GET /api/balance` must come back as
//! one trace: the gateway's root span carrying the request id, and accounts' spans under it.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use miclub_distributed::{Options, Topology};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;

#[macro_use]
mod support;

use support::{log_in, test_options};

/// A span as received, with the `service.name` of the process that sent it.
#[derive(Debug, Clone)]
struct Received {
    service: String,
    span: Span,
}

/// The collector stand-in: keeps every exported span.
#[derive(Debug, Clone, Default)]
struct Collector(Arc<Mutex<Vec<Received>>>);

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut kept = self.0.lock().unwrap();
        for resource_spans in request.into_inner().resource_spans {
            let service = resource_spans
                .resource
                .as_ref()
                .and_then(|r| string_attribute(&r.attributes, "service.name"))
                .unwrap_or_default();
            for scope in resource_spans.scope_spans {
                for span in scope.spans {
                    kept.push(Received {
                        service: service.clone(),
                        span,
                    });
                }
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

fn string_attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
        .and_then(|value| match value {
            AnyValue::StringValue(text) => Some(text.clone()),
            _ => None,
        })
}

impl Collector {
    async fn start() -> (Self, SocketAddr) {
        let collector = Collector::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let service = TraceServiceServer::new(collector.clone());
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
        );
        (collector, address)
    }

    fn spans(&self) -> Vec<Received> {
        self.0.lock().unwrap().clone()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn one_balance_request_is_one_trace_from_the_gateway_through_accounts() {
    require!(true, true);
    let (collector, address) = Collector::start().await;
    let state = tempfile::tempdir().unwrap();
    let running = Topology::start(Options {
        otlp_endpoint: Some(format!("http://{address}")),
        ..test_options(state.path())
    })
    .await
    .unwrap();
    let client = reqwest::Client::new();
    let jar = log_in(&running, &client, "11.111.111-1", "ana@example.cl").await;

    let balance = client
        .get(format!("{}/api/balance", running.gateway_url))
        .header("cookie", jar.header())
        .send()
        .await
        .unwrap();
    assert_eq!(balance.status(), reqwest::StatusCode::OK);
    let request_id = balance.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();

    // Spans leave in batches: wait until accounts' part of the request has arrived.
    let deadline = Instant::now() + Duration::from_secs(30);
    let (root, trace) = loop {
        let spans = collector.spans();
        let roots: Vec<&Received> = spans
            .iter()
            .filter(|r| {
                string_attribute(&r.span.attributes, "request_id").as_deref()
                    == Some(request_id.as_str())
            })
            .collect();
        if let [root] = roots.as_slice() {
            let trace: Vec<Received> = spans
                .iter()
                .filter(|r| r.span.trace_id == root.span.trace_id)
                .cloned()
                .collect();
            if trace.iter().any(|r| r.service == "accounts") {
                break ((*root).clone(), trace);
            }
        }
        assert!(
            roots.len() <= 1,
            "the request id is on {} spans: {roots:#?}",
            roots.len()
        );
        assert!(
            Instant::now() < deadline,
            "no trace of request {request_id} reached accounts; the collector holds spans of {:?}",
            spans.iter().map(|r| &r.service).collect::<BTreeSet<_>>()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };

    assert_eq!(root.service, "gateway");
    assert_eq!(root.span.name, "GET /api/balance");
    assert!(
        root.span.parent_span_id.is_empty(),
        "the gateway's span is the root"
    );
    // Every span of the trace hangs from the root through its parents, across the processes.
    let by_id: BTreeMap<&[u8], &Received> = trace
        .iter()
        .map(|r| (r.span.span_id.as_slice(), r))
        .collect();
    for received in &trace {
        let mut current = received;
        let mut hops = 0;
        while !current.span.parent_span_id.is_empty() {
            current = by_id
                .get(current.span.parent_span_id.as_slice())
                .unwrap_or_else(|| {
                    panic!(
                        "{} span {:?} has a parent outside the trace",
                        received.service, received.span.name
                    )
                });
            hops += 1;
            assert!(hops < 64, "a cycle of parents");
        }
        assert_eq!(current.span.span_id, root.span.span_id);
    }
    let accounts: Vec<&str> = trace
        .iter()
        .filter(|r| r.service == "accounts")
        .map(|r| r.span.name.as_str())
        .collect();
    assert!(
        accounts.iter().any(|name| name.contains("GetBalance")),
        "accounts' spans in the trace: {accounts:?}"
    );
    running.stop().await.unwrap();
}
