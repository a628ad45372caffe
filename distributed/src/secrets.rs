//! The Secrets the manifests reference, produced on this machine.
//!
//! The cluster's Secrets are created by operators (docs/operations.md, "Secrets"); here each
//! referenced key is produced by [`TABLE`]: one line per key, saying how its value is made.
//! Random values are generated on first run into `secrets.json` of the state folder (owner-only)
//! and reused, so sessions and keys survive a restart. A key the table does not know is an
//! error naming it: the manifests gained something this tool cannot make yet.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::pki::write_private;

/// How the value of one Secret key is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Produce {
    /// The PostgreSQL URL of the service's own database and role (`miclub-<service>`).
    DatabaseUrl,
    /// The local Redis.
    RedisUrl,
    /// The mail catcher's SMTP user name (the same for every sender).
    SmtpUsername,
    /// The mail catcher's SMTP password (the same for every sender).
    SmtpPassword,
    /// A random secret shared by every holder of this key name.
    Random,
    /// Client `<service>`'s secret for the client-credentials grant (`miclub-<service>`).
    ClientSecret,
    /// SHA-256 hex of client `<suffix>`'s secret (the key `client-digest-<suffix>`).
    ClientDigest,
    /// auth's signing keys as `config/base.toml` (a PKCS#8 Ed25519 key under the active kid).
    SigningKeys,
    /// The component's certificate, its key, and the CA (internal TLS).
    TlsCert,
    TlsKey,
    TlsCa,
}

/// Secret key (a trailing `*` matches any suffix) → how its value is produced.
pub const TABLE: &[(&str, Produce)] = &[
    ("database-url", Produce::DatabaseUrl),
    ("redis-url", Produce::RedisUrl),
    ("events-redis-url", Produce::RedisUrl),
    ("smtp-username", Produce::SmtpUsername),
    ("smtp-password", Produce::SmtpPassword),
    ("code-secret", Produce::Random),
    ("recaptcha-secret", Produce::Random),
    ("client-secret", Produce::ClientSecret),
    ("client-digest-*", Produce::ClientDigest),
    ("base.toml", Produce::SigningKeys),
    ("tls.crt", Produce::TlsCert),
    ("tls.key", Produce::TlsKey),
    ("ca.crt", Produce::TlsCa),
];

/// How `key` is produced, if the table knows it.
pub fn produce(key: &str) -> Option<Produce> {
    TABLE.iter().find_map(|(pattern, produce)| {
        let matches = match pattern.strip_suffix('*') {
            Some(prefix) => key.starts_with(prefix) && key.len() > prefix.len(),
            None => *pattern == key,
        };
        matches.then_some(*produce)
    })
}

/// The service a Secret belongs to: `miclub-accounts` → `accounts`.
pub fn owner(secret_name: &str) -> &str {
    let name = secret_name.strip_prefix("miclub-").unwrap_or(secret_name);
    name.split('-').next().unwrap_or(name)
}

/// The generated values, kept in `secrets.json`.
#[derive(Debug)]
pub struct Vault {
    path: PathBuf,
    values: BTreeMap<String, String>,
}

impl Vault {
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join("secrets.json");
        let values = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{} is not the json this tool wrote", path.display()))?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(err) => return Err(err).context(format!("reading {}", path.display())),
        };
        Ok(Self { path, values })
    }

    /// The value kept under `name`, made by `make` (and saved) the first time.
    pub fn get_or(
        &mut self,
        name: &str,
        make: impl FnOnce() -> anyhow::Result<String>,
    ) -> anyhow::Result<String> {
        if let Some(value) = self.values.get(name) {
            return Ok(value.clone());
        }
        let value = make()?;
        self.values.insert(name.to_owned(), value.clone());
        write_private(&self.path, &serde_json::to_string_pretty(&self.values)?)?;
        Ok(value)
    }

    /// A random secret kept under `name`: 48 random bytes, base64.
    pub fn random(&mut self, name: &str) -> anyhow::Result<String> {
        self.get_or(name, || Ok(random_secret()))
    }

    /// Client `id`'s secret.
    pub fn client_secret(&mut self, id: &str) -> anyhow::Result<String> {
        self.random(&format!("client-secret/{id}"))
    }

    /// SHA-256 hex of client `id`'s secret, as auth's `service_clients` expects.
    pub fn client_digest(&mut self, id: &str) -> anyhow::Result<String> {
        let secret = self.client_secret(id)?;
        Ok(sha256_hex(&secret))
    }

    /// auth's signing key (PKCS#8 PEM Ed25519), made once.
    pub fn signing_key(&mut self) -> anyhow::Result<String> {
        self.get_or("auth-signing-key", || {
            use ed25519_dalek::pkcs8::EncodePrivateKey;
            let mut seed = [0u8; 32];
            rand::rng().fill_bytes(&mut seed);
            let pem = ed25519_dalek::SigningKey::from_bytes(&seed)
                .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
                .context("encoding the signing key")?;
            Ok(pem.to_string())
        })
    }
}

/// 48 random bytes, URL-safe base64 without padding (64 characters).
pub fn random_secret() -> String {
    let mut bytes = [0u8; 48];
    rand::rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// auth's `config/base.toml` with one signing key under `kid`.
pub fn signing_keys_toml(kid: &str, private_key_pem: &str) -> String {
    format!(
        "# Generated by miclub-distributed: auth's signing keys, as the miclub-auth-signing Secret holds them.\n\
         [[auth.signing.keys]]\nkid = {kid:?}\nprivate_key_pem = '''\n{}'''\n",
        private_key_pem.trim_end().to_owned() + "\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_secret_key_of_the_manifests_has_one_line_in_the_table() {
        assert_eq!(produce("database-url"), Some(Produce::DatabaseUrl));
        assert_eq!(
            produce("client-digest-gateway"),
            Some(Produce::ClientDigest)
        );
        assert_eq!(produce("client-digest-"), None);
        assert_eq!(produce("stripe-key"), None);
        assert_eq!(owner("miclub-auth-signing"), "auth");
        assert_eq!(owner("miclub-registration"), "registration");
    }

    #[test]
    fn a_client_digest_is_the_sha256_of_the_same_clients_secret() {
        let dir = tempfile::tempdir().unwrap();
        let mut vault = Vault::open(dir.path()).unwrap();
        let secret = vault.client_secret("accounts").unwrap();
        assert_eq!(
            vault.client_digest("accounts").unwrap(),
            sha256_hex(&secret)
        );
        assert_ne!(vault.client_secret("missions").unwrap(), secret);
        let mut reopened = Vault::open(dir.path()).unwrap();
        assert_eq!(reopened.client_secret("accounts").unwrap(), secret);
    }
}
