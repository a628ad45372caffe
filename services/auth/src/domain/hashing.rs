//! Password hashing: argon2id for every new hash, bcrypt only to verify legacy hashes of
//! migrated members (which are then rehashed).
//!
//! Hashing is deliberately slow, so it never runs on the async runtime: each hash or check goes
//! to a pool of `hashing.max_concurrent` threads of its own, which run `hashing.nice` steps
//! below the process. A burst of logins queues there and takes only the CPU that serving other
//! requests leaves, instead of stalling them. A check whose caller has gone (a client that hung
//! up while queued) is skipped. An unknown user is checked against a dummy hash of the same
//! cost, so it answers in about the time a wrong password does.

use std::sync::Arc;

use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use argon2::{Algorithm, Argon2, Params, PasswordHash, Version};
use tokio::sync::oneshot;

use super::types::{Password, random_token};
use crate::config::HashingSettings;
use crate::error::{AuthError, AuthResult};

/// How a stored password hash was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashScheme {
    Argon2id,
    /// bcrypt from the previous platform; verified once, then replaced by argon2id.
    LegacyBcrypt,
}

impl HashScheme {
    pub fn as_str(self) -> &'static str {
        match self {
            HashScheme::Argon2id => "argon2id",
            HashScheme::LegacyBcrypt => "legacy_bcrypt",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "argon2id" => Some(HashScheme::Argon2id),
            "legacy_bcrypt" => Some(HashScheme::LegacyBcrypt),
            _ => None,
        }
    }
}

/// The outcome of checking a password against a stored hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    pub matches: bool,
    /// The hash should be replaced by a current argon2id one (legacy scheme, older cost).
    pub needs_rehash: bool,
}

#[derive(Debug, Clone)]
pub struct PasswordHasher {
    params: Params,
    pool: Arc<rayon::ThreadPool>,
    /// A hash of a random password with the current parameters, for unknown users.
    dummy: Arc<str>,
}

impl PasswordHasher {
    /// OWASP's argon2id parameters: 19 MiB, 2 passes, 1 lane.
    pub const OWASP_M_COST_KIB: u32 = 19_456;
    pub const OWASP_T_COST: u32 = 2;
    pub const OWASP_P_COST: u32 = 1;

    /// bcrypt cost of the legacy hashes the demo seed makes (the previous platform's).
    pub const LEGACY_BCRYPT_COST: u32 = 10;

    pub async fn new(settings: &HashingSettings) -> anyhow::Result<Self> {
        let params = Params::new(
            Self::OWASP_M_COST_KIB,
            Self::OWASP_T_COST,
            Self::OWASP_P_COST,
            None,
        )?;
        let nice = settings.nice;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(settings.max_concurrent.max(1))
            .thread_name(|index| format!("argon2-{index}"))
            .start_handler(move |_| lower_priority(nice))
            .panic_handler(|_| tracing::error!("a password hashing thread panicked"))
            .build()?;
        let mut hasher = Self {
            params,
            pool: Arc::new(pool),
            dummy: Arc::from(""),
        };
        let throwaway = Password::parse(random_token(24)).map_err(|e| anyhow::anyhow!("{e}"))?;
        hasher.dummy = Arc::from(
            hasher
                .hash(&throwaway)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        );
        Ok(hasher)
    }

    fn argon2(params: Params) -> Argon2<'static> {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
    }

    /// A new argon2id hash (PHC string) with a fresh salt.
    pub async fn hash(&self, password: &Password) -> AuthResult<String> {
        let password = password.clone();
        let params = self.params.clone();
        self.blocking(move || {
            Self::argon2(params)
                .hash_password(password.expose().as_bytes())
                .map(|hash| hash.to_string())
                .map_err(|e| AuthError::Internal(anyhow::anyhow!("argon2 hashing failed: {e}")))
        })
        .await?
    }

    /// A bcrypt hash, as the previous platform made them (demo seed of migrated members).
    pub async fn legacy_hash(&self, password: &Password) -> AuthResult<String> {
        let password = password.clone();
        self.blocking(move || {
            bcrypt::hash(password.expose(), Self::LEGACY_BCRYPT_COST)
                .map_err(|e| AuthError::Internal(anyhow::anyhow!("bcrypt hashing failed: {e}")))
        })
        .await?
    }

    /// Checks `password` against a stored hash. A malformed stored hash is an error of ours,
    /// logged, and never matches.
    pub async fn check(
        &self,
        password: &Password,
        scheme: HashScheme,
        stored: &str,
    ) -> AuthResult<Checked> {
        let password = password.clone();
        let stored = stored.to_owned();
        let current = self.params.clone();
        self.blocking(move || match scheme {
            HashScheme::Argon2id => {
                let parsed = match PasswordHash::new(&stored) {
                    Ok(parsed) => parsed,
                    Err(err) => {
                        tracing::error!(error = %err, "stored argon2 hash is malformed");
                        return Checked {
                            matches: false,
                            needs_rehash: false,
                        };
                    }
                };
                let matches = Self::argon2(current.clone())
                    .verify_password(password.expose().as_bytes(), &parsed)
                    .is_ok();
                let outdated = parsed.algorithm.as_str() != "argon2id"
                    || Params::try_from(&parsed).is_ok_and(|p| {
                        p.m_cost() != current.m_cost()
                            || p.t_cost() != current.t_cost()
                            || p.p_cost() != current.p_cost()
                    });
                Checked {
                    matches,
                    needs_rehash: matches && outdated,
                }
            }
            HashScheme::LegacyBcrypt => match bcrypt::verify(password.expose(), &stored) {
                Ok(matches) => Checked {
                    matches,
                    needs_rehash: matches,
                },
                Err(err) => {
                    tracing::error!(error = %err, "stored bcrypt hash is malformed");
                    Checked {
                        matches: false,
                        needs_rehash: false,
                    }
                }
            },
        })
        .await
    }

    /// Spends the time of a real check, for a user that does not exist.
    pub async fn check_dummy(&self, password: &Password) -> AuthResult<()> {
        let dummy = self.dummy.clone();
        self.check(password, HashScheme::Argon2id, &dummy)
            .await
            .map(|_| ())
    }

    /// Runs `work` on the hashing pool, unless its caller is gone by the time a thread is free.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> AuthResult<T> {
        let (done, answer) = oneshot::channel();
        self.pool.spawn(move || {
            if !done.is_closed() {
                let _ = done.send(work());
            }
        });
        answer
            .await
            .map_err(|_| AuthError::Internal(anyhow::anyhow!("password hashing task failed")))
    }
}

/// Moves the calling thread `steps` nice values below where it is (at most to the lowest). A
/// refusal is logged and the thread keeps its priority: hashing still works, only less politely.
#[cfg(target_os = "linux")]
fn lower_priority(steps: i32) {
    use rustix::process::{getpriority_process, setpriority_process};
    if steps == 0 {
        return;
    }
    // On Linux the nice value is per thread, and `PRIO_PROCESS` with a thread id sets one thread.
    let thread = Some(rustix::thread::gettid());
    let outcome = getpriority_process(thread).and_then(|current| {
        setpriority_process(thread, (current + steps).min(HashingSettings::MAX_NICE))
    });
    if let Err(err) = outcome {
        tracing::warn!(error = %err, "could not lower the priority of a password hashing thread");
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority(_steps: i32) {}

#[cfg(test)]
mod tests {
    use super::*;

    async fn hasher() -> PasswordHasher {
        PasswordHasher::new(&HashingSettings {
            max_concurrent: 2,
            nice: 10,
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_password_matches_its_own_argon2id_hash_only() {
        let hasher = hasher().await;
        let password = Password::parse("MiClub2026!").unwrap();
        let hash = hasher.hash(&password).await.unwrap();
        assert!(hash.starts_with("$argon2id$"));
        let right = hasher
            .check(&password, HashScheme::Argon2id, &hash)
            .await
            .unwrap();
        assert_eq!(
            right,
            Checked {
                matches: true,
                needs_rehash: false
            }
        );
        let wrong = Password::parse("otra").unwrap();
        assert!(
            !hasher
                .check(&wrong, HashScheme::Argon2id, &hash)
                .await
                .unwrap()
                .matches
        );
    }

    #[tokio::test]
    async fn a_legacy_bcrypt_hash_matches_and_asks_for_a_rehash() {
        let hasher = hasher().await;
        let password = Password::parse("MiClub2026!").unwrap();
        let legacy = hasher.legacy_hash(&password).await.unwrap();
        let checked = hasher
            .check(&password, HashScheme::LegacyBcrypt, &legacy)
            .await
            .unwrap();
        assert_eq!(
            checked,
            Checked {
                matches: true,
                needs_rehash: true
            }
        );
    }

    #[tokio::test]
    async fn hashes_use_owasp_parameters_and_a_cheaper_hash_is_upgraded() {
        let owasp = hasher().await;
        let password = Password::parse("MiClub2026!").unwrap();
        assert!(
            owasp
                .hash(&password)
                .await
                .unwrap()
                .starts_with("$argon2id$v=19$m=19456,t=2,p=1$")
        );
        let cheap = PasswordHasher::argon2(Params::new(1024, 1, 1, None).unwrap())
            .hash_password(password.expose().as_bytes())
            .unwrap()
            .to_string();
        let checked = owasp
            .check(&password, HashScheme::Argon2id, &cheap)
            .await
            .unwrap();
        assert_eq!(
            checked,
            Checked {
                matches: true,
                needs_rehash: true
            }
        );
    }

    #[tokio::test]
    async fn a_malformed_stored_hash_never_matches() {
        let hasher = hasher().await;
        let password = Password::parse("x").unwrap();
        assert!(
            !hasher
                .check(&password, HashScheme::Argon2id, "garbage")
                .await
                .unwrap()
                .matches
        );
        assert!(
            !hasher
                .check(&password, HashScheme::LegacyBcrypt, "garbage")
                .await
                .unwrap()
                .matches
        );
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn hashing_threads_run_below_the_process_priority() {
        use rustix::process::getpriority_process;
        let here = getpriority_process(Some(rustix::thread::gettid())).unwrap();
        let hasher = hasher().await;
        let there = hasher
            .blocking(|| getpriority_process(Some(rustix::thread::gettid())).unwrap())
            .await
            .unwrap();
        assert_eq!(there, (here + 10).min(HashingSettings::MAX_NICE));
    }

    #[tokio::test]
    async fn a_check_whose_caller_has_gone_is_skipped() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let hasher = PasswordHasher::new(&HashingSettings {
            max_concurrent: 1,
            nice: 0,
        })
        .await
        .unwrap();
        // The only thread is held until the abandoned job is queued behind it.
        let (release, held) = std::sync::mpsc::channel::<()>();
        let mut holding = Box::pin(hasher.blocking(move || held.recv().ok()));
        tokio::select! { biased; _ = &mut holding => panic!("the pool is held"), () = std::future::ready(()) => {} }

        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let mut abandoned = Box::pin(hasher.blocking(move || flag.store(true, Ordering::SeqCst)));
        tokio::select! { biased; _ = &mut abandoned => panic!("queued behind the held job"), () = std::future::ready(()) => {} }
        drop(abandoned);

        release.send(()).unwrap();
        holding.await.unwrap();
        // Jobs from outside the pool run in order, so this one runs after the abandoned one.
        hasher.blocking(|| ()).await.unwrap();
        assert!(!ran.load(Ordering::SeqCst));
    }
}
