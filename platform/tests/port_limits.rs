//! What one caller can make a gRPC port hold, against a real port behind a real access policy:
//! no more calls open at once on a connection than the port allows, no more than
//! `OPEN_CALL_BYTES` sent by a call anyone may make, no more than `OPEN_CALLS_PER_CLIENT` such
//! calls open at once from one address, and no call kept open past the port's call timeout by a
//! request that never ends. Without these, one connection with no token opened
//! calls to health without end, each sending most of tonic's 4 MiB and never finishing: 2,000
//! of them held 750 MiB of the port's memory until the connection's maximum age.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use miclub_platform::access::{OPEN_CALL_BYTES, OPEN_CALLS_PER_CLIENT, Policy};
use miclub_platform::grpc::{self, ServerSettings};
use miclub_platform::shutdown::ShutdownTrigger;
use miclub_platform::testing::{TestKeys, health_status, serve_port};

const HEALTH: &str = "/grpc.health.v1.Health/Check";

/// A port (health only) with `settings`, every call passing a [`Policy`] first.
async fn serve(settings: ServerSettings) -> (u16, ShutdownTrigger) {
    let gate = Policy::new(Arc::new(TestKeys::new().verifier(None)));
    serve_port(&settings, |routes| routes, gate).await
}

/// An HTTP/2 connection to `port` made by hand, so a test can leave a call's request unfinished
/// as an attacker would; returned once the port's settings have arrived.
async fn raw_connection(port: u16) -> h2::client::SendRequest<Bytes> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let client = client.ready().await.unwrap();
    // The server's SETTINGS come after the handshake; until then the limit reads as none.
    for _ in 0..500 {
        if client.current_max_send_streams() != usize::MAX {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    client
}

/// Starts a health check whose message says `declared` bytes and sends `sent` of them; the
/// request is never finished.
fn unfinished_call(
    client: &mut h2::client::SendRequest<Bytes>,
    port: u16,
    declared: u32,
    sent: usize,
) -> (h2::client::ResponseFuture, h2::SendStream<Bytes>) {
    let request = http::Request::post(format!("http://127.0.0.1:{port}{HEALTH}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
    let (response, mut body) = client.send_request(request, false).unwrap();
    let mut frame = vec![0u8; 5 + sent];
    frame[1..5].copy_from_slice(&declared.to_be_bytes());
    body.send_data(Bytes::from(frame), false).unwrap();
    (response, body)
}

/// The gRPC status of an answer: its `grpc-status` header (a trailers-only answer) or trailer.
async fn grpc_status(response: h2::client::ResponseFuture) -> String {
    let response = tokio::time::timeout(Duration::from_secs(10), response)
        .await
        .expect("answered")
        .unwrap();
    if let Some(status) = response.headers().get("grpc-status") {
        return status.to_str().unwrap().to_owned();
    }
    let mut body = response.into_body();
    while body.data().await.is_some() {}
    let trailers = body.trailers().await.unwrap().expect("trailers");
    trailers["grpc-status"].to_str().unwrap().to_owned()
}

async fn health_check(port: u16, service: String) -> Result<i32, tonic::Status> {
    let client = grpc::ClientSettings::for_url(format!("http://127.0.0.1:{port}"));
    health_status(&client, &service).await
}

#[tokio::test]
async fn a_connection_is_told_how_many_calls_it_may_have_open_and_others_are_served_while_it_holds_them()
 {
    let (port, _stop) = serve(ServerSettings {
        max_concurrent_streams: 4,
        ..ServerSettings::default()
    })
    .await;
    let mut client = raw_connection(port).await;
    // Told to the caller in the connection's SETTINGS; h2 refuses a stream past it
    // (REFUSED_STREAM) should a caller not listen.
    assert_eq!(client.current_max_send_streams(), 4, "the port's limit");
    let _held: Vec<_> = (0..4)
        .map(|_| unfinished_call(&mut client, port, 10, 3))
        .collect();
    assert_eq!(health_check(port, String::new()).await.unwrap(), 1);
}

#[tokio::test]
async fn a_call_anyone_may_make_sends_at_most_its_limit_and_is_refused_at_once_past_it() {
    let (port, _stop) = serve(ServerSettings::default()).await;
    // Health answers NOT_FOUND for a service it does not know: the call ran.
    let within = health_check(port, "s".repeat(OPEN_CALL_BYTES - 100)).await;
    assert_eq!(within.unwrap_err().code(), tonic::Code::NotFound);
    let past = health_check(port, "s".repeat(OPEN_CALL_BYTES + 1)).await;
    assert_eq!(past.unwrap_err().code(), tonic::Code::ResourceExhausted);

    // An attacker's call that says 4 MB and sends 64 KiB of it is refused, not held.
    let mut client = raw_connection(port).await;
    let (response, _body) = unfinished_call(&mut client, port, 4_000_000, 64 * 1024);
    assert_eq!(grpc_status(response).await, "8", "RESOURCE_EXHAUSTED");
}

#[tokio::test]
async fn a_call_whose_request_never_ends_is_answered_at_the_call_timeout() {
    let (port, _stop) = serve(ServerSettings {
        call_timeout_ms: 300,
        ..ServerSettings::default()
    })
    .await;
    let mut client = raw_connection(port).await;
    let (response, _body) = unfinished_call(&mut client, port, 10, 3);
    assert_eq!(grpc_status(response).await, "1", "CANCELLED");
    assert_eq!(health_check(port, String::new()).await.unwrap(), 1);
}

#[tokio::test]
async fn an_address_may_have_only_its_share_of_calls_anyone_may_make_open_at_once() {
    let (port, _stop) = serve(ServerSettings::default()).await;
    let mut client = raw_connection(port).await;
    let held: Vec<_> = (0..OPEN_CALLS_PER_CLIENT)
        .map(|_| unfinished_call(&mut client, port, 10, 3))
        .collect();
    // Held, as the port has them open: from another connection of the same address, one more
    // is refused at once.
    let mut refused = None;
    for _ in 0..100 {
        match health_check(port, String::new()).await {
            Err(status) if status.code() == tonic::Code::ResourceExhausted => {
                refused = Some(status);
                break;
            }
            // The held calls may not all have reached the gate yet.
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert!(
        refused.is_some(),
        "a call past the address's share was served"
    );

    // Once the caller gives its calls up, the address is served again.
    drop(held);
    let mut answered = None;
    for _ in 0..250 {
        match health_check(port, String::new()).await {
            Ok(status) => {
                answered = Some(status);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert_eq!(answered, Some(1), "SERVING once the held calls ended");
}
