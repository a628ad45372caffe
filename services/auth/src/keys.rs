//! Auth's keys: the Ed25519 keys that sign access tokens with the JWK Set that publishes them,
//! and the secret one-time codes are keyed with.
//!
//! Production configures keys (PKCS#8 PEM, each with a `kid`) and names the active one; all of
//! them are published, so during a rotation tokens signed by the previous key still verify.
//! Development without configured keys generates one and, when `signing.dev_key_file` is set,
//! keeps it in that file (mode 0600) so sessions survive a restart. Production refuses to start
//! without configured keys.
//!
//! One-time codes are stored as HMAC-SHA256 under `auth.code_secret` ([`CodeKey`], defined in
//! `domain::types` so that the settings can check the secret without importing this module): a
//! stolen challenge (a Redis dump) does not give its 6 digits away to a million guesses, as a
//! plain hash would. Production refuses to start without the secret; development without one
//! generates a random secret per process, which is enough because the challenges it keys live
//! in that process's ephemeral store (several development processes sharing a Redis must
//! configure the same secret).

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use ed25519_dalek::SigningKey;
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey, KeypairBytes};
use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey};
use miclub_platform::config::Environment;
use miclub_platform::tokens::{Claims, StaticKeySource, access_token_header};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use crate::config::SigningSettings;
use crate::domain::types::hex;

// The code key is a value the settings check too, so it is defined with the other validated
// values, below the settings; the key ring holds one and names it here as it always did.
pub use crate::domain::types::CodeKey;

/// The signing key in use, the public keys of every configured key, and the code key.
pub struct KeyRing {
    active_kid: String,
    encoding: EncodingKey,
    jwks: JwkSet,
    jwks_json: String,
    codes: CodeKey,
}

impl std::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyRing")
            .field("active_kid", &self.active_kid)
            .field("published", &self.jwks.keys.len())
            .finish()
    }
}

struct LoadedKey {
    kid: String,
    encoding: EncodingKey,
    jwk: Jwk,
}

impl KeyRing {
    /// The signing keys of `settings` and the code key of `code_secret` (`auth.code_secret`).
    pub fn load(
        settings: &SigningSettings,
        code_secret: Option<&SecretString>,
        environment: Environment,
    ) -> anyhow::Result<Self> {
        let (keys, active_kid) = signing_keys(settings, environment)?;
        let codes = CodeKey::load(code_secret, environment)?;
        Self::from_keys(keys, active_kid, codes)
    }

    fn from_keys(
        keys: Vec<LoadedKey>,
        active_kid: Option<&str>,
        codes: CodeKey,
    ) -> anyhow::Result<Self> {
        let active_kid = match active_kid {
            Some(kid) => kid.to_owned(),
            None if keys.len() == 1 => keys[0].kid.clone(),
            None => {
                anyhow::bail!("several signing keys are configured: set auth.signing.active_kid")
            }
        };
        let jwks = JwkSet {
            keys: keys.iter().map(|k| k.jwk.clone()).collect(),
        };
        let active = keys
            .into_iter()
            .find(|k| k.kid == active_kid)
            .with_context(|| {
                format!("auth.signing.active_kid {active_kid:?} is not a configured key")
            })?;
        let jwks_json = serde_json::to_string(&jwks).context("serialising the jwk set")?;
        tracing::info!(active_kid = %active_kid, published = jwks.keys.len(), "signing keys loaded");
        Ok(Self {
            active_kid,
            encoding: active.encoding,
            jwks,
            jwks_json,
            codes,
        })
    }

    /// Signs `claims` with the active key; the header names its `kid` and `typ: at+jwt`.
    pub fn sign(&self, claims: &Claims) -> anyhow::Result<String> {
        let header = access_token_header(&self.active_kid);
        jsonwebtoken::encode(&header, claims, &self.encoding).context("signing an access token")
    }

    /// The key one-time codes are stored under.
    pub fn codes(&self) -> &CodeKey {
        &self.codes
    }

    pub fn active_kid(&self) -> &str {
        &self.active_kid
    }

    pub fn jwks(&self) -> &JwkSet {
        &self.jwks
    }

    /// The JWK Set (RFC 7517) as `GetJwks` answers it.
    pub fn jwks_json(&self) -> &str {
        &self.jwks_json
    }

    /// Our own public keys as a key source, for verifying tokens we signed.
    pub fn key_source(&self) -> StaticKeySource {
        StaticKeySource(self.jwks.clone())
    }
}

/// The configured signing keys and the active kid, or in development a generated key.
fn signing_keys(
    settings: &SigningSettings,
    environment: Environment,
) -> anyhow::Result<(Vec<LoadedKey>, Option<&str>)> {
    if settings.keys.is_empty() {
        if environment.is_production() {
            anyhow::bail!("production needs configured signing keys (auth.signing.keys)");
        }
        let key = match &settings.dev_key_file {
            Some(path) => dev_key_from_file(path)?,
            None => {
                tracing::warn!("no signing keys configured: using a generated key kept in memory");
                let signing = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
                loaded(dev_kid(&signing), &signing)?
            }
        };
        return Ok((vec![key], None));
    }
    let mut keys = Vec::with_capacity(settings.keys.len());
    for configured in &settings.keys {
        if configured.kid.trim().is_empty() {
            anyhow::bail!("every signing key needs a kid");
        }
        if keys.iter().any(|k: &LoadedKey| k.kid == configured.kid) {
            anyhow::bail!("signing key id {:?} is configured twice", configured.kid);
        }
        let signing = SigningKey::from_pkcs8_pem(configured.private_key_pem.expose_secret())
            .map_err(|e| {
                anyhow::anyhow!(
                    "signing key {:?} is not an Ed25519 PKCS#8 PEM: {e}",
                    configured.kid
                )
            })?;
        keys.push(loaded(configured.kid.clone(), &signing)?);
    }
    Ok((keys, settings.active_kid.as_deref()))
}

fn loaded(kid: String, signing: &SigningKey) -> anyhow::Result<LoadedKey> {
    // jsonwebtoken derives the public JWK only from the 48-byte PKCS#8 v1 form (no public key
    // inside), so re-encode whatever form the PEM had.
    let der = KeypairBytes {
        secret_key: signing.to_bytes(),
        public_key: None,
    }
    .to_pkcs8_der()
    .map_err(|e| anyhow::anyhow!("encoding signing key {kid:?}: {e}"))?;
    let encoding = EncodingKey::from_ed_der(der.as_bytes());
    let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::EdDSA)
        .with_context(|| format!("deriving the public jwk of {kid:?}"))?;
    jwk.common.key_id = Some(kid.clone());
    jwk.common.public_key_use = Some(PublicKeyUse::Signature);
    Ok(LoadedKey { kid, encoding, jwk })
}

/// A stable id for a generated key: a digest of its public key.
fn dev_kid(signing: &SigningKey) -> String {
    let digest = Sha256::digest(signing.verifying_key().as_bytes());
    format!("dev-{}", &hex(&digest)[..16])
}

/// Reads the development key from `path`, creating it on first use.
fn dev_key_from_file(path: &Path) -> anyhow::Result<LoadedKey> {
    let signing = match std::fs::read_to_string(path) {
        Ok(pem) => SigningKey::from_pkcs8_pem(&pem)
            .map_err(|e| anyhow::anyhow!("{} is not an Ed25519 PKCS#8 PEM: {e}", path.display()))?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let signing = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
            match write_new_key(path, &signing) {
                Ok(()) => {
                    tracing::warn!(path = %path.display(), "generated a development signing key");
                    signing
                }
                // Another process created it meanwhile: use theirs.
                Err(err)
                    if err
                        .downcast_ref::<std::io::Error>()
                        .is_some_and(|e| e.kind() == std::io::ErrorKind::AlreadyExists) =>
                {
                    return dev_key_from_file(path);
                }
                Err(err) => return Err(err),
            }
        }
        Err(err) => return Err(err).with_context(|| format!("reading {}", path.display())),
    };
    loaded(dev_kid(&signing), &signing)
}

fn write_new_key(path: &Path, signing: &SigningKey) -> anyhow::Result<()> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let pem = signing
        .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .map_err(|e| anyhow::anyhow!("encoding the development key: {e}"))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(anyhow::Error::from)?;
    file.write_all(pem.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    file.sync_all().ok();
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use miclub_platform::tokens::{TokenKind, TokenSettings, TokenVerifier};
    use secrecy::SecretString;

    use super::*;
    use crate::config::SigningKeySettings;

    fn pem() -> String {
        let signing = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
        signing
            .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
            .unwrap()
            .to_string()
    }

    fn claims(settings: &TokenSettings) -> Claims {
        let now = chrono::Utc::now().timestamp();
        Claims {
            iss: settings.issuer.clone(),
            aud: settings.audience.clone(),
            sub: "m1".into(),
            sid: "s1".into(),
            kind: TokenKind::Member,
            iat: now,
            nbf: now,
            exp: now + 60,
            jti: "j".into(),
            scope: String::new(),
        }
    }

    #[tokio::test]
    async fn every_configured_key_is_published_and_the_active_one_signs() {
        let settings = SigningSettings {
            keys: vec![
                SigningKeySettings {
                    kid: "old".into(),
                    private_key_pem: SecretString::from(pem()),
                },
                SigningKeySettings {
                    kid: "new".into(),
                    private_key_pem: SecretString::from(pem()),
                },
            ],
            active_kid: Some("new".into()),
            dev_key_file: None,
        };
        let code_secret = SecretString::from("c".repeat(CodeKey::MIN_SECRET_BYTES));
        let ring = KeyRing::load(&settings, Some(&code_secret), Environment::Production).unwrap();
        assert_eq!(ring.jwks().keys.len(), 2);
        let tokens = TokenSettings::default();
        let token = ring.sign(&claims(&tokens)).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.kid.as_deref(), Some("new"));
        assert_eq!(header.typ.as_deref(), Some("at+jwt"));
        let verifier = TokenVerifier::new(&tokens, Arc::new(ring.key_source()), None);
        assert_eq!(verifier.verify(&token).await.unwrap().sub, "m1");
        let published: JwkSet = serde_json::from_str(ring.jwks_json()).unwrap();
        assert_eq!(published.keys.len(), 2);
    }

    #[test]
    fn several_keys_need_an_active_kid_that_exists() {
        let two = vec![
            SigningKeySettings {
                kid: "a".into(),
                private_key_pem: SecretString::from(pem()),
            },
            SigningKeySettings {
                kid: "b".into(),
                private_key_pem: SecretString::from(pem()),
            },
        ];
        let mut settings = SigningSettings {
            keys: two,
            active_kid: None,
            dev_key_file: None,
        };
        let code_secret = SecretString::from("c".repeat(CodeKey::MIN_SECRET_BYTES));
        let load = |settings: &SigningSettings| {
            KeyRing::load(settings, Some(&code_secret), Environment::Production)
        };
        assert!(load(&settings).is_err());
        settings.active_kid = Some("c".into());
        assert!(load(&settings).is_err());
        settings.active_kid = Some("b".into());
        assert!(load(&settings).is_ok());
    }

    #[test]
    fn production_refuses_to_start_without_configured_keys() {
        assert!(KeyRing::load(&SigningSettings::default(), None, Environment::Production).is_err());
        assert!(KeyRing::load(&SigningSettings::default(), None, Environment::Development).is_ok());
    }

    #[test]
    fn a_development_key_file_keeps_the_key_across_restarts() {
        let dir = std::env::temp_dir().join(format!(
            "miclub-auth-keys-{}",
            uuid::Uuid::new_v4().simple()
        ));
        let path = dir.join("nested").join("dev-key.pem");
        let settings = SigningSettings {
            dev_key_file: Some(path.clone()),
            ..Default::default()
        };
        let first = KeyRing::load(&settings, None, Environment::Development).unwrap();
        let second = KeyRing::load(&settings, None, Environment::Development).unwrap();
        assert_eq!(first.active_kid(), second.active_kid());
        assert_eq!(first.jwks_json(), second.jwks_json());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(dir).ok();
    }
}
