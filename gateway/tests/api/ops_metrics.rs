//! The ops listener: `GET /metrics` counts the gateway's requests for Prometheus, by route
//! template and status class, apart from the member-facing port, and keeps the ops port's own
//! connection limits (`miclub_platform::listener`).

use crate::support::*;

/// A gateway over the stand-ins with an ops listener on a free port; answers (api, ops) bases.
async fn gateway_with_ops() -> (String, String, ShutdownTrigger) {
    let (fakes, mut settings) = stand_ins().await;
    settings.ops_port = Some(0);
    let deps = Dependencies {
        environment: Environment::Development,
        store: Arc::new(MemoryStore::default()),
        key_source: fakes.keys.key_source(),
        mailbox: None,
    };
    let app = Application::build(settings, deps).await.unwrap();
    let api = format!("http://127.0.0.1:{}", app.port());
    let ops = format!("http://127.0.0.1:{}", app.ops_port().expect("an ops port"));
    let (trigger, shutdown) = shutdown::channel();
    tokio::spawn(app.run_until_stopped(shutdown));
    (api, ops, trigger)
}

async fn scrape(ops: &str) -> String {
    let response = reqwest::get(format!("{ops}/metrics")).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    response.text().await.unwrap()
}

/// The value of the series of `metric` whose labels include every one of `labels`; 0 when absent.
fn series(metrics: &str, metric: &str, labels: &[&str]) -> f64 {
    metrics
        .lines()
        .filter(|line| line.starts_with(&format!("{metric}{{")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .map(|line| line.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

#[tokio::test]
async fn the_ops_port_counts_requests_by_route_template_and_status_class() {
    let (api, ops, _stop) = gateway_with_ops().await;
    let balance = [
        r#"method="GET""#,
        r#"route="/api/balance""#,
        r#"status="4xx""#,
    ];
    let before = series(&scrape(&ops).await, "http_server_requests_total", &balance);

    // No session: the gateway refuses it itself, a 4xx.
    let refused = reqwest::get(format!("{api}/api/balance")).await.unwrap();
    assert!(refused.status().is_client_error());
    let stray = reqwest::get(format!("{api}/api/no-such-route/12345"))
        .await
        .unwrap();
    assert_eq!(stray.status(), StatusCode::NOT_FOUND);

    let metrics = scrape(&ops).await;
    let after = series(&metrics, "http_server_requests_total", &balance);
    assert!(after >= before + 1.0, "{before} then {after}:\n{metrics}");
    assert!(
        series(
            &metrics,
            "http_server_request_duration_seconds_count",
            &balance
        ) >= 1.0,
        "{metrics}"
    );
    // A stray path counts under the template that caught it (the api's catch-all); the raw
    // path never becomes a label.
    assert!(!metrics.contains("no-such-route"), "{metrics}");
    assert!(
        series(
            &metrics,
            "http_server_requests_total",
            &[r#"route="/api/{*rest}""#, r#"status="4xx""#]
        ) >= 1.0,
        "{metrics}"
    );
    // The member-facing port does not serve the metrics.
    let hidden = reqwest::get(format!("{api}/metrics")).await.unwrap();
    assert_eq!(hidden.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_ops_port_closes_a_ninth_connection_from_one_address_and_serves_again_once_one_closes()
{
    let (_api, ops, _stop) = gateway_with_ops().await;
    let address = ops.trim_start_matches("http://");
    // Eight connections that never send a byte: what a flood would hold.
    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(tokio::net::TcpStream::connect(address).await.unwrap());
    }
    let mut ninth = tokio::net::TcpStream::connect(address).await.unwrap();
    assert!(
        closed_within(&mut ninth, std::time::Duration::from_secs(2))
            .await
            .is_some(),
        "a ninth connection from the same address is closed at once"
    );
    drop(held.pop());
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let metrics = scrape(&ops).await;
    assert!(
        series(
            &metrics,
            "http_connections_refused_total",
            &[r#"listener="ops""#, r#"reason="per_client""#]
        ) >= 1.0,
        "{metrics}"
    );
}
