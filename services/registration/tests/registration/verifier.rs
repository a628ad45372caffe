//! The remote identity verifier against a tiny in-test `IdentityVerifier` server: a valid
//! document passes, an invalid one is `ERR_IDENTITY_NOT_VERIFIED`, and a verifier that is down
//! or too slow is `ERR_UNAVAILABLE`. Also through the application configured with
//! `kind = "remote"`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use miclub_platform::error::{ErrorCode, ServiceError};
use miclub_platform::testing::TestEnv;
use miclub_proto::identity::v1 as idpb;
use miclub_proto::identity::v1::identity_verifier_server::{
    IdentityVerifier as VerifierService, IdentityVerifierServer,
};
use miclub_registration::config::VerifierKind;
use miclub_registration::domain::{ForeignKind, Identity, IdentityVerifier};
use miclub_registration::error::RegistrationError;
use miclub_registration::verifier::RemoteVerifier;
use tokio_stream::wrappers::TcpListenerStream;

use crate::support::{CARD, TestApp, body, chilean};

/// Answers VALID for RUT 12345678-5 with card 100123456 and foreign documents, INVALID for
/// anything else; waits `delay` first. Keeps the requests it got.
#[derive(Debug, Clone, Default)]
struct Registry {
    delay: Duration,
    seen: Arc<Mutex<Vec<idpb::VerifyDocumentRequest>>>,
}

#[tonic::async_trait]
impl VerifierService for Registry {
    async fn verify_document(
        &self,
        request: tonic::Request<idpb::VerifyDocumentRequest>,
    ) -> Result<tonic::Response<idpb::VerifyDocumentResponse>, tonic::Status> {
        tokio::time::sleep(self.delay).await;
        let request = request.into_inner();
        let valid = request.document_type != "RUT"
            || (request.document_number == "12345678-5" && request.card_serial == "100123456");
        self.seen.lock().unwrap().push(request);
        let verdict = if valid {
            idpb::Verdict::Valid
        } else {
            idpb::Verdict::Invalid
        };
        Ok(tonic::Response::new(idpb::VerifyDocumentResponse {
            verdict: verdict as i32,
        }))
    }
}

/// Serves `registry` on a free loopback port; its url.
async fn serve(registry: Registry) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(IdentityVerifierServer::new(registry))
            .serve_with_incoming(TcpListenerStream::new(listener)),
    );
    format!("http://127.0.0.1:{port}")
}

/// A loopback url where nothing listens.
async fn nowhere() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn the_remote_verifier_passes_a_valid_document_and_refuses_an_invalid_one() {
    let registry = Registry::default();
    let url = serve(registry.clone()).await;
    let verifier = RemoteVerifier::new(&url, Duration::from_secs(2)).unwrap();

    verifier
        .verify(&Identity::chilean("12.345.678-5", "100.123.456").unwrap())
        .await
        .unwrap();
    let refused = verifier
        .verify(&Identity::chilean("12.345.678-5", "A999999999").unwrap())
        .await
        .unwrap_err();
    assert!(matches!(refused, RegistrationError::IdentityNotVerified));
    assert_eq!(refused.code(), ErrorCode::IdentityNotVerified);
    verifier
        .verify(&Identity::foreign(Some(ForeignKind::Passport), "P1234567", "AR").unwrap())
        .await
        .unwrap();

    let seen = registry.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].document_type, "RUT");
    assert_eq!(seen[0].document_number, "12345678-5");
    assert_eq!(seen[0].card_serial, "100123456");
    assert_eq!(seen[0].country, "CL");
    assert_eq!(seen[2].document_type, "PASSPORT");
    assert_eq!(seen[2].document_number, "P1234567");
    assert_eq!(seen[2].card_serial, "");
    assert_eq!(seen[2].country, "AR");
}

#[tokio::test]
async fn an_unreachable_or_slow_verifier_is_unavailable() {
    let identity = Identity::chilean("12.345.678-5", "100123456").unwrap();
    let down = RemoteVerifier::new(&nowhere().await, Duration::from_millis(500)).unwrap();
    assert_eq!(
        down.verify(&identity).await.unwrap_err().code(),
        ErrorCode::Unavailable
    );

    let slow = serve(Registry {
        delay: Duration::from_secs(5),
        ..Registry::default()
    })
    .await;
    let slow = RemoteVerifier::new(&slow, Duration::from_millis(300)).unwrap();
    let started = std::time::Instant::now();
    assert_eq!(
        slow.verify(&identity).await.unwrap_err().code(),
        ErrorCode::Unavailable
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_1_with_a_remote_verifier_opens_no_flow_for_a_refused_document() {
    let url = serve(Registry::default()).await;
    let app = TestApp::spawn_with(TestEnv::sqlite_memory().await, |settings| {
        settings.verifier.kind = VerifierKind::Remote;
        settings.verifier.endpoint = url;
    })
    .await;
    let mut client = app.client().await;

    let status = client
        .start_registration(chilean("11.111.111-1", CARD, ""))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(body(&status).code, ErrorCode::IdentityNotVerified);
    assert_eq!(app.store.count().await.unwrap(), 0);

    client
        .start_registration(chilean("12.345.678-5", CARD, ""))
        .await
        .expect("a verified document opens a flow");
    assert_eq!(app.store.count().await.unwrap(), 1);
}
