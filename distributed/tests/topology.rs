//! The distributed topology against the real binaries, PostgreSQL and Redis.
//!
//! The binaries are the debug builds next to this test's own executable (`<target>/debug`, so
//! `CARGO_TARGET_DIR` is honoured): `env!("CARGO_BIN_EXE_…")` names only this crate's binaries,
//! and building the six is `scripts/test`'s job (`cargo build -p miclub-gateway -p miclub-auth
//! …`); a missing binary fails the test with the command that builds it. The tests skip, loudly,
//! only when kubectl, node, PostgreSQL or Redis is missing on the machine, and never under
//! `scripts/test` (which sets `MICLUB_DISTRIBUTED_REQUIRED`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use miclub_distributed::plan::PlanError;
use miclub_distributed::secrets::Vault;
use miclub_distributed::topology::Servers;
use miclub_distributed::{Manifests, Options, Topology, postgres, recaptcha};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};

#[macro_use]
mod support;

use support::{log_in, redis_keys_under, repo_root, test_options};

#[tokio::test(flavor = "multi_thread")]
async fn the_portal_serves_a_demo_member_end_to_end_across_six_processes() {
    require!(true, true);
    let state = tempfile::tempdir().unwrap();
    let options = test_options(state.path());
    let prefix = options.redis_key_prefix.clone().unwrap();
    let running = Topology::start(options).await.unwrap();
    let base = &running.gateway_url;
    let client = reqwest::Client::new();
    let jar = log_in(&running, &client, "11.111.111-1", "ana@example.cl").await;

    let balance = client
        .get(format!("{base}/api/balance"))
        .header("cookie", jar.header())
        .send()
        .await
        .unwrap();
    assert_eq!(balance.status(), StatusCode::OK);
    assert!(balance.text().await.unwrap().contains("12345"));

    // A token the stand-in did not mint for this form is refused, as Google's would be.
    let forged = client
        .post(format!("{base}/api/login"))
        .header("x-miclub-csrf", "1")
        .header("recaptcha-token", recaptcha::token("registration"))
        .json(&json!({"user": "11.111.111-1", "password": "MiClub2026!"}))
        .send()
        .await
        .unwrap();
    assert_ne!(forged.status(), StatusCode::OK);

    // Each process got exactly the environment planned from the overlay, nothing inherited.
    for (name, plan) in &running.plans {
        let pid = running.pid(name).unwrap();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let actual: BTreeMap<String, String> = environ
            .split(|b| *b == 0)
            .filter(|entry| !entry.is_empty())
            .filter_map(|entry| {
                let text = String::from_utf8_lossy(entry);
                text.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
            })
            .collect();
        assert_eq!(actual, plan.env, "the environment of {name}");
    }
    assert!(
        !redis_keys_under(&prefix).await.is_empty(),
        "the run keeps its sessions and events under its prefix"
    );
    running.stop().await.unwrap();
    assert_eq!(
        redis_keys_under(&prefix).await,
        Vec::<String>::new(),
        "a stopped test run leaves no key behind"
    );
}

/// A stop asked right after a process died (an e2e file's clean-up after the refused page load
/// that death caused) must still say which process died: `miclub-distributed` looks with
/// `exited_now` before it stops the rest, not only every half second.
#[tokio::test(flavor = "multi_thread")]
async fn a_process_that_died_is_named_at_once_without_waiting_for_the_next_look() {
    require!(true, true);
    let state = tempfile::tempdir().unwrap();
    let mut running = Topology::start(test_options(state.path())).await.unwrap();
    assert!(running.exited_now().is_none(), "every process is running");
    let gateway = running.pid("gateway").expect("the gateway's pid");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &gateway.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    let exited = loop {
        if let Some(exited) = running.exited_now() {
            break exited;
        }
        assert!(Instant::now() < deadline, "the death was not seen");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(exited.name, "gateway");
    assert!(
        exited.status.to_string().contains("SIGKILL"),
        "{}",
        exited.status
    );
    assert!(
        exited.log_tail.contains("gateway listening"),
        "{}",
        exited.log_tail
    );
    running.stop().await.unwrap();
}

/// A start that fails after services ran leaves none of its Redis keys: a start tried again on
/// new ports keeps the run's prefix, and a purchase stream the failed attempt filled would be
/// read again by the next attempt's missions (the seeded purchases counted twice).
#[tokio::test(flavor = "multi_thread")]
async fn a_start_that_fails_leaves_none_of_its_redis_keys_behind() {
    require!(true, true);
    let state = tempfile::tempdir().unwrap();
    let mut options = test_options(state.path());
    // The gateway, started last, refuses a setting it cannot read and exits.
    options.overrides = vec![("APP_GATEWAY__SECURE_COOKIES".into(), "maybe".into())];
    let prefix = options.redis_key_prefix.clone().unwrap();
    let err = Topology::start(options)
        .await
        .expect_err("a gateway that exits is never ready");
    assert!(
        format!("{err:#}").contains("gateway exited"),
        "the start failed on the gateway: {err:#}"
    );
    // Missions ran before the gateway and created its purchase stream under the prefix.
    let missions_log = std::fs::read_to_string(state.path().join("logs/missions.log")).unwrap();
    assert!(missions_log.contains("purchase event consumer started"));
    assert_eq!(
        redis_keys_under(&prefix).await,
        Vec::<String>::new(),
        "the failed start dropped its keys with its databases"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_service_role_reaches_only_its_own_database() {
    require!(true, false);
    let options = test_options(Path::new("/nonexistent"));
    let rendered = Topology::render(&options).unwrap();
    let services = Topology::database_services(&rendered);
    assert_eq!(
        services,
        ["accounts", "auth", "content", "missions", "registration"]
    );
    let databases = postgres::provision(
        &options.postgres_admin_url,
        &options.database_prefix,
        &services,
        |_| Ok(miclub_distributed::secrets::random_secret()),
    )
    .await
    .unwrap();
    let _cleanup = DropWhenDone(Some(databases.clone()));
    {
        for (service, url) in &databases.urls {
            let mut own = PgConnection::connect(url)
                .await
                .unwrap_or_else(|e| panic!("{service} cannot reach its own database: {e}"));
            // It owns its schema: it can create what its migrations create.
            sqlx::query("CREATE TABLE probe (id BIGINT)")
                .execute(&mut own)
                .await
                .unwrap();
            let superuser: bool =
                sqlx::query_scalar("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
                    .fetch_one(&mut own)
                    .await
                    .unwrap();
            assert!(!superuser, "{service}'s role is a superuser");
            assert!(
                sqlx::query("CREATE DATABASE escape")
                    .execute(&mut own)
                    .await
                    .is_err(),
                "{service}'s role may create databases"
            );
            for (other, name) in &databases.names {
                if other == service {
                    continue;
                }
                let role = &databases.names[service];
                let password = url::Url::parse(url).unwrap().password().unwrap().to_owned();
                let foreign = postgres::with_database(
                    &options.postgres_admin_url,
                    name,
                    Some((role, &password)),
                )
                .unwrap();
                let refused = PgConnection::connect(&foreign).await;
                assert!(
                    refused.is_err(),
                    "{service}'s role reached {other}'s database"
                );
                let message = refused.err().unwrap().to_string();
                assert!(
                    message.contains("permission denied") || message.contains("CONNECT"),
                    "{service} → {other}: {message}"
                );
            }
        }
    }
}

/// Drops the test's databases and roles when the test ends, passed or failed.
struct DropWhenDone(Option<postgres::Databases>);

impl Drop for DropWhenDone {
    fn drop(&mut self) {
        if let Some(databases) = self.0.take() {
            std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap()
                    .block_on(databases.drop_all())
                    .unwrap()
            })
            .join()
            .unwrap();
        }
    }
}

/// The rendered dev overlay as YAML documents, to change one before planning.
fn rendered_documents() -> Vec<Value> {
    let yaml =
        miclub_distributed::manifests::render(&repo_root().join("k8s/overlays/dev")).unwrap();
    serde_norway::Deserializer::from_str(&yaml)
        .map(|doc| serde::Deserialize::deserialize(doc).unwrap())
        .filter(|v: &Value| !v.is_null())
        .collect()
}

fn to_yaml(documents: &[Value]) -> String {
    documents
        .iter()
        .map(|d| serde_norway::to_string(d).unwrap())
        .collect::<Vec<_>>()
        .join("---\n")
}

fn plan(
    documents: &[Value],
    state: &Path,
) -> Result<miclub_distributed::topology::Planned, PlanError> {
    let options = Options {
        manifests: Manifests::Rendered(to_yaml(documents)),
        ..test_options(state)
    };
    let rendered = Topology::render(&options).unwrap();
    let databases: BTreeMap<String, String> = Topology::database_services(&rendered)
        .into_iter()
        .map(|s| {
            (
                s.clone(),
                format!("postgres://{s}:pw@127.0.0.1:5432/db_{s}"),
            )
        })
        .collect();
    let mut vault = Vault::open(state).unwrap();
    Topology::plan(
        &options,
        rendered,
        &mut vault,
        &Servers {
            database_urls: &databases,
            recaptcha_verify_url: "http://127.0.0.1:1/siteverify",
        },
    )
}

fn gateway_container(documents: &mut [Value]) -> &mut Value {
    documents
        .iter_mut()
        .find(|d| d["kind"] == "Deployment" && d["metadata"]["name"] == "gateway")
        .map(|d| &mut d["spec"]["template"]["spec"]["containers"][0])
        .unwrap()
}

fn gateway_config_map(documents: &mut [Value]) -> &mut Value {
    documents
        .iter_mut()
        .find(|d| {
            d["kind"] == "ConfigMap"
                && d["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("gateway-config-"))
        })
        .map(|d| &mut d["data"])
        .unwrap()
}

#[tokio::test]
async fn the_environment_of_each_process_comes_from_the_rendered_overlay() {
    require!(false, false);
    let state = tempfile::tempdir().unwrap();
    let mut documents = rendered_documents();

    let planned = plan(&documents, state.path()).unwrap();
    let by_name = |name: &str| planned.workloads.iter().find(|p| p.name == name).unwrap();
    let port_of = |workload: &str, port: u16| planned.ports[&(workload.to_owned(), port)];
    for process in &planned.workloads {
        assert_eq!(
            process.env["APP_ENVIRONMENT"], "production",
            "{}",
            process.name
        );
        assert!(
            process
                .env
                .keys()
                .all(|k| k != "OTEL_EXPORTER_OTLP_ENDPOINT")
        );
    }
    let auth = by_name("auth");
    assert_eq!(auth.env["APP_AUTH__SIGNING__ACTIVE_KID"], "miclub-2026-01");
    assert_eq!(
        auth.env["APP_AUTH__SERVER__PORT"],
        port_of("auth", 50051).to_string()
    );
    assert_eq!(auth.env["APP_AUTH__SERVER__HOST"], "127.0.0.1");
    assert_eq!(
        auth.env["APP_NOTIFIER__FROM"],
        "Mi Club <no-responder@miclub.cl>"
    );
    assert_eq!(auth.env["TOKIO_WORKER_THREADS"], "1");
    assert_eq!(auth.env["APP_AUTH__CODE_SECRET"].len(), 64);
    // The client secret a service holds is the one whose digest auth checks.
    assert_eq!(
        auth.env["APP_AUTH__SERVICE_CLIENTS__ACCOUNTS"],
        miclub_distributed::secrets::sha256_hex(
            &by_name("accounts").env["APP_ACCOUNTS__SERVICE_CLIENT__CLIENT_SECRET"]
        )
    );
    // The signing keys Secret is auth's mounted config/base.toml, under the active kid.
    let (_, base_toml) = auth
        .files
        .iter()
        .find(|(path, _)| path.ends_with("config/base.toml"))
        .unwrap();
    assert!(base_toml.contains("kid = \"miclub-2026-01\""));
    // Mounted ConfigMaps become files, and the variables naming them point there.
    let accounts = by_name("accounts");
    let rules = &accounts.env["APP_ACCOUNTS__ACCRUAL__RULES_FILE"];
    let (_, text) = accounts
        .files
        .iter()
        .find(|(path, _)| path.display().to_string() == *rules)
        .unwrap_or_else(|| panic!("no mounted file at {rules}"));
    assert_eq!(
        *text,
        std::fs::read_to_string(repo_root().join("accrual/rules/default.toml")).unwrap()
    );
    let gateway = by_name("gateway");
    assert_eq!(gateway.env["APP_GATEWAY__TRUSTED_PROXIES"], "10.0.0.0/8");
    assert_eq!(
        gateway.env["APP_GATEWAY__AUTH__URL"],
        format!(
            "https://127.0.0.1:{}",
            planned.service_ports[&("auth".to_owned(), 50051)]
        )
    );
    // Internal TLS as the overlay turns it on: the mounted Secret holds the local CA's files.
    assert_eq!(auth.env["APP_INTERNAL_TLS__ENABLED"], "true");
    let ca_path = &auth.env["APP_INTERNAL_TLS__CA_FILE"];
    let (_, ca) = auth
        .files
        .iter()
        .find(|(path, _)| path.display().to_string() == *ca_path)
        .unwrap_or_else(|| panic!("no mounted file at {ca_path}"));
    assert_eq!(*ca, std::fs::read_to_string(&planned.pki.ca_file).unwrap());
    assert_eq!(gateway.env["APP_GATEWAY__HOST"], "127.0.0.1");
    assert_eq!(
        by_name("missions").env["APP_MISSIONS__CONSUMER__NAME"],
        "missions-0"
    );
    assert_eq!(
        gateway
            .depends_on
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["accounts", "auth", "content", "missions", "registration"]
    );

    // A value changed in the overlay reaches the process.
    gateway_config_map(&mut documents)["APP_GATEWAY__TRUSTED_PROXIES"] = "192.168.77.0/24".into();
    let changed = plan(&documents, state.path()).unwrap();
    let gateway = changed
        .workloads
        .iter()
        .find(|p| p.name == "gateway")
        .unwrap();
    assert_eq!(
        gateway.env["APP_GATEWAY__TRUSTED_PROXIES"],
        "192.168.77.0/24"
    );

    // A Secret key the tool cannot produce fails with the variable's name.
    let mut with_secret = documents.clone();
    let env = gateway_container(&mut with_secret)["env"]
        .as_array_mut()
        .unwrap();
    env.push(serde_norway::from_str::<Value>(
        "{name: APP_GATEWAY__PAYMENTS__KEY, valueFrom: {secretKeyRef: {name: miclub-gateway, key: payments-key}}}",
    ).unwrap());
    let error = plan(&with_secret, state.path()).unwrap_err().to_string();
    assert!(error.contains("APP_GATEWAY__PAYMENTS__KEY"), "{error}");
    assert!(error.contains("payments-key"), "{error}");

    // So does a host that is neither a Service of the overlay nor a known external endpoint.
    let mut with_host = documents.clone();
    gateway_config_map(&mut with_host)["APP_GATEWAY__BILLING__URL"] = "http://billing:9000".into();
    let error = plan(&with_host, state.path()).unwrap_err().to_string();
    assert!(error.contains("APP_GATEWAY__BILLING__URL"), "{error}");
    assert!(error.contains("billing"), "{error}");
}
