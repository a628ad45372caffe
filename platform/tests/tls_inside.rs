//! TLS inside, against the real components: a tonic server with internal TLS on a free port,
//! the machine's PostgreSQL (`sslmode`), and a redis-server started here on a TLS port. The
//! certificates are generated per test (rcgen): a CA, and a server certificate it signed for
//! `localhost` and `127.0.0.1`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use miclub_platform::config::Environment;
use miclub_platform::ephemeral::{self, EphemeralSettings};
use miclub_platform::grpc::{self, ClientSettings, ServerSettings};
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::storage::{Database, DatabaseSettings};
use miclub_platform::tls::{self, InternalTls, InternalTlsSettings};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// A CA and a server certificate it signed, as PEM files in a folder of their own.
struct Pki {
    dir: PathBuf,
}

impl Pki {
    fn generate() -> Self {
        Self::generate_for(&["localhost", "127.0.0.1"])
    }

    /// The server certificate names `names` (DNS names or IP addresses).
    fn generate_for(names: &[&str]) -> Self {
        let dir = std::env::temp_dir().join(format!("miclub-tls-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "miclub test ca");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let params = CertificateParams::new(names).unwrap();
        let cert = params.signed_by(&key, &issuer).unwrap();
        std::fs::write(dir.join("ca.crt"), ca.pem()).unwrap();
        std::fs::write(dir.join("tls.crt"), cert.pem()).unwrap();
        std::fs::write(dir.join("tls.key"), key.serialize_pem()).unwrap();
        Self { dir }
    }

    fn file(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    fn settings(&self) -> InternalTlsSettings {
        InternalTlsSettings {
            enabled: true,
            mesh: false,
            ca_file: self.file("ca.crt"),
            cert_file: self.file("tls.crt"),
            key_file: self.file("tls.key"),
        }
    }

    fn load(&self) -> InternalTls {
        self.settings().load(Environment::Production).unwrap()
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A gRPC server (health only) with `tls` on a free port; stops when the trigger drops.
async fn serve(tls: &InternalTls) -> (u16, ShutdownTrigger) {
    let settings = ServerSettings::default();
    serve_with(tls, settings.connections_per_client, settings.lifetime()).await
}

/// [`serve`] holding one caller address to `per_client` connections, each living by `lifetime`.
async fn serve_with(
    tls: &InternalTls,
    per_client: usize,
    lifetime: grpc::Lifetime,
) -> (u16, ShutdownTrigger) {
    let settings = ServerSettings {
        tls: tls.clone(),
        connections_per_client: per_client,
        max_connection_age_ms: lifetime.max_age.map_or(0, |age| age.as_millis() as u64),
        max_connection_age_grace_ms: lifetime.grace.as_millis() as u64,
        ..ServerSettings::default()
    };
    let gate = std::sync::Arc::new(miclub_platform::testing::AdmitAll);
    miclub_platform::testing::serve_port(&settings, |routes| routes, gate).await
}

async fn health_check(client: ClientSettings) -> Result<i32, tonic::Status> {
    miclub_platform::testing::health_status(&client, "").await
}

fn client(url: String, tls: &InternalTls) -> ClientSettings {
    ClientSettings::for_url(url).with_tls(tls)
}

#[tokio::test]
async fn a_client_trusting_the_internal_ca_gets_answers_from_a_tls_server() {
    let pki = Pki::generate();
    let tls = pki.load();
    let (port, _stop) = serve(&tls).await;
    for host in ["127.0.0.1", "localhost"] {
        let status = health_check(client(format!("https://{host}:{port}"), &tls))
            .await
            .unwrap_or_else(|status| panic!("{host}: {status:?}"));
        assert_eq!(status, 1, "SERVING through {host}");
    }
}

#[tokio::test]
async fn a_client_trusting_another_ca_refuses_the_server() {
    let pki = Pki::generate();
    let (port, _stop) = serve(&pki.load()).await;
    let other = Pki::generate().load();
    let status = health_check(client(format!("https://127.0.0.1:{port}"), &other))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
}

#[tokio::test]
async fn a_server_certificate_for_another_name_is_refused() {
    // Signed by the trusted CA, but for another service's name only.
    let pki = Pki::generate_for(&["accounts"]);
    let tls = pki.load();
    let (port, _stop) = serve(&tls).await;
    let status = health_check(client(format!("https://127.0.0.1:{port}"), &tls))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
}

#[tokio::test]
async fn a_plaintext_client_gets_nothing_from_the_tls_port() {
    let pki = Pki::generate();
    let (port, _stop) = serve(&pki.load()).await;
    let status = health_check(ClientSettings::for_url(format!("http://127.0.0.1:{port}")))
        .await
        .unwrap_err();
    assert_ne!(status.code(), tonic::Code::Ok);
    // And a TLS client reaching a plaintext server does not fall back to plaintext.
    let (plain_port, _plain_stop) = serve(&InternalTls::off()).await;
    let status = health_check(client(
        format!("https://127.0.0.1:{plain_port}"),
        &pki.load(),
    ))
    .await
    .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
}

#[tokio::test]
async fn a_connection_that_never_finishes_its_tls_handshake_is_closed_and_callers_are_still_served()
{
    use tokio::io::AsyncWriteExt;

    let pki = Pki::generate();
    let tls = pki.load();
    let (port, _stop) = serve(&tls).await;
    let started = std::time::Instant::now();
    // One that sends nothing, one that stops halfway through a ClientHello's record header.
    let mut silent = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut stalled = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    stalled.write_all(&[0x16, 0x03, 0x01]).await.unwrap();
    // Meanwhile a caller with the CA is answered.
    let status = health_check(client(format!("https://127.0.0.1:{port}"), &tls))
        .await
        .unwrap();
    assert_eq!(status, 1);
    let limit = tls::HANDSHAKE_TIMEOUT + Duration::from_secs(5);
    for stream in [&mut silent, &mut stalled] {
        assert!(
            closed_by(stream, started + limit).await,
            "a handshake never finished holds its connection past {limit:?}"
        );
    }
    assert!(
        started.elapsed() >= tls::HANDSHAKE_TIMEOUT - Duration::from_millis(500),
        "not before the timeout: {:?}",
        started.elapsed()
    );
}

/// Whether the server closed `stream` (end of stream or an error) before `deadline`; what it
/// sent until then is read and ignored.
async fn closed_by(
    stream: &mut (impl tokio::io::AsyncRead + Unpin),
    deadline: std::time::Instant,
) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0_u8; 256];
    tokio::time::timeout_at(deadline.into(), async {
        while let Ok(1..) = stream.read(&mut buffer).await {}
    })
    .await
    .is_ok()
}

/// A TLS client of `pki`'s CA that finishes its handshake with `port` and sends nothing more.
async fn handshake_only(
    pki: &Pki,
    port: u16,
) -> tokio_rustls::client::TlsStream<tokio::net::TcpStream> {
    use rustls_pki_types::pem::PemObject;
    use tokio_rustls::rustls;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pki_types::CertificateDer::pem_file_iter(pki.file("ca.crt")).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
        .connect("localhost".try_into().unwrap(), tcp)
        .await
        .expect("the handshake finishes")
}

#[tokio::test]
async fn a_connection_that_never_starts_http2_is_closed_past_its_maximum_age_and_grace_with_or_without_tls()
 {
    let lifetime = grpc::Lifetime {
        max_age: Some(Duration::from_millis(500)),
        grace: Duration::from_millis(1_000),
    };
    let end = Duration::from_millis(1_500);
    let started = std::time::Instant::now();
    // Plaintext, as behind a mesh's sidecar: the connection is open and no preface comes.
    let (plain_port, _plain_stop) = serve_with(&InternalTls::off(), 0, lifetime).await;
    let mut plain = tokio::net::TcpStream::connect(("127.0.0.1", plain_port))
        .await
        .unwrap();
    // Over internal TLS: the handshake is done in time, then nothing.
    let pki = Pki::generate();
    let tls = pki.load();
    let (tls_port, _tls_stop) = serve_with(&tls, 0, lifetime).await;
    let mut after_handshake = handshake_only(&pki, tls_port).await;
    // Callers are served meanwhile.
    let plain_url = format!("http://127.0.0.1:{plain_port}");
    assert_eq!(
        health_check(ClientSettings::for_url(plain_url))
            .await
            .unwrap(),
        1
    );
    let tls_url = format!("https://127.0.0.1:{tls_port}");
    assert_eq!(health_check(client(tls_url, &tls)).await.unwrap(), 1);

    let limit = started + end + Duration::from_secs(3);
    assert!(
        closed_by(&mut plain, limit).await,
        "plaintext held past {limit:?}"
    );
    assert!(
        closed_by(&mut after_handshake, limit).await,
        "tls held past {limit:?}"
    );
    assert!(
        started.elapsed() >= end - Duration::from_millis(100),
        "not before its age and grace: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_callers_connection_is_asked_to_go_at_its_maximum_age_and_its_channel_keeps_working() {
    let lifetime = grpc::Lifetime {
        max_age: Some(Duration::from_millis(400)),
        grace: Duration::from_secs(20),
    };
    let (port, _stop) = serve_with(&InternalTls::off(), 0, lifetime).await;
    // An idle HTTP/2 connection is sent GOAWAY at its age and closed then, long before the
    // grace would cut it.
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let (_requests, connection) = h2::client::handshake(tcp).await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(5), connection).await;
    assert!(ended.is_ok(), "an idle connection outlived its age");
    assert!(started.elapsed() >= Duration::from_millis(300));

    // Four callers on one channel, back to back across several ages: every call is answered.
    let channel = ClientSettings::for_url(format!("http://127.0.0.1:{port}"))
        .channel()
        .unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(2);
    let callers: Vec<_> = (0..4)
        .map(|_| {
            let mut health = HealthClient::new(channel.clone());
            tokio::spawn(async move {
                let mut answered = 0;
                while std::time::Instant::now() < until {
                    let request = HealthCheckRequest {
                        service: String::new(),
                    };
                    health.check(request).await.expect("every call is answered");
                    answered += 1;
                }
                answered
            })
        })
        .collect();
    for caller in callers {
        assert!(caller.await.unwrap() > 0);
    }
}

#[tokio::test]
async fn a_port_stops_after_its_drain_and_grace_though_a_connection_never_started_http2() {
    let (server, health, routes) = grpc::server(&[], &ServerSettings::default()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (trigger, stop) = shutdown::channel();
    let lifetime = grpc::Lifetime {
        max_age: None,
        grace: Duration::from_millis(500),
    };
    let drain = Duration::from_millis(200);
    let serving = tokio::spawn(grpc::serve(
        server,
        routes,
        grpc::CappedListener {
            listener,
            per_client: 0,
            lifetime,
        },
        health,
        drain,
        stop,
        std::sync::Arc::new(miclub_platform::testing::AdmitAll),
    ));
    let _silent = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let url = format!("http://127.0.0.1:{port}");
    assert_eq!(health_check(ClientSettings::for_url(url)).await.unwrap(), 1);
    let stopping = std::time::Instant::now();
    trigger.trigger();
    let stopped = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(
        stopped.is_ok(),
        "a silent connection kept the port from stopping"
    );
    assert!(stopping.elapsed() >= drain + lifetime.grace - Duration::from_millis(100));
}

#[tokio::test]
async fn a_caller_address_holds_at_most_its_cap_of_connections_and_is_served_again_once_one_closes()
{
    let pki = Pki::generate();
    let tls = pki.load();
    let (port, _stop) = serve_with(&tls, 2, grpc::Lifetime::default()).await;
    let url = format!("https://127.0.0.1:{port}");
    // Two connections that finish no handshake, holding the address's two places.
    let first = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let _second = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let refused = health_check(client(url.clone(), &tls)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    drop(first);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let status = health_check(client(url, &tls)).await.unwrap();
    assert_eq!(status, 1, "SERVING once a place was freed");
}

#[test]
fn a_url_whose_scheme_disagrees_with_internal_tls_is_a_configuration_error() {
    let pki = Pki::generate();
    let error = ClientSettings::for_url("https://auth:50051")
        .channel()
        .unwrap_err()
        .to_string();
    assert!(error.contains("internal_tls.ca_file"), "{error}");
    let error = client("http://auth:50051".into(), &pki.load())
        .channel()
        .unwrap_err()
        .to_string();
    assert!(error.contains("https://"), "{error}");
    assert!(error.contains("internal_tls.enabled"), "{error}");
    assert!(
        client("ftp://auth:50051".into(), &pki.load())
            .channel()
            .is_err()
    );
}

#[test]
fn enabled_internal_tls_refuses_to_start_without_its_files() {
    let pki = Pki::generate();
    for (setting, variable) in [
        ("ca_file", "APP_INTERNAL_TLS__CA_FILE"),
        ("cert_file", "APP_INTERNAL_TLS__CERT_FILE"),
        ("key_file", "APP_INTERNAL_TLS__KEY_FILE"),
    ] {
        for value in [String::new(), pki.file("absent.pem"), pki.file("empty.pem")] {
            std::fs::write(pki.dir.join("empty.pem"), "").unwrap();
            let mut settings = pki.settings();
            match setting {
                "ca_file" => settings.ca_file = value.clone(),
                "cert_file" => settings.cert_file = value.clone(),
                _ => settings.key_file = value.clone(),
            }
            let error = format!("{:#}", settings.load(Environment::Development).unwrap_err());
            assert!(error.contains(setting), "{setting}={value:?}: {error}");
            assert!(error.contains(variable), "{setting}={value:?}: {error}");
        }
    }
}

#[tokio::test]
async fn a_client_only_process_needs_the_ca_but_cannot_serve_without_a_certificate() {
    let pki = Pki::generate();
    let client_only = InternalTlsSettings {
        cert_file: String::new(),
        key_file: String::new(),
        ..pki.settings()
    }
    .load(Environment::Production)
    .unwrap();
    let (port, _stop) = serve(&pki.load()).await;
    let status = health_check(client(format!("https://127.0.0.1:{port}"), &client_only)).await;
    assert_eq!(status.unwrap(), 1);
    let settings = ServerSettings {
        tls: client_only,
        ..ServerSettings::default()
    };
    let error = format!("{:#}", grpc::server(&[], &settings).await.err().unwrap());
    assert!(error.contains("APP_INTERNAL_TLS__CERT_FILE"), "{error}");
    // A certificate without its key is a mistake, not a client-only process.
    let half = InternalTlsSettings {
        key_file: String::new(),
        ..pki.settings()
    };
    let error = format!("{:#}", half.load(Environment::Production).unwrap_err());
    assert!(error.contains("APP_INTERNAL_TLS__KEY_FILE"), "{error}");
}

#[test]
fn a_key_that_is_not_the_certificates_refuses_to_start() {
    let pki = Pki::generate();
    let other = Pki::generate();
    let settings = InternalTlsSettings {
        key_file: other.file("tls.key"),
        ..pki.settings()
    };
    let error = format!("{:#}", settings.load(Environment::Development).unwrap_err());
    assert!(error.contains("internal_tls.key_file"), "{error}");
}

#[test]
fn production_requires_internal_tls_or_a_mesh_that_provides_it() {
    let error = InternalTlsSettings::default()
        .load(Environment::Production)
        .unwrap_err()
        .to_string();
    assert!(error.contains("APP_INTERNAL_TLS__ENABLED"), "{error}");
    assert!(error.contains("internal_tls.mesh"), "{error}");
    let mesh = InternalTlsSettings {
        mesh: true,
        ..Default::default()
    };
    assert!(!mesh.load(Environment::Production).unwrap().is_enabled());
    let development = InternalTlsSettings::default();
    assert!(
        !development
            .load(Environment::Development)
            .unwrap()
            .is_enabled()
    );
}

/// The machine's PostgreSQL server url (`TEST_POSTGRES_URL`), with `params` added.
fn postgres_with(params: &str) -> String {
    let base = std::env::var("TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let separator = if base.contains('?') { '&' } else { '?' };
    format!("{base}{separator}{params}")
}

/// Whether the server has ssl on; when it does not, the PostgreSQL tests say so and skip.
async fn postgres_ssl_is_on() -> bool {
    let db = Database::connect(&DatabaseSettings {
        url: postgres_with("sslmode=disable"),
        max_connections: 1,
        ..Default::default()
    })
    .await
    .expect("postgresql reachable");
    let ssl: String = sqlx::query_scalar("SHOW ssl")
        .fetch_one(db.pool())
        .await
        .unwrap();
    if ssl != "on" {
        eprintln!("SKIPPED: the postgresql server has ssl = {ssl}; the sslmode tests need it on");
        return false;
    }
    true
}

#[tokio::test]
async fn postgresql_connects_over_tls_when_sslmode_requires_it() {
    if !postgres_ssl_is_on().await {
        return;
    }
    let db = Database::connect(&DatabaseSettings {
        url: postgres_with("sslmode=require"),
        max_connections: 1,
        ..Default::default()
    })
    .await
    .unwrap();
    let encrypted: bool =
        sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_one(db.pool())
            .await
            .unwrap();
    assert!(encrypted, "the session is not encrypted");
}

#[tokio::test]
async fn postgresql_verify_full_refuses_a_server_certificate_another_ca_did_not_sign() {
    if !postgres_ssl_is_on().await {
        return;
    }
    let pki = Pki::generate();
    let url = postgres_with(&format!(
        "sslmode=verify-full&sslrootcert={}",
        pki.file("ca.crt")
    ));
    let refused = Database::connect(&DatabaseSettings {
        url,
        max_connections: 1,
        acquire_timeout_ms: 3_000,
        ..Default::default()
    })
    .await;
    let error = format!("{:#}", refused.unwrap_err());
    assert!(
        error.to_lowercase().contains("certificate") || error.to_lowercase().contains("tls"),
        "{error}"
    );
}

#[tokio::test]
async fn postgresql_verify_ca_accepts_the_server_when_sslrootcert_signed_its_certificate() {
    if !postgres_ssl_is_on().await {
        return;
    }
    // The server's own certificate (Debian's self-signed snakeoil) as the root, when this
    // process can read it: sslrootcert is honoured, not only refused.
    let db = Database::connect(&DatabaseSettings {
        url: postgres_with("sslmode=disable"),
        max_connections: 1,
        ..Default::default()
    })
    .await
    .unwrap();
    let cert_file: String = sqlx::query_scalar("SHOW ssl_cert_file")
        .fetch_one(db.pool())
        .await
        .unwrap();
    let Ok(pem) = std::fs::read_to_string(&cert_file) else {
        eprintln!("SKIPPED: the server's certificate {cert_file} is not readable here");
        return;
    };
    let pki = Pki::generate();
    let root = pki.file("server-root.crt");
    std::fs::write(&root, pem).unwrap();
    // verify-ca: the snakeoil certificate names whatever host generated it, which is not
    // necessarily how the url reaches the server; the name check is the test above.
    let url = postgres_with(&format!("sslmode=verify-ca&sslrootcert={root}"));
    let verified = Database::connect(&DatabaseSettings {
        url,
        max_connections: 1,
        ..Default::default()
    })
    .await;
    let db = verified.unwrap_or_else(|err| panic!("verify-ca: {err:#}"));
    let encrypted: bool =
        sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_one(db.pool())
            .await
            .unwrap();
    assert!(encrypted);
}

/// A redis-server of its own serving TLS only, on a free port; killed on drop.
struct TlsRedis {
    child: std::process::Child,
    port: u16,
}

impl TlsRedis {
    /// Starts one with `pki`'s server certificate, or `None` (said loudly) when this machine's
    /// redis-server was built without TLS.
    async fn start(pki: &Pki) -> Option<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let spawned = std::process::Command::new("redis-server")
            .args([
                "--port",
                "0",
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(["--tls-port", &port.to_string()])
            .args(["--tls-cert-file", &pki.file("tls.crt")])
            .args(["--tls-key-file", &pki.file("tls.key")])
            .args(["--tls-ca-cert-file", &pki.file("ca.crt")])
            .args(["--tls-auth-clients", "no"])
            .arg("--dir")
            .arg(&pki.dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(err) => {
                eprintln!("SKIPPED: redis-server cannot be started here: {err}");
                return None;
            }
        };
        // Ready when the TLS port accepts connections; a server that exits has no TLS support.
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut stderr = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).ok();
                eprintln!("SKIPPED: redis-server exited ({status}), built without tls? {stderr}");
                return None;
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Some(Self { child, port });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn settings(&self, ca_file: String) -> EphemeralSettings {
        EphemeralSettings {
            redis_url: format!("rediss://127.0.0.1:{}", self.port),
            ca_file,
            response_timeout_ms: 2_000,
            ..Default::default()
        }
    }
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn redis_over_tls_works_with_the_configured_ca_and_refuses_another() {
    let pki = Pki::generate();
    let Some(redis) = TlsRedis::start(&pki).await else {
        return;
    };
    let store = ephemeral::connect(&redis.settings(pki.file("ca.crt")), Environment::Production)
        .await
        .unwrap();
    store.ping().await.unwrap();
    store
        .set("tls-check", "encrypted", Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(
        store.get("tls-check").await.unwrap().as_deref(),
        Some("encrypted")
    );

    let other = Pki::generate();
    let refused = ephemeral::connect(
        &redis.settings(other.file("ca.crt")),
        Environment::Production,
    )
    .await;
    assert!(refused.is_err(), "a server the ca did not sign was trusted");
}

#[tokio::test]
async fn a_redis_ca_with_a_plaintext_url_or_an_unreadable_file_refuses_to_start() {
    let plaintext = EphemeralSettings {
        redis_url: "redis://127.0.0.1:6379".into(),
        ca_file: "/etc/ssl/certs/ca-certificates.crt".into(),
        ..Default::default()
    };
    let error = ephemeral::connect(&plaintext, Environment::Production)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("APP_EPHEMERAL__CA_FILE"), "{error}");
    assert!(error.contains("rediss://"), "{error}");
    let missing = EphemeralSettings {
        redis_url: "rediss://127.0.0.1:6379".into(),
        ca_file: Path::new("/nonexistent/ca.crt").display().to_string(),
        ..Default::default()
    };
    let error = ephemeral::connect(&missing, Environment::Production)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("ephemeral.ca_file"), "{error}");
}
