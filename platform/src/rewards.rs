//! How many pesos of mission rewards one member may be granted: missions offers no single
//! reward above it, and accounts' `GrantReward` refuses to go past it in any 24 hours. It bounds
//! what a leaked missions token (or a mission set up by mistake) can add to one member's
//! balance, where the member could spend it at the till.

/// Pesos of mission rewards one member may be granted in any 24 hours, and the largest reward
/// one mission may offer. Missions' rewards are a few thousand pesos; a member completing several
/// missions in a day stays far below it.
pub const REWARD_PESOS_PER_DAY: i64 = 100_000;

/// The window [`REWARD_PESOS_PER_DAY`] is counted over, in milliseconds.
pub const REWARD_WINDOW_MS: i64 = 24 * 60 * 60 * 1_000;
