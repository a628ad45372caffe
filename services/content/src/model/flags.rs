//! The runtime flags an operator switches without a restart: the portal on or off (the
//! maintenance screen), whether members may change their password, and the login maintenance
//! notice. Stored one row per flag; `data/flags.toml` holds the values a fresh database starts
//! with.

use serde::Deserialize;

/// One flag, by its stored name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlagName {
    PortalEnabled,
    ChangePasswordEnable,
    IsLoginMaintenance,
}

impl FlagName {
    pub const ALL: [FlagName; 3] = [
        FlagName::PortalEnabled,
        FlagName::ChangePasswordEnable,
        FlagName::IsLoginMaintenance,
    ];

    /// The stored (and seed file) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FlagName::PortalEnabled => "portal_enabled",
            FlagName::ChangePasswordEnable => "change_password_enable",
            FlagName::IsLoginMaintenance => "is_login_maintenance",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|name| name.as_str() == raw)
    }
}

/// Every flag's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flags {
    /// False shows the maintenance screen.
    pub portal_enabled: bool,
    pub change_password_enable: bool,
    pub is_login_maintenance: bool,
}

impl Flags {
    pub fn get(&self, name: FlagName) -> bool {
        match name {
            FlagName::PortalEnabled => self.portal_enabled,
            FlagName::ChangePasswordEnable => self.change_password_enable,
            FlagName::IsLoginMaintenance => self.is_login_maintenance,
        }
    }

    pub fn set(&mut self, name: FlagName, value: bool) {
        match name {
            FlagName::PortalEnabled => self.portal_enabled = value,
            FlagName::ChangePasswordEnable => self.change_password_enable = value,
            FlagName::IsLoginMaintenance => self.is_login_maintenance = value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flag_is_read_and_written_on_its_own() {
        let mut flags = Flags {
            portal_enabled: true,
            change_password_enable: false,
            is_login_maintenance: false,
        };
        flags.set(FlagName::IsLoginMaintenance, true);
        assert!(flags.get(FlagName::IsLoginMaintenance));
        assert!(flags.get(FlagName::PortalEnabled));
        assert!(!flags.get(FlagName::ChangePasswordEnable));
    }

    #[test]
    fn names_round_trip_through_their_stored_spelling() {
        for name in FlagName::ALL {
            assert_eq!(FlagName::parse(name.as_str()), Some(name));
        }
        assert_eq!(FlagName::parse("portalEnabled"), None);
    }
}
