//! The member-facing port against connections that send nothing, send their body a byte at a
//! time, send an oversized head, or come too many from one address (`platform/src/listener.rs`,
//! `platform/src/listener/body_deadline.rs`): each is closed, refused or held back, and members
//! keep being answered.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::*;

fn address(gw: &TestGateway) -> String {
    gw.base.trim_start_matches("http://").to_owned()
}

/// One whole answer read off `stream`: its head, then `content-length` bytes of body.
async fn read_answer(stream: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    let mut buffer = [0_u8; 4096];
    loop {
        let read = stream.read(&mut buffer).await.unwrap();
        assert!(read > 0, "the connection closed mid-answer");
        answer.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&answer).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .map_or(0, |n| n.trim().parse().unwrap());
            if body.len() >= length {
                return text;
            }
        }
    }
}

async fn health(gw: &TestGateway) -> reqwest::Result<reqwest::StatusCode> {
    // A new connection each time: a kept-alive one would hide a refused connect.
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap()
        .get(format!("{}/api/health", gw.base))
        .send()
        .await
        .map(|r| r.status())
}

#[tokio::test]
async fn a_connection_that_never_finishes_its_request_head_is_closed_after_the_header_timeout() {
    let gw = gateway_with(|s| s.connections.header_timeout_ms = 500).await;
    let mut silent = TcpStream::connect(address(&gw)).await.unwrap();
    let mut slow = TcpStream::connect(address(&gw)).await.unwrap();
    slow.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let opened = Instant::now();
    for stream in [&mut silent, &mut slow] {
        let closed = closed_within(stream, Duration::from_secs(5)).await;
        assert!(closed.is_some(), "the server closed the stalled connection");
        let after = opened.elapsed();
        assert!(
            after >= Duration::from_millis(400),
            "not before the timeout: {after:?}"
        );
    }
}

#[tokio::test]
async fn a_kept_alive_connection_left_idle_is_closed_and_one_in_use_is_served() {
    let gw = gateway_with(|s| s.connections.header_timeout_ms = 800).await;
    let mut kept = TcpStream::connect(address(&gw)).await.unwrap();
    // Requests closer together than the timeout keep the connection.
    for _ in 0..3 {
        kept.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let answer = read_answer(&mut kept).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let closed = closed_within(&mut kept, Duration::from_secs(5)).await;
    assert!(closed.is_some(), "an idle kept-alive connection is closed");
}

#[tokio::test]
async fn one_address_holds_at_most_its_cap_of_connections_and_is_served_again_once_one_closes() {
    let gw = gateway_with(|s| s.connections.per_client = 2).await;
    let first = TcpStream::connect(address(&gw)).await.unwrap();
    let _second = TcpStream::connect(address(&gw)).await.unwrap();
    let mut third = TcpStream::connect(address(&gw)).await.unwrap();
    assert!(
        closed_within(&mut third, Duration::from_secs(2))
            .await
            .is_some(),
        "a third connection from the same address is closed at once"
    );
    assert!(
        health(&gw).await.is_err(),
        "nor is a request on a new one served"
    );
    drop(first);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(health(&gw).await.unwrap(), reqwest::StatusCode::OK);
}

#[tokio::test]
async fn a_trusted_proxys_connections_are_not_capped_per_address() {
    let gw = gateway_with(|s| {
        s.connections.per_client = 1;
        s.trusted_proxies = vec!["127.0.0.1".into()];
    })
    .await;
    let _held = TcpStream::connect(address(&gw)).await.unwrap();
    let _also = TcpStream::connect(address(&gw)).await.unwrap();
    assert_eq!(health(&gw).await.unwrap(), reqwest::StatusCode::OK);
}

#[tokio::test]
async fn beyond_the_total_cap_a_connection_waits_until_one_closes_and_is_then_served() {
    let gw = gateway_with(|s| {
        s.connections.max = 2;
        s.connections.per_client = 0;
    })
    .await;
    let first = TcpStream::connect(address(&gw)).await.unwrap();
    let _second = TcpStream::connect(address(&gw)).await.unwrap();
    // Connected by the kernel, never taken by the gateway: no answer.
    let client = reqwest::Client::new();
    let waiting = tokio::spawn({
        let url = format!("{}/api/health", gw.base);
        async move { client.get(url).send().await.map(|r| r.status()) }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!waiting.is_finished(), "the third connection waits");
    drop(first);
    let status = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("served once a connection closed")
        .unwrap()
        .unwrap();
    assert_eq!(status, reqwest::StatusCode::OK);
}

#[tokio::test]
async fn a_client_that_stops_reading_its_answers_is_closed_after_the_write_timeout() {
    let gw = gateway_with(|s| s.connections.write_timeout_ms = 500).await;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    // A small window, so the answers fill the socket's buffers long before they are all sent.
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(address(&gw).parse().unwrap()).await.unwrap();
    // Many asks for a large answer (the API document), pipelined, and then nothing read.
    let ask = b"GET /api/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n";
    let asks = 200;
    stream.write_all(&ask.repeat(asks)).await.unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    // Reading now gets what the buffers held, then the end: the server gave up writing.
    let mut received = Vec::new();
    let read =
        tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut received)).await;
    assert!(
        read.is_ok(),
        "the connection is still open after {} bytes",
        received.len()
    );
    let answers = String::from_utf8_lossy(&received)
        .matches("HTTP/1.1 200")
        .count();
    assert!(
        answers < asks,
        "only part of the answers was written: {answers}"
    );
}

#[tokio::test]
async fn a_body_trickled_past_its_deadline_is_answered_408_in_spanish_and_the_connection_closed() {
    let gw = gateway_with(|s| s.connections.body_timeout_ms = 600).await;
    let stream = TcpStream::connect(address(&gw)).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    writer
        .write_all(
            b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              x-miclub-csrf: 1\r\nrecaptcha-token: t\r\nContent-Length: 200\r\n\r\n{",
        )
        .await
        .unwrap();
    let opened = Instant::now();
    // A byte every 100 ms: each piece arrives well inside the deadline, the whole never does.
    let trickle = tokio::spawn(async move {
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if writer.write_all(b" ").await.is_err() {
                break;
            }
        }
    });
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), reader.read_to_end(&mut answer)).await;
    trickle.abort();
    assert!(read.is_ok(), "the connection was closed after the answer");
    let after = opened.elapsed();
    assert!(
        after >= Duration::from_millis(500),
        "not before the deadline: {after:?}"
    );
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let body = answer.split_once("\r\n\r\n").unwrap().1;
    let json: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(json["code"], "ERR_REQUEST_TIMEOUT");
    assert_eq!(
        json["message"],
        "La solicitud tardó demasiado en llegar. Revisa tu conexión e intenta de nuevo."
    );
}

/// Everything `stream` receives until the server closes it (or resets it), at most `limit`.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> String {
    let mut received = Vec::new();
    let mut buffer = [0_u8; 4096];
    let deadline = Instant::now() + limit;
    while let Ok(Ok(read @ 1..)) =
        tokio::time::timeout_at(deadline.into(), stream.read(&mut buffer)).await
    {
        received.extend_from_slice(&buffer[..read]);
    }
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test]
async fn a_request_head_past_its_limit_is_refused_and_a_browsers_full_head_is_served() {
    let gw = gateway().await;
    // A member's browser: every cookie the portal sets, a site's analytics cookies, a long
    // user agent; about 7 KiB, well within the 32 KiB default.
    let cookies = format!(
        "mc_at={}; mc_rt={}; mc_csrf={}; session-fresh=1; _ga={}",
        "a".repeat(600),
        "r".repeat(200),
        "c".repeat(64),
        "g".repeat(5_000)
    );
    let mut browser = TcpStream::connect(address(&gw)).await.unwrap();
    let head = format!(
        "GET /api/health HTTP/1.1\r\nHost: x\r\nUser-Agent: Mozilla/5.0 {}\r\nCookie: {cookies}\r\n\r\n",
        "u".repeat(500)
    );
    browser.write_all(head.as_bytes()).await.unwrap();
    let answer = read_answer(&mut browser).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // A 40 KiB header: refused before any handler runs, and the connection closed (the refusal
    // may be cut short by a reset, since the server does not read the rest of the head).
    let mut oversized = TcpStream::connect(address(&gw)).await.unwrap();
    let head = format!(
        "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Padding: {}\r\n\r\n",
        "p".repeat(40 * 1024)
    );
    let _ = oversized.write_all(head.as_bytes()).await;
    let received = read_until_closed(&mut oversized, Duration::from_secs(5)).await;
    assert!(
        received.is_empty() || received.starts_with("HTTP/1.1 431"),
        "{received}"
    );
    assert!(!received.contains("200 OK"), "{received}");
    assert_eq!(health(&gw).await.unwrap(), 200, "others are still served");
}
