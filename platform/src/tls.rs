//! TLS between the processes: section `[internal_tls]` (`APP_INTERNAL_TLS__…`), read by every
//! binary like `telemetry` and `ephemeral`.
//!
//! When `enabled`, every gRPC server of the process serves TLS with `cert_file`/`key_file`, and
//! every gRPC client verifies its peer against `ca_file` only (the server name is the url's host),
//! over `https://` urls. Nothing falls back to plaintext: an `http://` url while TLS is on, an
//! `https://` url while it is off, and a missing, unreadable or empty file all refuse to start,
//! naming the setting. The files are read once at start: a rotated certificate takes effect when
//! the process restarts (docs/operations.md, "TLS inside").
//!
//! Production requires internal TLS unless `mesh` says a service mesh already encrypts and
//! authenticates the traffic between pods (its sidecars do mutual TLS; the process speaks
//! plaintext to its own sidecar only). Either way the choice is explicit: plaintext between pods
//! is never what a production configuration gets by leaving a setting out.

use std::sync::Arc;

use anyhow::Context;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use serde::Deserialize;
use tonic::transport::{Certificate, ClientTlsConfig, Identity, ServerTlsConfig};

use crate::config::Environment;

/// How long a connection to a gRPC port has to finish its TLS handshake before it is closed.
/// tonic waits for a handshake without end unless told, so connections that sent nothing (or
/// half a ClientHello) each held a descriptor for good; between pods a handshake takes a few
/// milliseconds, and a caller under load retries a closed connection.
pub const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Section `[internal_tls]`: paths of PEM files, as mounted from the Kubernetes Secret.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct InternalTlsSettings {
    /// Serve and call gRPC over TLS (`APP_INTERNAL_TLS__ENABLED`).
    pub enabled: bool,
    /// Production only: internal TLS is off because a service mesh does mutual TLS between the
    /// pods (`APP_INTERNAL_TLS__MESH`). Ignored when `enabled`.
    pub mesh: bool,
    /// The CA that signed every service's certificate; the only one a client trusts
    /// (`APP_INTERNAL_TLS__CA_FILE`).
    pub ca_file: String,
    /// This process's certificate chain, leaf first (`APP_INTERNAL_TLS__CERT_FILE`). With
    /// `key_file`, required by a process that serves gRPC; a client-only process (the gateway)
    /// leaves both empty.
    pub cert_file: String,
    /// This process's private key (`APP_INTERNAL_TLS__KEY_FILE`).
    pub key_file: String,
}

impl InternalTlsSettings {
    /// Checks the choice against the environment and reads the files: the TLS every server and
    /// client of this process uses.
    pub fn load(&self, environment: Environment) -> anyhow::Result<InternalTls> {
        if !self.enabled {
            if environment.is_production() && !self.mesh {
                anyhow::bail!(
                    "production needs internal tls (internal_tls.enabled, APP_INTERNAL_TLS__ENABLED), \
                     or internal_tls.mesh (APP_INTERNAL_TLS__MESH) when a service mesh encrypts the traffic between pods"
                );
            }
            if self.mesh {
                tracing::info!(
                    "internal tls off: a service mesh encrypts the traffic between pods"
                );
            }
            return Ok(InternalTls::off());
        }
        let ca = read_pem(&self.ca_file, "ca_file")?;
        let certificates = |pem: &[u8], setting: &str| -> anyhow::Result<()> {
            let count = CertificateDer::pem_slice_iter(pem)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|err| anyhow::anyhow!("{}: {err}", named(setting)))?
                .len();
            anyhow::ensure!(count > 0, "{} holds no certificate", named(setting));
            Ok(())
        };
        certificates(&ca, "ca_file")?;
        let identity = if self.cert_file.is_empty() && self.key_file.is_empty() {
            None
        } else {
            let cert = read_pem(&self.cert_file, "cert_file")?;
            let key = read_pem(&self.key_file, "key_file")?;
            certificates(&cert, "cert_file")?;
            PrivateKeyDer::from_pem_slice(&key).map_err(|err| {
                anyhow::anyhow!("{} holds no private key: {err}", named("key_file"))
            })?;
            Some(Identity::from_pem(cert, key))
        };
        let tls = InternalTls {
            loaded: Some(Arc::new(Loaded {
                ca: Certificate::from_pem(ca),
                identity,
            })),
        };
        // Builds both sides once, so a key that does not match its certificate (or any other
        // mistake rustls finds) stops the start instead of the first call.
        if tls.serves() {
            let config = tls.server_config()?.context("a server identity")?;
            tonic::transport::Server::builder()
                .tls_config(config)
                .with_context(|| {
                    format!(
                        "{} and {} do not make a server identity",
                        named("cert_file"),
                        named("key_file")
                    )
                })?;
        }
        tls.client_config("localhost")
            .and_then(|config| {
                tonic::transport::Endpoint::from_static("https://localhost")
                    .tls_config(config)
                    .map_err(anyhow::Error::from)
            })
            .with_context(|| format!("{} is not a usable ca", named("ca_file")))?;
        tracing::info!(ca_file = %self.ca_file, cert_file = %self.cert_file, "internal tls on");
        Ok(tls)
    }
}

/// A setting's name and its environment variable, as every message here names them.
fn named(setting: &str) -> String {
    format!(
        "internal_tls.{setting} (APP_INTERNAL_TLS__{})",
        setting.to_uppercase()
    )
}

fn read_pem(path: &str, setting: &str) -> anyhow::Result<Vec<u8>> {
    anyhow::ensure!(
        !path.is_empty(),
        "internal tls is enabled but {} is not set",
        named(setting)
    );
    std::fs::read(path).with_context(|| format!("reading {} at {path}", named(setting)))
}

/// The loaded internal TLS of a process: off (the default, standalone and tests), or the CA and
/// this process's identity. Cheap to clone; carried by [`crate::grpc::ServerSettings`] and
/// [`crate::grpc::ClientSettings`].
#[derive(Debug, Clone, Default)]
pub struct InternalTls {
    loaded: Option<Arc<Loaded>>,
}

#[derive(Debug)]
struct Loaded {
    ca: Certificate,
    /// `None` in a process that only calls.
    identity: Option<Identity>,
}

impl InternalTls {
    /// Plaintext gRPC.
    pub fn off() -> Self {
        Self::default()
    }

    pub fn is_enabled(&self) -> bool {
        self.loaded.is_some()
    }

    /// On, with a certificate to serve with.
    fn serves(&self) -> bool {
        self.loaded
            .as_ref()
            .is_some_and(|loaded| loaded.identity.is_some())
    }

    /// What a server serves with: `None` when off, an error when on without an identity (a
    /// server never falls back to plaintext).
    pub fn server_config(&self) -> anyhow::Result<Option<ServerTlsConfig>> {
        let Some(loaded) = &self.loaded else {
            return Ok(None);
        };
        let identity = loaded.identity.clone().with_context(|| {
            format!(
                "internal tls is enabled but this process serves grpc without a certificate: set {} and {}",
                named("cert_file"),
                named("key_file")
            )
        })?;
        Ok(Some(
            ServerTlsConfig::new()
                .identity(identity)
                .timeout(HANDSHAKE_TIMEOUT),
        ))
    }

    /// The client side for a server at `host`: the CA is the only trust anchor (no system
    /// roots), and the server's certificate must name `host`.
    fn client_config(&self, host: &str) -> anyhow::Result<ClientTlsConfig> {
        let loaded = self.loaded.as_ref().context("internal tls is off")?;
        Ok(ClientTlsConfig::new()
            .ca_certificate(loaded.ca.clone())
            .domain_name(host))
    }

    /// The TLS a client of `url` uses, refusing any mismatch between the url's scheme and
    /// whether internal TLS is on: `None` for `http://` with TLS off, the CA-only config for
    /// `https://` with TLS on.
    pub fn for_url(&self, url: &str) -> anyhow::Result<Option<ClientTlsConfig>> {
        let uri: http::Uri = url
            .parse()
            .with_context(|| format!("invalid grpc url {url:?}"))?;
        match (uri.scheme_str(), self.is_enabled()) {
            (Some("http"), false) => Ok(None),
            (Some("https"), true) => {
                let host = uri.host().context("grpc url without a host")?;
                // `[::1]` is written bracketed in a url, bare in a certificate.
                let host = host.trim_start_matches('[').trim_end_matches(']');
                self.client_config(host).map(Some)
            }
            (Some("http"), true) => anyhow::bail!(
                "internal tls is enabled but grpc url {url} is plaintext: use https:// (internal_tls.enabled, APP_INTERNAL_TLS__ENABLED)"
            ),
            (Some("https"), false) => anyhow::bail!(
                "grpc url {url} is https but no ca is configured to verify it: set {} and internal_tls.enabled (APP_INTERNAL_TLS__ENABLED)",
                named("ca_file")
            ),
            _ => anyhow::bail!("grpc url {url} must start with http:// or https://"),
        }
    }
}

/// The process's internal TLS from section `[internal_tls]` of `config`, checked against its
/// environment: what every binary passes to its servers and clients.
pub fn from_config(config: &crate::config::Layered) -> anyhow::Result<InternalTls> {
    config
        .section::<InternalTlsSettings>("internal_tls")?
        .load(config.environment())
}
