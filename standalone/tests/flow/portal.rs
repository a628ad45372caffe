//! The portal under test, in either topology (`MICLUB_TOPOLOGY`): the standalone `miclub`
//! binary (default), or the six production processes `miclub-distributed --test` starts from
//! the rendered k8s overlay next to it (PostgreSQL, Redis, internal TLS, mail over SMTP to
//! maildev), on the servers every test of the workspace uses (`testing::servers`: the
//! machine's, or testcontainers' where Docker is). The tests see one interface: the portal's
//! URL, the mail it sent, its gRPC ports and the internal clients' secrets.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use miclub_distributed::mailcatcher;
use miclub_platform::config::Environment;
use miclub_platform::grpc::{ClientSettings, TracedChannel};
use miclub_platform::tls::InternalTlsSettings;
use reqwest::StatusCode;
use serde_json::{Value, json};

#[path = "../../examples/common/loopback_jar.rs"]
mod loopback_jar;
use loopback_jar::LoopbackJar;

/// Whether this run tests the distributed topology.
pub fn distributed() -> bool {
    std::env::var("MICLUB_TOPOLOGY").as_deref() == Ok("distributed")
}

pub struct Portal {
    pub base: String,
    pub child: Child,
    /// The extra settings this portal started with (ports chosen for it, say).
    settings: Vec<(&'static str, String)>,
    /// Where its mail is read.
    pub mail: MailSource,
    /// Service → gRPC url, and the CA when they speak TLS.
    grpc: BTreeMap<String, String>,
    ca_file: Option<PathBuf>,
    client_secrets: BTreeMap<String, String>,
    _data: TempDir,
}

pub struct TempDir(pub PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for Portal {
    fn drop(&mut self) {
        if distributed() && std::thread::panicking() {
            // The state folder goes with the portal: a failed test shows what the topology
            // said (a process that exited stops the rest) and how each log ended.
            print_topology_logs(&self._data.0);
        }
        if distributed() {
            // SIGTERM: miclub-distributed stops its processes and drops this run's databases.
            let _ = Command::new("kill")
                .arg(self.child.id().to_string())
                .status();
            let deadline = Instant::now() + Duration::from_secs(60);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `miclub-distributed`'s own output, then the last lines of every process log under `dir`.
fn print_topology_logs(dir: &std::path::Path) {
    const TAIL: usize = 40;
    let topology = std::fs::read_to_string(dir.join("miclub-distributed.log")).unwrap_or_default();
    eprintln!("--- miclub-distributed.log\n{topology}");
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir.join("logs"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    logs.sort();
    for log in logs {
        eprintln!(
            "--- {} (last {TAIL} lines)\n{}",
            log.display(),
            miclub_distributed::processes::tail(&log, TAIL)
        );
    }
}

/// The settings of the standalone binary that mean nothing to the distributed topology, where
/// the ports and the internal clients come from the manifests.
fn standalone_only(key: &str) -> bool {
    key.starts_with("APP_STANDALONE__") || key.ends_with("__SERVER__PORT")
}

impl Portal {
    pub async fn start() -> Self {
        Self::start_with(Vec::new).await
    }

    /// With more settings, as `APP_…` environment variables, made afresh for each attempt: a
    /// free port picked here can be taken by a parallel test before the binary binds it, and
    /// then the binary exits and the portal starts again on new ports.
    pub async fn start_with(settings: impl Fn() -> Vec<(&'static str, String)>) -> Self {
        if distributed() {
            return Self::start_distributed(settings()).await;
        }
        for _attempt in 0..3 {
            let extra = settings();
            let data = TempDir(std::env::temp_dir().join(format!(
                "miclub-flow-{}-{}",
                std::process::id(),
                uuid_like()
            )));
            // Port 0 and the port the binary announces: a port picked here and handed over could
            // be another parallel test's portal by the time this one asked it for its health, and
            // the test then ran against that portal's members.
            let mut child = Command::new(env!("CARGO_BIN_EXE_miclub"))
                .env("APP_GATEWAY__PORT", "0")
                .env("APP_STANDALONE__DATA_DIR", &data.0)
                .env("APP_GATEWAY__WEB_DIR", data.0.join("no-web"))
                .env("APP_CONFIG_DIR", data.0.join("no-config"))
                .env("APP_GATEWAY__FLAGS__CHANGE_PASSWORD_ENABLE", "true")
                .env("RUST_LOG", "warn,miclub_standalone=info")
                .envs(extra.iter().map(|(k, v)| (*k, v.as_str())))
                .stdout(Stdio::piped())
                .spawn()
                .expect("start the miclub binary");
            let announced = announced_port(child.stdout.take().expect("piped stdout"));
            let port = match announced.recv_timeout(Duration::from_secs(60)) {
                Ok(port) => port,
                Err(_) => {
                    let status = child.try_wait();
                    let _ = child.kill();
                    let _ = child.wait();
                    eprintln!("the portal never said it was ready ({status:?}); starting it again");
                    continue;
                }
            };
            let base = format!("http://127.0.0.1:{port}");
            let grpc = extra
                .iter()
                .filter_map(|(k, v)| {
                    let service = k.strip_prefix("APP_")?.strip_suffix("__SERVER__PORT")?;
                    Some((service.to_lowercase(), format!("http://127.0.0.1:{v}")))
                })
                .collect();
            let client_secrets = extra
                .iter()
                .filter_map(|(k, v)| {
                    let client = k
                        .strip_prefix("APP_STANDALONE__")?
                        .strip_suffix("_CLIENT_SECRET")?;
                    Some((client.to_lowercase(), v.clone()))
                })
                .collect();
            let mut portal = Portal {
                mail: MailSource::DevMailbox(base.clone()),
                base,
                child,
                settings: extra,
                grpc,
                ca_file: None,
                client_secrets,
                _data: data,
            };
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                if let Ok(r) = reqwest::get(format!("{}/api/health", portal.base)).await
                    && r.status() == StatusCode::OK
                {
                    return portal;
                }
                if let Ok(Some(status)) = portal.child.try_wait() {
                    eprintln!(
                        "the portal exited before it was ready ({status}); starting it again"
                    );
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "the portal did not start within 60 s"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        panic!("the portal exited before it was ready three times");
    }

    async fn start_distributed(settings: Vec<(&'static str, String)>) -> Self {
        let binary =
            std::path::Path::new(env!("CARGO_BIN_EXE_miclub")).with_file_name("miclub-distributed");
        assert!(
            binary.exists(),
            "{} is missing: build the workspace (cargo build --workspace)",
            binary.display()
        );
        let data = TempDir(std::env::temp_dir().join(format!(
            "miclub-flow-distributed-{}-{}",
            std::process::id(),
            uuid_like()
        )));
        std::fs::create_dir_all(&data.0).unwrap();
        let ready_file = data.0.join("ready.json");
        let servers = miclub_platform::testing::servers();
        let mut command = Command::new(&binary);
        command
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .env("MICLUB_POSTGRES_ADMIN_URL", &servers.postgres)
            .env("MICLUB_REDIS_URL", &servers.redis)
            .args(["--test", "--port", "0", "--ready-file"])
            .arg(&ready_file)
            .arg("--state-dir")
            .arg(&data.0)
            .arg("--bin-dir")
            .arg(binary.parent().unwrap());
        let overrides = [(
            "APP_GATEWAY__FLAGS__CHANGE_PASSWORD_ENABLE",
            "true".to_owned(),
        )]
        .into_iter()
        .chain(settings.iter().cloned())
        .filter(|(key, _)| !standalone_only(key));
        for (key, value) in overrides {
            command.arg("--set").arg(format!("{key}={value}"));
        }
        let log = std::fs::File::create(data.0.join("miclub-distributed.log")).unwrap();
        let mut child = command
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start miclub-distributed");
        let deadline = Instant::now() + Duration::from_secs(180);
        let ready: Value = loop {
            if let Ok(text) = std::fs::read_to_string(&ready_file) {
                break serde_json::from_str(&text).unwrap();
            }
            if let Ok(Some(status)) = child.try_wait() {
                let log = std::fs::read_to_string(data.0.join("miclub-distributed.log"))
                    .unwrap_or_default();
                panic!("miclub-distributed exited before it was ready ({status}):\n{log}");
            }
            assert!(
                Instant::now() < deadline,
                "the distributed topology was not ready within 180 s"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let text = |value: &Value| value.as_str().unwrap().to_owned();
        let grpc = ready["grpc"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(service, address)| (service.clone(), format!("https://{}", text(address))))
            .collect();
        let client_secrets = ready["clientSecrets"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(client, secret)| (client.clone(), text(secret)))
            .collect();
        Portal {
            base: text(&ready["gatewayUrl"]),
            child,
            settings,
            mail: MailSource::Catcher(text(&ready["mailJsonUrl"])),
            grpc,
            ca_file: Some(PathBuf::from(text(&ready["caFile"]))),
            client_secrets,
            _data: data,
        }
    }

    /// One of the extra settings it started with.
    pub fn setting(&self, name: &str) -> &str {
        self.settings
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no setting {name}"))
    }

    /// A channel to `service`'s gRPC port (over TLS with the topology's CA when it has one).
    pub fn channel(&self, service: &str) -> TracedChannel {
        let url = self
            .grpc
            .get(service)
            .unwrap_or_else(|| panic!("no gRPC port known for {service}"));
        let tls = InternalTlsSettings {
            enabled: self.ca_file.is_some(),
            mesh: false,
            ca_file: self
                .ca_file
                .as_ref()
                .map(|f| f.display().to_string())
                .unwrap_or_default(),
            cert_file: String::new(),
            key_file: String::new(),
        }
        .load(Environment::Development)
        .unwrap();
        ClientSettings::for_url(url.clone())
            .with_tls(&tls)
            .channel()
            .unwrap()
    }

    /// The secret of internal client `client` (`pos`, `ops`).
    pub fn client_secret(&self, client: &str) -> &str {
        self.client_secrets
            .get(client)
            .unwrap_or_else(|| panic!("no secret for client {client}"))
    }

    /// A browser-like client: keeps cookies, sends the CSRF header and a reCAPTCHA token.
    pub fn browser(&self) -> super::Browser {
        super::Browser {
            base: self.base.clone(),
            mail: self.mail.clone(),
            http: reqwest::Client::builder()
                .cookie_provider(std::sync::Arc::new(LoopbackJar::default()))
                .build()
                .unwrap(),
        }
    }
}

/// A run-unique suffix without another dependency.
fn uuid_like() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// The gateway port the standalone binary announces in its JSON "ready" log line. The rest of
/// its output is read and dropped, so the binary never blocks on a full pipe.
fn announced_port(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<u16> {
    use std::io::BufRead;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Ok(event) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let ready = event["message"]
                .as_str()
                .is_some_and(|message| message.starts_with("mi club standalone ready"));
            if let Some(port) = event["port"].as_u64().and_then(|p| u16::try_from(p).ok())
                && ready
            {
                let _ = sender.send(port);
            }
        }
    });
    receiver
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Where the mail a portal sent is read, in the dev mailbox's shape (newest first; `to`,
/// `subject`, `body`, `code`).
#[derive(Debug, Clone)]
pub enum MailSource {
    /// `GET /api/dev/mailbox` of the standalone binary.
    DevMailbox(String),
    /// maildev's `/api/email` in the distributed topology.
    Catcher(String),
}

impl MailSource {
    pub async fn read(&self) -> Vec<Value> {
        match self {
            MailSource::DevMailbox(base) => reqwest::get(format!("{base}/api/dev/mailbox"))
                .await
                .unwrap()
                .json()
                .await
                .unwrap(),
            MailSource::Catcher(url) => mailcatcher::caught(&reqwest::Client::new(), url)
                .await
                .unwrap()
                .into_iter()
                .flat_map(|mail| {
                    let code = mail.code();
                    mail.to
                        .iter()
                        .map(|to| {
                            json!({
                                "to": to,
                                "subject": mail.subject,
                                "body": mail.text,
                                "code": code,
                            })
                        })
                        .collect::<Vec<_>>()
                })
                .collect(),
        }
    }
}
