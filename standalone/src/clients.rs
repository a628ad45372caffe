//! The internal clients of one run: the services that call others as themselves, each with a
//! secret made afresh on every start that never leaves the process, and the optional `pos` and
//! `ops` clients the settings admit.

use std::collections::BTreeMap;

use miclub_platform::tokens::ServiceCredentials;
use secrecy::{ExposeSecret, SecretString};

use crate::settings::Settings;

pub(crate) struct InternalClients {
    /// Accounts calls auth as an internal client (it hands over confirmed emails).
    pub accounts: ServiceCredentials,
    /// Missions grants rewards as movements in accounts.
    pub missions: ServiceCredentials,
    /// Registration creates members in accounts and credentials in auth the same way.
    pub registration: ServiceCredentials,
    /// The gateway makes a visitor's anonymous calls (log in, join, content) as itself.
    pub gateway: ServiceCredentials,
}

impl InternalClients {
    pub fn generate() -> Self {
        let client = |client_id: &str| ServiceCredentials {
            client_id: client_id.into(),
            client_secret: SecretString::from(random_secret()),
        };
        Self {
            accounts: client("accounts"),
            missions: client("missions"),
            registration: client("registration"),
            gateway: client("gateway"),
        }
    }

    /// Admits every internal client, and `pos` and `ops` when `settings` give their secrets, in
    /// auth's `service_clients`.
    pub fn admit(&self, settings: &Settings, service_clients: &mut BTreeMap<String, String>) {
        for internal in [
            &self.accounts,
            &self.registration,
            &self.missions,
            &self.gateway,
        ] {
            service_clients.insert(
                internal.client_id.clone(),
                miclub_auth::secret_digest(internal.client_secret.expose_secret()),
            );
        }
        for (client_id, secret) in [
            ("pos", &settings.pos_client_secret),
            ("ops", &settings.ops_client_secret),
        ] {
            if let Some(secret) = secret {
                service_clients.insert(
                    client_id.to_owned(),
                    miclub_auth::secret_digest(secret.expose_secret()),
                );
            }
        }
    }
}

/// 32 random bytes as hex: a client secret for one run.
fn random_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
