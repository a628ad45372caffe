//! Fault drills at the edge: one service stopped costs only its own routes (a Spanish 503), the
//! rest of the portal keeps answering, and the routes come back by themselves when the service
//! does, on the same address, with no gateway restart.

use super::*;

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
        gw.get("/api/promotions").send().await.unwrap().status(),
        StatusCode::OK
    );

    // Content goes away.
    stop.send(()).unwrap();
    content.await.unwrap();
    for path in ["/api/promotions", "/api/faqs", "/api/terms-and-conditions"] {
        let (status, body) = error_of(gw.get(path).send().await.unwrap()).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert_eq!(body["code"], "ERR_UNAVAILABLE");
        assert_eq!(
            body["message"],
            "El servicio no está disponible en este momento. Intenta de nuevo más tarde."
        );
    }
    // Everything else still answers: the balance (accounts), the login (auth), the context
    // (flags fall back to the last known).
    let balance = gw
        .get("/api/balance")
        .header("authorization", gw.bearer())
        .send()
        .await
        .unwrap();
    assert_eq!(balance.status(), StatusCode::OK);
    assert_eq!(gw.login().await.status(), StatusCode::OK);
    assert_eq!(
        gw.get("/api/context").send().await.unwrap().status(),
        StatusCode::OK
    );

    // Content comes back on the same address: the gateway reconnects by itself.
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    let (_keep, stopped) = tokio::sync::oneshot::channel();
    serve_content(gw.fakes.clone(), listener, stopped);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let status = gw.get("/api/promotions").send().await.unwrap().status();
        if status == StatusCode::OK {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "promotions still {status} after content came back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
