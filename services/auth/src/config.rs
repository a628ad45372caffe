//! Settings of the auth service, section `[auth]` (`APP_AUTH__…` environment overrides).
//!
//! Every field has a default, so development runs with no file at all. [`Settings::validate`]
//! is where production refuses development conveniences (generated signing keys, demo seed)
//! and where limits that security depends on are checked once, at
//! start-up, instead of being clamped silently at run time.
//!
//! How to set each field: a key `k` of a table `[auth.x]` in `config/<environment>.toml` is the
//! environment variable `APP_AUTH__X__K` (e.g. `auth.policy.access_ttl_secs` is
//! `APP_AUTH__POLICY__ACCESS_TTL_SECS`, `auth.database.url` is `APP_AUTH__DATABASE__URL`).
//! - `server.{host,port,drain_delay_ms}`, `database.{url,max_connections,acquire_timeout_ms}`,
//!   `tokens.{issuer,audience,service_audience}`, `seed_demo`;
//! - `code_secret`: the server secret one-time codes are stored under (HMAC-SHA256), at least
//!   32 bytes (`APP_AUTH__CODE_SECRET`, e.g. `openssl rand -base64 48`); production requires
//!   it, development without one generates one per process;
//! - `signing.keys` (a list, `[[auth.signing.keys]]` each with `kid` and `private_key_pem`, so
//!   a config file rather than variables), `signing.active_kid`, `signing.dev_key_file`;
//! - `policy.*` (login, one-time code, session and password-change limits) and
//!   `hashing.{max_concurrent,nice}`, as documented on their structs below;
//! - `service_clients`: the internal callers of the client-credentials grant, one entry per
//!   client, `[auth.service_clients]` `accounts = "<sha256 hex of the secret>"`, or
//!   `APP_AUTH__SERVICE_CLIENTS__ACCOUNTS=<sha256 hex>`. Environment names are lowercased
//!   (`…__STORE_POS` is client `store_pos`), so client ids are lowercase, and ids set from the
//!   environment use `_` rather than `-`. Only digests are configured:
//!   `miclub_auth::secret_digest` (or `printf %s "$SECRET" | sha256sum`) makes one;
//! - `client_methods`: the methods each client's tokens may call, over the defaults of
//!   `grants::DEFAULT_GRANTS` (see there); every configured client must have a grant;
//! - `service_token_ttl_secs`: life of a service token (default 300, at most 900);
//! - `service_token_attempts` per `service_token_window_secs`: token requests per client id,
//!   right or wrong secret (default 30 per 60 s).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use miclub_platform::config::Environment;
use miclub_platform::grpc::ServerSettings;
use miclub_platform::storage::DatabaseSettings;
use miclub_platform::tls::InternalTls;
use miclub_platform::tokens::{MAX_ACCESS_TTL, TokenSettings};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use crate::grants::MethodList;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// gRPC listener; port 0 picks a free port.
    pub server: ServerSettings,
    /// Empty url: `sqlite://data/auth.db` in development; production requires one.
    pub database: DatabaseSettings,
    /// `iss` and `aud` of the access tokens this service signs (`audience` for members',
    /// `service_audience` for service tokens).
    pub tokens: TokenSettings,
    /// Secret that one-time codes are stored under (HMAC-SHA256), at least 32 bytes.
    /// Required in production; `None` in development generates one per process.
    pub code_secret: Option<SecretString>,
    /// Create credentials for `platform::demo::MEMBERS` at start-up (standalone, development).
    pub seed_demo: bool,
    pub signing: SigningSettings,
    pub policy: PolicySettings,
    pub hashing: HashingSettings,
    /// Client id → lowercase hex SHA-256 of its secret, for `IssueServiceToken`. Client ids are
    /// lowercase `a-z`, `0-9`, `-` and `_`, at most 64 characters.
    pub service_clients: BTreeMap<String, String>,
    /// Client id → the methods its tokens may call, replacing that client's default grant
    /// (`grants::DEFAULT_GRANTS`).
    pub client_methods: BTreeMap<String, MethodList>,
    /// Life of a service token; at most `platform::tokens::MAX_ACCESS_TTL`.
    pub service_token_ttl_secs: u64,
    /// `IssueServiceToken` requests one client id may make in `service_token_window_secs`,
    /// right secret or wrong; beyond, `ERR_TOO_MANY_ATTEMPTS`.
    pub service_token_attempts: i64,
    pub service_token_window_secs: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            server: ServerSettings::default(),
            database: DatabaseSettings::default(),
            tokens: TokenSettings::default(),
            code_secret: None,
            seed_demo: false,
            signing: SigningSettings::default(),
            policy: PolicySettings::default(),
            hashing: HashingSettings::default(),
            service_clients: BTreeMap::new(),
            client_methods: BTreeMap::new(),
            service_token_ttl_secs: 300,
            service_token_attempts: 30,
            service_token_window_secs: 60,
        }
    }
}

impl Settings {
    /// Serves gRPC with the process's internal TLS
    /// (section `[internal_tls]`).
    pub fn use_internal_tls(&mut self, tls: &InternalTls) {
        self.server.tls = tls.clone();
    }

    /// The database of a development run that configures none.
    pub const DEV_DATABASE_URL: &str = "sqlite://data/auth.db";

    /// Longest client id of `service_clients`.
    pub const MAX_CLIENT_ID_CHARS: usize = 64;

    /// Checks what cannot be checked by types alone; production is stricter.
    pub fn validate(&self, environment: Environment) -> anyhow::Result<()> {
        self.policy.validate()?;
        self.tokens
            .validate()
            .map_err(|e| anyhow::anyhow!("auth.{e}"))?;
        if let Some(secret) = &self.code_secret {
            crate::domain::types::CodeKey::from_secret(secret.expose_secret().as_bytes())?;
        }
        if self.service_token_attempts < 1 || self.service_token_window_secs == 0 {
            anyhow::bail!(
                "auth.service_token_attempts and auth.service_token_window_secs must be at least 1"
            );
        }
        if self.hashing.max_concurrent == 0 {
            anyhow::bail!("auth.hashing.max_concurrent must be at least 1");
        }
        if !(0..=HashingSettings::MAX_NICE).contains(&self.hashing.nice) {
            anyhow::bail!(
                "auth.hashing.nice must be between 0 and {}",
                HashingSettings::MAX_NICE
            );
        }
        if self.service_token_ttl_secs == 0
            || Duration::from_secs(self.service_token_ttl_secs) > MAX_ACCESS_TTL
        {
            anyhow::bail!(
                "auth.service_token_ttl_secs must be between 1 and {}",
                MAX_ACCESS_TTL.as_secs()
            );
        }
        for (client_id, digest) in &self.service_clients {
            let id_ok = !client_id.is_empty()
                && client_id.len() <= Self::MAX_CLIENT_ID_CHARS
                && client_id.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'
                });
            if !id_ok {
                anyhow::bail!(
                    "auth.service_clients: client id {client_id:?} must be 1 to {} lowercase letters, digits, '-' or '_'",
                    Self::MAX_CLIENT_ID_CHARS
                );
            }
            let digest_ok = digest.len() == 64
                && digest
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            if !digest_ok {
                // Never echo the value: it may be a secret pasted by mistake.
                anyhow::bail!(
                    "auth.service_clients.{client_id} must be the lowercase hex SHA-256 of the client secret (64 characters), not the secret"
                );
            }
        }
        let grants = crate::grants::grants(&self.client_methods);
        for (client_id, methods) in &grants {
            miclub_platform::access::check_grantable(methods)
                .map_err(|err| anyhow::anyhow!("auth.client_methods.{client_id}: {err}"))?;
        }
        if let Some(client_id) = self
            .service_clients
            .keys()
            .find(|client_id| grants.get(*client_id).is_none_or(Vec::is_empty))
        {
            anyhow::bail!(
                "auth.client_methods.{client_id} is missing: a configured client must be granted the methods it calls"
            );
        }
        if environment.is_production() {
            if self.signing.keys.is_empty() {
                anyhow::bail!("production needs configured signing keys (auth.signing.keys)");
            }
            if self.code_secret.is_none() {
                anyhow::bail!(
                    "production needs a secret for one-time codes (auth.code_secret, at least 32 bytes)"
                );
            }
            if self.seed_demo {
                anyhow::bail!("auth.seed_demo cannot be enabled in production");
            }
            self.database.require_postgres("auth")?;
        }
        Ok(())
    }

    /// The database to use: the configured one, or a SQLite file under `./data` in development.
    pub fn database_or_default(&self) -> DatabaseSettings {
        self.database.or_sqlite(Self::DEV_DATABASE_URL)
    }
}

/// Keys that sign access tokens. Every configured key is published in the JWKS; the active one
/// signs. Rotation: add the new key, make it active, remove the old one once the tokens it
/// signed have expired (15 minutes).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SigningSettings {
    pub keys: Vec<SigningKeySettings>,
    /// The `kid` that signs; may be omitted when exactly one key is configured.
    pub active_kid: Option<String>,
    /// Development only, when no keys are configured: where the generated Ed25519 key is kept
    /// so tokens survive a restart. `None` keeps it in memory.
    pub dev_key_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SigningKeySettings {
    pub kid: String,
    /// Ed25519 private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    pub private_key_pem: SecretString,
}

/// Limits of the login flow. Durations are seconds.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct PolicySettings {
    /// Life of a one-time code (and of its challenge).
    pub otp_ttl_secs: u64,
    /// Digits of a one-time code (6 to 9).
    pub otp_length: usize,
    /// Wrong codes a challenge survives; the next try ends it.
    pub otp_max_attempts: i64,
    /// Least time between two sends for one challenge; 0 disables the cooldown.
    pub resend_cooldown_secs: u64,
    /// Codes one member may receive in 24 hours.
    pub daily_send_cap: i64,
    /// Recovery requests per user string in `account_window_secs` (the password step has no
    /// per-account window any more: see `free_failures` and `account_daily_failures`).
    pub account_attempts: i64,
    pub account_window_secs: u64,
    /// Passwords checked at login (any account, right or wrong) per client address in
    /// `ip_window_secs`: bounds the hashing one address can ask for. High, since a carrier's
    /// NAT puts many members behind one address and most of their passwords are right.
    pub ip_attempts: i64,
    /// Wrong passwords at login (any account) per client address in `ip_window_secs`: what
    /// bounds guessing across accounts. Each attempt takes one before its password is checked,
    /// so parallel guesses cannot pass it, and a right password gives its one back.
    pub ip_failures: i64,
    /// Recovery requests (any account) per client address in `ip_window_secs`.
    pub ip_recoveries: i64,
    pub ip_window_secs: u64,
    /// Wrong passwords in a row an (account, client address) pair gets without waiting; each
    /// later one waits twice as long as the one before, from `first_delay_secs` up to
    /// `max_delay_secs` (defaults 3, 1 and 60: waits of 0, 0, 0, 1, 2, 4 … 60 s). A right
    /// password clears the pair; failures are forgotten 24 hours after the first.
    pub free_failures: i64,
    pub first_delay_secs: u64,
    pub max_delay_secs: u64,
    /// Wrong passwords in a row on one account, from every address together, in 24 hours
    /// before the account refuses every password (the right one too) for the rest of that
    /// day; a right password or a password recovery clears it. Much higher than
    /// `free_failures`: a stranger who knows the RUT slows only their own address.
    pub account_daily_failures: i64,
    /// Life of an access token; at most `platform::tokens::MAX_ACCESS_TTL`.
    pub access_ttl_secs: u64,
    /// Life of a refresh token; every rotation starts it again, never past the session's
    /// absolute limit.
    pub refresh_ttl_secs: u64,
    /// A session with no member request (the gateway marks activity; a refresh is not one)
    /// for this long cannot be refreshed.
    pub session_idle_secs: u64,
    /// A session ends this long after its code step, whatever its refreshes.
    pub session_absolute_secs: u64,
}

impl Default for PolicySettings {
    fn default() -> Self {
        Self {
            otp_ttl_secs: 300,
            otp_length: 6,
            otp_max_attempts: 5,
            resend_cooldown_secs: 60,
            daily_send_cap: 10,
            account_attempts: 5,
            account_window_secs: 900,
            ip_attempts: 300,
            ip_failures: 20,
            ip_recoveries: 20,
            ip_window_secs: 900,
            free_failures: 3,
            first_delay_secs: 1,
            max_delay_secs: 60,
            account_daily_failures: 100,
            access_ttl_secs: 900,
            refresh_ttl_secs: 30 * 24 * 3600,
            session_idle_secs: 30 * 60,
            session_absolute_secs: 12 * 3600,
        }
    }
}

impl PolicySettings {
    fn validate(&self) -> anyhow::Result<()> {
        if Duration::from_secs(self.access_ttl_secs) > MAX_ACCESS_TTL || self.access_ttl_secs == 0 {
            anyhow::bail!(
                "auth.policy.access_ttl_secs must be between 1 and {}",
                MAX_ACCESS_TTL.as_secs()
            );
        }
        // A password change revokes the sessions whose refresh token is live; a session whose
        // refresh token has expired must not have live access tokens.
        if self.refresh_ttl_secs < self.access_ttl_secs {
            anyhow::bail!("auth.policy.refresh_ttl_secs must be at least access_ttl_secs");
        }
        if self.free_failures < 0 {
            anyhow::bail!("auth.policy.free_failures must be 0 or more");
        }
        if self.max_delay_secs < self.first_delay_secs {
            anyhow::bail!("auth.policy.max_delay_secs must be at least first_delay_secs");
        }
        if self.account_daily_failures <= self.free_failures {
            anyhow::bail!("auth.policy.account_daily_failures must be above free_failures");
        }
        let lengths = crate::domain::types::OtpCode::LENGTHS;
        if !lengths.contains(&self.otp_length) {
            anyhow::bail!(
                "auth.policy.otp_length must be between {} and {} digits: shorter codes are guessed too easily",
                lengths.start(),
                lengths.end()
            );
        }
        for (name, value) in [
            ("otp_ttl_secs", self.otp_ttl_secs),
            ("account_window_secs", self.account_window_secs),
            ("ip_window_secs", self.ip_window_secs),
            ("refresh_ttl_secs", self.refresh_ttl_secs),
            ("first_delay_secs", self.first_delay_secs),
            ("session_idle_secs", self.session_idle_secs),
            ("session_absolute_secs", self.session_absolute_secs),
        ] {
            if value == 0 {
                anyhow::bail!("auth.policy.{name} must be at least 1");
            }
        }
        for (name, value) in [
            ("otp_max_attempts", self.otp_max_attempts),
            ("daily_send_cap", self.daily_send_cap),
            ("account_attempts", self.account_attempts),
            ("ip_attempts", self.ip_attempts),
            ("ip_failures", self.ip_failures),
            ("ip_recoveries", self.ip_recoveries),
            ("account_daily_failures", self.account_daily_failures),
        ] {
            if value < 1 {
                anyhow::bail!("auth.policy.{name} must be at least 1");
            }
        }
        Ok(())
    }

    pub fn otp_ttl(&self) -> Duration {
        Duration::from_secs(self.otp_ttl_secs)
    }

    pub fn resend_cooldown(&self) -> Duration {
        Duration::from_secs(self.resend_cooldown_secs)
    }

    pub fn account_window(&self) -> Duration {
        Duration::from_secs(self.account_window_secs)
    }

    pub fn ip_window(&self) -> Duration {
        Duration::from_secs(self.ip_window_secs)
    }

    pub fn access_ttl(&self) -> Duration {
        Duration::from_secs(self.access_ttl_secs)
    }

    pub fn refresh_ttl(&self) -> Duration {
        Duration::from_secs(self.refresh_ttl_secs)
    }

    /// The wait a pair owes after its `failures`-th wrong password in a row; zero while the
    /// failures are free.
    pub fn delay_after(&self, failures: i64) -> Duration {
        if failures < self.free_failures.max(1) {
            return Duration::ZERO;
        }
        let doublings = (failures - self.free_failures.max(1)).min(32) as u32;
        let secs = self
            .first_delay_secs
            .saturating_mul(1u64 << doublings)
            .min(self.max_delay_secs);
        Duration::from_secs(secs)
    }

    pub fn session_idle(&self) -> Duration {
        Duration::from_secs(self.session_idle_secs)
    }

    pub fn session_absolute(&self) -> Duration {
        Duration::from_secs(self.session_absolute_secs)
    }
}

/// Password hashing runs off the async runtime on `max_concurrent` threads of its own. The
/// argon2id parameters are OWASP's (m=19456 KiB, t=2, p=1) and deliberately not configurable.
///
/// Those threads run `nice` steps below the process (Linux nice values, per thread): a storm
/// of logins then takes the CPU only when nothing else needs it, so a member reading the
/// balance is not queued behind other members' argon2 work. 0 keeps them at the process's
/// priority (an auth deployment with its own cores, say).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct HashingSettings {
    pub max_concurrent: usize,
    pub nice: i32,
}

impl HashingSettings {
    /// The lowest priority a nice value can express is 19 steps from the default.
    pub const MAX_NICE: i32 = 19;
}

impl Default for HashingSettings {
    fn default() -> Self {
        Self {
            max_concurrent: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            nice: 10,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_documented_policy() {
        let settings = Settings::default();
        assert_eq!(settings.policy.otp_ttl_secs, 300);
        assert_eq!(settings.policy.otp_max_attempts, 5);
        assert_eq!(settings.policy.access_ttl_secs, 900);
        assert_eq!(settings.policy.free_failures, 3);
        assert_eq!(settings.policy.max_delay_secs, 60);
        assert_eq!(settings.policy.account_daily_failures, 100);
        assert_eq!(settings.policy.session_idle_secs, 1800);
        assert_eq!(settings.policy.session_absolute_secs, 12 * 3600);
        assert_eq!(settings.service_token_ttl_secs, 300);
        assert_eq!(settings.service_token_attempts, 30);
        assert_eq!(settings.service_token_window_secs, 60);
        assert_eq!(settings.policy.otp_length, 6);
        assert_eq!(settings.tokens.service_audience, "miclub-internal");
        assert!(settings.code_secret.is_none());
        assert!(settings.service_clients.is_empty());
        assert!(settings.validate(Environment::Development).is_ok());
    }

    #[test]
    fn a_refresh_token_may_not_die_before_its_access_token() {
        let mut settings = Settings::default();
        settings.policy.access_ttl_secs = 600;
        settings.policy.refresh_ttl_secs = 599;
        assert!(settings.validate(Environment::Development).is_err());
        settings.policy.refresh_ttl_secs = 600;
        assert!(settings.validate(Environment::Development).is_ok());
    }

    #[test]
    fn a_service_token_ttl_above_fifteen_minutes_or_zero_is_refused() {
        for (ttl, valid) in [(900, true), (901, false), (0, false)] {
            let settings = Settings {
                service_token_ttl_secs: ttl,
                ..Settings::default()
            };
            assert_eq!(
                settings.validate(Environment::Development).is_ok(),
                valid,
                "{ttl}"
            );
        }
    }

    #[test]
    fn service_clients_need_a_lowercase_id_and_a_sha256_digest_not_a_secret() {
        let digest = crate::secret_digest("s3cret");
        let mut settings = Settings::default();
        settings
            .service_clients
            .insert("store-pos_1".into(), digest.clone());
        // Without a grant the client could call nothing: refused, naming the setting.
        let ungranted = settings
            .validate(Environment::Development)
            .unwrap_err()
            .to_string();
        assert!(
            ungranted.contains("auth.client_methods.store-pos_1"),
            "{ungranted}"
        );
        settings.client_methods.insert(
            "store-pos_1".into(),
            MethodList(vec![
                "miclub.accounts.v1.AccountsService/PostPurchase".into(),
            ]),
        );
        assert!(settings.validate(Environment::Development).is_ok());
        for (id, value) in [
            ("Accounts", digest.clone()),
            ("", digest.clone()),
            ("a b", digest.clone()),
            ("accounts", "s3cret".to_owned()),
            ("accounts", digest.to_uppercase()),
        ] {
            let mut settings = Settings::default();
            settings.service_clients.insert(id.into(), value);
            let err = settings.validate(Environment::Development).unwrap_err();
            assert!(!err.to_string().contains("s3cret"), "{err}");
        }
    }

    #[test]
    fn codes_shorter_than_six_digits_are_refused_with_a_clear_message() {
        for (length, valid) in [(4, false), (5, false), (6, true), (9, true), (10, false)] {
            let mut settings = Settings::default();
            settings.policy.otp_length = length;
            let validated = settings.validate(Environment::Development);
            assert_eq!(validated.is_ok(), valid, "{length}");
            if let Err(err) = validated {
                assert!(
                    err.to_string()
                        .contains("auth.policy.otp_length must be between 6 and 9 digits"),
                    "{err}"
                );
            }
        }
    }

    #[test]
    fn a_code_secret_shorter_than_32_bytes_is_refused_without_echoing_it() {
        let mut settings = Settings {
            code_secret: Some(SecretString::from("short-secret-of-31-bytes-......")),
            ..Settings::default()
        };
        let err = settings.validate(Environment::Development).unwrap_err();
        assert!(err.to_string().contains("auth.code_secret"), "{err}");
        assert!(!err.to_string().contains("short-secret"), "{err}");
        settings.code_secret = Some(SecretString::from("long-enough-secret-of-32-bytes-."));
        assert!(settings.validate(Environment::Development).is_ok());
    }

    #[test]
    fn member_and_service_tokens_may_not_share_an_audience() {
        let mut settings = Settings::default();
        settings.tokens.service_audience = settings.tokens.audience.clone();
        let err = settings.validate(Environment::Development).unwrap_err();
        assert!(err.to_string().contains("service_audience"), "{err}");
    }

    #[test]
    fn wrong_passwords_wait_zero_zero_zero_one_two_four_up_to_the_cap() {
        let policy = PolicySettings::default();
        let waits: Vec<u64> = (1..=10).map(|f| policy.delay_after(f).as_secs()).collect();
        assert_eq!(waits, [0, 0, 1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(policy.delay_after(1000).as_secs(), 60);
    }

    #[test]
    fn an_access_ttl_above_fifteen_minutes_is_refused() {
        let mut settings = Settings::default();
        settings.policy.access_ttl_secs = 901;
        assert!(settings.validate(Environment::Development).is_err());
    }

    #[test]
    fn production_refuses_generated_keys_the_demo_seed_and_a_missing_database() {
        let settings = Settings::default();
        assert!(settings.validate(Environment::Production).is_err());
        let mut settings = Settings::default();
        settings.database.url = "postgres://auth@db/auth".into();
        settings.signing.keys.push(SigningKeySettings {
            kid: "k1".into(),
            private_key_pem: SecretString::from("x"),
        });
        let err = settings.validate(Environment::Production).unwrap_err();
        assert!(err.to_string().contains("auth.code_secret"), "{err}");
        settings.code_secret = Some(SecretString::from("k".repeat(32)));
        assert!(settings.validate(Environment::Production).is_ok());
        settings.seed_demo = true;
        assert!(settings.validate(Environment::Production).is_err());
        settings.seed_demo = false;
        settings.database.url.clear();
        assert!(settings.validate(Environment::Production).is_err());
        assert_eq!(
            settings.database_or_default().url,
            Settings::DEV_DATABASE_URL
        );
    }

    #[test]
    fn settings_read_from_toml_with_defaults_for_the_rest() {
        let layered = miclub_platform::config::Layered::from_toml(
            Environment::Development,
            "[auth]\nseed_demo = true\nservice_token_ttl_secs = 120\n[auth.policy]\notp_ttl_secs = 5\n\
             [auth.signing]\nactive_kid = \"a\"\n\
             [[auth.signing.keys]]\nkid = \"a\"\nprivate_key_pem = \"pem\"\n\
             [auth.service_clients]\naccounts = \"00ff\"\nstore-pos = \"11ee\"\n",
        )
        .unwrap();
        let settings: Settings = layered.section("auth").unwrap();
        assert!(settings.seed_demo);
        assert_eq!(settings.service_token_ttl_secs, 120);
        assert_eq!(settings.service_clients["accounts"], "00ff");
        assert_eq!(settings.service_clients["store-pos"], "11ee");
        assert_eq!(settings.policy.free_failures, 3);
        assert_eq!(settings.policy.otp_ttl_secs, 5);
        assert_eq!(settings.policy.daily_send_cap, 10);
        assert_eq!(settings.signing.keys[0].kid, "a");
    }
}
