//! The identity verifiers: [`RulesVerifier`] (development, standalone: the rules already ran, so
//! every document is valid) and [`RemoteVerifier`], a client of the external
//! `miclub.identity.v1.IdentityVerifier` (`proto/identity/v1/verifier.proto`). The settings'
//! `verifier.kind` chooses one ([`from_settings`]).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use miclub_platform::grpc::{ClientSettings, TracedChannel};
use miclub_proto::identity::v1::identity_verifier_client::IdentityVerifierClient;
use miclub_proto::identity::v1::{Verdict, VerifyDocumentRequest};

use crate::config::{VerifierKind, VerifierSettings};
use crate::domain::{Identity, IdentityVerifier};
use crate::error::{RegistrationError, Result};

/// Accepts every document that passed the rules.
#[derive(Debug, Clone, Default)]
pub struct RulesVerifier;

#[async_trait]
impl IdentityVerifier for RulesVerifier {
    async fn verify(&self, _identity: &Identity) -> Result<()> {
        Ok(())
    }
}

/// Asks the external identity verifier. An INVALID verdict is `ERR_IDENTITY_NOT_VERIFIED`; no
/// answer within the timeout, a transport failure or an unknown verdict is `ERR_UNAVAILABLE`.
#[derive(Debug, Clone)]
pub struct RemoteVerifier {
    client: IdentityVerifierClient<TracedChannel>,
    timeout: Duration,
}

impl RemoteVerifier {
    /// A lazy client of `endpoint`; nothing connects until the first document.
    pub fn new(endpoint: &str, timeout: Duration) -> anyhow::Result<Self> {
        let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let channel = ClientSettings {
            url: endpoint.to_owned(),
            connect_timeout_ms: millis,
            request_timeout_ms: millis,
            // The verifier is outside the cluster: not a peer of the internal CA.
            ..ClientSettings::default()
        }
        .channel()?;
        Ok(Self {
            client: IdentityVerifierClient::new(channel),
            timeout,
        })
    }
}

#[async_trait]
impl IdentityVerifier for RemoteVerifier {
    async fn verify(&self, identity: &Identity) -> Result<()> {
        let request = VerifyDocumentRequest {
            document_type: identity.document_type().to_owned(),
            document_number: identity.document_number(),
            card_serial: identity.card_serial().unwrap_or_default().to_owned(),
            country: identity.country().to_owned(),
        };
        let mut client = self.client.clone();
        let answer = tokio::time::timeout(self.timeout, client.verify_document(request))
            .await
            .map_err(|_| RegistrationError::Unavailable("identity verifier timed out".into()))?
            .map_err(|status| {
                RegistrationError::Unavailable(format!(
                    "identity verifier: {:?} {}",
                    status.code(),
                    status.message()
                ))
            })?
            .into_inner();
        match answer.verdict() {
            Verdict::Valid => Ok(()),
            Verdict::Invalid => {
                tracing::info!(
                    document_type = identity.document_type(),
                    "identity verifier refused the document"
                );
                Err(RegistrationError::IdentityNotVerified)
            }
            Verdict::Unspecified => Err(RegistrationError::Unavailable(
                "identity verifier answered no verdict".into(),
            )),
        }
    }
}

/// The verifier the settings ask for.
pub fn from_settings(settings: &VerifierSettings) -> anyhow::Result<Arc<dyn IdentityVerifier>> {
    Ok(match settings.kind {
        VerifierKind::Rules => Arc::new(RulesVerifier),
        VerifierKind::Remote => Arc::new(RemoteVerifier::new(
            &settings.endpoint,
            Duration::from_millis(settings.timeout_ms),
        )?),
    })
}
