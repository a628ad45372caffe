//! The Chilean calendar every service counts days and months in: `America/Santiago`, daylight
//! saving included, whatever the server's time zone.
//!
//! A member's "today", the day a purchase counts for, the month their movements are browsed
//! by and the dates they read are all days in Chile. Each function that depends on the clock
//! has an `_at` twin taking the instant, so tests say which moment they mean.

use chrono::{
    DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone, Utc, Weekday,
};
use chrono_tz::Tz;

/// The time zone of the club's calendar.
pub const TIMEZONE: Tz = chrono_tz::America::Santiago;

/// `instant` on the clock of Chile.
pub fn in_chile(instant: DateTime<Utc>) -> DateTime<Tz> {
    instant.with_timezone(&TIMEZONE)
}

/// `millis` (Unix milliseconds) on the clock of Chile; `None` out of chrono's range.
pub fn millis_in_chile(millis: i64) -> Option<DateTime<Tz>> {
    DateTime::from_timestamp_millis(millis).map(in_chile)
}

/// Today's date in Chile.
pub fn today() -> NaiveDate {
    today_at(Utc::now())
}

/// The date in Chile at `now`.
pub fn today_at(now: DateTime<Utc>) -> NaiveDate {
    in_chile(now).date_naive()
}

/// The date in Chile at `millis` (Unix milliseconds); an instant out of range counts as the
/// Unix epoch (31 December 1969 in Chile).
pub fn day_of_millis(millis: i64) -> NaiveDate {
    today_at(DateTime::from_timestamp_millis(millis).unwrap_or_default())
}

/// The day of the week in Chile at `instant`.
pub fn weekday_at(instant: DateTime<Utc>) -> Weekday {
    in_chile(instant).weekday()
}

/// A calendar month in Chile, with its bounds as instants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Month {
    year: i32,
    /// 1..=12
    month: u32,
}

impl Month {
    /// `None` unless `month` is 1 to 12.
    pub fn new(year: i32, month: u32) -> Option<Self> {
        (1..=12).contains(&month).then_some(Self { year, month })
    }

    /// The month `instant` (Unix milliseconds) falls in, in Chile; an instant out of range
    /// counts as the Unix epoch.
    pub fn containing(instant: i64) -> Self {
        let local = in_chile(DateTime::from_timestamp_millis(instant).unwrap_or_default());
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

    /// The last day of the month.
    pub fn last_day(self) -> NaiveDate {
        self.next().first_day().pred_opt().unwrap_or_default()
    }

    fn first_day(self) -> NaiveDate {
        NaiveDate::from_ymd_opt(self.year, self.month, 1).unwrap_or_default()
    }

    /// `day` of this month at `hour`:00 in Chile, Unix milliseconds; a day past the month's
    /// end runs into the next one. An hour skipped by the change to summer time (Chile moves
    /// from midnight to 01:00) is the first instant after the gap.
    pub fn at(self, day: u32, hour: u32) -> i64 {
        let local = self.first_day().and_time(NaiveTime::MIN)
            + Duration::days(i64::from(day.max(1)) - 1)
            + Duration::hours(i64::from(hour));
        let mut probe = local;
        loop {
            match TIMEZONE.from_local_datetime(&probe) {
                LocalResult::Single(instant) | LocalResult::Ambiguous(instant, _) => {
                    return instant.timestamp_millis();
                }
                LocalResult::None => probe += Duration::minutes(30),
            }
        }
    }
}

/// Month names as members read them, January first.
const MONTHS: [&str; 12] = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];

/// The one date format members read, everywhere (web app, messages, emails): "23 de noviembre
/// de 2026". The web app's `formatDate` writes the same.
pub fn member_date(date: NaiveDate) -> String {
    let month = MONTHS[date.month0() as usize];
    format!("{} de {month} de {}", date.day(), date.year())
}

/// `millis` (Unix milliseconds) as a member reads a moment: the day in Chile in
/// [`member_date`]'s format and the time, "23 de noviembre de 2026 a las 21:15"; `None` out of
/// chrono's range.
pub fn member_date_time(millis: i64) -> Option<String> {
    let at = millis_in_chile(millis)?;
    Some(format!(
        "{} a las {}",
        member_date(at.date_naive()),
        at.format("%H:%M")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instant(raw: &str) -> i64 {
        DateTime::parse_from_rfc3339(raw)
            .unwrap()
            .timestamp_millis()
    }

    fn utc(raw: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(raw).unwrap().to_utc()
    }

    #[test]
    fn the_day_changes_at_midnight_in_santiago_not_in_utc() {
        // November is summer time in Chile, UTC-3.
        assert_eq!(
            today_at(utc("2026-11-22T02:59:59Z")),
            NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
        );
        assert_eq!(
            today_at(utc("2026-11-22T03:00:00Z")),
            NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
        );
        assert_eq!(weekday_at(utc("2026-11-03T02:00:00Z")), Weekday::Mon);
        assert_eq!(
            day_of_millis(instant("2026-11-22T02:30:00Z")),
            NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
        );
    }

    #[test]
    fn winter_time_is_four_hours_behind_utc() {
        assert_eq!(
            today_at(utc("2026-07-01T03:59:59Z")),
            NaiveDate::from_ymd_opt(2026, 6, 30).unwrap()
        );
        assert_eq!(
            millis_in_chile(instant("2026-07-01T04:00:00Z"))
                .unwrap()
                .to_rfc3339(),
            "2026-07-01T00:00:00-04:00"
        );
    }

    #[test]
    fn an_instant_out_of_range_has_no_time_in_chile() {
        assert_eq!(millis_in_chile(i64::MAX), None);
        assert_eq!(
            day_of_millis(i64::MAX),
            NaiveDate::from_ymd_opt(1969, 12, 31).unwrap()
        );
    }

    #[test]
    fn two_in_the_morning_utc_on_tuesday_is_still_monday_in_santiago() {
        // November is summer time in Chile, UTC-3.
        let instant = Utc.with_ymd_and_hms(2026, 11, 3, 2, 0, 0).unwrap();
        assert_eq!(instant.weekday(), Weekday::Tue);
        assert_eq!(weekday_at(instant), Weekday::Mon);
    }

    #[test]
    fn the_weekday_changes_at_midnight_in_santiago_not_in_utc() {
        let last_minute = Utc.with_ymd_and_hms(2026, 11, 3, 2, 59, 59).unwrap();
        let next_day = Utc.with_ymd_and_hms(2026, 11, 3, 3, 0, 0).unwrap();
        assert_eq!(weekday_at(last_minute), Weekday::Mon);
        assert_eq!(weekday_at(next_day), Weekday::Tue);
    }

    #[test]
    fn in_winter_santiago_is_four_hours_behind_utc() {
        // 2026-07-07 is a Tuesday; winter time is UTC-4, so 03:30Z is Monday 23:30.
        let instant = Utc.with_ymd_and_hms(2026, 7, 7, 3, 30, 0).unwrap();
        assert_eq!(weekday_at(instant), Weekday::Mon);
        let instant = Utc.with_ymd_and_hms(2026, 7, 7, 4, 0, 0).unwrap();
        assert_eq!(weekday_at(instant), Weekday::Tue);
    }

    proptest::proptest! {
        #[test]
        fn the_chilean_day_is_the_utc_day_or_the_one_before(
            seconds in 0i64..4_102_444_800, // 1970 to 2100
        ) {
            let instant = DateTime::<Utc>::from_timestamp(seconds, 0).unwrap();
            let chile = weekday_at(instant);
            proptest::prop_assert!(chile == instant.weekday() || chile == instant.weekday().pred());
            proptest::prop_assert_eq!(today_at(instant).weekday(), chile);
        }
    }

    #[test]
    fn a_month_is_one_to_twelve() {
        assert!(Month::new(2026, 1).is_some());
        assert!(Month::new(2026, 12).is_some());
        assert_eq!(Month::new(2026, 0), None);
        assert_eq!(Month::new(2026, 13), None);
    }

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
        let june = Month::new(2026, 6).unwrap();
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
    fn the_last_day_of_a_month_knows_leap_years() {
        let day = |year, month| Month::new(year, month).unwrap().last_day();
        assert_eq!(day(2028, 2), NaiveDate::from_ymd_opt(2028, 2, 29).unwrap());
        assert_eq!(day(2026, 2), NaiveDate::from_ymd_opt(2026, 2, 28).unwrap());
        assert_eq!(
            day(2026, 12),
            NaiveDate::from_ymd_opt(2026, 12, 31).unwrap()
        );
    }

    #[test]
    fn members_read_dates_as_day_de_month_de_year_in_chile() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        assert_eq!(member_date(day), "23 de noviembre de 2026");
        assert_eq!(
            member_date(NaiveDate::from_ymd_opt(2027, 1, 5).unwrap()),
            "5 de enero de 2027"
        );
        // 02:30 UTC on 24 November is still the 23rd, 23:30, in Santiago (UTC-3 in summer).
        let late = Utc.with_ymd_and_hms(2026, 11, 24, 2, 30, 0).unwrap();
        assert_eq!(
            member_date_time(late.timestamp_millis()).as_deref(),
            Some("23 de noviembre de 2026 a las 23:30")
        );
    }
}
