//! Fault drill: Redis stops and comes back under the real portal. The ephemeral store the
//! gateway and auth share sits behind a [`FaultProxy`]; while it is cut, the login answers a
//! Spanish 503 within a few seconds while a member already logged in keeps seeing the balance
//! (the token check skips revocations it cannot read); once Redis is back the login works
//! again, with nothing restarted.

use miclub_platform::tokens::with_bearer;
use std::time::{Duration, Instant};

use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::testing::FaultProxy;

use super::*;

/// The password step of Ana, the demo member, from a fresh browser.
async fn password_step(portal: &Portal) -> reqwest::Response {
    portal
        .browser()
        .post(
            "/api/login",
            Some(json!({"user": "11.111.111-1", "password": DEMO_PASSWORD})),
        )
        .await
}

/// Ana's password step straight to auth's gRPC API, as the gateway makes it.
async fn auth_login(portal: &Portal, token: &str) -> Result<(), tonic::Status> {
    use miclub_proto::auth::v1::StartLoginRequest;
    use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
    let url = format!(
        "http://127.0.0.1:{}",
        portal.setting("APP_AUTH__SERVER__PORT")
    );
    let mut auth = AuthServiceClient::connect(url)
        .await
        .map_err(|err| tonic::Status::unknown(err.to_string()))?;
    auth.start_login(with_bearer(
        StartLoginRequest {
            user: "11.111.111-1".into(),
            password: DEMO_PASSWORD.into(),
            client_ip: "127.0.0.1".into(),
            user_agent: String::new(),
        },
        token,
    ))
    .await
    .map(|_| ())
}

/// A token of the `ops` client, granted `StartLogin` for the drill (the gateway's own secret
/// never leaves the standalone process).
async fn ops_token(portal: &Portal) -> String {
    use miclub_proto::auth::v1::IssueServiceTokenRequest;
    use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
    let url = format!(
        "http://127.0.0.1:{}",
        portal.setting("APP_AUTH__SERVER__PORT")
    );
    AuthServiceClient::connect(url)
        .await
        .unwrap()
        .issue_service_token(IssueServiceTokenRequest {
            client_id: "ops".into(),
            client_secret: OPS_SECRET.into(),
        })
        .await
        .expect("a token for ops")
        .into_inner()
        .access_token
}

const OPS_SECRET: &str = "ops-drill-secret-4c1d9e7b2a5f";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_redis_answers_login_with_a_spanish_503_keeps_sessions_and_recovers() {
    let redis = std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let (proxy, proxied) = FaultProxy::for_url(&redis).await.unwrap();
    // Keys of this run only, in the Redis other tests share.
    let prefix = format!(
        "flow-{}-{}:",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    assert!(
        !portal::distributed(),
        "this drill cuts the standalone process's own Redis connection: run it without \
         MICLUB_TOPOLOGY=distributed (scripts/test skips it there)"
    );
    let mut portal = Portal::start_with(|| {
        vec![
            ("APP_EPHEMERAL__REDIS_URL", proxied.clone()),
            ("APP_EPHEMERAL__KEY_PREFIX", prefix.clone()),
            // Auth's own gRPC port, to see its answer behind the gateway's.
            ("APP_AUTH__SERVER__PORT", free_port().to_string()),
            ("APP_STANDALONE__OPS_CLIENT_SECRET", OPS_SECRET.to_owned()),
            (
                "APP_AUTH__CLIENT_METHODS__OPS",
                "miclub.auth.v1.AuthService/StartLogin".to_owned(),
            ),
        ]
    })
    .await;
    let ops = ops_token(&portal).await;
    let member = portal.browser();
    member.log_in("11.111.111-1", "ana@example.cl").await;
    assert_eq!(member.get("/api/balance").await.status(), StatusCode::OK);

    // Redis goes away.
    proxy.cut();
    let started = Instant::now();
    let refused = password_step(&portal).await;
    let took = started.elapsed();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "ERR_UNAVAILABLE");
    assert_eq!(
        body["message"],
        "El servicio no está disponible en este momento. Intenta de nuevo más tarde."
    );
    assert!(
        took < Duration::from_secs(5),
        "login answered after {took:?}"
    );
    // Auth itself, asked past the gateway, refuses just as cleanly: no INTERNAL, no detail.
    let started = Instant::now();
    let status = auth_login(&portal, &ops).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
    assert_eq!(
        miclub_platform::error::ErrorBody::from_status(&status).code,
        miclub_platform::error::ErrorCode::Unavailable
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // A member already in keeps the session: the balance needs no Redis.
    let balance = member.get("/api/balance").await;
    assert_eq!(balance.status(), StatusCode::OK);
    assert_eq!(balance.json::<Value>().await.unwrap()["balance"], 12_345);

    // Redis comes back: the login recovers by itself, nothing restarted.
    proxy.restore();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = password_step(&portal).await.status();
        if status == StatusCode::OK {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "login still {status} after redis came back"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(auth_login(&portal, &ops).await.is_ok());
    assert!(
        matches!(portal.child.try_wait(), Ok(None)),
        "the portal kept running"
    );
}
