//! The production profile refuses to start on development stand-ins: the real `miclub-gateway`
//! binary names the missing setting and exits non-zero, and `Application::build` refuses the dev
//! mailbox and the pass-through reCAPTCHA.

use std::process::Command;

use crate::support::*;

/// Runs the gateway binary with the repository's production profile and `env`; answers whether
/// it exited successfully and what it wrote to stderr.
fn start_in_production(env: &[(&str, &str)]) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_miclub-gateway"));
    command
        .env("APP_ENVIRONMENT", "production")
        .env(
            "APP_CONFIG_DIR",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../config"),
        )
        .env_remove("APP_EPHEMERAL__REDIS_URL")
        .env("APP_GATEWAY__PORT", "0");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("the gateway binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn in_production_the_gateway_refuses_an_in_memory_store_for_sessions_and_limits() {
    let (started, stderr) = start_in_production(&[]);
    assert!(!started);
    assert!(stderr.contains("ephemeral.redis_url"), "{stderr}");
}

#[tokio::test]
async fn production_refuses_the_dev_mailbox_and_the_pass_through_recaptcha() {
    let keys = TestKeys::new();
    let deps = || Dependencies {
        environment: Environment::Production,
        store: Arc::new(MemoryStore::default()),
        key_source: keys.key_source(),
        mailbox: None,
    };
    let mailbox = Settings {
        port: 0,
        dev_mailbox: true,
        ..Settings::default()
    };
    assert!(Application::build(mailbox, deps()).await.is_err());
    let pass_through = Settings {
        port: 0,
        ..Settings::default()
    };
    assert!(Application::build(pass_through, deps()).await.is_err());
}
