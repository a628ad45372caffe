//! Codes and tokens as auth hands them out, over gRPC against the real `Application`: one-time
//! codes stored keyed with the server secret, member and service tokens of different audiences
//! with the `at+jwt` type, and `IssueServiceToken` throttled per client id. Every scenario runs
//! on PostgreSQL + Redis and on SQLite + memory.

mod support;

use miclub_platform::backend_tests;
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::error::ErrorCode;
use miclub_platform::testing::TestEnv;
use miclub_platform::tokens::{TokenKind, VerifyError};
use secrecy::SecretString;
use sha2::{Digest, Sha256};
use support::{
    OTHER_CLIENT, OTHER_SECRET, SERVICE_CLIENT, SERVICE_SECRET, ana, spawn_app, spawn_app_with,
};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn a_stolen_login_challenge_does_not_give_its_code_away(env: TestEnv) {
    let app = spawn_app_with(env, |s| {
        s.code_secret = Some(SecretString::from("a-code-secret-of-at-least-32-bytes"));
    })
    .await;
    let started = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap();
    let code = app.last_code_for(ana().email);
    // What someone holding a copy of the ephemeral store reads.
    let stored = app
        .env
        .store
        .get(&format!("otp:challenge:{}", started.challenge_id))
        .await
        .unwrap()
        .expect("the pending challenge");
    assert!(!stored.contains(&code), "{stored}");
    let digest = serde_json::from_str::<serde_json::Value>(&stored).unwrap()["code_digest"]
        .as_str()
        .expect("a code digest")
        .to_owned();
    // Every 6-digit code hashed as before (SHA-256 of id ':' code): none matches.
    let found = (0..1_000_000u32).find(|n| {
        let plain = Sha256::digest(format!("{}:{n:06}", started.challenge_id).as_bytes());
        hex(&plain) == digest
    });
    assert_eq!(found, None);
    // The code still opens the session it was sent for.
    assert!(app.verify(&started.challenge_id, &code).await.is_ok());
}

async fn member_and_service_tokens_carry_the_at_jwt_type_and_their_own_audience(env: TestEnv) {
    let app = spawn_app(env).await;
    let member = app.login(ana()).await.session.unwrap().access_token;
    let service = app.service_token().await;
    for token in [&member, &service] {
        let header = jsonwebtoken::decode_header(token).unwrap();
        assert_eq!(header.typ.as_deref(), Some("at+jwt"));
    }
    let verifier = app.verifier().await;
    let claims = verifier.verify(&member).await.unwrap();
    assert_eq!(
        (claims.kind, claims.aud.as_str()),
        (TokenKind::Member, "miclub")
    );
    assert_eq!(claims.nbf, claims.iat);
    let claims = verifier.verify_service(&service).await.unwrap();
    assert_eq!(
        (claims.kind, claims.aud.as_str()),
        (TokenKind::Service, "miclub-internal")
    );
    assert_eq!(claims.nbf, claims.iat);
    // Each refused where the other kind is required.
    assert_eq!(
        verifier.verify_service(&member).await.unwrap_err(),
        VerifyError::WrongKind
    );
    assert_eq!(
        verifier.verify(&service).await.unwrap_err(),
        VerifyError::WrongKind
    );
    // Auth itself: a service token is no member's session to change a password with.
    let refused = app
        .change_password(&service, DEMO_PASSWORD, "Vicuña en el Altiplano")
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
}

async fn a_flood_of_wrong_secrets_for_one_client_does_not_stop_another(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.service_token_attempts = 5).await;
    // Someone guessing the point-of-sale client's secret: five wrong answers, then refused
    // before the secret is even looked at, the right one included.
    for _ in 0..5 {
        let refused = app
            .issue_service_token(OTHER_CLIENT, "guess")
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidCredentials);
    }
    for secret in ["guess", OTHER_SECRET] {
        let refused = app
            .issue_service_token(OTHER_CLIENT, secret)
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::TooManyAttempts);
    }
    let status = app
        .client()
        .issue_service_token(miclub_proto::auth::v1::IssueServiceTokenRequest {
            client_id: OTHER_CLIENT.into(),
            client_secret: OTHER_SECRET.into(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted);
    // Invented client ids share one budget of their own.
    for n in 0..10 {
        let _ = app
            .issue_service_token(&format!("nobody-{n}"), "guess")
            .await;
    }
    // Accounts is untouched by both floods.
    assert!(
        app.issue_service_token(SERVICE_CLIENT, SERVICE_SECRET)
            .await
            .is_ok()
    );
}

async fn right_secrets_count_toward_a_clients_budget_too(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.service_token_attempts = 3).await;
    for _ in 0..3 {
        assert!(
            app.issue_service_token(SERVICE_CLIENT, SERVICE_SECRET)
                .await
                .is_ok()
        );
    }
    let refused = app
        .issue_service_token(SERVICE_CLIENT, SERVICE_SECRET)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::TooManyAttempts);
    assert!(
        app.issue_service_token(OTHER_CLIENT, OTHER_SECRET)
            .await
            .is_ok()
    );
}

async fn a_flood_from_one_address_does_not_lock_the_real_client_out_from_another(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.service_token_attempts = 3).await;
    // Someone on the internal network floods the accounts client id with wrong secrets from
    // 127.0.0.1 until it is refused there...
    for _ in 0..4 {
        let _ = app.issue_service_token(SERVICE_CLIENT, "guess").await;
    }
    let refused = app
        .issue_service_token(SERVICE_CLIENT, SERVICE_SECRET)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::TooManyAttempts);
    // ...while the real accounts, calling from its own address, still gets its token.
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{}", app.port))
        .unwrap()
        .local_address(Some("127.0.0.2".parse().unwrap()))
        .connect()
        .await
        .unwrap();
    let issued = miclub_proto::auth::v1::auth_service_client::AuthServiceClient::new(channel)
        .issue_service_token(miclub_proto::auth::v1::IssueServiceTokenRequest {
            client_id: SERVICE_CLIENT.into(),
            client_secret: SERVICE_SECRET.into(),
        })
        .await;
    assert!(issued.is_ok(), "{issued:?}");
}

backend_tests!(
    a_flood_from_one_address_does_not_lock_the_real_client_out_from_another,
    a_stolen_login_challenge_does_not_give_its_code_away,
    member_and_service_tokens_carry_the_at_jwt_type_and_their_own_audience,
    a_flood_of_wrong_secrets_for_one_client_does_not_stop_another,
    right_secrets_count_toward_a_clients_budget_too,
);
