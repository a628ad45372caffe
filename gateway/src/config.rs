//! Gateway settings, section `[gateway]` (`APP_GATEWAY__…`).

use std::path::PathBuf;

use miclub_platform::grpc::ClientSettings;
use miclub_platform::listener::ConnectionSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::{ServiceCredentials, TokenSettings};
use secrecy::SecretString;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub host: String,
    pub port: u16,
    /// Port of the ops listener serving `GET /metrics` (Prometheus) on `host`
    /// (`APP_GATEWAY__OPS_PORT`); absent: none (the default, and standalone's), 0: any free
    /// port. The deployment sets 9090.
    pub ops_port: Option<u16>,
    /// The built web app (`web/dist`); served with SPA fallback when it exists.
    pub web_dir: Option<PathBuf>,
    /// Origins allowed on state-changing requests, e.g. `https://miclub.cl`. Empty: the
    /// request's own host only.
    pub allowed_origins: Vec<String>,
    /// The portal is served over TLS: cookies are `Secure` and take the `__Host-` prefix, and
    /// every answer carries `Strict-Transport-Security`. On in production.
    pub secure_cookies: bool,
    /// Proxies (IP addresses or CIDR ranges, e.g. `10.0.0.0/8`) whose `X-Forwarded-For` is
    /// believed. Empty (the default): the client address is always the socket's peer. A list in
    /// TOML, or comma-separated in `APP_GATEWAY__TRUSTED_PROXIES`.
    #[serde(deserialize_with = "miclub_platform::config::list_or_csv")]
    pub trusted_proxies: Vec<String>,
    /// Continue the trace a trusted proxy sends in `traceparent`. Turn it on only when every
    /// trusted proxy starts or replaces `traceparent` itself (ingress-nginx with OpenTelemetry
    /// on): one that passes headers through would pass on a client's. Off (the default): every
    /// request starts a trace of its own, and a `traceparent` sent is recorded as a link.
    pub proxy_traces: bool,
    pub body_limit_bytes: usize,
    /// What the member-facing port allows each connection (`[gateway.connections]`).
    pub connections: ConnectionSettings,
    /// Login-related requests one client address may make per minute at the edge.
    pub login_requests_per_minute: i64,
    /// Registration starts and verification-email resends one client address may make per
    /// minute at the edge.
    pub registration_requests_per_minute: i64,
    /// Password-recovery requests (start, resend, reset) one client address may make per
    /// minute at the edge.
    pub recovery_requests_per_minute: i64,
    /// Serve `GET /api/dev/mailbox` (development only; production refuses it).
    pub dev_mailbox: bool,
    pub auth: ClientSettings,
    pub accounts: ClientSettings,
    pub content: ClientSettings,
    pub registration: ClientSettings,
    pub missions: ClientSettings,
    /// The gateway's own client credentials at auth (`[gateway.service_client]`): the calls it
    /// makes on an anonymous visitor's behalf (log in, join, read content) go with its service
    /// token. Required in production.
    pub service_client: ServiceCredentials,
    /// How long the runtime flags read from content are reused.
    pub flags_cache_secs: u64,
    pub tokens: TokenSettings,
    pub recaptcha: RecaptchaSettings,
    pub flags: FlagSettings,
    pub links: LinkSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            host: "0.0.0.0".into(),
            port: 8080,
            ops_port: None,
            web_dir: Some(PathBuf::from("web/dist")),
            allowed_origins: Vec::new(),
            secure_cookies: false,
            trusted_proxies: Vec::new(),
            proxy_traces: false,
            body_limit_bytes: 16 * 1024,
            connections: ConnectionSettings::default(),
            login_requests_per_minute: 30,
            registration_requests_per_minute: 10,
            recovery_requests_per_minute: 10,
            dev_mailbox: false,
            auth: ClientSettings::for_url("http://127.0.0.1:50051"),
            accounts: ClientSettings::for_url("http://127.0.0.1:50052"),
            content: ClientSettings::for_url("http://127.0.0.1:50054"),
            registration: ClientSettings::for_url("http://127.0.0.1:50055"),
            missions: ClientSettings::for_url("http://127.0.0.1:50053"),
            service_client: ServiceCredentials::default(),
            flags_cache_secs: 30,
            tokens: TokenSettings::default(),
            recaptcha: RecaptchaSettings::default(),
            flags: FlagSettings::default(),
            links: LinkSettings::default(),
        }
    }
}

impl Settings {
    /// Calls the services with the process's internal TLS (section `[internal_tls]`).
    pub fn use_internal_tls(&mut self, tls: &InternalTls) {
        for client in [
            &mut self.auth,
            &mut self.accounts,
            &mut self.content,
            &mut self.registration,
            &mut self.missions,
        ] {
            client.tls = tls.clone();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecaptchaKind {
    /// Accepts any non-empty token; development and standalone only.
    #[default]
    PassThrough,
    /// Google's siteverify.
    Google,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RecaptchaSettings {
    pub kind: RecaptchaKind,
    pub site_key: Option<String>,
    pub secret: Option<SecretString>,
    pub verify_url: String,
    /// Least reCAPTCHA v3 score accepted.
    pub min_score: f64,
    pub timeout_ms: u64,
    /// The host name siteverify must report the token was minted on (e.g. `miclub.cl`). Absent:
    /// the `Host` of the request being checked, i.e. the host the gateway serves.
    pub hostname: Option<String>,
}

impl Default for RecaptchaSettings {
    fn default() -> Self {
        Self {
            kind: RecaptchaKind::PassThrough,
            site_key: None,
            secret: None,
            verify_url: "https://www.google.com/recaptcha/api/siteverify".into(),
            min_score: 0.5,
            timeout_ms: 3_000,
            hostname: None,
        }
    }
}

/// Runtime context flags (spec section 2) used until content first answers, and whenever it
/// never has (content serves the live ones; see `flags.rs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct FlagSettings {
    pub portal_enabled: bool,
    pub change_password_enable: bool,
    pub is_login_maintenance: bool,
}

impl Default for FlagSettings {
    fn default() -> Self {
        Self {
            portal_enabled: true,
            change_password_enable: false,
            is_login_maintenance: false,
        }
    }
}

/// External marketing pages the header and footer link to.
#[derive(Debug, Clone, Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct LinkSettings {
    pub home: String,
    pub alliances: String,
    pub more_ways_to_accumulate: String,
    pub lider_bci_card: String,
}

impl Default for LinkSettings {
    fn default() -> Self {
        Self {
            home: "https://www.lider.cl/".into(),
            alliances: "https://www.lider.cl/mi-club/alianzas".into(),
            more_ways_to_accumulate: "https://www.lider.cl/mi-club/mas-formas-de-acumular".into(),
            lider_bci_card: "https://www.tarjetaliderbci.cl/".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use miclub_platform::config::{Environment, Layered};

    use super::Settings;

    fn proxies(toml: &str) -> Vec<String> {
        let layered = Layered::from_toml(Environment::Production, toml).unwrap();
        layered
            .section::<Settings>("gateway")
            .unwrap()
            .trusted_proxies
    }

    #[test]
    fn trusted_proxies_read_as_a_list_or_as_the_comma_separated_text_of_an_env_variable() {
        assert!(proxies("[gateway]\nport = 1").is_empty());
        assert_eq!(
            proxies("[gateway]\ntrusted_proxies = [\"10.0.0.0/8\", \"192.168.1.1\"]"),
            ["10.0.0.0/8", "192.168.1.1"]
        );
        assert_eq!(
            proxies("[gateway]\ntrusted_proxies = \"10.0.0.0/8, 192.168.1.1\""),
            ["10.0.0.0/8", "192.168.1.1"]
        );
    }
}
