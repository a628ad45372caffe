//! What missions needs from another service: [`Rewards`], the ledger in accounts.
//!
//! The gRPC adapter is `clients::GrpcRewards`; tests use a fake that records calls. A reward is
//! a movement with a deterministic id per (mission, member) ([`reward_movement_id`]), and
//! accounts records a movement id once, so granting the same reward again is harmless.

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use super::mission::{MemberId, MissionId};
use crate::error::Result;

/// A reward to record in the member's ledger (an ADJUSTMENT of `amount` pesos).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reward {
    /// The mission reached; not sent to accounts.
    pub mission_id: String,
    pub movement_id: String,
    pub member_id: MemberId,
    pub amount: i64,
    /// "Misión cumplida: <title>", as it was when the mission was completed.
    pub description: String,
}

/// The ledger in accounts.
#[async_trait]
pub trait Rewards: Send + Sync + std::fmt::Debug + 'static {
    /// Records `reward`; OK when recorded now or before (same movement id).
    /// `Unavailable` when it may succeed later, `Refused` when accounts refused it for good.
    async fn grant(&self, reward: &Reward) -> Result<()>;
}

/// The movement id of the reward of `mission` for `member`: always the same for the pair, in
/// the form accounts accepts (at most 64 of `[A-Za-z0-9-_:.]`): `mission-` and a UUID (version
/// 8, from SHA-256 of the pair).
pub fn reward_movement_id(mission: &MissionId, member: &MemberId) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"miclub.missions.reward\0");
    hasher.update(mission.as_str().as_bytes());
    hasher.update(b"\0");
    hasher.update(member.as_str().as_bytes());
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    // RFC 9562 version 8 (custom) and the RFC variant.
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    format!("mission-{}", uuid::Uuid::from_bytes(bytes).hyphenated())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_movement_id_is_stable_per_pair_and_accepted_by_accounts() {
        let mission = MissionId::parse("carnes-nov").unwrap();
        let other_mission = MissionId::parse("carnes-dic").unwrap();
        let ana = MemberId::parse("7b0f6d2e-0000-4000-8000-000000000001").unwrap();
        let diego = MemberId::parse("7b0f6d2e-0000-4000-8000-000000000004").unwrap();
        let id = reward_movement_id(&mission, &ana);
        assert_eq!(id, reward_movement_id(&mission, &ana));
        assert_ne!(id, reward_movement_id(&mission, &diego));
        assert_ne!(id, reward_movement_id(&other_mission, &ana));
        assert!(id.starts_with("mission-"));
        assert!(id.len() <= 64);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
        );
        let uuid = uuid::Uuid::parse_str(id.trim_start_matches("mission-")).unwrap();
        assert_eq!(uuid.get_version_num(), 8);
    }
}
