//! Which calendar month in Chile a member may ask to browse; the month itself and its bounds
//! are platform's [`Month`].

pub use miclub_platform::calendar::Month;

use crate::error::{AccountsError, Result};

/// The first year a member may browse.
pub const FIRST_YEAR: i32 = 2000;

/// A month a member may ask for: a year from 2000 to next year (in Chile at `now`) and a
/// month from 1 to 12, refused with the Spanish text of the field otherwise.
pub fn requested_month(year: i32, month: i32, now: i64) -> Result<Month> {
    let last_year = Month::containing(now).year() + 1;
    if !(FIRST_YEAR..=last_year).contains(&year) {
        return Err(AccountsError::InvalidField {
            field: "year",
            message: "Elige un año válido.",
        });
    }
    match u32::try_from(month)
        .ok()
        .and_then(|month| Month::new(year, month))
    {
        Some(month) => Ok(month),
        None => Err(AccountsError::InvalidField {
            field: "month",
            message: "Elige un mes válido.",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::instant;
    use super::*;

    #[test]
    fn a_member_may_ask_for_a_month_from_2000_to_next_year() {
        let now = instant("2026-12-31T23:30:00-03:00");
        assert!(requested_month(2000, 1, now).is_ok());
        assert!(requested_month(2027, 12, now).is_ok());
        for (year, month, field, message) in [
            (1999, 12, "year", "Elige un año válido."),
            (2028, 1, "year", "Elige un año válido."),
            (2026, 0, "month", "Elige un mes válido."),
            (2026, 13, "month", "Elige un mes válido."),
            (2026, -1, "month", "Elige un mes válido."),
        ] {
            match requested_month(year, month, now) {
                Err(AccountsError::InvalidField {
                    field: f,
                    message: m,
                }) => {
                    assert_eq!((f, m), (field, message), "{year}-{month}");
                }
                other => panic!("{year}-{month}: {other:?}"),
            }
        }
    }
}
