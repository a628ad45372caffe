//! Shutdown of the real `miclub-content` binary under steady load (issue 7, point 5): SIGTERM
//! turns health NOT_SERVING while the process still answers, every request that began before
//! the signal is answered in full, later ones are either answered or refused as unavailable (a
//! closed connection, never an internal error or a partial answer), and the process exits 0.
//!
//! Timing is judged by order (which call began before the signal, which after NOT_SERVING was
//! seen, which after the exit), never by duration, so a loaded machine only makes it slower.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use miclub_platform::shutdown::ShutdownTrigger;
use miclub_platform::testing::{Bearer, TestEnv};
use miclub_proto::auth::v1::IssueServiceTokenRequest;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::content::v1 as pb;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// Between NOT_SERVING and closing the listener; long enough to see the drain by polling.
const DRAIN_DELAY_MS: u64 = 1_500;
/// Concurrent clients, each on its own connection.
const WORKERS: usize = 8;
/// Generous: start-up migrates a fresh database on a machine other builds share.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The binary running as a child process on its own temporary database; killed and cleaned up
/// when dropped, so a failing assertion leaves no process behind.
struct RunningBinary {
    child: Child,
    dir: PathBuf,
    port: u16,
    /// Everything the process wrote, shown when an assertion fails.
    output: Arc<Mutex<Vec<String>>>,
}

impl RunningBinary {
    /// Starts `miclub-content` on a free port (port 0, read back from its "ready" log line)
    /// with SQLite in a fresh directory and no configuration but the test's.
    fn start(auth_port: u16) -> Self {
        let dir = std::env::temp_dir().join(format!("content-shutdown-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let mut command = Command::new(env!("CARGO_BIN_EXE_miclub-content"));
        // Only this test's configuration: nothing inherited from the shell or a config dir.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("APP_") {
                command.env_remove(key);
            }
        }
        command
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .current_dir(&dir)
            .env("APP_CONFIG_DIR", dir.join("no-config"))
            .env("APP_ENVIRONMENT", "development")
            .env(
                "APP_CONTENT__DATABASE__URL",
                format!("sqlite://{}/content.db", dir.display()),
            )
            .env("APP_CONTENT__SERVER__HOST", "127.0.0.1")
            .env("APP_CONTENT__SERVER__PORT", "0")
            .env(
                "APP_CONTENT__SERVER__DRAIN_DELAY_MS",
                DRAIN_DELAY_MS.to_string(),
            )
            // The real auth, in this test's process: its keys verify the callers' tokens.
            .env(
                "APP_CONTENT__AUTH__URL",
                format!("http://127.0.0.1:{auth_port}"),
            )
            .env("APP_TELEMETRY__JSON_LOGS", "true")
            .env("RUST_LOG", "info,sqlx=warn,h2=warn,hyper=warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("miclub-content starts");

        let output = Arc::new(Mutex::new(Vec::new()));
        let (port_tx, port_rx) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        // Both pipes are read to the end so the process never blocks on a full one.
        let seen = Arc::clone(&output);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(port) = ready_port(&line) {
                    let _ = port_tx.send(port);
                }
                seen.lock().unwrap().push(line);
            }
        });
        let seen = Arc::clone(&output);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                seen.lock().unwrap().push(line);
            }
        });

        let mut running = Self {
            child,
            dir,
            port: 0,
            output,
        };
        match port_rx.recv_timeout(STARTUP_TIMEOUT) {
            Ok(port) => running.port = port,
            Err(_) => panic!(
                "content did not log its port within {STARTUP_TIMEOUT:?}:\n{}",
                running.output()
            ),
        }
        running
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -TERM failed: {status}");
    }

    fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("child status")
    }

    fn output(&self) -> String {
        self.output.lock().unwrap().join("\n")
    }
}

impl Drop for RunningBinary {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The port of the binary's "content service ready" JSON log line.
fn ready_port(line: &str) -> Option<u16> {
    let event: serde_json::Value = serde_json::from_str(line).ok()?;
    if event.get("message")?.as_str()? != "content service ready" {
        return None;
    }
    u16::try_from(event.get("port")?.as_u64()?).ok()
}

/// A client on a connection of its own, with a timeout so a hung call fails the test instead
/// of stalling it.
fn endpoint(url: &str) -> Endpoint {
    Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(10))
}

fn cart() -> pb::SimulateRequest {
    pb::SimulateRequest {
        week_day: pb::Weekday::Tuesday as i32,
        meat_amount: 12_990,
        fruits_and_vegetables_amount: 4_500,
        cleaning_amount: 2_390,
        drinks_amount: 1_990,
        other_amount: 7_000,
        partner_card: true,
    }
}

/// How one call ended.
#[derive(Debug)]
enum Outcome {
    /// The whole answer, equal to the one given before the load.
    Answered,
    /// An answer that differs from the reference: partial or wrong (shown when it fails).
    #[allow(dead_code)]
    Wrong(String),
    Refused(tonic::Status),
}

#[derive(Debug)]
struct Call {
    worker: usize,
    started: Instant,
    ended: Instant,
    outcome: Outcome,
}

/// Calls content in a loop until one call has begun after `gone` (the process has exited): even
/// workers simulate a cart, odd ones list the promotions (a database read), each on its own
/// connection.
async fn load(
    worker: usize,
    channel: Channel,
    reference: (pb::SimulateResponse, pb::ListPromotionsResponse),
    answered: Arc<AtomicUsize>,
    gone: Arc<AtomicBool>,
    token: String,
) -> Vec<Call> {
    let mut client = ContentServiceClient::with_interceptor(channel, Bearer(token));
    let mut calls = Vec::new();
    loop {
        let last = gone.load(Ordering::SeqCst);
        let started = Instant::now();
        let outcome = if worker.is_multiple_of(2) {
            match client.simulate(cart()).await {
                Ok(response) if response.get_ref() == &reference.0 => Outcome::Answered,
                Ok(response) => Outcome::Wrong(format!("{:?}", response.into_inner())),
                Err(status) => Outcome::Refused(status),
            }
        } else {
            match client.list_promotions(pb::ListPromotionsRequest {}).await {
                Ok(response) if response.get_ref() == &reference.1 => Outcome::Answered,
                Ok(response) => Outcome::Wrong(format!("{:?}", response.into_inner())),
                Err(status) => Outcome::Refused(status),
            }
        };
        let ended = Instant::now();
        match outcome {
            Outcome::Answered => {
                answered.fetch_add(1, Ordering::SeqCst);
            }
            // Refused calls are retried at a gentle pace: the process is going away.
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
        calls.push(Call {
            worker,
            started,
            ended,
            outcome,
        });
        if last {
            return calls;
        }
    }
}

/// Outcomes per phase, for `--nocapture` and failure reports.
fn summary(calls: &[Call], signalled: Instant, not_serving: Instant, exited: Instant) -> String {
    let mut lines = Vec::new();
    for (phase, from, to) in [
        ("before sigterm", None, Some(signalled)),
        ("until not serving seen", Some(signalled), Some(not_serving)),
        ("draining", Some(not_serving), Some(exited)),
        ("after exit", Some(exited), None),
    ] {
        let mut counts = std::collections::BTreeMap::<String, usize>::new();
        for call in calls.iter().filter(|c| {
            from.is_none_or(|from| c.started >= from) && to.is_none_or(|to| c.started < to)
        }) {
            let key = match &call.outcome {
                Outcome::Answered => "answered".to_owned(),
                Outcome::Wrong(_) => "wrong answer".to_owned(),
                Outcome::Refused(status) => format!("{:?}", status.code()),
            };
            *counts.entry(key).or_default() += 1;
        }
        lines.push(format!("{phase}: {counts:?}"));
    }
    lines.join("\n")
}

const GATEWAY_SECRET: &str = "gateway-secret-of-the-shutdown-drill";

/// The real auth service in this process (SQLite, memory store), with the gateway as a client:
/// its port, a gateway token from its grant, and what keeps it running.
async fn real_auth() -> (u16, String, (TestEnv, ShutdownTrigger)) {
    let env = TestEnv::sqlite_memory().await;
    let auth = miclub_auth::Application::build(
        miclub_auth::Settings {
            server: miclub_platform::grpc::ServerSettings {
                host: "127.0.0.1".into(),
                port: 0,
                drain_delay_ms: 0,
                ..Default::default()
            },
            database: env.database.clone(),
            service_clients: [(
                "gateway".to_owned(),
                miclub_auth::secret_digest(GATEWAY_SECRET),
            )]
            .into(),
            ..miclub_auth::Settings::default()
        },
        miclub_auth::Dependencies {
            store: env.store.clone(),
            notifier: Arc::new(miclub_platform::notify::DevMailbox::default()),
            environment: miclub_platform::config::Environment::Development,
        },
    )
    .await
    .expect("auth builds");
    let port = auth.port();
    let (trigger, stop) = miclub_platform::shutdown::channel();
    tokio::spawn(auth.run_until_stopped(stop));
    let token = AuthServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap()
        .issue_service_token(IssueServiceTokenRequest {
            client_id: "gateway".into(),
            client_secret: GATEWAY_SECRET.into(),
        })
        .await
        .expect("a gateway token")
        .into_inner()
        .access_token;
    (port, token, (env, trigger))
}

async fn wait_until_serving(url: &str, running: &RunningBinary) -> HealthClient<Channel> {
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    loop {
        if let Ok(channel) = endpoint(url).connect().await {
            let mut health = HealthClient::new(channel);
            let check = HealthCheckRequest {
                service: miclub_content::SERVICE_NAME.into(),
            };
            if let Ok(response) = health.check(check).await
                && response.into_inner().status() == ServingStatus::Serving
            {
                return health;
            }
        }
        assert!(
            Instant::now() < deadline,
            "content never reported SERVING:\n{}",
            running.output()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigterm_under_steady_load_drains_without_failing_a_request_that_began_before_it() {
    let (auth_port, token, _auth) = real_auth().await;
    let mut running = tokio::task::spawn_blocking(move || RunningBinary::start(auth_port))
        .await
        .unwrap();
    let url = running.url();
    let mut health = wait_until_serving(&url, &running).await;
    let mut first = ContentServiceClient::with_interceptor(
        endpoint(&url).connect().await.unwrap(),
        Bearer(token.clone()),
    );
    let reference = (
        first.simulate(cart()).await.unwrap().into_inner(),
        first
            .list_promotions(pb::ListPromotionsRequest {})
            .await
            .unwrap()
            .into_inner(),
    );
    assert!(
        reference.0.total_earned > 0,
        "the reference cart earns something: {:?}",
        reference.0
    );

    // Steady load on eight connections, all established and answering before the signal.
    let answered = Arc::new(AtomicUsize::new(0));
    let gone = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for worker in 0..WORKERS {
        let channel = endpoint(&url).connect().await.unwrap();
        workers.push(tokio::spawn(load(
            worker,
            channel,
            reference.clone(),
            Arc::clone(&answered),
            Arc::clone(&gone),
            token.clone(),
        )));
    }
    let warm = Instant::now() + Duration::from_secs(20);
    while answered.load(Ordering::SeqCst) < WORKERS * 10 {
        assert!(Instant::now() < warm, "the load never got going");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let signalled = Instant::now();
    running.sigterm();

    // Health turns NOT_SERVING on the connection opened before the signal, which is itself
    // proof the process still answers.
    let check = HealthCheckRequest {
        service: miclub_content::SERVICE_NAME.into(),
    };
    let not_serving_seen = loop {
        let status = health
            .check(check.clone())
            .await
            .unwrap_or_else(|status| {
                panic!(
                    "health stopped answering before it reported NOT_SERVING: {status:?}\n{}",
                    running.output()
                )
            })
            .into_inner()
            .status();
        if status == ServingStatus::NotServing {
            break Instant::now();
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(10),
            "health still {status:?} long after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };

    // The process exits by itself once drained: generous bound of the drain delay plus slack.
    let exit_deadline = signalled + Duration::from_millis(DRAIN_DELAY_MS) + Duration::from_secs(8);
    let (exit_status, exited) = loop {
        if let Some(status) = running.exited() {
            break (status, Instant::now());
        }
        assert!(
            Instant::now() < exit_deadline,
            "content still running long after SIGTERM:\n{}",
            running.output()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        exit_status.success(),
        "content exited with {exit_status}:\n{}",
        running.output()
    );

    // Every worker calls once more against the closed port, then stops.
    gone.store(true, Ordering::SeqCst);
    let mut calls = Vec::new();
    for worker in workers {
        calls.extend(worker.await.unwrap());
    }

    eprintln!("{}", summary(&calls, signalled, not_serving_seen, exited));

    let before_signal: Vec<&Call> = calls.iter().filter(|c| c.started < signalled).collect();
    let failed_before: Vec<&Call> = before_signal
        .iter()
        .copied()
        .filter(|c| !matches!(c.outcome, Outcome::Answered))
        .collect();
    assert!(
        failed_before.is_empty(),
        "calls that began before SIGTERM did not get their answer: {failed_before:#?}"
    );
    // Some of them were still in flight when the signal went out (the load was steady).
    assert!(
        before_signal.iter().any(|c| c.ended > signalled),
        "no call was in flight at the signal"
    );

    // After the signal: the whole answer, or a refusal of a connection that is gone.
    let bad_after: Vec<&Call> = calls
        .iter()
        .filter(|c| c.started >= signalled)
        .filter(|c| match &c.outcome {
            Outcome::Answered => false,
            Outcome::Refused(status) => !miclub_platform::grpc::is_transport_failure(status),
            Outcome::Wrong(_) => true,
        })
        .collect();
    assert!(
        bad_after.is_empty(),
        "calls after SIGTERM failed other than by a closed connection: {bad_after:#?}"
    );
    // Load balancers get their warning first: nothing is refused until NOT_SERVING is reported.
    let refused_early: Vec<&Call> = calls
        .iter()
        .filter(|c| c.started < not_serving_seen && matches!(c.outcome, Outcome::Refused(_)))
        .collect();
    assert!(
        refused_early.is_empty(),
        "calls were refused before health reported NOT_SERVING: {refused_early:#?}"
    );
    assert!(
        calls
            .iter()
            .any(|c| c.started > not_serving_seen && matches!(c.outcome, Outcome::Answered)),
        "no call that began during the drain was answered"
    );
    // Every worker saw the service go away (refused once the process was gone), so the
    // classification above really met refusals.
    for worker in 0..WORKERS {
        assert!(
            calls.iter().any(|c| c.worker == worker
                && c.started > exited
                && matches!(&c.outcome, Outcome::Refused(s) if s.code() == tonic::Code::Unavailable)),
            "worker {worker} was not refused as unavailable after the exit"
        );
    }
}
