//! The production profile of the real `miclub-gateway` binary refuses to start on development
//! stand-ins, naming the missing setting and exiting non-zero.

use std::process::Command;

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
