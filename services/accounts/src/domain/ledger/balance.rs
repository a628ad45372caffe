//! The balance of a club account: whole pesos, never negative.

use crate::error::{AccountsError, Result};

/// The balance of a club account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Balance {
    /// Whole pesos, never negative.
    pesos: i64,
    /// Instant of the last movement that changed it (the opening before any), Unix milliseconds.
    updated_at: i64,
}

impl Balance {
    pub fn new(pesos: i64, updated_at: i64) -> Result<Self> {
        if pesos < 0 {
            return Err(AccountsError::invalid("balance", "negative"));
        }
        Ok(Self { pesos, updated_at })
    }

    pub fn pesos(&self) -> i64 {
        self.pesos
    }

    pub fn updated_at(&self) -> i64 {
        self.updated_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_balance_is_never_negative() {
        assert!(Balance::new(-1, 0).is_err());
        assert_eq!(Balance::new(0, 0).unwrap().pesos(), 0);
    }
}
