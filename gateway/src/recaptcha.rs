//! reCAPTCHA check of the login's password step, pluggable: Google's siteverify in production,
//! a pass-through in development and standalone (with a warning at start-up).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use miclub_platform::error::ErrorCode;
use secrecy::ExposeSecret;
use serde::Deserialize;

use crate::config::{RecaptchaKind, RecaptchaSettings};
use crate::error::ApiError;

#[async_trait]
pub trait RecaptchaVerifier: Send + Sync + std::fmt::Debug + 'static {
    /// Ok when the token proves a human; `ERR_RECAPTCHA` otherwise.
    async fn verify(&self, token: &str, client_ip: &str) -> Result<(), ApiError>;
}

pub type SharedRecaptcha = Arc<dyn RecaptchaVerifier>;

/// Accepts any non-empty token.
#[derive(Debug, Default)]
pub struct PassThrough;

#[async_trait]
impl RecaptchaVerifier for PassThrough {
    async fn verify(&self, token: &str, _client_ip: &str) -> Result<(), ApiError> {
        if token.trim().is_empty() {
            return Err(
                ApiError::new(ErrorCode::Recaptcha).with_cause("missing recaptcha-token header")
            );
        }
        Ok(())
    }
}

/// Google's siteverify endpoint.
#[derive(Debug)]
pub struct Google {
    client: reqwest::Client,
    settings: RecaptchaSettings,
}

#[derive(Debug, Deserialize)]
struct SiteVerify {
    success: bool,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default, rename = "error-codes")]
    error_codes: Vec<String>,
}

#[async_trait]
impl RecaptchaVerifier for Google {
    async fn verify(&self, token: &str, client_ip: &str) -> Result<(), ApiError> {
        if token.trim().is_empty() {
            return Err(
                ApiError::new(ErrorCode::Recaptcha).with_cause("missing recaptcha-token header")
            );
        }
        let secret = self
            .settings
            .secret
            .as_ref()
            .map(|s| s.expose_secret().to_owned())
            .unwrap_or_default();
        let answer = self
            .client
            .post(&self.settings.verify_url)
            .form(&[
                ("secret", secret.as_str()),
                ("response", token),
                ("remoteip", client_ip),
            ])
            .send()
            .await
            .and_then(|r| r.error_for_status())
            .map_err(|e| {
                ApiError::new(ErrorCode::Unavailable)
                    .with_cause(format!("recaptcha siteverify: {e}"))
            })?
            .json::<SiteVerify>()
            .await
            .map_err(|e| {
                ApiError::new(ErrorCode::Unavailable).with_cause(format!("recaptcha answer: {e}"))
            })?;
        let score_ok = answer.score.is_none_or(|s| s >= self.settings.min_score);
        if answer.success && score_ok {
            Ok(())
        } else {
            Err(ApiError::new(ErrorCode::Recaptcha).with_cause(format!(
                "recaptcha refused: score {:?}, errors {:?}",
                answer.score, answer.error_codes
            )))
        }
    }
}

/// The verifier the settings ask for. Production refuses the pass-through.
pub fn build(settings: &RecaptchaSettings, production: bool) -> anyhow::Result<SharedRecaptcha> {
    match settings.kind {
        RecaptchaKind::PassThrough if production => {
            anyhow::bail!("the pass-through recaptcha verifier cannot be used in production")
        }
        RecaptchaKind::PassThrough => {
            tracing::warn!(
                "recaptcha is a pass-through: any non-empty token is accepted (development only)"
            );
            Ok(Arc::new(PassThrough))
        }
        RecaptchaKind::Google => {
            if settings.secret.is_none() {
                anyhow::bail!("recaptcha kind google needs gateway.recaptcha.secret");
            }
            let client = reqwest::Client::builder()
                .timeout(Duration::from_millis(settings.timeout_ms))
                .build()?;
            Ok(Arc::new(Google {
                client,
                settings: settings.clone(),
            }))
        }
    }
}
