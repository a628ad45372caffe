//! Fault drills at the edge: one service stopped costs only its own routes (a Spanish 503), the
//! rest of the portal keeps answering, and the routes come back by themselves when the service
//! does, on the same address, with no gateway restart. A read that finds a service unavailable
//! is tried once more, a write never; a slow service costs a Spanish 503 after the call timeout,
//! and a slow content delays only the one request refreshing the runtime flags.

use crate::support::*;

/// Sends `request` every 100 ms until it answers 200, failing the test after 10 s: recovery
/// must come by itself, with nothing restarted.
async fn answers_ok_again<F, Fut>(what: &str, request: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = reqwest::Result<reqwest::Response>>,
{
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let status = request().await.unwrap().status();
        if status == StatusCode::OK {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: still {status}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Stand-in services behind a fault proxy: their script, the proxy, and the URL that reaches
/// them through it.
async fn fakes_behind_a_proxy() -> (
    Arc<Mutex<Script>>,
    miclub_platform::testing::FaultProxy,
    String,
) {
    let script: Arc<Mutex<Script>> = Arc::default();
    let upstream = spawn_fakes(Fakes {
        script: script.clone(),
        keys: TestKeys::new(),
    })
    .await;
    let proxy = miclub_platform::testing::FaultProxy::start(
        upstream.trim_start_matches("http://").to_owned(),
    )
    .await
    .unwrap();
    let url = format!("http://{}", proxy.address());
    (script, proxy, url)
}

/// A content stand-in served on `listener` until `stop` fires.
fn serve_content(
    fakes: Fakes,
    listener: tokio::net::TcpListener,
    stop: tokio::sync::oneshot::Receiver<()>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(ContentServiceServer::new(fakes))
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                async {
                    let _ = stop.await;
                },
            )
            .await
            .unwrap();
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_service_costs_only_its_routes_and_they_recover_when_it_returns() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let gw =
        gateway_with(|s| s.content = ClientSettings::for_url(format!("http://{address}"))).await;
    let (stop, stopped) = tokio::sync::oneshot::channel();
    let content = serve_content(gw.fakes.clone(), listener, stopped);
    assert_eq!(
        gw.anonymous_get("/api/promotions").await.status(),
        StatusCode::OK
    );

    // Content goes away.
    stop.send(()).unwrap();
    content.await.unwrap();
    for path in ["/api/promotions", "/api/faqs", "/api/terms-and-conditions"] {
        let (status, body) = error_of(gw.anonymous_get(path).await).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert_eq!(body["code"], "ERR_UNAVAILABLE");
        assert_eq!(
            body["message"],
            "El servicio no está disponible en este momento. Intenta de nuevo más tarde."
        );
    }
    // Everything else still answers: the balance (accounts), the login (auth), the context
    // (flags fall back to the last known).
    let balance = gw.member_get("/api/balance").await;
    assert_eq!(balance.status(), StatusCode::OK);
    assert_eq!(gw.login().await.status(), StatusCode::OK);
    assert_eq!(
        gw.anonymous_get("/api/context").await.status(),
        StatusCode::OK
    );

    // Content comes back on the same address: the gateway reconnects by itself.
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    let (_keep, stopped) = tokio::sync::oneshot::channel();
    serve_content(gw.fakes.clone(), listener, stopped);
    answers_ok_again("promotions after content came back", || {
        gw.get("/api/promotions").send()
    })
    .await;
}

/// The Spanish text of `ERR_UNAVAILABLE`, what a member reads whenever a service is down or slow.
const UNAVAILABLE_TEXT: &str =
    "El servicio no está disponible en este momento. Intenta de nuevo más tarde.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_that_finds_accounts_unavailable_once_is_retried_and_still_answers() {
    let gw = gateway().await;
    gw.script().balance_unavailable = 1;
    let balance = gw.member_get("/api/balance").await;
    assert_eq!(balance.status(), StatusCode::OK);
    assert_eq!(balance.json::<Value>().await.unwrap()["balance"], 12_345);
    assert_eq!(gw.script().balance_calls, 2, "one failure, one retry");

    // The retry is bounded: a service still down after it costs one more call, not a loop.
    gw.script().balance_unavailable = 5;
    let (status, body) = error_of(gw.member_get("/api/balance").await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["code"], "ERR_UNAVAILABLE");
    assert_eq!(body["message"], UNAVAILABLE_TEXT);
    assert_eq!(gw.script().balance_calls, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_refused_for_a_business_reason_is_not_retried() {
    let gw = gateway().await;
    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::NoClubAccount)));
    let response = gw.member_get("/api/balance").await;
    assert_eq!(response.status(), StatusCode::NOT_ACCEPTABLE);
    assert_eq!(gw.script().balance_calls, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_finds_accounts_unavailable_is_sent_exactly_once() {
    let gw = gateway().await;
    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::Unavailable)));
    let (status, body) = error_answer(gw.member_put("/api/profile").json(&json!({
        "email": "ana@example.cl", "name": "Ana", "last_name": "González",
        "mother_surname": "Pérez", "phone_number": "+56911111111", "gender_id": 1,
        "birth_date": "1988-03-14"
    })))
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["code"], "ERR_UNAVAILABLE");
    assert_eq!(gw.script().profile_updates, 1, "a write is never retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_service_becomes_a_spanish_503_within_the_call_timeout_and_recovers() {
    // Accounts behind a proxy that can hold every byte back.
    let (_, proxy, url) = fakes_behind_a_proxy().await;
    let timeout_ms = 500;
    let gw = gateway_with(|s| {
        s.accounts = ClientSettings {
            request_timeout_ms: timeout_ms,
            ..ClientSettings::for_url(url)
        }
    })
    .await;
    let balance = || {
        gw.get("/api/balance")
            .header("authorization", gw.bearer())
            .send()
    };
    assert_eq!(balance().await.unwrap().status(), StatusCode::OK);

    proxy.set_delay(std::time::Duration::from_secs(3));
    let started = std::time::Instant::now();
    let (status, body) = error_of(balance().await.unwrap()).await;
    let took = started.elapsed();
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["code"], "ERR_UNAVAILABLE");
    assert_eq!(body["message"], UNAVAILABLE_TEXT);
    // About the timeout, not the service's 3 s (and a timeout is not retried into 2 × 500 ms
    // plus a second slow answer).
    assert!(
        took < std::time::Duration::from_millis(2_500),
        "answered after {took:?}"
    );

    proxy.set_delay(std::time::Duration::ZERO);
    answers_ok_again("balance after accounts sped up", balance).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_content_holds_up_only_the_request_asking_it_for_the_flags() {
    // Content behind a proxy that can hold every byte back; flags refreshed on every request.
    let (script, proxy, url) = fakes_behind_a_proxy().await;
    let gw = gateway_with(|s| {
        s.flags_cache_secs = 0;
        s.content = ClientSettings {
            request_timeout_ms: 5_000,
            ..ClientSettings::for_url(url)
        }
    })
    .await;
    script.lock().unwrap().flags = Some(content::Flags {
        portal_enabled: false,
        change_password_enable: false,
        is_login_maintenance: false,
    });
    let context = || async {
        let started = std::time::Instant::now();
        let body: Value = gw.anonymous_get("/api/context").await.json().await.unwrap();
        (body, started.elapsed())
    };
    let (first, _) = context().await;
    assert_eq!(first["portalEnabled"], false, "content's flags");

    proxy.set_delay(std::time::Duration::from_millis(1_500));
    let (asking, others) = tokio::join!(context(), async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        context().await
    });
    assert!(
        asking.1 >= std::time::Duration::from_millis(1_000),
        "the first request did not wait for content ({:?})",
        asking.1
    );
    assert_eq!(others.0["portalEnabled"], false, "the last known flags");
    assert!(
        others.1 < std::time::Duration::from_millis(500),
        "a request queued behind the slow refresh ({:?})",
        others.1
    );
}
