//! The missions domain: validated definitions, the purchase event as missions reads it, the
//! rewards port to accounts, the use cases and the event consumer.

pub mod consumer;
pub mod event;
pub mod mission;
pub mod missions;
pub mod ports;

pub use consumer::{Consumer, ConsumerOptions, GROUP, Polled};
pub use event::{PURCHASE_POSTED, Purchase};
pub use mission::{
    GoalKind, MemberId, MemberMission, Mission, MissionId, MissionInput, MissionStatus,
};
pub use missions::{Missions, Processed};
pub use ports::{Reward, Rewards, reward_movement_id};
