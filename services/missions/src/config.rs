//! Missions settings, section `[missions]` (`APP_MISSIONS__…`, e.g. `APP_MISSIONS__SERVER__PORT`).
//!
//! Every field has a default, so the service starts with no configuration at all: gRPC on
//! port 50053.

use miclub_platform::grpc::ServerSettings;
use serde::Deserialize;

/// Default gRPC port of missions.
pub const DEFAULT_PORT: u16 = 50053;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// gRPC listener; port 0 picks a free port.
    pub server: ServerSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            server: ServerSettings {
                port: DEFAULT_PORT,
                ..ServerSettings::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use miclub_platform::config::{Environment, Layered};

    use super::*;

    #[test]
    fn a_missing_section_gives_a_service_on_its_own_port() {
        let layered = Layered::from_toml(Environment::Development, "").unwrap();
        let settings: Settings = layered.section("missions").unwrap();
        assert_eq!(settings.server.port, DEFAULT_PORT);
    }
}
