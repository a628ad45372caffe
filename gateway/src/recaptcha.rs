//! reCAPTCHA checks of the anonymous forms (login's password step, password recovery,
//! registration, the verification-email resend), pluggable: Google's siteverify in production,
//! a pass-through in development and standalone (with a warning at start-up). A token is only
//! good for the form it was minted on: siteverify's `action` and `hostname` must be the ones
//! expected, besides `success` and the least score.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use miclub_platform::error::ErrorCode;
use secrecy::ExposeSecret;
use serde::Deserialize;

use crate::config::{RecaptchaKind, RecaptchaSettings};
use crate::error::ApiError;

/// What a token must have been minted for.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    /// The `action` the web app passed to `grecaptcha.execute` (e.g. `login`).
    pub action: &'a str,
    /// The host name of the page the token was minted on.
    pub hostname: &'a str,
}

#[async_trait]
pub trait RecaptchaVerifier: Send + Sync + std::fmt::Debug + 'static {
    /// Ok when the token proves a human on the expected form; `ERR_RECAPTCHA` otherwise.
    async fn verify(
        &self,
        token: &str,
        client_ip: &str,
        expected: Expected<'_>,
    ) -> Result<(), ApiError>;
}

/// The actions of the web app's forms (`web/src/lib/recaptcha.ts` callers).
pub mod action {
    pub const LOGIN: &str = "login";
    pub const PASSWORD_RECOVERY: &str = "password_recovery";
    pub const REGISTRATION: &str = "registration";
    pub const VERIFICATION_EMAIL: &str = "verification_email";
}

/// Header carrying the token.
pub const TOKEN_HEADER: &str = "recaptcha-token";

/// The reCAPTCHA of the gateway: the verifier, the host name tokens must have been minted on,
/// and whether the forms the web app protects only with a site key are checked.
#[derive(Debug, Clone)]
pub struct Recaptcha {
    verifier: SharedRecaptcha,
    /// `gateway.recaptcha.hostname`; `None`: the request's own `Host`.
    hostname: Option<String>,
    enforced: bool,
}

impl Recaptcha {
    /// Whether a real verifier is configured: the forms that the web app only protects when a
    /// site key exists (registration, verification email) are checked only then.
    pub fn enforced(&self) -> bool {
        self.enforced
    }

    /// Checks the `recaptcha-token` of a request for `action`. The expected host name is
    /// `gateway.recaptcha.hostname`, or else the request's own `Host` without its port.
    pub async fn check(
        &self,
        headers: &axum::http::HeaderMap,
        client_ip: &str,
        action: &str,
    ) -> Result<(), ApiError> {
        let token = headers
            .get(TOKEN_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let host = headers
            .get(axum::http::header::HOST)
            .and_then(|v| v.to_str().ok())
            .map(strip_port)
            .unwrap_or("");
        let hostname = self.hostname.as_deref().unwrap_or(host);
        self.verifier
            .verify(token, client_ip, Expected { action, hostname })
            .await
            .inspect_err(|_| tracing::info!(action, "recaptcha check failed"))
    }
}

fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        // [v6]:port
        return rest.split_once(']').map_or(host, |(ip, _)| ip);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

pub type SharedRecaptcha = Arc<dyn RecaptchaVerifier>;

/// Accepts any non-empty token.
#[derive(Debug, Default)]
pub struct PassThrough;

#[async_trait]
impl RecaptchaVerifier for PassThrough {
    async fn verify(
        &self,
        token: &str,
        _client_ip: &str,
        _expected: Expected<'_>,
    ) -> Result<(), ApiError> {
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
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    hostname: Option<String>,
    #[serde(default, rename = "error-codes")]
    error_codes: Vec<String>,
}

#[async_trait]
impl RecaptchaVerifier for Google {
    async fn verify(
        &self,
        token: &str,
        client_ip: &str,
        expected: Expected<'_>,
    ) -> Result<(), ApiError> {
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
        let refusal = if !answer.success {
            Some("not a valid token")
        } else if answer.action.as_deref() != Some(expected.action) {
            Some("token minted for another action")
        } else if !answer
            .hostname
            .as_deref()
            .is_some_and(|h| h.eq_ignore_ascii_case(expected.hostname))
        {
            Some("token minted on another host")
        } else if !answer.score.is_some_and(|s| s >= self.settings.min_score) {
            Some("score below the minimum")
        } else {
            None
        };
        match refusal {
            None => Ok(()),
            Some(reason) => Err(ApiError::new(ErrorCode::Recaptcha).with_cause(format!(
                "recaptcha refused: {reason}: action {:?} (expected {}), hostname {:?} (expected {}), score {:?}, errors {:?}",
                answer.action, expected.action, answer.hostname, expected.hostname, answer.score, answer.error_codes
            ))),
        }
    }
}

/// The verifier the settings ask for. Production refuses the pass-through.
pub fn build(settings: &RecaptchaSettings, production: bool) -> anyhow::Result<Recaptcha> {
    Ok(Recaptcha {
        verifier: verifier(settings, production)?,
        hostname: settings.hostname.clone(),
        enforced: settings.kind == RecaptchaKind::Google,
    })
}

fn verifier(settings: &RecaptchaSettings, production: bool) -> anyhow::Result<SharedRecaptcha> {
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
