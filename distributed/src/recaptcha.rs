//! A stand-in for Google's reCAPTCHA `siteverify`, served by the tool on loopback, since this
//! machine reaches no Google. The gateway keeps its production verifier (`kind = "google"`,
//! secret required, action, host name and score checked); only `verify_url` points here.
//!
//! A token `local:<action>` proves a human on form `<action>`; any other token, or the wrong
//! secret, is refused as siteverify refuses it. Browsers cannot mint such tokens (the web app
//! loads Google's script when a site key is configured), so this serves REST clients and tests.

use std::net::SocketAddr;

use axum::extract::{Form, State};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

/// Where the stand-in listens, and its task.
#[derive(Debug)]
pub struct SiteVerify {
    pub url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SiteVerify {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Debug, Clone)]
struct Expected {
    secret: String,
    hostname: String,
}

#[derive(Debug, Deserialize)]
struct Request {
    #[serde(default)]
    secret: String,
    #[serde(default)]
    response: String,
}

/// The token a REST client sends for `action`.
pub fn token(action: &str) -> String {
    format!("local:{action}")
}

impl SiteVerify {
    /// Serves on a free loopback port; tokens are checked against `secret` and answered as
    /// minted on `hostname`.
    pub async fn start(secret: String, hostname: String) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let url = format!(
            "http://127.0.0.1:{}/recaptcha/api/siteverify",
            listener.local_addr()?.port()
        );
        let app = Router::new()
            .route("/recaptcha/api/siteverify", post(verify))
            .with_state(Expected { secret, hostname });
        let task = tokio::spawn(async move {
            if let Err(err) = axum::serve(listener, app).await {
                tracing::error!(error = %err, "recaptcha stand-in stopped");
            }
        });
        Ok(Self { url, task })
    }
}

async fn verify(State(expected): State<Expected>, Form(request): Form<Request>) -> Json<Value> {
    if request.secret != expected.secret {
        return Json(json!({"success": false, "error-codes": ["invalid-input-secret"]}));
    }
    match request.response.strip_prefix("local:") {
        Some(action) if !action.is_empty() => Json(json!({
            "success": true,
            "action": action,
            "hostname": expected.hostname,
            "score": 0.9,
        })),
        _ => Json(json!({"success": false, "error-codes": ["invalid-input-response"]})),
    }
}
