//! The production profile refuses development stand-ins (issue #17, item 3), tried on the real
//! binaries: each process gets the environment planned from the rendered overlay with one
//! setting turned into a stand-in (no Redis, SQLite, the dev mailbox, plaintext gRPC, no code
//! secret, no signing keys …), and must exit non-zero with a log line naming that setting,
//! before it serves.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use miclub_distributed::processes;
use miclub_distributed::secrets::Vault;
use miclub_distributed::topology::{Planned, Servers, prepare_folders};
use miclub_distributed::{Manifests, Options, Topology};

#[macro_use]
mod support;

use support::test_options;

/// One stand-in: the variable changed (its suffix, matched on every process that sets it), the
/// value it gets (`None`: removed) and what the refusal must name.
struct StandIn {
    variable_suffix: &'static str,
    value: Option<&'static str>,
    named: &'static str,
}

const STAND_INS: &[StandIn] = &[
    StandIn {
        variable_suffix: "APP_EPHEMERAL__REDIS_URL",
        value: None,
        named: "ephemeral.redis_url",
    },
    StandIn {
        variable_suffix: "APP_EVENTS__REDIS_URL",
        value: None,
        named: "events.redis_url",
    },
    StandIn {
        variable_suffix: "__DATABASE__URL",
        value: Some("sqlite://data/service.db"),
        named: "database.url",
    },
    StandIn {
        variable_suffix: "APP_NOTIFIER__KIND",
        value: Some("dev_mailbox"),
        named: "notifier.kind",
    },
    StandIn {
        variable_suffix: "APP_INTERNAL_TLS__ENABLED",
        value: Some("false"),
        named: "internal_tls.enabled",
    },
    StandIn {
        variable_suffix: "APP_AUTH__CODE_SECRET",
        value: None,
        named: "auth.code_secret",
    },
    StandIn {
        variable_suffix: "APP_GATEWAY__DEV_MAILBOX",
        value: Some("true"),
        named: "gateway.dev_mailbox",
    },
];

fn planned(options: &Options, state: &Path) -> Planned {
    let rendered = Topology::render(options).unwrap();
    // Databases that do not exist: a binary must refuse its stand-in before connecting.
    let databases: BTreeMap<String, String> = Topology::database_services(&rendered)
        .into_iter()
        .map(|s| (s.clone(), format!("postgres://{s}:pw@127.0.0.1:1/db_{s}")))
        .collect();
    Topology::plan(
        options,
        rendered,
        &mut Vault::open(state).unwrap(),
        &Servers {
            database_urls: &databases,
            recaptcha_verify_url: "http://127.0.0.1:1/siteverify",
        },
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_binary_refuses_each_development_stand_in_in_production_naming_the_setting() {
    require!(false, false);
    let state = tempfile::tempdir().unwrap();
    let options = Options {
        manifests: Manifests::Overlay(support::repo_root().join("k8s/overlays/dev")),
        ..test_options(state.path())
    };
    let planned = planned(&options, state.path());
    prepare_folders(&options, &planned, &state.path().join("logs")).unwrap();

    let mut tried = 0;
    let mut failures = Vec::new();
    for process in &planned.workloads {
        // The gateway sets no dev mailbox in the overlay: that stand-in is added, not changed.
        let mut env = process.env.clone();
        if process.name == "gateway" {
            env.insert("APP_GATEWAY__DEV_MAILBOX".into(), "false".into());
        }
        for stand_in in STAND_INS {
            let Some(variable) = env
                .keys()
                .find(|k| k.ends_with(stand_in.variable_suffix))
                .cloned()
            else {
                continue;
            };
            let mut changed = env.clone();
            match stand_in.value {
                Some(value) => changed.insert(variable.clone(), value.into()),
                None => changed.remove(&variable),
            };
            let plan = miclub_distributed::plan::ProcessPlan {
                env: changed,
                ..process.clone()
            };
            let mut command = processes::command(&plan, &options.bin_dir).unwrap();
            command
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true);
            tried += 1;
            let outcome = tokio::time::timeout(Duration::from_secs(30), command.output()).await;
            let what = format!("{} with {variable} {:?}", process.name, stand_in.value);
            match outcome {
                Err(_) => failures.push(format!("{what}: still running after 30 s")),
                Ok(output) => {
                    let output = output.unwrap();
                    let log = format!(
                        "{}{}",
                        String::from_utf8_lossy(&output.stdout),
                        String::from_utf8_lossy(&output.stderr)
                    );
                    if output.status.success() {
                        failures.push(format!("{what}: exited 0\n{log}"));
                    } else if !log.contains(stand_in.named) {
                        failures.push(format!(
                            "{what}: the refusal does not name {}\n{log}",
                            stand_in.named
                        ));
                    }
                }
            }
        }
    }
    // Without the mounted signing keys (the miclub-auth-signing Secret), auth has only its
    // development key to sign with: refused too.
    let auth = planned.workloads.iter().find(|p| p.name == "auth").unwrap();
    std::fs::remove_file(auth.workdir.join("config/base.toml")).unwrap();
    let mut command = processes::command(auth, &options.bin_dir).unwrap();
    command.kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(30), command.output())
        .await
        .expect("auth without signing keys still running after 30 s")
        .unwrap();
    let log = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success(),
        "auth started without signing keys"
    );
    assert!(log.contains("auth.signing.keys"), "{log}");

    assert!(
        tried >= 15,
        "only {tried} stand-ins applied: the overlay changed?"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
