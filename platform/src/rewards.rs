//! How many mission rewards, and how many pesos of them, one member may be granted: missions
//! offers no single reward above the pesos, and accounts' `GrantReward` refuses to go past
//! either in any 24 hours. They bound what a leaked missions token (or a mission set up by
//! mistake) can add to one member's balance, where the member could spend it at the till, and
//! to their Mis Movimientos.

/// Pesos of mission rewards one member may be granted in any 24 hours, and the largest reward
/// one mission may offer. Missions' rewards are a few thousand pesos; a member completing several
/// missions in a day stays far below it.
pub const REWARD_PESOS_PER_DAY: i64 = 100_000;

/// Mission rewards one member may be granted in any 24 hours, whatever their amounts: a member
/// completes a handful of missions a day, and without it a leaked token could fill a member's
/// Mis Movimientos with one-peso rewards whose texts it chose.
pub const REWARDS_PER_DAY: i64 = 20;

/// The window both limits are counted over, in milliseconds.
pub const REWARD_WINDOW_MS: i64 = 24 * 60 * 60 * 1_000;
