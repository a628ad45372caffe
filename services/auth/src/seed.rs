//! Demo credentials for standalone and development (`auth.seed_demo`).
//!
//! One credential per `platform::demo::MEMBERS` entry, under the same member ids accounts
//! seeds, with the demo password: argon2id, or bcrypt for the migrated (legacy) member so
//! their first login shows the migration. Idempotent: members that already have credentials
//! are left alone (a rehashed legacy member stays rehashed across restarts).

use miclub_platform::demo::{DEMO_PASSWORD, MEMBERS};
use miclub_platform::identity::LoginId;
use miclub_platform::storage::now_millis;

use crate::domain::{HashScheme, MemberId, Password, PasswordHasher};
use crate::store::{NewCredentials, Store};

/// Creates the missing demo credentials; returns how many were created.
pub async fn seed_demo(store: &Store, hasher: &PasswordHasher) -> anyhow::Result<usize> {
    let password =
        Password::parse(DEMO_PASSWORD).map_err(|e| anyhow::anyhow!("demo password: {e}"))?;
    let mut created = 0;
    for member in MEMBERS {
        let member_id = MemberId::parse(member.member_id)
            .map_err(|e| anyhow::anyhow!("demo member id {}: {e}", member.member_id))?;
        if store.credentials_by_member_id(&member_id).await?.is_some() {
            continue;
        }
        let login_id = LoginId::parse(member.rut)
            .map_err(|e| anyhow::anyhow!("demo rut {}: {e}", member.rut))?
            .canonical();
        let (hash, scheme) = if member.legacy_password {
            (
                hasher.legacy_hash(&password).await,
                HashScheme::LegacyBcrypt,
            )
        } else {
            (hasher.hash(&password).await, HashScheme::Argon2id)
        };
        let hash = hash.map_err(|e| anyhow::anyhow!("hashing a demo password: {e}"))?;
        let inserted = store
            .insert_credentials(
                &NewCredentials {
                    member_id: &member_id,
                    login_id: &login_id,
                    email: member.email,
                    password_hash: &hash,
                    hash_scheme: scheme,
                    email_verified: member.email_verified,
                },
                now_millis(),
            )
            .await?;
        if inserted {
            created += 1;
        }
    }
    tracing::info!(created, "demo credentials seeded");
    Ok(created)
}
