//! One member request is one trace: the standalone portal runs in this process with its spans
//! collected in memory, Ana logs in and reads her balance, and the gateway's HTTP span, the
//! accounts service's gRPC server span and the storage span under it share one trace id; the
//! call is also counted in the gateway's and accounts' metrics. The `traceparent` the browser
//! sends is only linked: a client does not choose the trace id of the portal's logs.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use miclub_platform::config::{Environment, Layered};
use miclub_platform::shutdown;
use miclub_platform::telemetry::{
    self, InMemorySpanExporter, SdkTracerProvider, SpanData, TelemetrySettings,
};
use reqwest::StatusCode;
use serde_json::json;

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn attribute(span: &SpanData, key: &str) -> String {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.as_str().into_owned())
        .unwrap_or_default()
}

/// True when `ancestor` is `span` or one of its parents among the collected spans.
fn descends_from(span: &SpanData, ancestor: &SpanData, spans: &[SpanData]) -> bool {
    let by_id: HashMap<_, _> = spans
        .iter()
        .map(|s| (s.span_context.span_id(), s))
        .collect();
    let mut current = Some(span);
    while let Some(here) = current {
        if here.span_context.span_id() == ancestor.span_context.span_id() {
            return true;
        }
        current = by_id.get(&here.parent_span_id).copied();
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_balance_request_is_one_trace_of_its_own_from_the_gateway_through_accounts_to_its_storage()
 {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let settings = TelemetrySettings {
        log_filter: "info,sqlx=warn,h2=warn,hyper=warn,tower=warn".into(),
        ..TelemetrySettings::default()
    };
    let _telemetry = telemetry::init_with_provider("miclub-test", &settings, provider).unwrap();

    let data = TempDir(std::env::temp_dir().join(format!(
        "miclub-telemetry-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )));
    let config = Layered::from_toml(
        Environment::Development,
        &format!(
            "[standalone]\ndata_dir = {:?}\n[gateway]\nport = 0\nweb_dir = {:?}\n",
            data.0.display().to_string(),
            data.0.join("no-web").display().to_string(),
        ),
    )
    .unwrap();
    let (stop, shutdown) = shutdown::channel();
    let running = miclub_standalone::start(&config, shutdown).await.unwrap();
    let base = format!("http://127.0.0.1:{}", running.gateway_port);
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();

    let password = browser
        .post(format!("{base}/api/login"))
        .header("x-miclub-csrf", "1")
        .header("recaptcha-token", "standalone")
        .json(&json!({"user": "11.111.111-1", "password": "MiClub2026!"}))
        .send()
        .await
        .unwrap();
    assert_eq!(password.status(), StatusCode::OK);
    let code = running
        .mailbox
        .list()
        .into_iter()
        .find(|mail| mail.to == "ana@example.cl")
        .and_then(|mail| mail.code)
        .expect("a code was mailed to Ana");
    let validated = browser
        .post(format!("{base}/api/validate-otp"))
        .header("x-miclub-csrf", "1")
        .json(&json!({"otp": code}))
        .send()
        .await
        .unwrap();
    assert_eq!(validated.status(), StatusCode::OK);

    // Only the balance request's spans from here on.
    exporter.reset();
    let sent_trace = "5eed0000000000000000000000c11e47";
    let sent_span = "00000000000b0a57";
    let balance = browser
        .get(format!("{base}/api/balance"))
        .header("traceparent", format!("00-{sent_trace}-{sent_span}-00"))
        .send()
        .await
        .unwrap();
    assert_eq!(balance.status(), StatusCode::OK);
    assert!(balance.text().await.unwrap().contains("12345"));

    // The gateway's span ends once the body is out; wait for it to be exported.
    let deadline = Instant::now() + Duration::from_secs(10);
    let (spans, http) = loop {
        let spans = exporter.get_finished_spans().unwrap();
        if let Some(http) = spans.iter().find(|s| s.name == "GET /api/balance").cloned() {
            break (spans, http);
        }
        assert!(
            Instant::now() < deadline,
            "no gateway span for the balance request: {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let trace_id = http.span_context.trace_id();
    // A root of its own, sampled though the client sent `sampled=0`, with the client's trace
    // kept as a link for whoever follows the browser's side.
    assert_ne!(trace_id.to_string(), sent_trace);
    assert_eq!(http.parent_span_id.to_string(), "0000000000000000");
    let linked: Vec<_> = http
        .links
        .iter()
        .map(|link| {
            (
                link.span_context.trace_id().to_string(),
                link.span_context.span_id().to_string(),
            )
        })
        .collect();
    assert_eq!(linked, [(sent_trace.to_owned(), sent_span.to_owned())]);
    let names = || spans.iter().map(|s| s.name.as_ref()).collect::<Vec<_>>();

    let grpc = spans
        .iter()
        .find(|s| s.name == "/miclub.accounts.v1.AccountsService/GetBalance")
        .unwrap_or_else(|| panic!("no accounts server span: {:?}", names()));
    assert_eq!(grpc.span_context.trace_id(), trace_id, "{:?}", names());
    assert_eq!(attribute(grpc, "rpc.system"), "grpc");
    assert!(
        descends_from(grpc, &http, &spans),
        "the accounts span is not under the gateway's"
    );

    let storage = spans
        .iter()
        .find(|s| {
            attribute(s, "db.operation") == "SELECT"
                && attribute(s, "db.statement").contains("club_accounts")
        })
        .unwrap_or_else(|| panic!("no balance query span: {:?}", names()));
    assert_eq!(storage.span_context.trace_id(), trace_id);
    assert_eq!(attribute(storage, "db.system"), "sqlite");
    assert!(
        descends_from(storage, grpc, &spans),
        "the balance query is not under the accounts span"
    );

    // The same call is counted for Prometheus at both ends.
    let metrics = telemetry::metrics_handle().render();
    assert!(
        metrics
            .lines()
            .any(|line| line.starts_with("grpc_server_calls_total{")
                && line.contains(r#"method="/miclub.accounts.v1.AccountsService/GetBalance""#)
                && line.contains(r#"code="Ok""#)),
        "{metrics}"
    );
    assert!(
        metrics
            .lines()
            .any(|line| line.starts_with("http_server_requests_total{")
                && line.contains(r#"route="/api/balance""#)
                && line.contains(r#"status="2xx""#)),
        "{metrics}"
    );

    stop.trigger();
    running.wait().await.unwrap();
}
