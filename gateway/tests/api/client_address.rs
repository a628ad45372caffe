//! The client address: the socket's peer unless that peer is a configured trusted proxy, and
//! then the rightmost `X-Forwarded-For` hop that is not a trusted proxy. A spoofed header from
//! anyone else changes nothing, so the per-address limits cannot be dodged with it.

use crate::support::*;

async fn recovery_from(gw: &TestGateway, forwarded_for: &str) -> String {
    let response = gw
        .post("/api/password-recovery")
        .header("recaptcha-token", "t")
        .header("x-forwarded-for", forwarded_for)
        .json(&json!({"user": "11.111.111-1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    gw.script().last_reset_start.clone().unwrap().client_ip
}

#[tokio::test]
async fn a_spoofed_forwarded_for_from_an_untrusted_peer_is_ignored() {
    let gw = gateway().await;
    assert_eq!(recovery_from(&gw, "203.0.113.9").await, "127.0.0.1");
    // A proxy list that does not include the peer changes nothing either.
    let gw = gateway_with(|s| s.trusted_proxies = vec!["10.0.0.0/8".into()]).await;
    assert_eq!(recovery_from(&gw, "203.0.113.9").await, "127.0.0.1");
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client() {
    let gw = gateway_with(|s| s.trusted_proxies = vec!["127.0.0.0/8".into(), "10.1.0.0/16".into()])
        .await;
    // The client wrote the first entry itself; the ingress appended what it saw, then an
    // internal proxy its own peer.
    assert_eq!(
        recovery_from(&gw, "198.51.100.1, 203.0.113.9, 10.1.2.3").await,
        "203.0.113.9"
    );
    assert_eq!(recovery_from(&gw, "203.0.113.10").await, "203.0.113.10");
}

#[tokio::test]
async fn rotating_a_spoofed_forwarded_for_does_not_escape_the_edge_limit() {
    let gw = gateway_with(|s| s.recovery_requests_per_minute = 2).await;
    for i in 0..2 {
        recovery_from(&gw, &format!("203.0.113.{i}")).await;
    }
    let response = gw
        .post("/api/password-recovery")
        .header("recaptcha-token", "t")
        .header("x-forwarded-for", "203.0.113.77")
        .json(&json!({"user": "11.111.111-1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn a_trusted_proxy_entry_that_is_not_an_address_refuses_to_start() {
    let keys = TestKeys::new();
    let settings = Settings {
        port: 0,
        trusted_proxies: vec!["10.0.0.0/40".into()],
        ..Settings::default()
    };
    let deps = Dependencies {
        environment: Environment::Development,
        store: Arc::new(MemoryStore::default()),
        key_source: keys.key_source(),
        mailbox: None,
    };
    assert!(Application::build(settings, deps).await.is_err());
}
