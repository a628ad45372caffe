//! The calendar month in Chile a member browses movements by, and its bounds as instants.

use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone};
use chrono_tz::America::Santiago;

use crate::error::{AccountsError, Result};

/// A calendar month in Chile (America/Santiago), the unit a member browses movements by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Month {
    year: i32,
    /// 1..=12
    month: u32,
}

impl Month {
    pub const FIRST_YEAR: i32 = 2000;

    /// A month a member may ask for: a year from 2000 to next year (in Chile at `now`) and a
    /// month from 1 to 12, refused with the Spanish text of the field otherwise.
    pub fn parse(year: i32, month: i32, now: i64) -> Result<Self> {
        let last_year = Self::containing(now).year + 1;
        if !(Self::FIRST_YEAR..=last_year).contains(&year) {
            return Err(AccountsError::InvalidField {
                field: "year",
                message: "Elige un año válido.",
            });
        }
        match u32::try_from(month) {
            Ok(month @ 1..=12) => Ok(Self { year, month }),
            _ => Err(AccountsError::InvalidField {
                field: "month",
                message: "Elige un mes válido.",
            }),
        }
    }

    /// The month `instant` (Unix milliseconds) falls in, in Chile.
    pub fn containing(instant: i64) -> Self {
        let local = DateTime::from_timestamp_millis(instant)
            .unwrap_or_default()
            .with_timezone(&Santiago);
        Self {
            year: local.year(),
            month: local.month(),
        }
    }

    pub fn year(self) -> i32 {
        self.year
    }

    pub fn month(self) -> u32 {
        self.month
    }

    /// The month `count` months before this one.
    pub fn months_before(self, count: u32) -> Self {
        let index = self.year * 12 + self.month as i32 - 1 - count as i32;
        Self {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) as u32 + 1,
        }
    }

    pub fn next(self) -> Self {
        let index = self.year * 12 + self.month as i32;
        Self {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) as u32 + 1,
        }
    }

    /// First instant of the month in Chile, Unix milliseconds.
    pub fn start(self) -> i64 {
        self.at(1, 0)
    }

    /// First instant of the next month: the month is `start() .. end()`.
    pub fn end(self) -> i64 {
        self.next().start()
    }

    /// `day` of this month at `hour`:00 in Chile, Unix milliseconds; a day past the month's
    /// end runs into the next one. An hour skipped by the change to summer time (Chile moves
    /// from midnight to 01:00) is the first instant after the gap.
    pub fn at(self, day: u32, hour: u32) -> i64 {
        let first = NaiveDate::from_ymd_opt(self.year, self.month, 1).unwrap_or_default();
        let local = first.and_time(NaiveTime::MIN)
            + Duration::days(i64::from(day.max(1)) - 1)
            + Duration::hours(i64::from(hour));
        let mut probe = local;
        loop {
            match Santiago.from_local_datetime(&probe) {
                LocalResult::Single(instant) | LocalResult::Ambiguous(instant, _) => {
                    return instant.timestamp_millis();
                }
                LocalResult::None => probe += Duration::minutes(30),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::instant;
    use super::*;

    #[test]
    fn two_in_the_morning_utc_on_the_first_of_november_is_still_october_in_santiago() {
        let october = Month::containing(instant("2026-11-01T02:00:00Z"));
        assert_eq!((october.year(), october.month()), (2026, 10));
        // October ends at midnight in Chile, summer time (UTC-3).
        assert_eq!(october.end(), instant("2026-11-01T03:00:00Z"));
        assert_eq!(october.start(), instant("2026-10-01T00:00:00-03:00"));
        assert_eq!(Month::containing(october.end()).month(), 11);
        assert_eq!(Month::containing(october.end() - 1).month(), 10);
    }

    #[test]
    fn months_follow_chiles_winter_and_summer_time() {
        let june = Month::parse(2026, 6, instant("2026-11-21T12:00:00Z")).unwrap();
        assert_eq!(june.start(), instant("2026-06-01T04:00:00Z"));
        // Summer time starts at midnight on the first Sunday of September: that midnight
        // does not exist, the day starts at 01:00.
        let september = june.next().next().next();
        assert_eq!(september.at(6, 0), instant("2026-09-06T01:00:00-03:00"));
        assert_eq!(september.at(5, 23), instant("2026-09-05T23:00:00-04:00"));
    }

    #[test]
    fn months_count_back_across_years() {
        let january = Month::containing(instant("2026-01-15T12:00:00Z"));
        let december = january.months_before(1);
        assert_eq!((december.year(), december.month()), (2025, 12));
        let before = january.months_before(13);
        assert_eq!((before.year(), before.month()), (2024, 12));
        assert_eq!(december.next(), january);
    }

    #[test]
    fn a_member_may_ask_for_a_month_from_2000_to_next_year() {
        let now = instant("2026-12-31T23:30:00-03:00");
        assert!(Month::parse(2000, 1, now).is_ok());
        assert!(Month::parse(2027, 12, now).is_ok());
        for (year, month, field, message) in [
            (1999, 12, "year", "Elige un año válido."),
            (2028, 1, "year", "Elige un año válido."),
            (2026, 0, "month", "Elige un mes válido."),
            (2026, 13, "month", "Elige un mes válido."),
            (2026, -1, "month", "Elige un mes válido."),
        ] {
            match Month::parse(year, month, now) {
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
