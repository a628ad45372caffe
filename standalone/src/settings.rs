//! The `[standalone]` section: what only the one-process portal is configured with.

use std::path::PathBuf;

use secrecy::SecretString;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Where the SQLite files (and the development signing key) live.
    pub data_dir: PathBuf,
    /// Seed the demo members on start (idempotent).
    pub seed_demo: bool,
    /// When set, auth accepts the internal client `pos` (a store system) with this secret, so
    /// tests and demos can post purchases through accounts' gRPC API.
    pub pos_client_secret: Option<SecretString>,
    /// When set, auth accepts the internal client `ops` (an operator's tools: content flags,
    /// missions) with this secret.
    pub ops_client_secret: Option<SecretString>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            data_dir: PathBuf::from("data"),
            seed_demo: true,
            pos_client_secret: None,
            ops_client_secret: None,
        }
    }
}
